"""What a manager and a cashier read when a prompt asks about money (issue 48), on real widgets against the
sandbox: the discount approved as it was typed."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from pos_terminal.app import AppHost
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.main_window import MainWindow
from tests.helpers.ui import ANA, ANA_PIN, switch_to, type_item, with_cashiers
from tests.ui.conftest import MANAGER, MANAGER_PIN, finish, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


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
