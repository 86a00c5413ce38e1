"""Issue 24, items 17–21: every word a person reads shows whole at 1024×768, 1280×800 and 1920×1080.

Nothing shortened with "…", no word broken in two, no table that scrolls sideways: the cashier's screen with
a member, a long item name and a large amount; History with a transaction chosen; the Shifts table; the X
report's figures; the close-shift dialog with a large subtotal; the setup and sign-in pages, whose fields
keep a width a person can read across. Then the touch targets and the smaller things of items 20 and 21.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.sale import Phase
from pos_terminal.paths import Paths
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.signin_view import SignInState
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import choose, closed_with_z_report, type_item
from tests.ui.conftest import finish, signed_in_window, until
from tests.ui.layout import cut_text

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

SIZES = [(1024, 768), (1280, 800), (1920, 1080)]
LONG_ITEM = "Ham, cheese & tomato toastie on sourdough"


async def at(window: QWidget, width: int, height: int) -> None:
    window.resize(width, height)
    await until(lambda: (window.width(), window.height()) == (width, height), what=f"{width}x{height}")
    QApplication.processEvents()


async def test_the_cashiers_screen_shows_every_word_whole(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    customer = new_checked_in_customer(
        client, firstName="Zoë", lastName="Ångström-Wiśniewska", memberNo="M-10485760", balance=80_000
    )
    window = await signed_in_window(host, make_window, client, listing=customer)
    seen: list[str] = []
    cashier = window.cashier
    # the list of customers keeps rows of one line (it is filtered on each keystroke); a name cut there is whole
    # in the ticket's header, once chosen
    listing = (cashier.customers.table,)
    for size in SIZES:
        await at(window, *size)
        assert cashier.ticket.customer_text.text() == "No customer chosen (F2 to find one)"
        seen += [f"no customer, at {size}: {problem}" for problem in cut_text(window, shortened=listing)]
    choose(window, "wisniewska")
    type_item(window, LONG_ITEM, "12.50")
    type_item(window, "Catering", "9999.99", quantity=99)  # $989,999.01
    cashier.entry_tabs.setCurrentIndex(0)
    for size in SIZES:
        await at(window, *size)
        assert "member M-10485760" in cashier.ticket.customer_text.text()
        seen += [
            f"a member, a long name and a large amount, at {size}: {problem}"
            for problem in cut_text(window, shortened=listing)
        ]
        cashier.entry_tabs.setCurrentIndex(1)
        seen += [f"the keypad at {size}: {problem}" for problem in cut_text(window, shortened=listing)]
        cashier.entry_tabs.setCurrentIndex(0)
    assert seen == [], "\n".join(seen)
    await finish(window, host)


async def test_history_shifts_the_x_report_and_closing_show_every_word_whole(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    customer = new_checked_in_customer(client, firstName="Paige", lastName="Wholeword", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    seen: list[str] = []
    terminal = host.terminal
    assert terminal is not None
    QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    QTest.mouseClick(window.workspace.shifts.x_button, Qt.MouseButton.LeftButton)  # nothing completed yet
    reports = window.workspace.reports
    await until(lambda: reports.paper is not None and not reports.tasks.busy, what="the X report", timeout=60)
    assert reports.model.data(reports.model.index(0, 6)) == "matches (nothing completed)"
    for size in SIZES:
        await at(window, *size)
        seen += [f"the X report's figures at {size}: {problem}" for problem in cut_text(window, reports.table)]
    window.show_tab(Tab.CASHIER)

    choose(window, "Paige Wholeword")
    type_item(window, "Scone", "4.00")
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: terminal.register.current.phase is Phase.AUTHORIZED, what="authorized")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: terminal.register.current.phase is Phase.COMPLETE, what="complete")

    history = window.workspace.history
    window.show_tab(Tab.HISTORY)
    await until(lambda: history.model.rowCount() > 0 and not history.tasks.busy, what="the sale in History")
    history.table.selectRow(0)
    await until(lambda: "Completed" in history.detail.toPlainText(), what="its detail")
    for size in SIZES:
        await at(window, *size)
        seen += [f"History at {size}: {problem}" for problem in cut_text(window, history)]

    QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    shifts = window.workspace.shifts
    for size in SIZES:
        await at(window, *size)
        seen += [f"Shifts at {size}: {problem}" for problem in cut_text(window, shifts)]
        header = shifts.table.horizontalHeader()
        widest = max(range(header.count()), key=header.sectionSize)
        if header.sectionSize(widest) > shifts.table.viewport().width() / 3:
            seen.append(
                f"Shifts at {size}: {shifts.model.headers[widest]!r} takes {header.sectionSize(widest)} of "
                f"{shifts.table.viewport().width()} px"
            )

    window.workspace.report_tabs.setCurrentWidget(shifts)
    QTest.mouseClick(shifts.close_button, Qt.MouseButton.LeftButton)
    dialog = window.approvals.close_dialog
    assert isinstance(dialog, CloseShiftDialog) and dialog.isVisible()
    dialog.spins[10_000].setValue(99_999)  # $9,999,900.00 of $100 notes
    dialog.spins[5].setValue(99_999)
    QApplication.processEvents()
    assert dialog.line_totals[10_000].text() == "$9,999,900.00"
    for size in SIZES:
        await at(window, *size)
        seen += [f"the close-shift dialog over a window of {size}: {problem}" for problem in cut_text(dialog)]
    await closed_with_z_report(window, dialog)
    assert "OVER by $10,004,699.95" in reports.drawer.text(), reports.drawer.text()
    for size in SIZES:
        await at(window, *size)
        seen += [
            f"the Z report's figures at {size}: {problem}"
            for problem in cut_text(window, reports.drawer, reports.table, reports.reconciliation)
        ]
    assert seen == [], "\n".join(seen)
    await finish(window, host)


async def test_setup_and_sign_in_keep_their_fields_readable_and_whole(
    tmp_path: Path, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    host = AppHost(Paths.profile(tmp_path / "fresh"))
    window = make_window(host)
    window.start()
    seen: list[str] = []
    assert window.page is Page.SETUP
    for size in SIZES:
        await at(window, *size)
        seen += [f"setup at {size}: {problem}" for problem in cut_text(window)]
        form = window.setup.form_box
        assert form.width() <= 720, f"setup's fields are {form.width()} px wide at {size}"
        middle = form.mapTo(window, form.rect().center()).x()
        assert abs(middle - window.width() / 2) < 40, f"setup's fields are off centre at {size}"
    window.setup.terminal_id.setText("LANE-1")  # none is guessed
    QTest.mouseClick(window.setup.continue_button, Qt.MouseButton.LeftButton)
    sign_in = window.sign_in
    await until(lambda: sign_in.state is SignInState.PENDING, what="a code")
    for size in SIZES:
        await at(window, *size)
        seen += [f"sign-in at {size}: {problem}" for problem in cut_text(window)]
        box = sign_in.form_box
        assert box.width() <= 960, f"sign-in is {box.width()} px wide at {size}"
        middle = box.mapTo(window, box.rect().center()).x()
        assert abs(middle - window.width() / 2) < 40, f"sign-in is off centre at {size}"
    assert seen == [], "\n".join(seen)
    await finish(window, host, wait=False)


async def test_touch_targets_and_the_smaller_things(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """Ctrl+N's Yes and No and the drawer count's steppers are finger-sized; the product search starts empty on
    the next check; the product grid shows no scroll bar when every product fits."""
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    catalog = cashier.products.catalog
    assert catalog is not None
    await at(window, 1920, 1080)
    assert not cashier.products.grid_scroll.verticalScrollBar().isVisible(), "every product fits at 1920 px"
    QTest.keyClicks(cashier.products.search, "white")
    await until(lambda: len(cashier.products.visible_entries()) < len(catalog), what="filtered")
    QTest.mouseClick(cashier.products.shown[0], Qt.MouseButton.LeftButton)
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    box = cashier.confirmation
    assert box is not None and box.isVisible()
    for answer in box.buttons():
        assert answer.width() >= 100 and answer.height() >= 40, (answer.text(), answer.size())
    QTest.mouseClick(box.button(box.StandardButton.Yes), Qt.MouseButton.LeftButton)
    await until(lambda: cashier.ticket.lines.rowCount() == 0, what="a new check")
    assert cashier.products.search.text() == ""
    assert len(cashier.products.visible_entries()) == len(catalog)

    QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    QTest.mouseClick(window.workspace.shifts.close_button, Qt.MouseButton.LeftButton)
    dialog = window.approvals.close_dialog
    assert isinstance(dialog, CloseShiftDialog)
    less, more = dialog.steppers[5000]
    assert min(less.width(), less.height(), more.width(), more.height()) >= 40
    QTest.mouseClick(more, Qt.MouseButton.LeftButton)
    QTest.mouseClick(more, Qt.MouseButton.LeftButton)
    QTest.mouseClick(less, Qt.MouseButton.LeftButton)
    assert dialog.spins[5000].value() == 1 and dialog.total.text() == "Cash counted: $50.00"
    dialog.reject()
    await finish(window, host)
