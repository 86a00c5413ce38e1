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
from pos_terminal.ui.main_window import MainWindow
from tests.ui.conftest import TERMINAL_ID, finish, screenshot, signed_in_window

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


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
