"""People at the till on real widgets: switching person with an open check, a manager's PIN for a refund and a
cancel, the idle lock, and closing a shift by denomination with its Z report."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.config import with_changes
from pos_terminal.domain.sale import Phase
from pos_terminal.domain.shift import DrawerCount, ShiftReportKind
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.till_view import CHOOSE_FIRST, TillMode
from tests.conftest import mint_token, new_checked_in_customer
from tests.helpers.ui import (
    ANA,
    ANA_PIN,
    BEN,
    BEN_PIN,
    choose,
    completed_sale,
    pictures,
    switch_to,
    type_item,
    with_cashiers,
)
from tests.ui.conftest import MANAGER, MANAGER_PIN, finish, sign_in_at_till, signed_in_window, until
from tests.ui.layout import clipped

from PySide6.QtCore import QEvent, QPoint, QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


async def test_switching_person_keeps_the_open_check_and_the_next_person_charges_it(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    customer = new_checked_in_customer(client, firstName="Olga", lastName="Open", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)
    assert window.status.till.text() == f"{ANA} · shift 1" and window.status.switch_button.isVisible()
    choose(window, "Olga Open")
    type_item(window, "Lasagne", "18.00")
    assert window.cashier.ticket.lines.rowCount() == 1

    QTest.keyClick(window, Qt.Key.Key_F12)  # one key: the till locks
    await until(lambda: window.page is Page.TILL, what="the till locked")
    till = window.till
    assert terminal.till.current is None and till.mode is TillMode.SIGN_IN
    assert till.open_check.isVisible() and "1 item, $18.00 for Olga Open" in till.open_check.text()
    assert window.status.till.text() == "Till locked · shift 1" and not window.status.switch_button.isVisible()
    QTest.keyClick(window, Qt.Key.Key_F8)  # no charge from behind the lock
    assert terminal.journal.intents.unfinished() == [] and terminal.register.current.phase is Phase.BUILDING
    choice = next(b for b in till.person_buttons if b.text().startswith(BEN))
    QTest.mouseClick(choice, Qt.MouseButton.LeftButton)
    pictures(window, "till-sign-in", tmp_path)
    QTest.keyClicks(till.pin, "0000")
    QTest.keyClick(till.pin, Qt.Key.Key_Return)
    await until(lambda: "not Ben Cashier's PIN" in till.error.text(), what="a wrong PIN said")
    assert till.pin.text() == "" and window.page is Page.TILL

    await sign_in_at_till(window, BEN, BEN_PIN)
    cashier = window.cashier
    assert cashier.ticket.lines.rowCount() == 1 and cashier.ticket.customer_text.text().startswith("Olga Open")
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: terminal.register.current.phase is Phase.AUTHORIZED, what="authorized")
    ref_id = terminal.register.current.ref_id
    assert ref_id is not None
    intent = terminal.journal.intents.get(ref_id)
    assert intent is not None and intent.actor == BEN, "the person at the till charged it"
    await finish(window, host)


async def test_a_person_signs_in_at_the_till_with_the_keyboard_alone(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """Several people: the keyboard starts on the first name. A PIN typed there went nowhere and Enter did
    nothing (a button outside a dialog takes no Enter), so a cashier without a touch screen could not sign in."""
    window = await signed_in_window(host, make_window, client)
    terminal = await with_cashiers(host)
    QTest.keyClick(window, Qt.Key.Key_F12)
    till = window.till
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.SIGN_IN, what="the till's sign-in")
    assert len(till.person_buttons) == 3 and till.person_buttons[0].hasFocus()
    QTest.keyClicks(QApplication.focusWidget(), BEN_PIN)
    assert till.error.text() == CHOOSE_FIRST and till.chosen is None and till.pin.text() == ""
    ben = next(b for b in till.person_buttons if b.text().startswith(BEN))
    for _ in till.person_buttons:  # the arrows move from name to name
        if ben.hasFocus():
            break
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Right)
    QTest.keyClick(ben, Qt.Key.Key_Return)
    assert till.chosen is not None and till.chosen.name == BEN and till.pin.hasFocus()
    QTest.keyClicks(till.pin, BEN_PIN)
    QTest.keyClick(till.pin, Qt.Key.Key_Return)
    await until(lambda: window.page is Page.WORKSPACE, what=f"{BEN} at the till")
    assert terminal.till.current is not None and terminal.till.current.name == BEN
    await finish(window, host)


async def test_the_names_keep_the_keyboard_when_they_are_made_again(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """A sign-in that ended while the till was locked: signed in again, the window made the names again while the
    keyboard was on one of the old ones. It went with that button's deletion, and a PIN typed went nowhere."""
    window = await signed_in_window(host, make_window, client)
    terminal = await with_cashiers(host)
    QTest.keyClick(window, Qt.Key.Key_F12)
    till = window.till
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.SIGN_IN, what="the till locked")
    old = till.person_buttons[0]
    assert old.hasFocus()
    till.begin(terminal)  # as the window does once signed in again
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # the old names deleted
    QApplication.processEvents()
    assert till.person_buttons[0] is not old and till.person_buttons[0].hasFocus()
    await finish(window, host)


async def test_a_cashiers_refund_asks_a_manager_right_there(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    customer = new_checked_in_customer(client, firstName="Rolf", lastName="Refund", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)
    choose(window, "Rolf Refund")
    type_item(window, "Hamper", "30.00")
    QTest.keyClicks(window.cashier.keypad_page.cash_input, "10")
    QTest.keyClick(window.cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    QTest.keyClick(window, Qt.Key.Key_F8)
    register = terminal.register
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized")

    # A cancel after the customer was charged: the prompt, and nothing happens without the manager.
    QTest.keyClick(window, Qt.Key.Key_F9, Qt.KeyboardModifier.ShiftModifier)
    prompt = window.cashier.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
    QTest.mouseClick(prompt.cancel_button, Qt.MouseButton.LeftButton)
    assert register.current.phase is Phase.AUTHORIZED
    transaction_id = register.current.transaction_id
    assert client.get(f"/sandbox/transactions/{transaction_id}").json()["state"] == "authorized"
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")

    await until(window.isActiveWindow, what="the window active again once the prompt closed")
    QTest.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    history = window.workspace.history
    assert window.tabs.currentWidget() is history
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: history.model.rowCount() > 0 and not history.tasks.busy, what="history")
    assert history.current() is not None and history.current().transaction_id == transaction_id  # type: ignore[union-attr]
    QTest.mouseClick(history.refund_button, Qt.MouseButton.LeftButton)
    prompt = history.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
    assert history.confirm is None, "the manager's PIN is the confirmation"
    assert prompt.question.text() == "Refund $20.00 to Rolf Refund and give back $10.00 in cash?"
    assert "Asked by Ana Cashier" in prompt.reason.text() and prompt.manager.currentText() == MANAGER
    QApplication.processEvents()  # laid out
    fields = [
        QRect(w.mapTo(prompt, QPoint(0, 0)), w.size()) for w in (prompt.manager, prompt.pin, prompt.approve_button)
    ]
    QTest.keyClicks(prompt.pin, ANA_PIN)  # a cashier's own PIN is not a manager's
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: prompt.error.isVisible(), what="the refusal")
    assert "not Maria Manager's PIN" in prompt.error.text()
    QApplication.processEvents()
    after = [
        QRect(w.mapTo(prompt, QPoint(0, 0)), w.size()) for w in (prompt.manager, prompt.pin, prompt.approve_button)
    ]
    assert after == fields, "the refusal moved or shrank the manager's fields"
    QTest.keyClicks(prompt.pin, "0")
    pictures(window, "approval-prompt", tmp_path, dialog=prompt)
    prompt.pin.clear()
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(
        lambda: history.current() is not None and history.current().state.value == "refunded",  # type: ignore[union-attr]
        what="refunded",
    )
    assert "Give back $10.00 in cash." in window.banner.text.text()
    assert client.get(f"/sandbox/customers/{customer['customerId']}").json()["balance"] == 20_000
    approvals = [e for e in terminal.journal.audit.between(EPOCH, _end()) if e.action == "approval"]
    assert [(a.actor, a.detail["manager"], a.detail["act"]) for a in approvals] == [(ANA, MANAGER, "refund")]
    with sqlite3.connect(terminal.journal_path) as journal:
        hashes = [h for (h,) in journal.execute("SELECT pin_hash FROM person")]
        audit = "\n".join(str(row) for row in journal.execute("SELECT * FROM audit"))
    for secret in (MANAGER_PIN, ANA_PIN, BEN_PIN, *hashes):
        assert secret not in caplog.text and secret not in audit, "no PIN or hash in the logs"
    await finish(window, host)


async def test_the_idle_lock_locks_the_till_and_keeps_the_check(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    host.save_settings(with_changes(host.settings, idle_lock_seconds=1))
    window = await signed_in_window(host, make_window, client)
    type_item(window, "Tea", "4.50")
    await until(lambda: window.page is Page.TILL, what="the idle lock", timeout=10)
    assert host.terminal is not None and host.terminal.till.current is None
    assert "1 item, $4.50" in window.till.open_check.text()
    await sign_in_at_till(window, MANAGER, MANAGER_PIN)
    assert window.cashier.ticket.lines.rowCount() == 1

    # not while a dialog is open: a manager counting the drawer longer than the idle lock found the till locked
    # behind the count, and the count refused with nobody at the till
    QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    QTest.mouseClick(window.workspace.shifts.close_button, Qt.MouseButton.LeftButton)
    dialog = window.approvals.close_dialog
    assert isinstance(dialog, CloseShiftDialog) and dialog.isVisible()
    window.till_flow.on_idle(60)  # what the idle watch says after a minute without a key
    assert window.page is Page.WORKSPACE and host.terminal.till.current is not None
    dialog.reject()
    await until(lambda: window.page is Page.TILL, what="the idle lock once the count is put away", timeout=10)
    await finish(window, host)


async def test_the_count_opened_by_a_managers_approval_has_the_keyboard_and_the_top(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """A cashier closes the shift, a manager approves, and the drawer's count opens from that approval. As the
    prompt closed it gave the keyboard back to the window and raised it: on a kiosk (no window manager) over the
    count, a modal dialog nobody could see, and the till looked frozen."""
    window = await signed_in_window(host, make_window, client)
    await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)
    QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    QTest.mouseClick(window.workspace.shifts.close_button, Qt.MouseButton.LeftButton)
    prompt = window.approvals.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: window.approvals.close_dialog is not None, what="the count")
    dialog = window.approvals.close_dialog
    assert isinstance(dialog, CloseShiftDialog) and dialog.isVisible()
    await until(dialog.isActiveWindow, what="the count active, over the window")
    assert not window.isActiveWindow()
    dialog.reject()
    await until(window.isActiveWindow, what="the window active again once the count closed")
    await finish(window, host)


async def test_closing_a_shift_by_denomination_prints_its_z_report(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    printed = tmp_path / "printed-z.pdf"
    host.save_settings(with_changes(host.settings, printer=f"pdf:{printed}"))
    customer = new_checked_in_customer(client, firstName="Clara", lastName="Close", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = host.terminal
    assert terminal is not None
    await completed_sale(window, "Clara Close", "Cake", "12.00", cash="5")

    QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    shifts = window.workspace.shifts
    assert window.workspace.report_tabs.currentWidget() is shifts
    QTest.mouseClick(shifts.x_button, Qt.MouseButton.LeftButton)  # so far: changes nothing
    reports = window.workspace.reports
    await until(lambda: reports.paper is not None and not reports.tasks.busy, what="the X report", timeout=60)
    assert reports.report is not None and reports.report.title == "X report — shift 1 so far"
    assert "so far" in reports.drawer.text() and terminal.shifts.current() is not None
    window.workspace.report_tabs.setCurrentWidget(shifts)
    assert shifts.current.text().startswith("Shift 1 is open") and shifts.close_button.isEnabled()
    QTest.mouseClick(shifts.close_button, Qt.MouseButton.LeftButton)
    dialog = window.approvals.close_dialog
    assert isinstance(dialog, CloseShiftDialog) and dialog.isVisible()
    # float 200.00 + 5.00 cash = 205.00 expected; counted: 4 × $50, 2 × $2, 1 × 50c = $204.50
    dialog.spins[5000].setValue(4)
    dialog.spins[200].setValue(2)
    dialog.spins[50].setValue(1)
    assert dialog.total.text() == "Cash counted: $204.50"
    assert dialog.line_totals[5000].text() == "$200.00"
    pictures(window, "close-shift", tmp_path, dialog=dialog)
    QTest.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)

    await until(
        lambda: reports.report is not None and reports.report.title.startswith("Z") and not reports.tasks.busy,
        what="the Z report",
        timeout=60,
    )
    report = reports.report
    assert report is not None and report.shift is not None and report.shift.kind is ShiftReportKind.Z
    assert reports.title.text().startswith("Z report — shift 1")
    assert "SHORT by $0.50" in reports.drawer.text()
    assert "Expected in the drawer <b>$205.00</b>" in reports.drawer.text()
    assert printed.exists(), "the report printed at close is the Z report"
    printed_entries = [e for e in terminal.journal.audit.between(EPOCH, _end()) if e.action == "report printed"]
    assert printed_entries and printed_entries[-1].actor == MANAGER
    closed = terminal.shifts.resolve("last")
    assert (closed.count.total if closed.count else None, closed.expected_cash) == (20_450, 20_500)
    assert closed.count is not None and closed.count.pieces == ((5000, 4), (200, 2), (50, 1))
    assert window.status.till.text() == f"{MANAGER} · no shift open"
    assert not shifts.close_button.isEnabled() and shifts.open_button.isEnabled()
    pictures(window, "z-report", tmp_path)
    await finish(window, host)


def _end() -> datetime:
    return datetime.now(UTC) + timedelta(days=1)


async def test_a_cashier_needs_a_manager_for_no_sale_settings_and_disconnect(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)

    QTest.keyClick(window, Qt.Key.Key_F10)  # the drawer without a sale: none is set up (test_counter_printer)
    assert window.banner.text.text().startswith("No cash drawer is set up at this terminal.")
    assert window.approvals.prompt is None

    window.show_tab(Tab.SETTINGS)
    settings = window.workspace.settings_view
    settings.idle_lock.setValue(600)
    QTest.mouseClick(settings.save_button, Qt.MouseButton.LeftButton)
    prompt = window.approvals.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
    QTest.mouseClick(prompt.cancel_button, Qt.MouseButton.LeftButton)
    assert host.settings.idle_lock_seconds == 300, "not saved without a manager"

    QTest.mouseClick(settings.disconnect_button, Qt.MouseButton.LeftButton)
    box = settings.confirm
    assert box is not None
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    prompt = window.approvals.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.question.text() == "Disconnect this terminal?"
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: window.page is Page.SIGN_IN, what="disconnected")
    [disconnect] = [e for e in terminal.journal.audit.between(EPOCH, _end()) if e.action == "disconnect"]
    assert (disconnect.actor, disconnect.detail) == (ANA, {"approvedBy": MANAGER})
    await finish(window, host, wait=False)  # the sign-in page polls for a new code


async def test_charge_without_a_shift_says_so_on_screen_and_offers_to_open_one(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """The button and F8 once did nothing visible without a shift (the log alone said why): the sentence is on the
    screen before the cashier tries, the big button opens a shift instead, and the charge goes through after."""
    customer = new_checked_in_customer(client, firstName="Nadia", lastName="Noshift", balance=20_000)
    signing_in = await host.connect()
    await signing_in.session.sign_in_with_token(mint_token(client))
    window = make_window(host)
    window.start()
    await until(lambda: window.page is Page.TILL and window.terminal is not None, what="the till's page")
    terminal = window.terminal
    assert terminal is not None
    till = window.till
    QTest.keyClicks(till.first_name, MANAGER)
    QTest.keyClicks(till.first_pin, MANAGER_PIN)
    QTest.keyClicks(till.first_again, MANAGER_PIN)
    QTest.mouseClick(till.create_button, Qt.MouseButton.LeftButton)
    await until(lambda: till.mode is TillMode.OPEN_SHIFT, what="the shift step")
    QTest.mouseClick(till.later_button, Qt.MouseButton.LeftButton)  # "Not now": no shift yet
    await until(lambda: window.page is Page.WORKSPACE, what="the workspace")
    cashier = window.cashier
    await until(lambda: cashier.customers.model.row_of(customer["customerId"]) is not None, what="the customer")
    choose(window, "Nadia Noshift")
    type_item(window, "Flat white", "4.80")
    assert cashier.ticket.lines.rowCount() == 1

    said = "No shift is open on this terminal. Open a shift first: count the float in the drawer."
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        await until(lambda w=width, h=height: (window.width(), window.height()) == (w, h), what="the size")
        assert cashier.ticket.reason.isVisible() and cashier.ticket.reason.text() == said
        assert not cashier.ticket.reason.visibleRegion().isEmpty(), "on the screen, not behind another widget"
        assert clipped(window, cashier.ticket.reason) == [], f"the whole sentence at {width}x{height}"
        assert cashier.ticket.charge_button.isVisible() and cashier.ticket.charge_button.isEnabled()
        assert cashier.ticket.charge_button.text().startswith("Open a shift")
        assert clipped(window, cashier.ticket.charge_button) == []
    pictures(window, "no-shift", tmp_path)

    QTest.keyClick(window, Qt.Key.Key_F8)  # the offer: the shift's opening, with the check kept behind it
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.OPEN_SHIFT, what="the shift's opening")
    assert terminal.journal.intents.unfinished() == [] and terminal.journal.intents.authorized_charges() == []
    QTest.keyClicks(till.opening_float, "150.00")
    QTest.mouseClick(till.open_button, Qt.MouseButton.LeftButton)
    await until(lambda: window.page is Page.WORKSPACE, what="back at the check")
    shift = terminal.shifts.current()
    assert shift is not None and shift.opening_float == 15_000
    assert not cashier.ticket.reason.isVisible() and cashier.ticket.charge_button.text().startswith("Charge $4.80")
    QTest.mouseClick(cashier.ticket.charge_button, Qt.MouseButton.LeftButton)
    await until(lambda: terminal.register.current.phase is Phase.AUTHORIZED, what="authorized")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: terminal.register.current.phase is Phase.COMPLETE, what="complete")
    await finish(window, host)


async def test_a_charge_refused_once_under_way_is_said_in_the_banner(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """A refusal that comes after the check showed "Charging…" (here: the same check already holds the customer's
    money, charged from the command line) was cleared from the banner with the check's old messages."""
    customer = new_checked_in_customer(client, firstName="Dora", lastName="Double", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = host.terminal
    assert terminal is not None
    choose(window, "Dora Double")
    type_item(window, "Scone", "6.00")
    state = terminal.register.current
    assert state.customer is not None
    first = await terminal.checkout.charge(state.check, state.customer)  # as `pos-terminal charge` does
    assert first.transaction_id is not None

    QTest.keyClick(window, Qt.Key.Key_F8)
    banner = window.banner
    await until(lambda: banner.isVisible() and "charged already" in banner.text.text(), what="the refusal shown")
    assert f"transaction {first.transaction_id} for Dora Double is authorized" in banner.text.text()
    assert terminal.register.current.phase is Phase.BUILDING
    await finish(window, host)


async def test_the_window_does_not_close_a_shift_over_a_charge_made_elsewhere(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """The till's rule holds for the window too, for a charge the window's own check never had (made from the
    command line): the banner says what to do and the shift stays open until the charge is completed."""
    from pos_terminal.domain.check import Check, Item
    from pos_terminal.domain.lifecycle import Action

    customer = new_checked_in_customer(client, firstName="Ezra", lastName="Elsewhere", balance=20_000)
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    check = Check().add_item(Item("Tea", 1, 450, 1000))
    held = await terminal.checkout.charge(check, await terminal.customers.find(customer["customerId"]))
    assert held.transaction_id is not None

    async def close_in_the_window() -> None:
        QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
        QTest.mouseClick(window.workspace.shifts.close_button, Qt.MouseButton.LeftButton)
        dialog = window.approvals.close_dialog
        assert isinstance(dialog, CloseShiftDialog) and dialog.isVisible()
        dialog.print_z.setChecked(False)
        dialog.spins[5000].setValue(4)
        QTest.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)

    await close_in_the_window()
    banner = window.banner
    await until(lambda: banner.isVisible() and "still authorized" in banner.text.text(), what="the refusal")
    assert banner.text.text() == (
        f"The charge {held.transaction_id} is still authorized, neither completed nor canceled. "
        "Complete or cancel it first, then close the shift."
    )
    assert terminal.shifts.current() is not None, "the shift stays open"

    done = await terminal.checkout.change_state(held.transaction_id, Action.COMPLETE)
    assert done.status.value == "done"
    await close_in_the_window()
    await until(lambda: terminal.shifts.current() is None, what="the shift closed")
    await until(
        lambda: window.cashier.ticket.charge_button.text().startswith("Open a shift"), what="the next shift offered"
    )
    await finish(window, host)


async def test_the_currency_does_not_change_under_an_open_shift_or_an_open_check(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """Saving GBP relabelled the open shift's float and a check of $30.00 as £: nothing converted them."""
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None and terminal.shifts.current() is not None
    type_item(window, "Hamper", "30.00")
    window.show_tab(Tab.SETTINGS)
    settings = window.workspace.settings_view
    settings.currency_box.setCurrentText("GBP")
    QTest.mouseClick(settings.save_button, Qt.MouseButton.LeftButton)
    assert window.banner.text.text() == (
        "The currency cannot change while shift 1 is open: its float and its sales are in AUD. "
        "Close the shift first, then change the currency."
    )
    assert host.settings.currency == "AUD" and window.approvals.prompt is None

    terminal.till.close_shift(DrawerCount.of_total(20_000))
    refused = terminal.currency_change_refused("gbp")
    assert refused is not None and refused.text().startswith("The currency cannot change while a check in AUD")
    assert terminal.currency_change_refused("AUD") is None, "the same currency, or only the locale, is no change"
    terminal.register.new_check()
    assert terminal.currency_change_refused("GBP") is None
    await finish(window, host)
