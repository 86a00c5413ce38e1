"""A till lets go of the copies nobody reads again, a month after they were done: the records the store database
took and the slips printed. Its sales, its audit log and the store's copies stay."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pos_terminal.journal.journal import PrintStatus
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.terminal import DONE_KEPT, Terminal
from tests.helpers.services import rows
from tests.services.conftest import FakeClock
from tests.store.postgres import StoreTarget


@pytest.fixture
def store(tmp_path: Path) -> Iterator[StoreTarget]:
    target = StoreTarget("sqlite", f"sqlite:///{tmp_path / 'store.sqlite3'}")
    target.open().init_schema()
    yield target
    target.close_all()


def count(terminal: Terminal, sql: str) -> int:
    return int(terminal.journal.read(sql)[0][0])


async def test_a_running_till_lets_go_of_what_was_sent_or_printed_a_month_ago(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], terminal_clock: FakeClock, store: StoreTarget
) -> None:
    terminal: Terminal = await open_terminal(sandbox)
    await terminal.store.join(store.url, None)
    for n in range(3):
        terminal.journal.audit.record("drawer opened", actor="Ana", detail={"n": n})
    await terminal.store.sync()
    slip = terminal.journal.prints.queue(kind="receipt", title="Receipt", body={"lines": []})
    terminal.journal.prints.finish(slip.id, PrintStatus.PRINTED)
    sent_a_month_ago = count(terminal, "SELECT count(*) FROM store_outbox")
    terminal_clock.advance((DONE_KEPT.total_seconds()) + 3600)
    terminal.journal.audit.record("drawer opened", actor="Ana", detail={"n": "today"})
    await terminal.store.sync()
    terminal.journal.audit.record("drawer opened", actor="Ana", detail={"n": "still to send"})
    audit_before = len(terminal.journal.audit.all())

    forgotten = await terminal.forget_all_done()
    assert count(terminal, "SELECT count(*) FROM print_job") == 0, "the slip printed a month ago is let go of"
    assert count(terminal, "SELECT count(*) FROM store_outbox WHERE sent_at IS NOT NULL") == 1  # today's
    assert terminal.store.status().waiting == 1  # what waits is never let go of
    assert forgotten == sent_a_month_ago + 1
    assert await terminal.forget_all_done() == 0
    assert sent_a_month_ago >= 3
    assert len(terminal.journal.audit.all()) == audit_before  # the till's own records stay
    await terminal.store.sync()
    assert len(rows(store, "audit")) == audit_before  # and the store keeps its copies
