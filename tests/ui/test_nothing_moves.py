"""Issue 51, item 5: nothing moves when a message, an error or a progress line comes and goes.

A finger on its way to a button must find it where it was: choosing a name that must set a new PIN moved the lock
screen's heading and names up by about 110 px at 1920×1080; the catalog's import error pushed the table and the
form down by 42 px; a three-line decline reason moved the ±1 buttons by 14 px; the set-up page's Continue moved
while joining and while an error showed. Each test records where every other widget of the window is (mapped to
the window) at 1024×768 and 1920×1080, brings the message, and finds each one where it was.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.people import Role
from pos_terminal.paths import Paths
from pos_terminal.ui.cashier_presenter import ButtonPage, Offer
from pos_terminal.ui.main_window import MainWindow, Page
from pos_terminal.ui.till_view import TillMode
from tests.helpers.ui import ANA, ANA_PIN
from tests.ui.conftest import finish, signed_in_window, until
from tests.ui.test_back_office import back_to_window, choose, people_page, reset_pin
from tests.ui.test_catalog_page import BAD_CSV, catalog_page

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

SIZES = [(1024, 768), (1920, 1080)]
Places = dict[tuple[int, int], dict[QWidget, QRect]]


async def at(window: QWidget, width: int, height: int) -> None:
    window.resize(width, height)
    await until(lambda: (window.width(), window.height()) == (width, height), what=f"{width}x{height}")
    QApplication.processEvents()


def where_all(window: QWidget, *moving: QWidget) -> dict[QWidget, QRect]:
    """Every visible widget of ``window`` but ``moving`` (the message, and any field that comes with it) and what
    they hold, where it is in the window."""
    QApplication.processEvents()
    shown = {}
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or any(m is widget or m.isAncestorOf(widget) for m in moving):
            continue
        shown[widget] = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    return shown


async def settled(window: QWidget, *moving: QWidget) -> dict[QWidget, QRect]:
    """Where everything is once the layouts are done (the product grid lays its tiles out again after a resize)."""
    last: list[dict[QWidget, QRect]] = [{}]

    def still() -> bool:
        now = where_all(window, *moving)
        same, last[0] = now == last[0], now
        return same

    await until(still, what="the layout settled")
    return last[0]


async def places(window: QWidget, *moving: QWidget) -> Places:
    found: Places = {}
    for size in SIZES:
        await at(window, *size)
        found[size] = await settled(window, *moving)
    return found


def moved(before: Places, after: Places, *moving: QWidget) -> list[str]:
    """The widgets shown before and after whose place changed, the containers of ``moving`` aside (they hold it)."""
    found = []
    for size, was in before.items():
        for widget, rect in was.items():
            if any(widget.isAncestorOf(m) for m in moving):
                continue
            now = after[size].get(widget)
            if now is not None and now != rect:
                name = widget.accessibleName() or widget.objectName() or type(widget).__name__
                found.append(f"at {size}: {name} ({type(widget).__name__}) moved from {rect} to {now}")
    return found


async def test_choosing_a_name_that_sets_a_new_pin_moves_nothing_on_the_lock_screen(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    await reset_pin(await people_page(window), ANA)
    await back_to_window(window)
    QTest.keyClick(window, Qt.Key.Key_F12)
    till = window.till
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.SIGN_IN, what="the till's sign-in")
    coming = (till.new_pin_text, till.pin_again)
    before = await places(window, *coming)
    QTest.mouseClick(next(b for b in till.person_buttons if b.text().startswith(ANA)), Qt.MouseButton.LeftButton)
    assert till.new_pin_text.isVisible() and till.pin_again.isVisible()
    after = await places(window, *coming)
    assert moved(before, after, *coming) == [], "\n".join(moved(before, after, *coming))
    await finish(window, host)


async def test_what_was_changed_moves_nothing_on_the_people_page(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    page = await people_page(window)
    choose(page, ANA)
    said = (page.done, page.reason)
    before = await places(window, *said)
    await reset_pin(page, ANA)  # "Ana … sets a new PIN at their next sign-in."
    await back_to_window(window)
    after = await places(window, *said)
    assert moved(before, after, *said) == [], "\n".join(moved(before, after, *said))
    await finish(window, host)


async def test_an_import_error_moves_nothing_on_the_catalog_page(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    page = catalog_page(window)
    before = await places(window, page.notice)
    bad = tmp_path / "bad.csv"
    bad.write_text(BAD_CSV, encoding="utf-8")
    page.import_file(bad)  # as the file dialog's fileSelected does
    await until(page.notice.isVisible, what="the bad rows said")
    after = await places(window, page.notice)
    assert moved(before, after, page.notice) == []
    await finish(window, host)


async def test_a_decline_of_three_lines_moves_nothing_on_the_cashiers_screen(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    ticket = window.cashier.ticket
    await places(window, ticket.reason)  # the product grid sizes its tiles a layout late after the first resize
    before = await places(window, ticket.reason)
    declined = "Not charged: The payment was declined: the customer has insufficient funds for this charge."
    ticket.render_offer(Offer(ButtonPage.CHARGE, reason=declined))
    for size in SIZES:
        await at(window, *size)
        lines = ticket.reason.heightForWidth(ticket.reason.width()) // ticket.reason.fontMetrics().lineSpacing()
        assert ticket.reason.isVisible() and lines >= 2, (size, lines)
    after = await places(window, ticket.reason)
    assert moved(before, after, ticket.reason) == [], "\n".join(moved(before, after, ticket.reason))
    await finish(window, host)


async def test_an_error_and_joining_move_nothing_on_the_set_up_page(
    tmp_path: Path, make_window: Callable[[AppHost], MainWindow]
) -> None:
    host = AppHost(Paths.profile(tmp_path / "fresh"))
    window = make_window(host)
    window.start()
    setup = window.setup
    assert window.page is Page.SETUP
    before = await places(window, setup.error, setup.progress)
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)  # no terminal id: none is guessed
    assert setup.error.isVisible() and setup.error.text(), "a refusal"
    after = await places(window, setup.error, setup.progress)
    assert moved(before, after, setup.error, setup.progress) == []

    setup.terminal_id.setText("LANE-2")
    QTest.keyClicks(setup.store_address, f"sqlite:///{tmp_path / 'store.sqlite3'}")
    await at(window, 1024, 768)
    before = {(1024, 768): where_all(window, setup.error, setup.progress)}
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    assert setup.progress.isVisible(), "joining the store"
    joining = {(1024, 768): where_all(window, setup.error, setup.progress)}
    assert moved(before, joining, setup.error, setup.progress) == []
    await finish(window, host, wait=False)
