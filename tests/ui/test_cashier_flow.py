"""The cashier's day on real widgets: customer, check with items, discount and cash, charge, complete, cancel."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.sale import Phase
from pos_terminal.ui.main_window import MainWindow
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import authorized_sale, choose, type_item
from tests.ui.conftest import finish, screenshot, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


async def test_build_a_check_charge_and_complete(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    customer = new_checked_in_customer(client, firstName="Zoë", lastName="Quigley", balance=50_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    cashier = window.cashier
    choose(window, "Quigley")
    assert cashier.ticket.customer_text.text().startswith("Zoë Quigley")

    catalog_button = next(b for b in cashier.products.tiles if "Flat white" in b.text())
    QTest.mouseClick(catalog_button, Qt.MouseButton.LeftButton)
    type_item(window, "Cake", "12.50", quantity=2)
    QTest.keyClick(window, Qt.Key.Key_F4)
    assert cashier.keypad_page.discount_input.hasFocus()
    QTest.keyClicks(cashier.keypad_page.discount_input, "10%")
    QTest.keyClick(cashier.keypad_page.discount_input, Qt.Key.Key_Return)
    QTest.keyClick(window, Qt.Key.Key_F6)
    QTest.keyClicks(cashier.keypad_page.cash_input, "5")
    QTest.keyClick(cashier.keypad_page.cash_input, Qt.Key.Key_Return)

    totals = host.terminal.register.current.totals  # type: ignore[union-attr]
    assert (totals.item_total, totals.discount_total, totals.payments) == (480 + 2500, -298, 500)
    assert totals.balance == 2980 - 298 - 500
    money = host.terminal.money  # type: ignore[union-attr]
    assert cashier.ticket.charge_button.isEnabled()
    assert cashier.ticket.charge_button.text() == f"Charge {money.format(totals.balance)}\nto Zoë Quigley"
    assert cashier.ticket.figures["balance"][1].text() == money.format(totals.balance)  # type: ignore[attr-defined]
    screenshot(window, "cashier-check", tmp_path)

    QTest.mouseClick(cashier.ticket.charge_button, Qt.MouseButton.LeftButton)
    await until(lambda: host.terminal.register.current.phase is Phase.AUTHORIZED, what="authorized")  # type: ignore[union-attr]
    await until(lambda: cashier.charge_status.countdown.isVisible(), what="the countdown")
    assert "Canceled automatically in 4:" in cashier.charge_status.countdown.text()
    assert cashier.ticket.complete_button.isVisible() and cashier.ticket.complete_button.isEnabled()
    transaction_id = host.terminal.register.current.transaction_id  # type: ignore[union-attr]
    assert transaction_id and transaction_id in cashier.charge_status.transaction_text.text()

    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: host.terminal.register.current.phase is Phase.COMPLETE, what="complete")  # type: ignore[union-attr]
    record = client.get(f"/sandbox/customers/{customer['customerId']}").json()
    assert record["balance"] < 50_000
    assert cashier.ticket.new_check_button.isVisible()
    assert cashier.ticket.lines.rowCount() == 4, "the finished check stays visible until a new one is started"

    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: cashier.ticket.lines.rowCount() == 0, what="a new check")
    assert host.terminal.journal.open_check.load() is None  # type: ignore[union-attr]
    await finish(window, host)


async def test_cancel_an_authorized_charge_returns_the_funds(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window, register, customer = await authorized_sale(host, make_window, client, "Ada Cancel", "Tea", "4.00")
    assert client.get(f"/sandbox/customers/{customer['customerId']}").json()["balance"] == 20_000 - 400
    QTest.keyClick(window, Qt.Key.Key_F9, Qt.KeyboardModifier.ShiftModifier)
    await until(lambda: register.current.phase is Phase.CANCELED, what="canceled")
    assert client.get(f"/sandbox/customers/{customer['customerId']}").json()["balance"] == 20_000
    assert window.cashier.charge_status.phase.text() == "Canceled"
    await finish(window, host)
