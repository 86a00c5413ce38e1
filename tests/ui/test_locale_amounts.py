"""A German till shows and takes amounts as German writes them: "0,00" in the price field, a "," on the numpad,
and "for example 12,50" when an amount cannot be read. The examples said "0.00" and "5.00" whatever the locale."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.config import Settings, save_settings
from pos_terminal.paths import Paths
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
from pos_terminal.ui.main_window import MainWindow
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import closed_with_z_report, completed_sale
from tests.ui.conftest import TERMINAL_ID, finish, screenshot, signed_in_window, until
from tests.ui.layout import cut_text

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


@pytest.fixture
def profile(tmp_path: Path) -> Paths:
    """A till in Germany (conftest's profile, in de_DE and euros)."""
    paths = Paths.profile(tmp_path / "profile").ensure()
    save_settings(paths.config_file, Settings(terminal_id=TERMINAL_ID, locale="de_DE", currency="EUR"))
    return paths


async def test_a_german_till_shows_and_takes_amounts_as_german_writes_them(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    cashier, page = window.cashier, window.cashier.keypad_page
    assert page.item_price.placeholderText() == "0,00"
    assert page.discount_input.placeholderText().startswith("5,00 or 10%")
    decimal = page.keypad.keys["."]
    assert decimal.text() == ","

    cashier.focus_entry(page.item_name)
    QTest.keyClicks(page.item_name, "Geschenkpapier")
    page.item_price.setFocus()
    for key in ("3", ".", "5"):
        QTest.mouseClick(page.keypad.keys[key], Qt.MouseButton.LeftButton)
    assert page.item_price.text() == "3,5", "the numpad types the locale's decimal mark"
    QTest.mouseClick(page.keypad.keys["Enter"], Qt.MouseButton.LeftButton)
    assert cashier.ticket.lines.rowCount() == 1
    assert cashier.register.current.check.items[0].unit_price == 350

    page.cash_input.setText("2OO")
    QTest.mouseClick(page.add_cash_button, Qt.MouseButton.LeftButton)
    assert window.banner.text.text() == "“2OO” is not an amount. Type it again, for example 12,50."
    assert cashier.ticket.lines.rowCount() == 1, "the check stays as it was"
    page.setFocus()
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        screenshot(window, f"keypad-de_DE-{width}x{height}", tmp_path)
    await finish(window, host)


async def test_a_german_z_report_shows_its_figures_whole_at_1024x768(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """The report's half of the page had the width of its title: after the day's long title, a shift's short one
    let the splitter give the preview the room, and the Z report's figures scrolled sideways, their row cut."""
    customer = new_checked_in_customer(client, firstName="Greta", lastName="Zahl", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    window.resize(1024, 768)
    await completed_sale(window, "Greta Zahl", "Brezel", "4,80", cash="1,80")

    QTest.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    reports = window.workspace.reports
    QTest.mouseClick(reports.show_button, Qt.MouseButton.LeftButton)
    await until(lambda: reports.paper is not None and not reports.tasks.busy, what="the day's report", timeout=60)
    assert cut_text(window, reports.table) == []

    QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    shifts = window.workspace.shifts
    QTest.mouseClick(shifts.close_button, Qt.MouseButton.LeftButton)
    dialog = window.approvals.close_dialog
    assert isinstance(dialog, CloseShiftDialog)
    QTest.keyClicks(dialog.typed_total, "201,80")
    await closed_with_z_report(window, dialog)
    QApplication.processEvents()
    assert reports.model.figure(0, "total") == "4,80\xa0€"
    screenshot(window, "z-report-de_DE-1024x768", tmp_path)
    assert cut_text(window, reports.drawer, reports.table, reports.reconciliation) == []
    await finish(window, host)
