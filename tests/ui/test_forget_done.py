"""A running till lets go of the copies done more than a month ago once its cashier screen is ready, and again
every day, behind the sale (docs/design.md, the journal)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import httpx

from pos_terminal.app import AppHost
from pos_terminal.services.terminal import DONE_KEPT
from pos_terminal.store.journal import Journal, PrintStatus
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
        return {row["title"] for row in window.terminal.journal._read("SELECT title FROM print_job")}

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
