"""The barcode scanner on real widgets: keys fed at a scanner's speed add the product or choose the customer,
wherever the focus is on the cashier's screen; the same keys at a person's speed stay what was typed."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.config import DeviceSettings, Settings, save_settings
from pos_terminal.domain.sale import Phase
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.ui.main_window import MainWindow
from tests.helpers.ui import completed_sale
from tests.ui.conftest import TERMINAL_ID, finish, signed_in_window, until

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

SCANNER_MS = 8  # a keyboard-wedge scanner: a few milliseconds a key
PERSON_MS = 160  # a quick typist
KEEP_CUP = "2000000000046"
KEEP_CUP_UPC = "036000291452"
ZOE_CARD = "M-100777"  # Zoë Ångström, checked in at the demo merchant


class Keyboard:
    """Key presses sent where the focus is, each stamped with its time, as the window system stamps them."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.clock = 1_000_000

    def press(self, key: Qt.Key, text: str = "", gap: int = SCANNER_MS) -> None:
        self.clock += gap
        target = QApplication.focusWidget() or self.window
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            event = QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text)
            event.setTimestamp(self.clock)
            QApplication.sendEvent(target, event)

    def type(self, text: str, gap: int, *, end: Qt.Key | None = Qt.Key.Key_Return, after: int = 1000) -> None:
        """``text`` then ``end``, a key every ``gap`` ms, ``after`` ms after the last key sent."""
        self.clock += after - gap
        for ch in text:
            key = Qt.Key.Key_Minus if ch == "-" else Qt.Key(ord(ch.upper()))
            self.press(key, ch, gap)
        if end is not None:
            self.press(end, "\r" if end == Qt.Key.Key_Return else "\t", gap)


@pytest.fixture
def scanner_host(profile: Paths, sandbox: SandboxServer) -> Callable[..., AppHost]:
    def make(**devices: object) -> AppHost:
        save_settings(profile.config_file, Settings(terminal_id=TERMINAL_ID, devices=DeviceSettings(**devices)))
        return AppHost(profile, service_url=sandbox.url)

    return make


def names(window: MainWindow) -> list[str]:
    return [item.name for item in window.cashier.register.current.check.items]


async def test_a_scan_adds_the_product_whatever_the_focus_and_the_field_keeps_what_it_had(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    cashier, keyboard = window.cashier, Keyboard(window)
    search = cashier.customers.search
    search.setFocus()
    keyboard.type("Zo", PERSON_MS, end=None)
    assert search.text() == "Zo"

    keyboard.type(KEEP_CUP, SCANNER_MS)
    assert names(window) == ["Keep cup"]
    assert search.text() == "Zo", "the customer search keeps what was typed before the scan"

    cashier.ticket.table.setFocus()
    keyboard.type(KEEP_CUP_UPC, SCANNER_MS)  # the same product under its UPC-A
    assert [(i.name, i.quantity) for i in cashier.register.current.check.items] == [("Keep cup", 2)]

    cashier.focus_entry(cashier.keypad_page.cash_input)
    keyboard.type("2000000000015", SCANNER_MS)
    assert names(window) == ["Keep cup", "Bottled water"]
    assert cashier.keypad_page.cash_input.text() == "", "the digits of the scan did not stay in the cash field"
    assert cashier.register.current.check.payments == (), "nor did its Enter take cash"
    await finish(window, host)


async def test_a_scan_after_a_finished_sale_starts_the_next_check(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """At a busy counter each of the next customer's codes was refused ("This check is finished") until Ctrl+N: a
    product scanned, or F3 to find one, starts the next check, as choosing a customer does. A discount has no check
    to go on and is still refused."""
    window = await signed_in_window(host, make_window, client)
    cashier, keyboard = window.cashier, Keyboard(window)
    terminal = host.terminal
    assert terminal is not None
    await completed_sale(window, "Nguyen", "Soup", "8.00")
    QTest.keyClick(window, Qt.Key.Key_F4)
    assert window.banner.text.text().startswith("This check is finished.")

    keyboard.clock = int(time.monotonic() * 1000)  # on from the keys QTest sent, which carry no time of their own
    keyboard.type(KEEP_CUP, SCANNER_MS)
    state = terminal.register.current
    assert state.phase is Phase.BUILDING and state.transaction_id is None and state.customer is None
    assert names(window) == ["Keep cup"]
    assert cashier.entry_tabs.isVisible() and cashier.entry_tabs.isEnabled(), "the entry back where the charge was"
    assert not window.banner.isVisible(), "the finished check's message went with it"

    await completed_sale(window, "Nguyen", "Tea", "4.00")
    QTest.keyClick(window, Qt.Key.Key_F3)
    assert terminal.register.current.phase is Phase.BUILDING and cashier.products.search.hasFocus()
    assert names(window) == []
    await finish(window, host)


async def test_typing_the_same_keys_at_a_persons_speed_stays_typing(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    cashier, keyboard = window.cashier, Keyboard(window)
    cashier.focus_entry(cashier.products.search)
    keyboard.type(KEEP_CUP, PERSON_MS, end=None)
    assert cashier.products.search.text() == KEEP_CUP, "every key went to the field, at once"
    keyboard.press(Qt.Key.Key_Return, "\r", PERSON_MS)
    assert names(window) == [], "typed digits are no scan"
    assert cashier.keypad_page.item_name.text() == KEEP_CUP, (
        "Enter made it an item to type by hand, as for any typed name"
    )

    cashier.customers.search.setFocus()
    keyboard.type("2000000", SCANNER_MS, end=None)
    keyboard.type("000046", PERSON_MS, after=PERSON_MS)  # a fast start, then a person's pace: not a scan
    assert names(window) == []
    assert cashier.customers.search.text() == KEEP_CUP
    await finish(window, host)


async def test_a_scanned_card_chooses_its_customer_and_an_unknown_code_is_one_sentence(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    cashier, keyboard = window.cashier, Keyboard(window)
    model = cashier.customers.model
    await until(lambda: model.row_of("cus-zoe") is not None, what="Zoë in the list")
    cashier.products.search.setFocus()
    keyboard.type("fl", PERSON_MS, end=None)

    keyboard.type(ZOE_CARD, SCANNER_MS)
    current = cashier.register.current.customer
    assert current is not None and current.customer_id == "cus-zoe"
    assert cashier.ticket.customer_text.text().startswith("Zoë Ångström")

    cashier.products.search.setText("fl")
    cashier.products.search.setFocus()
    keyboard.type("4006381333931", SCANNER_MS)
    assert window.banner.isVisible()
    assert "No product and no checked-in customer has the code 4006381333931." in window.banner.text.text()
    assert cashier.products.search.text() == "fl", "the typed search keeps what it had"
    keyboard.type("2000000000047", SCANNER_MS)
    assert "The code 2000000000047 was misread: its check digit is wrong." in window.banner.text.text()
    assert names(window) == []
    await finish(window, host)


async def test_with_a_prefix_only_prefixed_codes_are_scans(
    scanner_host: Callable[..., AppHost], make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    host = scanner_host(scanner_prefix="]C", scanner_suffix="tab")
    window = await signed_in_window(host, make_window, client)
    cashier, keyboard = window.cashier, Keyboard(window)
    cashier.customers.search.setFocus()
    for ch in "]C" + KEEP_CUP:
        keyboard.press(Qt.Key.Key_BracketRight if ch == "]" else Qt.Key(ord(ch)), ch)
    keyboard.press(Qt.Key.Key_Tab, "\t")
    assert names(window) == ["Keep cup"]
    assert cashier.customers.search.text() == ""

    cashier.customers.search.setFocus()
    keyboard.type(KEEP_CUP, SCANNER_MS, end=Qt.Key.Key_Tab)
    assert names(window) == ["Keep cup"], "without its prefix, fast keys are typing"
    await finish(window, host)


async def test_a_scan_counts_only_on_the_cashiers_screen(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    keyboard = Keyboard(window)
    window.tabs.setCurrentWidget(window.workspace.settings_view)
    window.workspace.settings_view.terminal_id.setFocus()
    window.workspace.settings_view.terminal_id.clear()
    keyboard.type(KEEP_CUP, SCANNER_MS)
    assert names(window) == []
    assert window.workspace.settings_view.terminal_id.text() == KEEP_CUP
    await finish(window, host)
