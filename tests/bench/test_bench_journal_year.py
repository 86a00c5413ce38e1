"""A till a year old: the journal reads of a charge, of a shift's Z report and of a store till's status bar, on a
journal that holds a year of charges, against the same reads on one that holds a day of them.

Each of those reads looks at the last minutes, the shift or the charges still open, but found them by walking every
charge and state change the till ever made: with 300,000 charges (a busy till's year), the check for a second hold
took 120 ms before every charge, the open charges 840 ms, the Z report 35 s to find its completed checks, and a till
in a store read every record it had shared after each exchange with the store (45 ms). Journal migration 10 gives each
an index (and the Z report's query looks up each transaction's own changes).
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pos_terminal.journal.journal import IntentStatus, Journal
from pos_terminal.journal.staff import ShiftBook
from pos_terminal.journal.store_link import LinkBook
from tests.bench.conftest import Bench

TARGET = 1.5
CI_BOUND = 4.0
CUSTOMERS = ("cus-ava", "cus-liam", "cus-zoe", "cus-li", "cus-noah")
SHIFT = timedelta(hours=8)


DAY = 800  # charges in the last day, in both journals


def journal_of(path: Path, older: int) -> Journal:
    """A journal of a day's charges (:data:`DAY`) and ``older`` ones over the 364 days before: one made through the
    journal's own books, the rest copies of its rows with their own ids and times."""
    now = datetime.now(UTC)
    first = now - timedelta(days=365 if older else 1)
    journal = Journal(path, now=lambda: first)
    check = {"items": [{"id": "a1", "name": "Flat white", "quantity": 2, "unitPrice": 480, "taxRateBp": 1000}]}
    journal.intents.record("ref-0", terminal_id="LANE-1", customer={"customerId": "cus-ava"}, check=check, request={})
    journal.intents.update("ref-0", status=IntentStatus.CREATED, transaction_id="tx-0")
    journal.transactions.remember("tx-0", ref_id="ref-0", state="complete", record={"transactionId": "tx-0"})
    journal.outbox.confirm(journal.outbox.enqueue("tx-0", "complete").id, "complete")
    journal.close()
    times = [first + timedelta(days=364) * n / older for n in range(1, older)] if older else []
    times += [now - timedelta(days=1) + timedelta(days=1) * n / DAY for n in range(DAY)]
    with sqlite3.connect(path) as db:
        intent = db.execute("SELECT * FROM charge_intent").fetchone()
        known = db.execute("SELECT * FROM known_transaction").fetchone()
        change = db.execute("SELECT * FROM outbox").fetchone()
        intents, knowns, changes, shared = [], [], [], []
        for n, moment in enumerate(times, start=1):
            at = moment.isoformat()
            ref, tx = f"pos-{uuid.uuid4().hex}", str(uuid.uuid4())
            customer = f'{{"customerId": "{CUSTOMERS[n % len(CUSTOMERS)]}"}}'
            intents.append((ref, intent[1], customer, *intent[3:6], tx, intent[7], at, at, *intent[10:]))
            knowns.append((tx, ref, known[2], known[3], at, at))
            shared += [(f"{tx}-{entry}", at, at) for entry in ("charge", "complete")]
            changes.append((tx, *change[2:5], at, at, *change[7:]))
        # placeholders only, as many as the table has columns
        db.executemany(f"INSERT INTO charge_intent VALUES ({','.join('?' * len(intent))})", intents)  # noqa: S608
        db.executemany(f"INSERT INTO known_transaction VALUES ({','.join('?' * len(known))})", knowns)  # noqa: S608
        db.executemany(f"INSERT INTO outbox VALUES (NULL, {','.join('?' * (len(change) - 1))})", changes)  # noqa: S608
        db.executemany(  # a till in a store shares each charge's two audit entries, sent as they were made
            "INSERT INTO store_outbox (kind, key, body, created_at, sent_at) VALUES ('audit', ?, '{}', ?, ?)",
            shared,
        )
    db.close()
    return Journal(path)


def reads_of_a_charge(journal: Journal) -> object:
    """What a charge reads before it is sent: the earlier charges of the check's customer that may still hold."""
    return journal.intents.charged_checks("cus-ava", since=datetime.now(UTC) - timedelta(minutes=20))


def reads_of_a_z_report(journal: Journal) -> object:
    """What closing a shift reads from the journal: the charges still open, the checks completed, the refunds and
    cancellations, and the changes not yet confirmed."""
    shifts, until = ShiftBook(journal), datetime.now(UTC)
    since = until - SHIFT
    return (
        journal.intents.authorized_charges(),
        shifts.completed_checks(since, until),
        shifts.confirmed_changes("refunded", since, until),
        shifts.confirmed_changes("canceled", since, until),
        shifts.unconfirmed_at(until),
    )


def reads_of_a_store_status(journal: Journal) -> object:
    """What a till in a store reads after each exchange with it, for the status bar: what waits, what was refused."""
    link = LinkBook(journal)
    return link.waiting_count(), link.refused()


@pytest.fixture(scope="module")
def journals(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[tuple[Journal, Journal]]:
    """A year's journal (300,000 charges; 30,000 in the ordinary suite) and a day's: the same last day in both."""
    folder = tmp_path_factory.mktemp("journals")
    older = 300_000 if request.config.getoption("measure") else 30_000
    year, day = journal_of(folder / "year.sqlite3", older), journal_of(folder / "day.sqlite3", 0)
    yield year, day
    year.close()
    day.close()


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("name", "reads"),
    [
        ("a charge's journal reads", reads_of_a_charge),
        ("a Z report's journal reads", reads_of_a_z_report),
        ("a store status's journal reads", reads_of_a_store_status),
    ],
)
def test_a_year_of_charges_reads_as_fast_as_a_day(
    bench: Bench, journals: tuple[Journal, Journal], name: str, reads: object
) -> None:
    year, day = journals
    assert callable(reads)
    rounds = bench.rounds(measuring=15, smoke=5)
    year_ms, day_ms = bench.interleaved(lambda: reads(year), lambda: reads(day), rounds=rounds)
    bench.hold(
        name,
        measured=("a journal of a year", year_ms),
        baseline=("a journal of a day", day_ms),
        target=TARGET,
        ci_bound=CI_BOUND,
        rounds=rounds,
    )
