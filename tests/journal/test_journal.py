"""The journal: round trips, what survives a crash, and a damaged file's sentence."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pos_terminal.disk.sqlite import DatabaseTooNew, StorageError
from pos_terminal.journal.journal import MIGRATIONS, IntentStatus, Journal, PrintStatus
from pos_terminal.journal.staff import ShiftBook
from pos_terminal.journal.store_link import LinkBook


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def journal(tmp_path: Path, clock: Clock) -> Iterator[Journal]:
    opened = Journal(tmp_path / "journal.sqlite3", now=clock)
    yield opened
    opened.close()


def record(journal: Journal, ref_id: str) -> None:
    journal.intents.record(
        ref_id,
        terminal_id="LANE-1",
        customer={"customerId": "C1"},
        check={"items": [{"name": "Flat white", "cents": 450}]},
        request={"refId": ref_id, "chargeAmount": 450},
    )


def test_a_new_journal_is_at_the_latest_schema(journal: Journal, tmp_path: Path) -> None:
    assert journal.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert journal.integrity_check() == "ok"


def test_open_check_round_trip(journal: Journal) -> None:
    assert journal.open_check.load() is None
    journal.open_check.save({"items": [{"name": "Tea", "cents": 300}]})
    journal.open_check.save({"items": [{"name": "Tea", "cents": 300}, {"name": "Scone", "cents": 500}]})
    assert journal.open_check.load() == {"items": [{"name": "Tea", "cents": 300}, {"name": "Scone", "cents": 500}]}
    assert journal.conn.execute("SELECT count(*) FROM open_check").fetchone()[0] == 1
    journal.open_check.clear()
    assert journal.open_check.load() is None


def test_intent_life(journal: Journal, clock: Clock) -> None:
    record(journal, "ref-1")
    intent = journal.intents.get("ref-1")
    assert intent is not None
    assert intent.status is IntentStatus.RECORDED
    assert intent.check == {"items": [{"name": "Flat white", "cents": 450}]}
    assert intent.request == {"refId": "ref-1", "chargeAmount": 450}
    assert intent.customer == {"customerId": "C1"}
    assert intent.created_at == clock.at and intent.created_at.tzinfo is not None
    assert [i.ref_id for i in journal.intents.unfinished()] == ["ref-1"]

    clock.advance(5)
    journal.intents.update("ref-1", status=IntentStatus.VERIFYING, error="The request timed out.")
    verifying = journal.intents.get("ref-1")
    assert verifying is not None and verifying.status is IntentStatus.VERIFYING
    assert verifying.error == "The request timed out."
    assert verifying.updated_at == clock.at
    assert [i.ref_id for i in journal.intents.unfinished()] == ["ref-1"]

    journal.intents.update("ref-1", status=IntentStatus.CREATED, transaction_id="T-1")
    journal.intents.update("ref-1", status=IntentStatus.CREATED)  # no id given: the known one stays
    created = journal.intents.get("ref-1")
    assert created is not None
    assert (created.status, created.transaction_id, created.error) == (IntentStatus.CREATED, "T-1", None)
    assert journal.intents.unfinished() == []
    assert journal.intents.get("nope") is None


def test_a_ref_id_is_recorded_once(journal: Journal) -> None:
    record(journal, "ref-1")
    with pytest.raises(sqlite3.IntegrityError):
        record(journal, "ref-1")


def test_updating_an_unknown_intent_is_a_bug(journal: Journal) -> None:
    with pytest.raises(KeyError):
        journal.intents.update("missing", status=IntentStatus.FAILED)


def test_failed_intents_since(journal: Journal, clock: Clock) -> None:
    record(journal, "old")
    journal.intents.update("old", status=IntentStatus.FAILED, error="no")
    clock.advance(600)
    horizon = clock.at
    record(journal, "new")
    journal.intents.update("new", status=IntentStatus.FAILED, error="no")
    record(journal, "ok")
    assert [i.ref_id for i in journal.intents.failed(since=horizon)] == ["new"]
    assert [i.ref_id for i in journal.intents.failed(since=horizon - timedelta(hours=1))] == ["old", "new"]


def test_known_transactions(journal: Journal) -> None:
    assert journal.transactions.get("T-1") is None
    journal.transactions.remember(transaction_id="T-1", ref_id="ref-1", state="authorized", record=None)
    journal.transactions.remember(
        transaction_id="T-1", ref_id=None, state="complete", record={"transactionId": "T-1", "state": "complete"}
    )
    journal.transactions.remember(transaction_id="T-1", ref_id=None, state="refunded")
    known = journal.transactions.get("T-1")
    assert known is not None
    assert (known.ref_id, known.state) == ("ref-1", "refunded")
    assert known.record == {"transactionId": "T-1", "state": "complete"}


def test_outbox(journal: Journal) -> None:
    first = journal.outbox.enqueue("T-1", "complete")
    second = journal.outbox.enqueue("T-2", "canceled")
    third = journal.outbox.enqueue("T-3", "refunded")
    assert (first.attempts, first.last_error, first.target_state) == (0, None, "complete")
    assert [e.id for e in journal.outbox.pending()] == [first.id, second.id, third.id]

    journal.outbox.record_attempt(first.id, "The service did not answer.")
    retried = journal.outbox.record_attempt(first.id, "The service is busy.")
    assert (retried.attempts, retried.last_error) == (2, "The service is busy.")

    journal.outbox.confirm(second.id, "canceled")
    journal.outbox.drop(third.id, "The transaction has already been refunded.")
    pending = journal.outbox.pending()
    assert [(e.id, e.attempts) for e in pending] == [(first.id, 2)]
    with pytest.raises(KeyError):
        journal.outbox.confirm(second.id, "canceled")  # already finished


def test_audit(journal: Journal, clock: Clock) -> None:
    start = clock.at
    journal.audit.record("sign-in", actor=None, terminal_id="LANE-1", detail={"how": "token"})
    clock.advance(1)
    journal.audit.record("charge", actor="ann", terminal_id="LANE-1", detail={"refId": "r", "chargeAmount": 450})
    clock.advance(1)
    journal.audit.record("disconnect", terminal_id="LANE-2")
    entries = journal.audit.between(start, clock.at + timedelta(seconds=1))
    assert [e.action for e in entries] == ["sign-in", "charge", "disconnect"]
    assert entries[1].actor == "ann" and entries[1].detail == {"refId": "r", "chargeAmount": 450}
    assert entries[2].detail == {}
    assert entries[0].at == start
    assert [e.action for e in journal.audit.between(start, clock.at)] == ["sign-in", "charge"]  # end excluded
    assert [e.action for e in journal.audit.between(start, clock.at, action="charge")] == ["charge"]
    assert [e.action for e in journal.audit.between(start, clock.at + timedelta(1), terminal_id="LANE-2")] == [
        "disconnect"
    ]


def test_the_last_entry_of_an_action_is_found_by_the_index(journal: Journal, clock: Clock) -> None:
    for terminal in ("LANE-1", "LANE-2", "LANE-1"):
        journal.audit.record("sign-in", terminal_id=terminal, detail={"n": clock.at.second})
        clock.advance(1)
    last = journal.audit.last("sign-in", terminal_id="LANE-1", before=clock.at)
    assert last is not None and last.at == clock.at - timedelta(seconds=1)
    earlier = journal.audit.last("sign-in", terminal_id="LANE-1", before=last.at)  # before: excluded
    assert earlier is not None and earlier.at == clock.at - timedelta(seconds=3)
    assert journal.audit.last("disconnect", terminal_id="LANE-1", before=clock.at) is None
    plan = " ".join(
        str(row[-1])
        for row in journal.conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM audit WHERE action = ? AND terminal_id = ? AND at < ? "
            "ORDER BY at DESC, id DESC LIMIT 1",
            ("sign-in", "LANE-1", "2100"),
        )
    )
    assert "USING INDEX audit_action" in plan, plan


def test_naive_times_are_refused(journal: Journal) -> None:
    with pytest.raises(ValueError, match="timezone"):
        journal.intents.failed(since=datetime(2026, 1, 1))


def test_everything_survives_reopening(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal(path, now=clock) as journal:
        journal.open_check.save({"items": []})
        record(journal, "ref-1")
        entry = journal.outbox.enqueue("T-1", "complete")
        journal.audit.record("charge", detail={"refId": "ref-1"})
    with Journal(path, now=clock) as journal:
        assert journal.integrity_check() == "ok"
        assert journal.open_check.load() == {"items": []}
        assert [i.ref_id for i in journal.intents.unfinished()] == ["ref-1"]
        assert [e.id for e in journal.outbox.pending()] == [entry.id]


def test_writes_survive_a_process_that_dies_without_closing(tmp_path: Path) -> None:
    """Each write is committed before returning: a killed process loses nothing it was told was written."""
    path = tmp_path / "journal.sqlite3"
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from pos_terminal.journal.journal import Journal
        journal = Journal(Path({str(path)!r}))
        for n in range(50):
            journal.intents.record(
                f"ref-{{n}}", terminal_id="LANE-1", customer={{}}, check={{"n": n}}, request={{"refId": f"ref-{{n}}"}}
            )
            journal.open_check.save({{"n": n}})
            journal.outbox.enqueue(f"T-{{n}}", "complete")
        os._exit(0)  # no close, no checkpoint: the rows are only in the write-ahead log
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    with Journal(path) as journal:
        assert journal.integrity_check() == "ok"
        assert len(journal.intents.unfinished()) == 50
        assert len(journal.outbox.pending()) == 50
        assert journal.open_check.load() == {"n": 49}


def test_a_damaged_file_is_named_in_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"\x00garbage" * 512)
    with pytest.raises(StorageError) as caught:
        Journal(path)
    sentence = caught.value.sentence
    assert str(path) in sentence
    assert sentence.count(".") >= 1 and "\n" not in sentence


def test_a_journal_from_a_newer_terminal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    with pytest.raises(DatabaseTooNew) as caught:
        Journal(path)
    assert str(path) in caught.value.sentence


def test_close_twice_is_harmless(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    journal.close()
    journal.close()
    with pytest.raises(RuntimeError):
        journal.outbox.pending()


# --- a journal someone or something damaged: one sentence, never a traceback -------------------------------


def tamper(path: Path, *statements: str) -> None:
    """Change the file behind the terminal's back (a hand edit, a bad restore, another program)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA ignore_check_constraints = ON")
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def test_a_journal_missing_a_table_is_refused_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal(path).close()
    tamper(path, "DROP TABLE outbox")
    with pytest.raises(StorageError, match=r"journal\.sqlite3 has lost its table “outbox”") as caught:
        Journal(path)
    assert "move the file aside" in caught.value.text()


@pytest.mark.parametrize(
    ("statement", "says"),
    [
        ("UPDATE charge_intent SET customer = '{not json'", "customer is not valid JSON"),
        ("UPDATE charge_intent SET check_body = '[1, 2]'", "check_body is not a JSON object"),
        ("UPDATE charge_intent SET created_at = 'yesterday'", "created_at is not a time"),
        ("UPDATE charge_intent SET status = 'lost'", "status is not one the terminal knows"),
        ("UPDATE charge_intent SET request = '" + "[" * 5000 + "]" * 5000 + "'", "request nests"),
    ],
    ids=["bad-json", "not-an-object", "bad-time", "bad-status", "deep-nesting"],
)
def test_a_damaged_intent_is_named_in_one_sentence(journal: Journal, tmp_path: Path, statement: str, says: str) -> None:
    record(journal, "pos-1")
    tamper(journal.path, statement)
    with pytest.raises(StorageError) as caught:
        journal.intents.get("pos-1")
    sentence = caught.value.sentence
    assert "journal.sqlite3" in sentence and "charge pos-1" in sentence and says in sentence, sentence


@pytest.mark.parametrize(
    ("statement", "read", "says"),
    [
        ("UPDATE outbox SET target_state = 'shipped'", "pending", "target_state is not one the terminal knows"),
        ("UPDATE outbox SET created_at = '2026-13-45'", "pending", "created_at is not a time"),
        ("UPDATE known_transaction SET state = 'weird'", "known", "state is not one the terminal knows"),
        ("UPDATE known_transaction SET record = 'null'", "known", "record is not a JSON object"),
        ("UPDATE audit SET detail = '\"text\"'", "audit", "detail is not a JSON object"),
        ("UPDATE open_check SET body = x'ff00'", "check", "body is not UTF-8 text"),
    ],
    ids=["bad-target", "bad-time", "bad-state", "null-record", "text-detail", "binary-body"],
)
def test_a_damaged_row_is_named_in_one_sentence(
    journal: Journal, clock: Clock, statement: str, read: str, says: str
) -> None:
    journal.open_check.save({"items": []})
    journal.outbox.enqueue("tx-1", "complete")
    journal.transactions.remember("tx-1", ref_id="pos-1", state="authorized", record={"state": "authorized"})
    journal.audit.record("charge", detail={"refId": "pos-1"})
    tamper(journal.path, statement)
    reads = {
        "pending": journal.outbox.pending,
        "known": lambda: journal.transactions.get("tx-1"),
        "audit": lambda: journal.audit.between(clock.at - timedelta(hours=1), clock.at + timedelta(hours=1)),
        "check": journal.open_check.load,
    }
    with pytest.raises(StorageError) as caught:
        reads[read]()
    assert "journal.sqlite3" in caught.value.sentence and says in caught.value.sentence, caught.value.sentence


def test_known_states_are_read_and_moved_in_one_go(journal: Journal) -> None:
    for n in range(3):
        journal.transactions.remember(f"tx-{n}", ref_id=f"pos-{n}", state="authorized", record={"created": "x"})
    assert journal.transactions.states(["tx-0", "tx-2", "tx-unknown"]) == {"tx-0": "authorized", "tx-2": "authorized"}
    journal.transactions.update_states({"tx-0": "complete", "tx-2": "canceled", "tx-unknown": "complete"})
    assert journal.transactions.states(["tx-0", "tx-1", "tx-2"]) == {
        "tx-0": "complete",
        "tx-1": "authorized",
        "tx-2": "canceled",
    }
    known = journal.transactions.get("tx-0")
    assert known is not None and known.record == {"created": "x"}, "a listing moves the state, the record stays"
    assert journal.transactions.get("tx-unknown") is None, "a transaction of another terminal is not learned"


def test_charged_checks_are_those_that_may_still_hold_the_money(journal: Journal, clock: Clock) -> None:
    """A check charged and completed (or canceled) is not read again before the next charge of the customer."""
    since = clock() - timedelta(minutes=1)
    for n, state in enumerate(("authorized", "complete", "canceled", None)):
        ref_id = f"ref-{n}"
        record(journal, ref_id)
        journal.intents.update(ref_id, status=IntentStatus.CREATED, transaction_id=f"T-{n}")
        if state is not None:
            journal.transactions.remember(transaction_id=f"T-{n}", ref_id=ref_id, state=state, record=None)
    with journal.writing():  # one transaction may hold several books' writes; another customer's charge
        journal.intents.record("ref-9", terminal_id="LANE-1", customer={"customerId": "C2"}, check={}, request={})
        journal.intents.update("ref-9", status=IntentStatus.CREATED, transaction_id="T-9")
    assert [t for t, _ in journal.intents.charged_checks("C1", since=since)] == ["T-0", "T-3"]
    assert [t for t, _ in journal.intents.charged_checks("C2", since=since)] == ["T-9"]


def test_writes_kept_together_are_rolled_back_together(journal: Journal) -> None:
    """An intent and its audit entry written in one ``writing()``: a failure between them keeps neither."""

    def charge_then_fail() -> None:
        with journal.writing():
            record(journal, "ref-lost")
            journal.audit.record("charge", detail={"refId": "ref-lost"})
            raise RuntimeError("the disk went away")

    with pytest.raises(RuntimeError):
        charge_then_fail()
    assert journal.intents.get("ref-lost") is None
    assert journal.audit.all() == []
    record(journal, "ref-kept")  # the journal writes on as before
    assert journal.intents.get("ref-kept") is not None


def test_what_a_shift_reads_means_the_same_found_by_its_indexes(journal: Journal, clock: Clock) -> None:
    """A check completes when its first complete is confirmed (a repeat confirmed later counts in no later shift);
    the open charges are those last known as authorized; the changes not confirmed at a moment are those queued
    before it and finished after it, or not yet."""
    shifts, start = ShiftBook(journal), clock.at
    for ref, tx in (("ref-a", "tx-a"), ("ref-b", "tx-b"), ("ref-c", "tx-c")):
        record(journal, ref)
        journal.intents.update(ref, status=IntentStatus.CREATED, transaction_id=tx)
        journal.transactions.remember(tx, ref_id=ref, state="authorized")
    first = journal.outbox.enqueue("tx-a", "complete")
    clock.advance(60)
    journal.outbox.confirm(first.id, "complete")
    journal.transactions.remember("tx-a", ref_id="ref-a", state="complete")
    clock.advance(30)
    middle = clock.at
    clock.advance(30)
    again = journal.outbox.enqueue("tx-a", "complete")  # sent again after a restart: confirmed a second time
    journal.outbox.confirm(again.id, "complete")
    waiting = journal.outbox.enqueue("tx-b", "complete")
    clock.advance(60)

    assert [r.transaction_id for r in shifts.completed_checks(start, middle)] == ["tx-a"]
    assert shifts.completed_checks(middle, clock.at) == [], "a repeat completes nothing a second time"
    assert journal.intents.authorized_charges() == ["tx-b", "tx-c"]
    assert shifts.unconfirmed_at(middle) == 0
    assert shifts.unconfirmed_at(clock.at) == 1 and journal.outbox.is_pending(waiting.id)
    assert shifts.unconfirmed_at(start + timedelta(seconds=30)) == 1, "the first complete, not yet confirmed then"


def test_copies_sent_or_printed_a_month_ago_are_let_go_and_nothing_else(journal: Journal, clock: Clock) -> None:
    """What the store took and the slips printed or canceled before the cutoff go; what waits, what the store
    refused, a slip still queued and everything done since stay, whatever their age."""
    link = LinkBook(journal)
    link.join("postgresql://till@store/shop", "LANE-1", [("audit", f"old-{n}", {"n": n}) for n in range(5)])
    old = link.waiting()
    link.sent_many([entry.id for entry in old[:3]])
    link.refuse(old[3].id, "Another till took that name first.")
    printed, canceled, stuck = (journal.prints.queue(kind="receipt", title=f"old {n}", body={}) for n in range(3))
    journal.prints.finish(printed.id, PrintStatus.PRINTED)
    journal.prints.finish(canceled.id, PrintStatus.CANCELED)
    cutoff = clock() + timedelta(seconds=1)
    clock.advance(2)
    with journal.writing():
        journal.share("audit", "new", {"n": 9})
    link.sent_many([entry.id for entry in link.waiting() if entry.key == "new"])
    recent = journal.prints.queue(kind="receipt", title="new", body={})
    journal.prints.finish(recent.id, PrintStatus.PRINTED)

    assert link.forget_sent(cutoff, limit=2) == 2  # a batch at a time, oldest first
    assert link.forget_sent(cutoff, limit=2) == 1
    assert link.forget_sent(cutoff, limit=2) == 0
    assert journal.prints.forget_finished(cutoff, limit=10) == 2
    assert journal.prints.forget_finished(cutoff, limit=10) == 0

    kept = {row["key"] for row in journal.read("SELECT key FROM store_outbox")}
    assert kept == {"old-3", "old-4", "new"}  # refused, still waiting, sent after the cutoff
    assert [entry.key for entry in link.waiting()] == ["old-4"]
    assert [r.key for r in link.refused()] == ["old-3"]
    assert {row["title"] for row in journal.read("SELECT title FROM print_job")} == {"old 2", "new"}
    assert [job.id for job in journal.prints.queued()] == [stuck.id]
