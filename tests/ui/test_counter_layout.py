"""The cashier's screen at the sizes counters have, 1024×768 to 1920×1080, light and dark: nothing clipped.

Every control of the sale (customers, products, keypad, ticket, totals, the big button, the status of a
charge) lies within the window and has room for its own text. The pictures in docs/screenshots are made
here (``POS_TERMINAL_SCREENSHOTS=docs/screenshots``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.domain.sale import Phase
from pos_terminal.ui.main_window import MainWindow
from pos_terminal.ui.theme import Scheme, apply_theme
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import choose
from tests.ui.conftest import finish, screenshot, signed_in_window, until
from tests.ui.layout import clipped

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton

SIZES = [(1024, 768), (1280, 800), (1920, 1080)]


def sale_parts(window: MainWindow) -> tuple[MainWindow, ...]:
    return (window,)


def tile(window: MainWindow, name: str) -> QPushButton:
    return next(t for t in window.cashier.products.tiles if window.cashier.products.entries[t].name == name)


async def a_check_with_everything(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> MainWindow:
    """A member with a long name, three products, a typed item, a discount and some cash: every row in use."""
    customer = new_checked_in_customer(
        client, firstName="Zoë", lastName="Ångström-Wiśniewska", memberNo="M-20417", balance=80_000
    )
    window = await signed_in_window(host, make_window, client, listing=customer)
    choose(window, "wisniewska")
    for name in ("Flat white", "Flat white", "Ham & cheese toastie", "Crème brûlée"):
        QTest.mouseClick(tile(window, name), Qt.MouseButton.LeftButton)
    cashier = window.cashier
    cashier.focus_entry(cashier.keypad_page.discount_input)
    QTest.keyClicks(cashier.keypad_page.discount_input, "10%")
    QTest.keyClick(cashier.keypad_page.discount_input, Qt.Key.Key_Return)
    QTest.keyClicks(cashier.keypad_page.cash_input, "5")
    QTest.keyClick(cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    cashier.entry_tabs.setCurrentIndex(0)
    return window


@pytest.mark.parametrize("scheme", [Scheme.LIGHT, Scheme.DARK])
async def test_nothing_of_the_sale_is_clipped_from_1024x768_to_1920x1080(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    tmp_path: Path,
    qapp: QApplication,
    scheme: Scheme,
) -> None:
    apply_theme(qapp, scheme)
    try:
        window = await a_check_with_everything(host, make_window, client)
        cashier = window.cashier
        for width, height in SIZES:
            window.resize(width, height)
            await until(lambda w=width, h=height: (window.width(), window.height()) == (w, h), what="the size")
            QApplication.processEvents()
            assert clipped(window) == [], f"at {width}x{height}"
            assert cashier.ticket.charge_button.isVisible() and cashier.ticket.charge_button.isEnabled()
            shown = cashier.products.visible_entries()
            assert len(shown) == len(cashier.products.catalog), "every product, scrolling where needed"
            screenshot(window, f"cashier-{width}x{height}-{scheme}", tmp_path)
            cashier.entry_tabs.setCurrentIndex(1)
            assert clipped(window) == [], f"the keypad at {width}x{height}"
            if width == SIZES[0][0]:
                screenshot(window, f"cashier-keypad-{scheme}", tmp_path)
            cashier.entry_tabs.setCurrentIndex(0)

        window.resize(*SIZES[0])
        QTest.keyClick(window, Qt.Key.Key_F8)
        assert host.terminal is not None
        await until(lambda: host.terminal.register.current.phase is Phase.AUTHORIZED, what="authorized")  # type: ignore[union-attr]
        await until(lambda: cashier.charge_status.countdown.isVisible(), what="the countdown")
        for width, height in SIZES:
            window.resize(width, height)
            await until(lambda w=width, h=height: (window.width(), window.height()) == (w, h), what="the size")
            assert clipped(window) == [], f"authorized, at {width}x{height}"
            assert cashier.ticket.complete_button.isVisible() and cashier.ticket.cancel_button.isVisible()
            assert cashier.ticket.complete_button.height() == cashier.ticket.cancel_button.height()
        screenshot(window, f"cashier-authorized-{scheme}", tmp_path)
        QTest.keyClick(window, Qt.Key.Key_F9)
        await until(lambda: host.terminal.register.current.phase is Phase.COMPLETE, what="complete")  # type: ignore[union-attr]
        await finish(window, host)
    finally:
        apply_theme(qapp, Scheme.LIGHT)


async def test_why_a_charge_was_refused_is_shown_whole_at_every_size(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """The line above the big button once had room for two lines, drawn centred: a third was cut at the top and
    the bottom at every size. It grows to the whole sentence, and the big button stays in the window."""
    customer = new_checked_in_customer(client, firstName="Dmitri", lastName="Declined-Kowalczyk", card="declined")
    window = await signed_in_window(host, make_window, client, listing=customer)
    cashier = window.cashier
    for name in ("Flat white", "Ham & cheese toastie"):
        QTest.mouseClick(tile(window, name), Qt.MouseButton.LeftButton)

    def whole_at_every_size(said: str, picture: str | None = None) -> None:
        for width, height in SIZES:
            window.resize(width, height)
            QApplication.processEvents()
            assert (window.width(), window.height()) == (width, height)
            reason = cashier.ticket.reason
            assert reason.isVisible() and reason.text().startswith(said), reason.text()
            assert reason.height() >= reason.heightForWidth(reason.width()), f"cut at {width}x{height}"
            assert clipped(window, reason, cashier.ticket.action_area) == [], f"at {width}x{height}"
            assert cashier.ticket.action_area.isVisible()
            if picture is not None:
                screenshot(window, f"{picture}-{width}x{height}", tmp_path)

    whole_at_every_size("Choose the customer to charge (F2 to find them), or take cash for all of it (F6).")
    choose(window, "Declined-Kowalczyk")
    QTest.keyClick(window, Qt.Key.Key_F8)
    assert host.terminal is not None
    await until(lambda: host.terminal.register.current.phase is Phase.FAILED, what="declined")  # type: ignore[union-attr]
    whole_at_every_size(
        "The customer's card was declined. Ask the customer to pay another way.", picture="refused-charge"
    )
    await finish(window, host)
