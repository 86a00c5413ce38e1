"""A scan is a scan wherever the focus is on the cashier's screen: the scanner's keys, sent as a keyboard wedge
sends them (Shift pressed and released around each capital, every key through the window's shortcuts), reach the
scanner's handling before any shortcut or line key. A card scanned while the check's lines had the focus took an
item off the check ("-" was the lines' "one less"), and a second capital's Shift ended the scan ("KR-55821" read as
"R-55821")."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from pos_terminal.app import AppHost
from pos_terminal.config import DeviceSettings, Settings, save_settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.ui.main_window import MainWindow
from tests.conftest import new_checked_in_customer
from tests.ui.conftest import TERMINAL_ID, finish, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit, QWidget

KEEP_CUP = "2000000000046"
WATER = "2000000000015"
ZOE_CARD = "M-100777"
KIRA_CARD = "KR-55821"  # two capitals: a Shift before each


class Wedge:
    """A keyboard-wedge scanner as the window system delivers it: each key through the shortcut map, then to the
    widget in focus (QTest's path), a capital between a Shift press and its release, the suffix last. The keys
    follow each other at once, as a scanner's do (they carry no time: the scanner reads the clock)."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def target(self) -> QWidget:
        return QApplication.focusWidget() or self.window

    def scan(self, code: str, end: Qt.Key = Qt.Key.Key_Return) -> None:
        shift = Qt.KeyboardModifier.ShiftModifier
        for ch in code:
            if ch.isupper():
                QTest.keyPress(self.target(), Qt.Key.Key_Shift, shift)
                QTest.keyClick(self.target(), ch, shift)
                QTest.keyRelease(self.target(), Qt.Key.Key_Shift)
            else:
                QTest.keyClick(self.target(), ch)
        QTest.keyClick(self.target(), end)


def lines(window: MainWindow) -> list[tuple[str, int]]:
    return [(item.name, item.quantity) for item in window.cashier.register.current.check.items]


def places(window: MainWindow) -> dict[str, tuple[QWidget, Callable[[], None]]]:
    """Every place the focus can be on the cashier's screen, with how it gets there."""
    cashier = window.cashier
    page, ticket, products = cashier.keypad_page, cashier.ticket, cashier.products

    def on_products(widget: QWidget) -> Callable[[], None]:
        def go() -> None:
            cashier.entry_tabs.setCurrentWidget(products)
            widget.setFocus()

        return go

    def on_keypad(widget: QWidget) -> Callable[[], None]:
        def go() -> None:
            cashier.entry_tabs.setCurrentWidget(page)
            widget.setFocus()

        return go

    def the_lines() -> None:
        row = ticket.lines.row_of(cashier.register.current.check.items[0].id)
        assert row is not None
        ticket.table.selectRow(row)  # Keep cup, two of them
        ticket.table.setFocus()

    found = {
        "the customer search": (cashier.customers.search, cashier.customers.search.setFocus),
        "the customer list": (cashier.customers.table, cashier.customers.table.setFocus),
        "the refresh button": (cashier.customers.refresh_button, cashier.customers.refresh_button.setFocus),
        "the product search": (products.search, on_products(products.search)),
        "a tile": (products.tiles[0], on_products(products.tiles[0])),
        "a category": (products.category_group.buttons()[0], on_products(products.category_group.buttons()[0])),
        "the tabs": (cashier.entry_tabs.tabBar(), on_products(cashier.entry_tabs.tabBar())),
        "the check's lines": (ticket.table, the_lines),
        "the less button": (ticket.less_button, ticket.less_button.setFocus),
        "the charge button": (ticket.charge_button, ticket.charge_button.setFocus),
    }
    for name, field in {
        "the item's name": page.item_name,
        "the item's price": page.item_price,
        "the quantity": page.item_quantity,
        "the tax": page.item_tax,
        "the add item button": page.add_item_button,
        "the discount": page.discount_input,
        "the cash taken": page.cash_input,
    }.items():
        found[name] = (field, on_keypad(field))
    return found


def text_of(widget: QWidget) -> str | None:
    if isinstance(widget, QLineEdit | QAbstractSpinBox):
        return widget.text()
    return None


async def test_cards_and_codes_are_read_from_every_place_and_no_line_changes_but_the_scanned_products(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    kira = new_checked_in_customer(client, firstName="Kira", lastName="Roth", memberNo=KIRA_CARD)
    window = await signed_in_window(host, make_window, client, listing=kira)
    cashier, wedge = window.cashier, Wedge(window)
    await until(lambda: cashier.customers.model.row_of("cus-zoe") is not None, what="Zoë in the list")
    wedge.scan(KEEP_CUP)
    wedge.scan(KEEP_CUP)
    assert lines(window) == [("Keep cup", 2)]

    for waters, (place, (widget, go)) in enumerate(places(window).items(), start=1):
        for card, customer_id in ((KIRA_CARD, kira["customerId"]), (ZOE_CARD, "cus-zoe")):
            go()
            assert QApplication.focusWidget() is widget, f"the focus on {place}"
            before = text_of(widget)
            wedge.scan(card)
            chosen = cashier.register.current.customer
            assert chosen is not None and chosen.customer_id == customer_id, f"{card} scanned from {place}"
            expected = [("Keep cup", 2)] + ([("Bottled water", waters - 1)] if waters > 1 else [])
            assert lines(window) == expected, f"{card} scanned from {place} changed no line"
            assert text_of(widget) == before, f"{place} kept what it had"
            assert not window.banner.isVisible(), f"{card} from {place}: {window.banner.text.text()}"
        go()
        wedge.scan(WATER)
        assert lines(window) == [("Keep cup", 2), ("Bottled water", waters)], f"the water scanned from {place}"
        assert text_of(widget) == before, f"{place} kept what it had"
    assert cashier.register.current.check.discounts == () and cashier.register.current.check.payments == ()
    await finish(window, host)


async def test_a_card_with_two_capitals_is_read_whole_and_leaves_the_search_empty(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    kira = new_checked_in_customer(client, firstName="Kira", lastName="Roth", memberNo=KIRA_CARD)
    window = await signed_in_window(host, make_window, client, listing=kira)
    cashier = window.cashier
    cashier.customers.search.setFocus()
    Wedge(window).scan(KIRA_CARD)
    chosen = cashier.register.current.customer
    assert chosen is not None and chosen.customer_id == kira["customerId"]
    assert cashier.customers.search.text() == ""
    assert not window.banner.isVisible(), window.banner.text.text()
    await finish(window, host)


async def test_the_line_keys_still_work_when_typed(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """A person's "-" and "+" on the lines change the line selected, at once."""
    window = await signed_in_window(host, make_window, client)
    cashier, wedge = window.cashier, Wedge(window)
    wedge.scan(KEEP_CUP)
    cashier.ticket.table.setFocus()
    QTest.keyClick(cashier.ticket.table, Qt.Key.Key_Plus)
    QTest.keyClick(cashier.ticket.table, Qt.Key.Key_Plus)
    assert lines(window) == [("Keep cup", 3)]
    QTest.keyClick(cashier.ticket.table, "-")
    assert lines(window) == [("Keep cup", 2)]

    # "5" may begin a scan: it is held, and "-" right after it with it; a pause shows they were typed
    QTest.keyClick(cashier.ticket.table, "5")
    QTest.keyClick(cashier.ticket.table, "-")
    assert lines(window) == [("Keep cup", 2)]
    await until(lambda: lines(window) == [("Keep cup", 1)], what="the held '-' given back to the lines")
    await finish(window, host)


async def test_with_a_prefix_and_a_tab_a_card_from_the_lines_is_read(
    profile: Paths, sandbox: SandboxServer, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    devices = DeviceSettings(scanner_prefix="]C", scanner_suffix="tab")
    save_settings(profile.config_file, Settings(terminal_id=TERMINAL_ID, devices=devices))
    host = AppHost(profile, service_url=sandbox.url)
    window = await signed_in_window(host, make_window, client)
    cashier, wedge = window.cashier, Wedge(window)
    await until(lambda: cashier.customers.model.row_of("cus-zoe") is not None, what="Zoë in the list")
    wedge.scan("]C" + KEEP_CUP, end=Qt.Key.Key_Tab)
    wedge.scan("]C" + KEEP_CUP, end=Qt.Key.Key_Tab)
    cashier.ticket.table.selectRow(0)
    cashier.ticket.table.setFocus()
    wedge.scan("]C" + ZOE_CARD, end=Qt.Key.Key_Tab)
    chosen = cashier.register.current.customer
    assert chosen is not None and chosen.customer_id == "cus-zoe"
    assert lines(window) == [("Keep cup", 2)]
    await finish(window, host)
