"""Opening a terminal whose journal holds a year of audit entries, against one whose journal is new.

Every start looked for the terminal's last sign-in and disconnect (whether a sign-in kept by a release before 0.2
may move to this profile) by reading the whole audit log: 700,000 entries, a year of a busy till, cost 200 ms a
start, and the cost grew with every day. The lookup is now asked only when no sign-in is stored, and then it reads
an index (journal migration 9). Measured signed out, so the lookup runs: before the change, 100,000 entries made
the opening 14 times slower than a new journal's.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pos_terminal.config import Settings
from pos_terminal.journal.journal import Journal
from pos_terminal.paths import Paths
from pos_terminal.services.terminal import ServiceAddress, Terminal
from tests.bench.conftest import Bench
from tests.keyrings import MemoryKeyring

TARGET = 1.5
CI_BOUND = 4.0
ACTIONS = ("charge", "complete", "person signed in", "refund", "print", "sign-in")


def profile(root: Path, entries: int) -> Paths:
    """A profile whose journal holds ``entries`` audit entries, 40 s apart, ending now; a sign-in among them."""
    paths = Paths.profile(root).ensure()
    Journal(paths.journal_file).close()  # made by the terminal's own migrations
    start = datetime.now(UTC) - timedelta(seconds=40 * entries)
    rows = (
        (
            (start + timedelta(seconds=40 * n)).isoformat(),
            ACTIONS[n % len(ACTIONS)] if n % 1000 else "sign-in",
            "Ana",
            "LANE-1",
            "{}",
            f"uid-{n}",
        )
        for n in range(entries)
    )
    with sqlite3.connect(paths.journal_file) as journal:
        journal.executemany(
            "INSERT INTO audit (at, action, actor, terminal_id, detail, uid) VALUES (?, ?, ?, ?, ?, ?)", rows
        )
    journal.close()
    return paths


def opened_and_closed(paths: Paths) -> None:
    async def run() -> None:
        service = ServiceAddress.from_root("http://127.0.0.1:9", name="sandbox", account="service:x", production=False)
        terminal = Terminal(paths, Settings(terminal_id="LANE-1"), service)
        await terminal.aclose()

    asyncio.run(run())


@pytest.mark.timeout(300)
def test_a_year_of_audit_entries_does_not_slow_a_start(
    bench: Bench, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    entries = 700_000 if bench.measuring else 100_000
    new, old = profile(tmp_path / "new", 0), profile(tmp_path / "old", entries)
    rounds = bench.rounds(measuring=15, smoke=5)
    old_ms, new_ms = bench.interleaved(lambda: opened_and_closed(old), lambda: opened_and_closed(new), rounds=rounds)
    bench.hold(
        "a terminal opened on a year's audit log",
        measured=(f"Terminal(), {entries:,} entries", old_ms),
        baseline=("the same on a new journal", new_ms),
        target=TARGET,
        ci_bound=CI_BOUND,
        rounds=rounds,
    )
    assert not memory_keyring.secrets, "signed out: the lookup of an earlier sign-in ran each time"
