"""What a cashier meets on a bad day: wrong input, an invalid check, a dropped create, a slow service, a restart."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.config import with_changes
from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.sale import Phase
from pos_terminal.ui import printing
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import authorized_sale, choose, transactions_of, type_item
from tests.ui.conftest import MANAGER, MANAGER_PIN, finish, screenshot, sign_in_at_till, signed_in_window, until

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox


async def test_an_invalid_check_disables_charge_and_says_why(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    assert not cashier.ticket.charge_button.isEnabled()
    assert cashier.ticket.reason.text() == "Add an item to the check."
    type_item(window, "Soup", "8.00")
    assert "customer" in cashier.ticket.reason.text() and not cashier.ticket.charge_button.isEnabled()
    choose(window, "Nguyen")
    assert cashier.ticket.charge_button.isEnabled() and not cashier.ticket.reason.isVisible()

    type_item(window, "Bread", "-2.00")
    assert window.banner.isVisible() and cashier.ticket.lines.rowCount() == 1, "a negative price is refused as typed"
    cashier.focus_entry(cashier.keypad_page.discount_input)
    QTest.keyClicks(cashier.keypad_page.discount_input, "9.00")
    QTest.keyClick(cashier.keypad_page.discount_input, Qt.Key.Key_Return)
    assert window.banner.text.text().startswith("A discount of $9.00 is more than the check's $8.00.")
    assert cashier.ticket.lines.rowCount() == 1 and cashier.ticket.charge_button.isEnabled(), (
        "the check stays as it was"
    )
    assert cashier.keypad_page.discount_input.text() == "9.00", "what was typed is kept to be corrected"
    assert host.terminal is not None and host.terminal.journal.intents.unfinished() == []
    await finish(window, host)


async def test_wrong_amounts_get_one_sentence_and_the_check_stays(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    type_item(window, "Bread", "6.50")
    type_item(window, "Cheese", "12.345")
    assert window.banner.isVisible() and "more than 2 decimals" in window.banner.text.text()
    assert cashier.keypad_page.item_name.text() == "Cheese", "what was typed is kept to be corrected"
    assert cashier.ticket.lines.rowCount() == 1
    cashier.keypad_page.discount_input.setText("150%")
    QTest.mouseClick(cashier.keypad_page.add_discount_button, Qt.MouseButton.LeftButton)
    assert "percent between 0 and 100" in window.banner.text.text()
    cashier.keypad_page.cash_input.setText("lots")
    QTest.mouseClick(cashier.keypad_page.add_cash_button, Qt.MouseButton.LeftButton)
    assert window.banner.text.text().count(".") >= 1 and cashier.ticket.lines.rowCount() == 1
    assert host.terminal is not None
    saved = host.terminal.journal.open_check.load()
    assert saved is not None and saved["check"]["items"][0]["name"] == "Bread"
    await finish(window, host)


async def test_dropped_create_shows_verifying_and_ends_with_one_transaction(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, pos: httpx.Client
) -> None:
    customer = new_checked_in_customer(client, firstName="Drop", lastName="Test", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    choose(window, "Drop Test")
    type_item(window, "Pie", "9.00")
    client.post(
        "/sandbox/faults", json={"method": "POST", "path": "/v4/transactions", "mode": "drop_after"}
    ).raise_for_status()
    assert host.terminal is not None
    register = host.terminal.register
    seen: list[Phase] = []
    register.on_change(lambda state: seen.append(state.phase))
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized after verifying")
    assert Phase.CHARGING in seen
    assert len(transactions_of(client, pos, customer["customerId"])) == 1
    QTest.keyClick(window, Qt.Key.Key_F8)
    await asyncio.sleep(0)
    assert len(transactions_of(client, pos, customer["customerId"])) == 1, "no second charge"
    await finish(window, host)


async def test_verifying_is_shown_while_the_outcome_is_unknown(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, pos: httpx.Client
) -> None:
    customer = new_checked_in_customer(client, firstName="Vera", lastName="Unknown", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    choose(window, "Vera Unknown")
    type_item(window, "Tart", "7.00")
    fault = {"method": "POST", "path": "/v4/transactions", "mode": "drop_before"}
    client.post("/sandbox/faults", json=fault).raise_for_status()
    assert host.terminal is not None
    register = host.terminal.register
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.VERIFYING, what="verifying")
    assert window.cashier.charge_status.phase.text().startswith("Verifying")
    assert "No second charge" in window.cashier.charge_status.transaction_text.text()
    assert not window.cashier.ticket.charge_button.isEnabled()
    assert transactions_of(client, pos, customer["customerId"]) == []
    probe = {"method": "GET", "path": "/v4/transactions", "mode": "delay", "delayMs": 1}
    client.post("/sandbox/faults", json=probe).raise_for_status()
    await until(lambda: client.get("/sandbox/faults").json() == [], what="a reconciliation by refId after a pause")
    assert register.current.phase is Phase.VERIFYING
    assert not window.cashier.ticket.charge_button.isEnabled()
    assert transactions_of(client, pos, customer["customerId"]) == []
    await finish(window, host, wait=False)  # it goes on verifying until its window ends


async def test_the_window_stays_responsive_while_the_service_is_slow(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    client.post(
        "/sandbox/faults", json={"method": "GET", "path": "/v4/customers", "mode": "delay", "delayMs": 3000}
    ).raise_for_status()
    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(50)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    QTest.keyClick(window, Qt.Key.Key_F5)
    await until(lambda: window.cashier.customers.tasks.busy, what="the refresh in flight")
    await asyncio.sleep(1.0)  # a second into a 3 s call: the loop must have kept turning
    assert window.cashier.customers.tasks.busy, "the slow call is still in flight"
    assert len(ticks) >= 10, f"timers fired {len(ticks)} times in a second"
    QTest.keyClick(window, Qt.Key.Key_F7)
    assert window.cashier.keypad_page.item_name.hasFocus()
    QTest.keyClicks(window.cashier.keypad_page.item_name, "Typing works")
    assert window.cashier.keypad_page.item_name.text() == "Typing works"
    await until(lambda: not window.cashier.customers.tasks.busy, timeout=10, what="the slow refresh")
    timer.stop()
    await finish(window, host)


async def test_a_restart_restores_the_open_check_and_the_charge_in_flight(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, pos: httpx.Client
) -> None:
    customer = new_checked_in_customer(client, firstName="Rita", lastName="Restart", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    choose(window, "Rita Restart")
    type_item(window, "Quiche", "11.00")
    client.post(
        "/sandbox/faults",
        json={"method": "POST", "path": "/v4/transactions", "mode": "delay", "delayMs": 1500},
    ).raise_for_status()
    assert host.terminal is not None
    register = host.terminal.register
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.CHARGING, what="charging")
    await until(lambda: client.get("/sandbox/faults").json() == [], what="the create to reach the service")
    window.close()  # the power goes: the create is out, its answer is never read
    await finish(window, host)

    again = AppHost(host.paths, service_url=host.service_url)
    second = make_window(again)
    second.start()
    await until(lambda: second.terminal is not None and second.cashier.ticket.lines.rowCount() == 1, what="restored")
    assert "restarted during a charge" in second.banner.text.text()
    assert again.terminal is not None
    register = again.terminal.register
    try:
        await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized", timeout=20)
    except AssertionError as exc:  # say what the window showed and what the service had
        listed = transactions_of(client, pos, customer["customerId"])
        raise AssertionError(f"{exc}; shown {register.current}; the service has {listed}") from None
    assert len(transactions_of(client, pos, customer["customerId"])) == 1
    assert second.cashier.ticket.customer_text.text().startswith("Rita Restart")
    await finish(second, again)


async def test_a_connection_made_again_keeps_the_check_without_calling_it_a_restart(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """Saving the settings connects the terminal again; the open check stays in sight, and the banner had said
    "The check open before the restart was restored." though nothing had restarted."""
    customer = new_checked_in_customer(client, firstName="Sven", lastName="Settings", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    choose(window, "Sven Settings")
    type_item(window, "Quiche", "11.00")
    said: list[str] = []
    window.messages.posted.connect(lambda kind, text, topic: said.append(text))
    first = window.terminal
    window.connect_terminal()  # what saving the settings does
    await until(
        lambda: window.terminal is not None and window.terminal is not first and window.page is Page.WORKSPACE,
        what="connected again",
    )
    assert window.cashier.ticket.lines.rowCount() == 1 and window.cashier.ticket.customer_text.text().startswith("Sven")
    assert not any("restart" in text for text in said), said
    await finish(window, host)


async def test_refund_from_history_after_a_confirmation(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window, register, customer = await authorized_sale(host, make_window, client, "Rolf Refund", "Lasagne", "18.00")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    charged = client.get(f"/sandbox/customers/{customer['customerId']}").json()["balance"]
    assert charged < 20_000

    QTest.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    history = window.workspace.history
    assert window.tabs.currentWidget() is history
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: history.model.rowCount() > 0 and not history.tasks.busy, what="history")
    current = history.current()
    assert current is not None and current.transaction_id == register.current.transaction_id
    assert history.refund_button.isEnabled() and not history.complete_button.isEnabled()
    assert "Rolf Refund" in history.detail.toPlainText()
    screenshot(window, "history", tmp_path)
    QTest.mouseClick(history.refund_button, Qt.MouseButton.LeftButton)
    box = history.confirm
    assert isinstance(box, QMessageBox) and "Refund" in box.text()
    answers = [
        box.button(b).text().replace("&", "") for b in (QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No)
    ]
    assert answers == ["Refund", "Do not refund"], "the buttons say what they do, not Yes and No"
    QTest.mouseClick(box.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
    assert client.get(f"/sandbox/customers/{customer['customerId']}").json()["balance"] == charged
    QTest.mouseClick(history.refund_button, Qt.MouseButton.LeftButton)
    box = history.confirm
    assert isinstance(box, QMessageBox)
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    await until(lambda: history.current() is not None and history.current().state.value == "refunded", what="refunded")  # type: ignore[union-attr]
    assert client.get(f"/sandbox/customers/{customer['customerId']}").json()["balance"] == 20_000
    assert not history.refund_button.isEnabled()
    # what went back to whom, not the transaction's id
    back = 20_000 - charged
    assert window.banner.text.text() == f"Refunded: ${back // 100}.{back % 100:02d} goes back to Rolf Refund."

    window.show_tab(Tab.SETTINGS)
    screenshot(window, "settings", tmp_path)
    await until(lambda: window.isActiveWindow(), what="the window active again once the confirmation closed")
    QTest.keyClick(window, Qt.Key.Key_F1)
    assert window.help.isVisible()
    screenshot(window, "help", tmp_path)
    QTest.keyClick(window.help, Qt.Key.Key_Escape)
    assert not window.help.isVisible()
    # a shortcut read off the list and pressed: its tab shows, and the list no longer covers it
    QTest.keyClick(window, Qt.Key.Key_F1)
    QTest.keyClick(window.help, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentIndex() == list(Tab).index(Tab.REPORTS) and not window.help.isVisible()
    await finish(window, host)


async def test_a_copy_of_a_receipt_prints_from_history_without_a_receipt_printer(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """A customer asking for a copy of their receipt: only the command line could print one."""
    printed = tmp_path / "receipt-copy.pdf"
    host.save_settings(with_changes(host.settings, printer=f"pdf:{printed}"))
    window, register, _ = await authorized_sale(host, make_window, client, "Cora Copy", "Quiche", "9.00")
    history = window.workspace.history
    window.show_tab(Tab.HISTORY)
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: history.model.rowCount() > 0 and not history.tasks.busy, what="history")
    assert not history.receipt_button.isEnabled(), "an authorized charge has no receipt yet"
    window.show_tab(Tab.CASHIER)
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    window.show_tab(Tab.HISTORY)
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: history.receipt_button.isEnabled() and not history.tasks.busy, what="the sale complete")
    QTest.mouseClick(history.receipt_button, Qt.MouseButton.LeftButton)
    await until(lambda: not history.tasks.busy and printed.exists(), what="the copy")
    assert printed.read_bytes().startswith(b"%PDF") and printed.stat().st_size > 1_000
    assert window.banner.text.text() == f"The receipt is saved as {printed}: the printer set in Settings is a PDF file."
    assert host.terminal is not None
    entries = host.terminal.journal.audit.between(utcnow() - timedelta(minutes=5), utcnow() + timedelta(seconds=1))
    assert [e.detail["where"] for e in entries if e.action == "receipt printed" and e.detail] == [f"pdf:{printed}"]
    await finish(window, host)


async def test_a_copy_of_a_receipt_with_no_printer_at_all_says_what_would_print_it(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    if printing.system_printer_exists():
        pytest.skip("this machine has a system printer: the copy would print there")
    window, register, _ = await authorized_sale(host, make_window, client, "Nell Noprint", "Tart", "7.00")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    history = window.workspace.history
    window.show_tab(Tab.HISTORY)
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: history.receipt_button.isEnabled() and not history.tasks.busy, what="the sale")
    QTest.mouseClick(history.receipt_button, Qt.MouseButton.LeftButton)
    await until(lambda: not history.tasks.busy and window.banner.isVisible(), what="the sentence")
    assert window.banner.text.text() == (
        "There is no printer to print on. Save PDF… keeps the receipt as a file; or choose a printer in Settings "
        "(a PDF file, or the receipt printer), or add one in the system settings."
    ), "what would print it, and Save PDF… beside Print receipt"
    await finish(window, host)


async def test_history_of_another_terminal_asks_for_its_id_rather_than_listing_this_one(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """With "Another terminal…" and no id, History listed this terminal's sales under that heading; Reports said
    why it could not list."""
    window, _, _ = await authorized_sale(host, make_window, client, "Otto Other", "Bun", "3.00")
    history = window.workspace.history
    window.show_tab(Tab.HISTORY)
    await until(lambda: history.model.rowCount() == 1 and not history.tasks.busy, what="this terminal's sale")
    errors: list[str] = []
    window.messages.error.connect(errors.append)
    history.scope.setCurrentIndex(history.scope.findData("other"))
    assert history.other.isVisible() and history.other.hasFocus(), "the id is typed where it is asked for"
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: errors and not history.tasks.busy, what="the sentence")
    assert (
        errors[0]
        == "No terminal id is given for the other terminal. Type the other terminal's id, or choose another scope."
    )
    QTest.keyClicks(history.other, "LANE-9")
    QTest.keyClick(history.other, Qt.Key.Key_Return)
    await until(lambda: history.model.rowCount() == 0 and not history.tasks.busy, what="LANE-9's sales: none")
    assert history.status.text() == "No transactions in range. Cash sales are listed at the till that took them."
    await finish(window, host)


async def test_a_complete_the_service_could_not_confirm_is_sent_again_while_the_window_is_open(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """It waited for the next start, and the service canceled the sale on its own in the meantime."""
    window, register, _ = await authorized_sale(host, make_window, client, "Petra Pending", "Scone", "4.00")
    assert host.terminal is not None
    transaction_id = register.current.transaction_id
    fault = {"method": "PATCH", "path": f"/v4/transactions/{transaction_id}", "mode": "error_before", "times": 3}
    client.post("/sandbox/faults", json=fault).raise_for_status()
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: "will be sent again" in window.cashier.charge_status.charge_message.text(), what="kept pending")
    assert register.current.pending
    await until(
        lambda: "has not confirmed the complete yet (" in window.cashier.charge_status.wait_text.text(), what="how long"
    )
    assert client.get(f"/sandbox/transactions/{transaction_id}").json()["state"] == "authorized"

    await until(lambda: register.current.phase is Phase.COMPLETE, timeout=20, what="the complete sent again")
    assert client.get(f"/sandbox/transactions/{transaction_id}").json()["state"] == "complete"
    assert not register.current.pending and host.terminal.pending_changes() == 0
    await until(lambda: window.cashier.charge_status.phase.text() == "Complete", what="the screen showing it complete")
    assert not window.cashier.charge_status.charge_message.isVisible(), (
        window.cashier.charge_status.charge_message.text()
    )
    await finish(window, host)


async def test_fields_emptied_after_each_entry_keep_no_undo_history(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """Each field the cashier types into is emptied once its entry is on the check, and forgets what it held:
    ``clear()`` kept every removed character on the undo stack, which grew all day (seen in the soak)."""
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    choose(window, "Nguyen")
    for _ in range(3):
        type_item(window, "Cappuccino", "4.50")
        cashier.focus_entry(cashier.keypad_page.discount_input)
        QTest.keyClicks(cashier.keypad_page.discount_input, "0.10")
        QTest.keyClick(cashier.keypad_page.discount_input, Qt.Key.Key_Return)
        QTest.keyClicks(cashier.keypad_page.cash_input, "1")
        QTest.keyClick(cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    for field in (
        cashier.keypad_page.item_name,
        cashier.keypad_page.item_price,
        cashier.keypad_page.discount_input,
        cashier.keypad_page.cash_input,
    ):
        assert field.text() == "", field.accessibleName()
        assert not field.isUndoAvailable(), f"{field.accessibleName()} keeps an undo history"
    cashier.new_check()
    assert not cashier.customers.search.isUndoAvailable()
    await finish(window, host)


async def test_a_broken_catalog_file_gets_one_sentence_and_the_open_check_comes_back(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    customer = new_checked_in_customer(client, firstName="Cato", lastName="Catalog", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    choose(window, "Cato Catalog")
    type_item(window, "Quiche", "11.00")
    await finish(window, host)

    catalog = tmp_path / "catalog.json"
    catalog.write_text('{"items": [{"name": "Tea", "price": 400, "taxRate": "1e999999"}]}' + " " + "[" * 50_000)
    host.save_settings(with_changes(host.settings, catalog_file=str(catalog)))
    again = AppHost(host.paths, service_url=host.service_url)
    second = make_window(again)
    second.start()
    await until(lambda: second.terminal is not None and second.cashier.ticket.lines.rowCount() == 1, what="restored")
    await sign_in_at_till(second, MANAGER, MANAGER_PIN)
    problem = second.cashier.products.problem
    assert problem.isVisible() and problem.accessibleName() == "Catalog problem"
    assert str(catalog) in problem.text() and "items can still be typed" in problem.text(), problem.text()
    assert "Something unexpected" not in second.banner.text.text()
    assert second.cashier.ticket.customer_text.text().startswith("Cato Catalog")
    await finish(second, again)


async def test_a_refund_made_while_the_detail_is_still_read_stays_refunded(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """The whole record of the row chosen is read when it is chosen; a refund made before that read is back must
    not be undone on screen by it (the soak saw a refunded sale shown complete again)."""
    window, register, _ = await authorized_sale(host, make_window, client, "Dora Detail", "Scone", "5.50")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    transaction_id = register.current.transaction_id
    fault = {"method": "GET", "path": f"/v4/transactions/{transaction_id}", "mode": "delay", "delayMs": 1500}
    client.post("/sandbox/faults", json=fault).raise_for_status()
    window.show_tab(Tab.HISTORY)
    history = window.workspace.history
    await until(lambda: history.tasks.is_running("detail"), what="the chosen row's record being read")
    QTest.mouseClick(history.refund_button, Qt.MouseButton.LeftButton)
    await until(lambda: history.confirm is not None and history.confirm.isVisible(), what="the question, once read")
    box = history.confirm
    assert isinstance(box, QMessageBox)
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    await until(lambda: not history.tasks.busy, what="the refund, and the read before it let go")
    shown = history.model.find(str(transaction_id))
    assert shown is not None and shown.state.value == "refunded"
    assert "refunded" in history.detail.toPlainText()
    await finish(window, host)


async def test_a_key_on_the_first_screen_that_needs_the_terminal_says_so_and_keeps_what_was_typed(
    host: AppHost, make_window: Callable[[AppHost], MainWindow]
) -> None:
    """The first screen is painted before the terminal exists (pos_terminal.app)."""
    window = make_window(host)
    window.show_first_screen()
    cashier = window.cashier
    assert not cashier.ticket.charge_button.isEnabled()
    assert window.status.region.text() == "Connecting…"
    cashier.keypad_page.item_name.setText("Tea")
    cashier.keypad_page.item_price.setText("4.50")

    cashier.keypad_page.add_item_button.click()

    assert "The terminal is not connected yet." in window.banner.text.text()
    assert (cashier.keypad_page.item_name.text(), cashier.keypad_page.item_price.text()) == ("Tea", "4.50"), (
        "what was typed is kept"
    )
    await finish(window, host)
