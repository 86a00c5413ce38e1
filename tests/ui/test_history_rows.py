"""History holds one day of rows at a time: the rows on screen go before the next listing is read.

Each visit reads the whole day again. With the rows on screen still held while the new ones were read, a visit's
peak was the day twice over, and it grew with the day; the arena probe of the soak (docs/memory.md) saw the window's
memory rise for good at those reads. The old rows are now let go of in the same turn of the loop as the new ones
are read and shown, so the table is never painted empty.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pos_terminal.api.client import Listing
from pos_terminal.api.models import TransactionRow
from pos_terminal.app import AppHost
from pos_terminal.ui.history_view import HistoryView
from pos_terminal.ui.main_window import MainWindow, Tab
from tests.ui.conftest import finish, screenshot, signed_in_window, until
from tests.ui.test_reports_view import complete_one

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


async def test_a_visit_lets_the_rows_on_screen_go_before_it_reads_the_day_again(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    window = await signed_in_window(host, make_window, client)
    for _ in range(3):
        await complete_one(host, client)
    window.show_tab(Tab.HISTORY)
    history = window.workspace.history
    assert isinstance(history, HistoryView)
    await until(lambda: history.model.rowCount() == 3, what="the three sales listed")

    terminal = host.terminal
    assert terminal is not None
    read = terminal.history.rows_of
    on_screen_at_each_read: list[int] = []

    def rows_of(listing: Listing) -> list[TransactionRow]:
        on_screen_at_each_read.append(history.model.rowCount())
        return read(listing)

    monkeypatch.setattr(terminal.history, "rows_of", rows_of)
    sold = await complete_one(host, client)
    history.load()
    await until(lambda: history.model.rowCount() == 4, what="the fourth sale listed")

    assert on_screen_at_each_read == [0], "the rows on screen are let go of before the day is read again"
    assert history.model.find(sold) is not None
    assert history.current() is not None, "the newest row is chosen, as after every load"
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        screenshot(window, f"history-reloaded-{width}x{height}", tmp_path)
    await finish(window, host)


async def test_a_range_that_ends_before_it_starts_says_what_to_change(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """History said "The report would end before it starts" and "Press Show to try again": it is no report, and
    pressing Show again changed nothing."""
    window = await signed_in_window(host, make_window, client)
    window.show_tab(Tab.HISTORY)
    history = window.workspace.history
    picker = history.range
    picker.preset.setCurrentIndex(picker.preset.findData("custom"))
    picker.end.setDateTime(picker.start.dateTime().addSecs(-3600))
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: "cannot be listed" in history.status.text(), what="the range refused")
    assert history.status.text() == (
        "The transactions cannot be listed: The range ends before it starts. Choose a start before the end."
    )
    assert window.banner.text.text() == "The range ends before it starts. Choose a start before the end."
    await finish(window, host)
