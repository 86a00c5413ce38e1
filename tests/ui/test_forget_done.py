"""A running till lets go of the copies done more than a month ago once its cashier screen is ready, and again
every day, behind the sale (docs/design.md, the journal)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from pos_terminal.app import AppHost
from pos_terminal.journal.journal import FORGET_BATCH, Journal, PrintStatus
from pos_terminal.services.terminal import DONE_KEPT
from pos_terminal.ui.main_window import FORGET_EVERY_MS, MainWindow
from tests.ui.conftest import finish, signed_in_window, until


async def test_slips_printed_a_month_ago_go_when_the_till_is_ready_and_the_day_after(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    def printed(days_ago: float) -> None:
        at = datetime.now(UTC) - timedelta(days=days_ago)
        with Journal(host.paths.journal_file, now=lambda: at) as journal:
            slip = journal.prints.queue(kind="receipt", title=f"{days_ago} days ago", body={})
            journal.prints.finish(slip.id, PrintStatus.PRINTED)

    def titles() -> set[str]:
        assert window.terminal is not None
        return {row["title"] for row in window.terminal.journal.read("SELECT title FROM print_job")}

    printed(DONE_KEPT.days + 9)
    printed(DONE_KEPT.days - 1)
    window = await signed_in_window(host, make_window, client)
    await until(lambda: titles() == {f"{DONE_KEPT.days - 1} days ago"}, what="the month-old slip let go of")
    timer = window._forget_timer
    assert timer.isActive() and timer.interval() == FORGET_EVERY_MS == 86_400_000

    printed(DONE_KEPT.days + 1)  # a day later, the one that was not a month old then is
    timer.timeout.emit()
    await until(lambda: titles() == {f"{DONE_KEPT.days - 1} days ago"}, what="the next day's look")
    await finish(window, host)
    assert not timer.isActive(), "a closed window looks no more"


async def test_a_new_connection_stops_the_letting_go_before_the_old_journal_closes(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, monkeypatch: Any
) -> None:
    """The settings saved while a year of copies is being let go of, and the new address refused: the old terminal's
    journal closes and no new look starts, so the next batch met the journal closed, an unexpected error on the
    cashier's screen."""
    window = await signed_in_window(host, make_window, client)
    await until(lambda: not window.tasks.is_running("forget"), what="the look at ready done")
    old = window.terminal
    assert old is not None
    long_ago = (datetime.now(UTC) - timedelta(days=DONE_KEPT.days + 30)).isoformat()
    with old.journal.writing() as conn:
        conn.executemany(
            "INSERT INTO print_job (kind, title, body, status, created_at, finished_at)"
            " VALUES ('receipt', 'old', '{}', 'printed', ?, ?)",
            [(long_ago, long_ago)] * (200 * FORGET_BATCH),
        )
    unexpected: list[BaseException] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, tb: unexpected.append(value))
    window.forget_done()
    await until(lambda: old.journal.read("SELECT count(*) FROM print_job")[0][0] < 200 * FORGET_BATCH, what="a batch")
    assert window.tasks.is_running("forget")
    host.service_url = "ftp://nowhere"
    window.connect_terminal()
    await until(lambda: not window.tasks.is_running("connect"), what="the connection refused")
    await until(lambda: not window.tasks.is_running("forget"), what="the look ended")
    assert window.terminal is None and host.terminal is None
    assert not unexpected, unexpected
    await finish(window, host)
