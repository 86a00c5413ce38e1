"""What a manager and a cashier read when a prompt asks about money (issue 48), on real widgets against the
sandbox: the discount approved as it was typed, the cancel-after-charge prompt's buttons and the canceled ticket."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.people import Guarded
from pos_terminal.domain.sale import Phase
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
from pos_terminal.ui.main_window import MainWindow, Tab
from tests.helpers.ui import ANA, ANA_PIN, authorized_sale, pictures, switch_to, type_item, with_cashiers
from tests.ui.conftest import MANAGER, MANAGER_PIN, finish, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton


async def ask_for(window: MainWindow, typed: str) -> ManagerPrompt:
    """``typed`` in the discount field, Enter: the manager's prompt it opens."""
    cashier = window.cashier
    cashier.keypad_page.discount_input.setText(typed)
    QTest.keyClick(cashier.keypad_page.discount_input, Qt.Key.Key_Return)
    prompt = cashier.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
    return prompt


async def test_the_manager_approves_the_discount_the_cashier_typed(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """15 % typed on a 4,90 € check was asked as "15,11 % (0,74 €)", the percent worked back from the rounded
    amount; an amount typed is asked as that amount, with no percent nobody typed."""
    window = await signed_in_window(host, make_window, client)
    terminal = await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)
    type_item(window, "Tea", "4.90")

    prompt = await ask_for(window, "15%")
    assert prompt.question.text() == "Approve a discount of 15 % ($0.74)?"
    assert prompt.reason.text() == "A discount of 15 % ($0.74) needs a manager's approval. Asked by Ana Cashier."
    QTest.keyClick(prompt, Qt.Key.Key_Escape)
    await until(lambda: not prompt.isVisible(), what="the prompt closed")

    prompt = await ask_for(window, "1.23")
    assert prompt.question.text() == "Approve a discount of $1.23?"
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: len(terminal.register.current.check.discounts) == 1, what="the discount approved")
    approvals = terminal.shifts.section(terminal.shifts.require_open()).approvals
    assert [(a.asked_by, a.manager, a.subject) for a in approvals] == [(ANA, MANAGER, "discount $1.23")]
    await finish(window, host)


def said(widget: QAbstractButton) -> str:
    """What a button says on screen (its mnemonic's & is not read)."""
    return widget.text().replace("&", "")


async def test_the_cancel_prompt_says_what_each_button_does_and_the_canceled_check_leaves_nothing_to_pay(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """The prompt "Cancel the charge of 4,20 € to Zoë Ångström?" offered Approve and Cancel, whose Cancel kept
    the charge; after the cancel the ticket said "Balance 4,20 €" under "Canceled"."""
    window = await signed_in_window(host, make_window, client)  # Zoë Ångström is among the sandbox's customers
    terminal = await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)
    register = terminal.register
    panel = window.cashier.customers
    QTest.keyClicks(panel.search, "Zo")  # QTest types no letter outside ASCII
    await until(lambda: panel.model.rowCount() == 1, what="Zoë alone in the list")
    QTest.keyClick(panel.search, Qt.Key.Key_Return)
    await until(lambda: register.current.customer is not None, what="the customer chosen")
    type_item(window, "Soup", "4.20")
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized")
    ticket = window.cashier.ticket

    def ask() -> ManagerPrompt:
        QTest.mouseClick(ticket.cancel_button, Qt.MouseButton.LeftButton)
        prompt = window.cashier.prompt
        assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
        return prompt

    prompt = ask()
    assert prompt.question.text() == "Cancel the charge of $4.20 to Zoë Ångström?"
    assert (said(prompt.approve_button), said(prompt.cancel_button)) == ("Cancel the charge", "Keep the charge")
    pictures(window, "history-cancel-prompt", tmp_path, dialog=prompt)
    QTest.mouseClick(prompt.cancel_button, Qt.MouseButton.LeftButton)
    await until(lambda: not prompt.isVisible(), what="the prompt closed")
    assert register.current.phase is Phase.AUTHORIZED, "Keep the charge keeps it"

    prompt = ask()
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.mouseClick(prompt.approve_button, Qt.MouseButton.LeftButton)
    await until(lambda: register.current.phase is Phase.CANCELED, what="canceled")
    await until(lambda: not window.cashier.tasks.busy, what="the cancel's work done")
    name, value = ticket.figures["balance"]
    assert (name.text(), value.text()) == ("Charged", "$0.00"), "a canceled check leaves nothing to pay"
    pictures(window, "history-canceled-ticket", tmp_path)
    await finish(window, host)


async def test_every_prompt_on_money_says_what_its_buttons_do(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """Refund, no sale and close shift asked a cashier's manager with Approve and Cancel (the manager at the
    till's Yes and No: tests/ui/test_cashier_edges.py, tests/ui/test_counter_printer.py)."""
    window = await signed_in_window(host, make_window, client)
    terminal = window.terminal
    assert terminal is not None
    answers = {}
    for act in (Guarded.REFUND, Guarded.CANCEL_CHARGED, Guarded.DISCOUNT, Guarded.NO_SALE, Guarded.CLOSE_SHIFT):
        prompt = ManagerPrompt(terminal.till, act, "?", window)
        answers[act] = (said(prompt.approve_button), said(prompt.cancel_button))
        prompt.deleteLater()
    assert answers == {
        Guarded.REFUND: ("Refund", "Do not refund"),
        Guarded.CANCEL_CHARGED: ("Cancel the charge", "Keep the charge"),
        Guarded.DISCOUNT: ("Give the discount", "No discount"),
        Guarded.NO_SALE: ("Open the drawer", "Keep the drawer closed"),
        Guarded.CLOSE_SHIFT: ("Close the shift", "Keep the shift open"),
    }
    count = CloseShiftDialog(terminal.shifts.require_open(), terminal.money, window)
    assert (said(count.close_button), said(count.cancel_button)) == ("Close the shift", "Keep the shift open")
    count.deleteLater()
    await finish(window, host)


async def test_historys_cancel_prompt_names_whose_charge_and_says_what_its_buttons_do(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """History asked a cashier's manager "Cancel the charge of $6.00?" with Approve and Cancel."""
    window, register, _ = await authorized_sale(host, make_window, client, "Hugo History", "Pie", "6.00")
    await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)
    history = window.workspace.history
    window.show_tab(Tab.HISTORY)
    await until(lambda: history.cancel_button.isEnabled() and not history.tasks.busy, what="the authorized sale")
    QTest.mouseClick(history.cancel_button, Qt.MouseButton.LeftButton)
    prompt = history.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
    assert prompt.question.text() == "Cancel the charge of $6.00 to Hugo History?"
    assert (said(prompt.approve_button), said(prompt.cancel_button)) == ("Cancel the charge", "Keep the charge")
    QTest.mouseClick(prompt.cancel_button, Qt.MouseButton.LeftButton)
    await until(lambda: not prompt.isVisible(), what="the prompt closed")
    assert register.current.phase is Phase.AUTHORIZED and history.cancel_button.isEnabled(), "the charge is kept"
    await finish(window, host)
