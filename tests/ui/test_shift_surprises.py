"""What a cashier and a manager met in a whole day at the counter (issue 24), on real widgets against the sandbox:
the keyboard back after a manager's prompt however it closes, a discount the manager sees before approving it, a
cash sale that needs a shift as a charge does, huge numbers refused where they are typed, what a member paid after
their discount, bounded text fields, the keypad's Tab order, and Ctrl+Q asking during a charge."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.sale import Phase
from pos_terminal.domain.shift import DrawerCount
from pos_terminal.services.shifts import NoShiftOpen
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.main_window import MainWindow, Page
from pos_terminal.ui.till_view import TillMode
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import ANA, ANA_PIN, choose, pictures, switch_to, type_item, with_cashiers
from tests.ui.conftest import MANAGER, MANAGER_PIN, finish, signed_in_window, until
from tests.ui.layout import clipped

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget


def focused() -> QWidget:
    """Where a key goes: the focus widget of the active window (None when no window of ours is active)."""
    widget = QApplication.focusWidget()
    assert widget is not None, "no window of the terminal has the keyboard"
    return widget


async def test_the_keyboard_comes_back_to_the_cashier_however_the_managers_prompt_closes(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """Shortcuts did nothing after a prompt until the window was clicked, and digits went to the last field; the
    manager approved a discount they were not shown; the refusal typed before stayed behind the prompt."""
    window = await signed_in_window(host, make_window, client)
    terminal = await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)
    cashier = window.cashier
    type_item(window, "Cake", "24.00")
    QTest.keyClick(window, Qt.Key.Key_F4)
    QTest.keyClicks(cashier.keypad_page.discount_input, "150%")
    QTest.keyClick(cashier.keypad_page.discount_input, Qt.Key.Key_Return)
    assert "is not a percent" in window.banner.text.text()

    def ask() -> ManagerPrompt:
        cashier.keypad_page.discount_input.setText("15%")
        QTest.keyClick(cashier.keypad_page.discount_input, Qt.Key.Key_Return)
        prompt = cashier.prompt
        assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
        return prompt

    async def back_at_the_check(how: str) -> None:
        await until(
            lambda: window.isActiveWindow() and cashier.keypad_page.discount_input.hasFocus(), what=f"focus after {how}"
        )
        QTest.keyClick(focused(), Qt.Key.Key_F6)  # a shortcut of the window, from where the cashier is
        assert cashier.keypad_page.cash_input.hasFocus(), how
        QTest.keyClicks(focused(), "10")
        assert cashier.keypad_page.cash_input.text() == "10" and cashier.keypad_page.discount_input.text() in (
            "15%",
            "",
        ), how
        cashier.keypad_page.cash_input.clear()
        cashier.keypad_page.discount_input.setFocus()

    prompt = ask()
    assert not window.banner.isVisible() or "not a percent" not in window.banner.text.text(), "the old error went"
    assert prompt.question.text() == "Approve a discount of 15 % ($3.60)?"
    assert prompt.reason.text() == "A discount of 15 % ($3.60) needs a manager's approval. Asked by Ana Cashier."
    pictures(window, "discount-approval", tmp_path, dialog=prompt)
    QTest.mouseClick(prompt.cancel_button, Qt.MouseButton.LeftButton)
    await back_at_the_check("Cancel")

    prompt = ask()
    QTest.keyClick(prompt, Qt.Key.Key_Escape)
    await back_at_the_check("Escape")

    prompt = ask()
    QTest.keyClicks(prompt.pin, ANA_PIN)  # a cashier's PIN is not a manager's
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(prompt.error.isVisible, what="the wrong PIN said")
    QTest.mouseClick(prompt.cancel_button, Qt.MouseButton.LeftButton)
    await back_at_the_check("a wrong PIN, then Cancel")
    assert len(terminal.register.current.check.discounts) == 0

    prompt = ask()
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: len(terminal.register.current.check.discounts) == 1, what="the discount approved")
    await back_at_the_check("approved")
    approvals = terminal.shifts.section(terminal.shifts.require_open()).approvals
    assert [(a.act, a.asked_by, a.manager, a.subject) for a in approvals] == [
        ("discount above the limit", ANA, MANAGER, "discount 15 % ($3.60)")
    ], "the Z report's For names what was approved"
    await finish(window, host)


async def test_a_cash_sale_needs_an_open_shift_as_a_charge_does(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """A sale paid fully in cash was finished with no shift open: its cash belonged to no shift's drawer."""
    window = await signed_in_window(host, make_window, client)
    terminal = window.terminal
    assert terminal is not None
    terminal.till.close_shift(DrawerCount(total=20_000))  # closed elsewhere (the command line)
    cashier = window.cashier
    type_item(window, "Muffin", "5.50")
    QTest.keyClick(window, Qt.Key.Key_F6)
    QTest.keyClicks(cashier.keypad_page.cash_input, "10")
    QTest.keyClick(cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    assert (
        cashier.ticket.reason.text()
        == "No shift is open on this terminal. Open a shift first: count the float in the drawer."
    )
    assert cashier.ticket.charge_button.text() == "Open a shift\n(a sale needs one)"
    try:
        terminal.register.finish_cash_sale()
    except NoShiftOpen:
        pass
    else:
        raise AssertionError("the register finished a cash sale with no shift open")
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: window.page is Page.TILL and window.till.mode is TillMode.OPEN_SHIFT, what="the offer")
    assert terminal.register.current.phase is Phase.BUILDING
    assert terminal.journal.cash_sales.all() == []
    QTest.keyClicks(window.till.opening_float, "150.00")
    QTest.mouseClick(window.till.open_button, Qt.MouseButton.LeftButton)
    await until(lambda: window.page is Page.WORKSPACE, what="back at the check")
    assert cashier.ticket.charge_button.text().startswith("Finish cash sale")
    QTest.keyClick(window, Qt.Key.Key_F8)
    assert terminal.register.current.phase is Phase.PAID_IN_CASH
    shift = terminal.shifts.require_open()
    assert [sale.total for sale in terminal.journal.cash_sales.all()] == [550]
    assert terminal.shifts.section(shift).drawer.cash_sales == 550
    await finish(window, host)


async def test_huge_numbers_are_refused_where_they_are_typed(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """A quantity of 99999999999 became 9999 without a word; 9999 × $99,999 went onto the check, and only Charge
    turned off later."""
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    register = cashier.register
    QTest.keyClick(window, Qt.Key.Key_F7)
    QTest.keyClicks(cashier.keypad_page.item_name, "Gold")
    QTest.keyClicks(cashier.keypad_page.item_price, "99999")
    cashier.keypad_page.item_quantity.lineEdit().selectAll()
    QTest.keyClicks(cashier.keypad_page.item_quantity, "99999999999")
    assert window.banner.text.text().startswith("A line holds at most 9,999 of an item.")
    assert cashier.keypad_page.item_quantity.value() == 9999
    QTest.mouseClick(cashier.keypad_page.add_item_button, Qt.MouseButton.LeftButton)
    assert window.banner.text.text().startswith(
        "9,999 × Gold would come to $999,890,001.00, more than the $21,474,836.47 the service takes."
    )
    assert register.current.check.items == () and cashier.keypad_page.item_price.text() == "99999", (
        "nothing added, kept"
    )

    cashier.keypad_page.item_price.setText("1.00")
    QTest.mouseClick(cashier.keypad_page.add_item_button, Qt.MouseButton.LeftButton)
    [line] = register.current.check.items
    assert line.quantity == 9999
    cashier.ticket.table.setFocus()
    QTest.keyClick(cashier.ticket.table, Qt.Key.Key_Plus)  # one more than a line holds
    assert window.banner.text.text().startswith("A line holds at most 9,999 of an item.")
    assert register.current.check.items[0].quantity == 9999
    await finish(window, host)


async def test_the_totals_show_what_a_member_paid_after_their_discount(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """The panel still said "Balance $22.00" while the status said "Charged $20.90 (loyalty -$1.10)"."""
    member = new_checked_in_customer(client, firstName="Mia", lastName="Member", memberNo="M-2024", balance=50_000)
    window = await signed_in_window(host, make_window, client, listing=member)
    cashier = window.cashier
    choose(window, "Mia Member")
    type_item(window, "Hamper", "22.00")
    assert (
        cashier.ticket.figures["balance"][0].text() == "Balance"
        and cashier.ticket.figures["balance"][1].text() == "$22.00"
    )
    register = cashier.register
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    assert cashier.charge_status.summary.text() == "Charged $20.90 to Mia Member (member's benefit -$1.10)"
    name, value = cashier.ticket.figures["balance"]
    assert (name.text(), value.text()) == ("Charged", "$20.90")
    name, value = cashier.ticket.figures["loyalty"]
    assert name.isVisible() and (name.text(), value.text()) == ("Member's benefit", "-$1.10")
    for path in pictures(window, "member-totals", tmp_path):
        assert path.exists()
    window.resize(1024, 768)
    QApplication.processEvents()
    for shown in (*cashier.ticket.figures["balance"], *cashier.ticket.figures["loyalty"]):
        assert clipped(window, shown) == [], shown.text()
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert (
        not cashier.ticket.figures["loyalty"][0].isVisible()
        and cashier.ticket.figures["balance"][0].text() == "Balance"
    )
    await finish(window, host)


async def test_text_fields_are_bounded_and_a_long_search_stays_in_its_column(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """A 5,000-character paste was taken whole: the "No … matches" labels overflowed their columns and Enter made
    the text an item typed by hand."""
    window = await signed_in_window(host, make_window, client)
    window.resize(1024, 768)
    cashier = window.cashier
    pasted = "x" * 5000
    cashier.customers.search.setFocus()
    cashier.customers.search.insert(pasted)  # as a paste inserts it
    QApplication.processEvents()
    customers = cashier.customers
    assert len(customers.search.text()) <= 80 and customers.status.text().startswith("No checked-in customer")
    assert customers.status.minimumSizeHint().width() <= customers.width(), "the sentence fits its column"
    QTest.keyClick(window, Qt.Key.Key_F3)
    cashier.products.search.insert(pasted)
    QApplication.processEvents()
    found = cashier.products.none_found
    assert found.isVisible() and found.text().startswith("No product matches")
    assert found.minimumSizeHint().width() <= cashier.products.width(), "the sentence fits its column"
    QTest.keyClick(cashier.products.search, Qt.Key.Key_Return)
    assert cashier.keypad_page.item_name.hasFocus() or cashier.keypad_page.item_price.hasFocus()
    assert 0 < len(cashier.keypad_page.item_name.text()) <= 80
    for field in (
        cashier.keypad_page.item_name,
        cashier.keypad_page.item_price,
        cashier.keypad_page.item_tax,
        cashier.keypad_page.discount_input,
        cashier.keypad_page.cash_input,
        customers.search,
        cashier.products.search,
    ):
        assert 0 < field.maxLength() <= 80, field.accessibleName()
    await finish(window, host)


async def test_tab_on_the_keypad_goes_from_the_item_to_its_price(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """Item → Add → Price lost a price typed after Tab."""
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    QTest.keyClick(window, Qt.Key.Key_F7)
    QTest.keyClicks(focused(), "Scone")
    visited = []
    for _ in range(4):
        QTest.keyClick(focused(), Qt.Key.Key_Tab)
        widget = focused()
        visited.append(widget.parentWidget() if widget is cashier.keypad_page.item_quantity.lineEdit() else widget)
    assert visited == [
        cashier.keypad_page.item_price,
        cashier.keypad_page.item_quantity,
        cashier.keypad_page.item_tax,
        cashier.keypad_page.add_item_button,
    ]
    cashier.keypad_page.item_price.setFocus()
    QTest.keyClicks(focused(), "4.50")
    QTest.keyClick(focused(), Qt.Key.Key_Return)
    [line] = cashier.register.current.check.items
    assert (line.name, line.unit_price) == ("Scone", 450)
    await finish(window, host)


async def test_ctrl_q_during_a_charge_asks_first(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    customer = new_checked_in_customer(client, firstName="Quinn", lastName="Quitter", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    choose(window, "Quinn Quitter")
    type_item(window, "Tart", "7.00")
    client.post(
        "/sandbox/faults", json={"method": "POST", "path": "/v4/transactions", "mode": "delay", "delayMs": 1500}
    ).raise_for_status()
    register = window.cashier.register
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.CHARGING, what="charging")
    QTest.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    box = window.confirmation
    assert isinstance(box, QMessageBox) and box.text() == "Quit during a charge?"
    assert box.informativeText().startswith("The charge of $7.00 to Quinn Quitter is being sent to the service.")
    box.button(QMessageBox.StandardButton.No).click()
    assert window.isVisible()
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized")
    window.activateWindow()  # as the window system does once the box is gone
    await until(window.isActiveWindow, what="the window active again")
    QTest.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    box = window.confirmation
    assert isinstance(box, QMessageBox) and "is authorized, neither completed nor canceled" in box.informativeText()
    box.button(QMessageBox.StandardButton.Yes).click()
    await until(lambda: not window.isVisible(), what="the window closed")
    await finish(window, host)
