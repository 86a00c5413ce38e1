"""The receipt printer and the cash drawer from the cashier's window, against a fake ESC/POS printer on loopback:
the receipt of a completed charge, a printer out of paper said once with the slip kept and printed once when it is
back, and the no-sale opening behind its approval."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.config import DeviceSettings, Settings, save_settings
from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.sale import Phase
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.ui import printing
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
from pos_terminal.ui.main_window import MainWindow, Tab
from tests.conftest import new_checked_in_customer
from tests.devices.fake_printer import FakePrinter, Kick, Mode, QrCode, text_of
from tests.helpers.ui import ANA, ANA_PIN, authorized_sale, choose, switch_to, type_item, with_cashiers
from tests.ui.conftest import MANAGER, MANAGER_PIN, TERMINAL_ID, finish, screenshot, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QScrollArea, QWidget


def assert_inside(window: MainWindow, widget: QWidget) -> None:
    QApplication.processEvents()
    corner = widget.mapTo(window, widget.rect().bottomRight())
    assert window.rect().contains(corner), f"{widget.accessibleName()} is cut off at {corner}"


@pytest.fixture
def fake() -> Iterator[FakePrinter]:
    printer = FakePrinter()
    yield printer
    printer.close()


@pytest.fixture
def printer_host(profile: Paths, sandbox: SandboxServer, fake: FakePrinter) -> AppHost:
    devices = DeviceSettings(receipt_printer=fake.address, printer_profile="TM-T20II", cash_drawer=True)
    save_settings(profile.config_file, Settings(terminal_id=TERMINAL_ID, devices=devices))
    return AppHost(profile, service_url=sandbox.url)


async def test_a_receipt_waits_out_the_paper_and_prints_once_when_the_cashier_says_print_now(
    printer_host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    fake: FakePrinter,
    tmp_path: Path,
) -> None:
    host = printer_host
    window, register, _ = await authorized_sale(host, make_window, client, "Ida Paper", "Scone", "5.50")
    bar = window.hardware.bar
    assert bar.isVisible() and bar.drawer_button.isVisible() and not bar.retry_button.isVisible()
    fake.mode = Mode.NO_PAPER
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    await until(lambda: "out of paper" in window.banner.text.text(), what="the sentence")
    assert window.banner.text.text().startswith("The receipt printer is out of paper. 1 slip waiting;")
    assert bar.retry_button.text() == "Print 1 slip" and bar.retry_button.isVisible()
    window.resize(1024, 768)
    screenshot(window, "cashier-printer-out-of-paper-1024x768", tmp_path)
    assert_inside(window, bar.drawer_button)
    assert not fake.jobs()

    fake.mode = Mode.READY
    QTest.mouseClick(bar.retry_button, Qt.MouseButton.LeftButton)
    await until(lambda: not window.banner.isVisible(), what="the sentence to go")
    fake.wait_for(fake.jobs)
    [job] = fake.jobs()
    assert "Ida Paper" in text_of(job) and "Scone" in text_of(job)
    assert [q.data for q in job if isinstance(q, QrCode)] == [register.current.transaction_id]
    assert not bar.retry_button.isVisible() and not bar.cancel_button.isVisible()
    assert fake.kicks() == [], "no cash was taken: the drawer stays shut"
    await finish(window, host)
    assert len(fake.jobs()) == 1, "printed once"


async def test_a_cash_sale_opens_the_drawer_and_a_no_sale_opening_asks_first(
    printer_host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, fake: FakePrinter
) -> None:
    host = printer_host
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    type_item(window, "Muffin", "5.50")
    QTest.keyClick(window, Qt.Key.Key_F6)
    QTest.keyClicks(cashier.keypad_page.cash_input, "10")
    QTest.keyClick(cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    QTest.keyClick(window, Qt.Key.Key_F8)
    assert host.terminal is not None
    assert host.terminal.register.current.phase is Phase.PAID_IN_CASH
    await until(lambda: fake.kicks(), what="the drawer")
    assert fake.kicks() == [Kick(2)]

    QTest.keyClick(window, Qt.Key.Key_F10)
    box = window.approvals.confirmation
    assert isinstance(box, QMessageBox) and box.text() == "Open the cash drawer with no sale?"
    answers = [
        box.button(b).text().replace("&", "") for b in (QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No)
    ]
    assert answers == ["Open the drawer", "Keep the drawer closed"], "the buttons say what they do, not Yes and No"
    box.button(QMessageBox.StandardButton.Yes).click()
    await until(lambda: len(fake.kicks()) == 2, what="the no-sale opening")
    await until(lambda: not window.tasks.is_running("drawer"), what="the audit entry")
    journal = host.terminal.journal
    entries = journal.audit.between(utcnow() - timedelta(minutes=5), utcnow() + timedelta(seconds=1))
    assert [(e.action, e.detail.get("reason")) for e in entries if e.action.startswith("drawer")] == [
        ("drawer opened", "cash sale"),
        ("drawer opened", "no sale"),
    ]

    fake.go_away()
    window.activateWindow()  # as the window system does once the box is gone
    await until(lambda: QApplication.activeWindow() is window, what="the window active again")
    QTest.keyClick(window, Qt.Key.Key_F10)
    assert isinstance(window.approvals.confirmation, QMessageBox)
    window.approvals.confirmation.button(QMessageBox.StandardButton.Yes).click()
    await until(lambda: "The cash drawer did not open" in window.banner.text.text(), what="the sentence")
    await finish(window, host)


async def test_a_cashier_opens_the_drawer_without_a_sale_only_with_a_managers_pin(
    printer_host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, fake: FakePrinter
) -> None:
    host = printer_host
    window = await signed_in_window(host, make_window, client)
    terminal = await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)

    QTest.keyClick(window, Qt.Key.Key_F10)
    prompt = window.approvals.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.question.text() == "Open the cash drawer without a sale?"
    assert fake.kicks() == [], "not before a manager approves"
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: fake.kicks() == [Kick(2)], what="the drawer")
    await until(lambda: not window.tasks.is_running("drawer"), what="the audit entry")
    entries = terminal.journal.audit.between(utcnow() - timedelta(minutes=5), utcnow() + timedelta(seconds=1))
    [opened] = [e for e in entries if e.action == "drawer opened"]
    assert (opened.actor, opened.detail) == (ANA, {"reason": "no sale", "approvedBy": MANAGER})
    shift = terminal.shifts.require_open()
    assert terminal.shifts.section(shift).no_sales == 1
    await finish(window, host)


async def test_without_a_printer_nothing_of_it_shows(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    assert not window.hardware.bar.isVisible()
    QTest.keyClick(window, Qt.Key.Key_F10)
    assert window.banner.text.text().startswith("No cash drawer is set up at this terminal.")
    await finish(window, host)


async def test_the_settings_hold_the_devices_and_refuse_an_address_the_terminal_cannot_use(
    printer_host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    host = printer_host
    window = await signed_in_window(host, make_window, client)
    window.resize(1024, 768)
    window.show_tab(Tab.SETTINGS)
    view = window.workspace.settings_view
    assert view.receipt_printer.text() == host.settings.devices.receipt_printer
    assert view.cash_drawer.isChecked() and view.print_receipts.isChecked()
    scroll = view.findChild(QScrollArea)
    assert scroll is not None
    QApplication.processEvents()
    scroll.ensureWidgetVisible(view.display_screen)
    screenshot(window, "settings-devices-1024x768", tmp_path)

    view.receipt_printer.setText("usb://printer")
    QTest.mouseClick(view.save_button, Qt.MouseButton.LeftButton)
    assert view.error.text().startswith(
        "The receipt printer address “usb://printer” is not one the terminal understands."
    )
    view.receipt_printer.setText("tcp://192.0.2.7")
    view.scanner_prefix.setText("]C")
    view.customer_display.setChecked(True)
    saved: list[Settings] = []
    view.saved.connect(saved.append)
    QTest.mouseClick(view.save_button, Qt.MouseButton.LeftButton)
    assert view.error.text() == ""
    [settings] = saved
    assert settings.devices.receipt_printer == "tcp://192.0.2.7" and settings.devices.scanner_prefix == "]C"
    assert settings.devices.customer_display and settings.devices.cash_drawer
    await finish(window, host)


async def test_a_cash_sale_prints_its_receipt_as_a_charge_does(
    printer_host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, fake: FakePrinter
) -> None:
    """A cash-only sale opened the drawer and printed nothing."""
    host = printer_host
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    type_item(window, "Muffin", "5.50")
    QTest.keyClick(window, Qt.Key.Key_F6)
    QTest.keyClicks(cashier.keypad_page.cash_input, "10")
    QTest.keyClick(cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: fake.jobs() and fake.kicks(), what="the drawer and the receipt")
    [job] = fake.jobs()
    text = text_of(job)
    assert "Muffin" in text and "Paid in cash" in text and "$10.00" in text and "$4.50" in text, text
    assert [q for q in job if isinstance(q, QrCode)] == [], "no transaction, no QR code"
    assert "Customer" not in text, "nobody's sale has no “Customer -” line"
    await finish(window, host)
    assert len(fake.jobs()) == 1


async def test_a_refund_with_cash_to_give_back_opens_the_drawer_after_its_approval(
    printer_host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, fake: FakePrinter
) -> None:
    """The banner said "Give back $10.00 in cash" and the drawer stayed shut: F10 and a second approval."""
    host = printer_host
    customer = new_checked_in_customer(client, firstName="Rhea", lastName="Refund", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = await with_cashiers(host)
    await switch_to(window, ANA, ANA_PIN)
    choose(window, "Rhea Refund")
    type_item(window, "Hamper", "30.00")
    QTest.keyClicks(window.cashier.keypad_page.cash_input, "10")
    QTest.keyClick(window.cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    QTest.keyClick(window, Qt.Key.Key_F8)
    register = terminal.register
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    await until(lambda: len(fake.kicks()) == 1, what="the drawer for the cash taken")

    window.show_tab(Tab.HISTORY)
    history = window.workspace.history
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: history.model.rowCount() > 0 and not history.tasks.busy, what="history")
    QTest.mouseClick(history.refund_button, Qt.MouseButton.LeftButton)
    prompt = history.prompt
    assert isinstance(prompt, ManagerPrompt) and "give back $10.00 in cash" in prompt.question.text()
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: len(fake.kicks()) == 2, what="the drawer opened for the cash given back")
    await until(lambda: not history.tasks.busy, what="the audit entry")
    assert "Give back $10.00 in cash." in window.banner.text.text()
    assert window.approvals.prompt is None and window.approvals.confirmation is None, "no second approval"
    assert window.confirmation is None
    entries = terminal.journal.audit.between(utcnow() - timedelta(minutes=5), utcnow() + timedelta(seconds=1))
    assert [(e.actor, e.detail) for e in entries if e.action == "drawer opened"][-1] == (
        ANA,
        {"reason": "refund", "approvedBy": MANAGER},
    )
    assert terminal.shifts.section(terminal.shifts.require_open()).no_sales == 0, "a refund is not a no-sale"

    # the customer's slip of the refund, as of the charge; and a copy when they ask for one
    await until(lambda: len(fake.jobs()) == 2, what="the refund's slip")
    refund_slip = text_of(fake.jobs()[1])
    assert "REFUNDED - $20.00 returned to the customer's account, $10.00 in cash" in " ".join(refund_slip.split()), (
        refund_slip
    )
    assert history.receipt_button.isEnabled()
    QTest.mouseClick(history.receipt_button, Qt.MouseButton.LeftButton)
    await until(lambda: len(fake.jobs()) == 3, what="the copy")
    assert text_of(fake.jobs()[2]).split("printed")[0] == refund_slip.split("printed")[0]
    assert window.banner.text.text() == "The receipt went to the receipt printer."
    await finish(window, host)


async def test_a_complete_in_flight_at_quit_prints_its_receipt_once_after_the_restart(
    printer_host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, fake: FakePrinter
) -> None:
    """The charge showed complete after the restart, but its receipt never printed."""
    host = printer_host
    window, register, _ = await authorized_sale(host, make_window, client, "Cleo Crash", "Pie", "6.00")
    transaction_id = register.current.transaction_id
    path = f"/v4/transactions/{transaction_id}"
    for fault in (
        {"method": "PATCH", "path": path, "mode": "drop_after"},  # the service completes it; the answer is lost
        {"method": "PATCH", "path": path, "mode": "error_before", "times": 50},  # and no resend gets through
    ):
        client.post("/sandbox/faults", json=fault).raise_for_status()
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: len(client.get("/sandbox/faults").json()) == 1, what="the complete to reach the service")
    assert client.get(f"/sandbox/transactions/{transaction_id}").json()["state"] == "complete"
    await until(
        lambda: "will be sent again" in window.cashier.charge_status.charge_message.text(), what="kept to be sent again"
    )
    assert register.current.phase is Phase.AUTHORIZED
    window.close()  # Ctrl+Q: the complete went through, the terminal never heard
    await finish(window, host, wait=False)
    assert fake.jobs() == []

    for restart in (1, 2):
        again = AppHost(host.paths, service_url=host.service_url)
        second = make_window(again)
        second.start()
        await until(lambda a=again: a.terminal is not None, what=f"restart {restart}")
        assert again.terminal is not None
        restored = again.terminal.register
        await until(lambda r=restored: r.current.phase is Phase.COMPLETE, what="found complete", timeout=20)
        if restart == 1:
            await until(fake.jobs, what="the receipt printed")
        await until(lambda s=second: not s.tasks.is_running("counter"), what="the printer idle")
        await finish(second, again, wait=False)
        [job] = fake.jobs()
        assert [q.data for q in job if isinstance(q, QrCode)] == [transaction_id], f"once, after restart {restart}"


async def test_the_roll_report_goes_to_the_receipt_printer_as_its_slip_made_in_the_report_child(
    printer_host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, fake: FakePrinter
) -> None:
    """The window never holds the report itself: the roll layout's slip comes from the report child with its PDF,
    and printing queues that slip for the receipt printer."""
    from pos_terminal.ui.reports_view import ReportsView

    host = printer_host
    window, register, _ = await authorized_sale(host, make_window, client, "Rolf Roll", "Scone", "5.50")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    await until(lambda: len(fake.jobs()) == 1, what="the sale's receipt")
    window.show_tab(Tab.REPORTS)
    view = window.workspace.reports
    assert isinstance(view, ReportsView)
    view.layout_choice.setCurrentIndex(view.layout_choice.findData("roll"))
    view.show_report()
    await until(lambda: view.paper is not None and view.paper.layout == "roll", what="the roll report")
    assert view.paper is not None and view.paper.slip is not None
    where = view.print_report()
    assert where is not None and where.startswith("receipt printer")
    await until(lambda: len(fake.jobs()) == 2, what="the report's slip printed")
    slip = text_of(fake.jobs()[-1])
    assert "End-of-day report (so far today)" in slip and "Reconciled" in slip
    words = " ".join(slip.split())  # the roll wraps a long sentence
    assert "$5.50" in slip and "Maria Manager completed transaction" in words, "its figures and its audit log"
    await finish(window, host)


async def test_the_z_report_at_the_close_goes_to_the_receipt_printer_when_it_is_the_only_one(
    printer_host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, fake: FakePrinter
) -> None:
    """A counter with a receipt printer and no other closed its shift with "Print the Z report" ticked, and was
    told "There is no printer to print on"."""
    if printing.system_printer_exists():
        pytest.skip("this machine has a system printer: the Z report would go there, not to the receipt printer")
    host = printer_host
    customer = new_checked_in_customer(client, firstName="Zed", lastName="Close", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    QTest.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    shifts = window.workspace.shifts
    QTest.mouseClick(shifts.close_button, Qt.MouseButton.LeftButton)
    dialog = window.approvals.close_dialog
    assert isinstance(dialog, CloseShiftDialog) and dialog.print_z.isChecked()
    QTest.keyClicks(dialog.typed_total, "200")
    QTest.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    reports = window.workspace.reports
    await until(lambda: fake.jobs(), what="the Z report on the roll", timeout=60)
    [job] = fake.jobs()
    assert "Z report" in text_of(job) and "shift 1" in text_of(job), text_of(job)
    assert reports.report is not None and reports.report.title.startswith("Z report")
    assert window.banner.text.text() == "The report went to the receipt printer."
    assert reports.selected_layout() == "roll"
    reports.layout_choice.setCurrentIndex(reports.layout_choice.findData("a4"))
    await until(lambda: reports.paper is not None and reports.paper.layout == "a4", what="the A4 paper")
    QTest.mouseClick(reports.print_button, Qt.MouseButton.LeftButton)
    assert window.banner.text.text() == (
        "This counter has no printer for A4, only its receipt printer. "
        "Choose the 80 mm roll layout to print the report there."
    )
    assert len(fake.jobs()) == 1
    await finish(window, host)


async def test_a_copy_of_a_cash_sales_receipt_prints_on_the_receipt_printer_from_history(
    printer_host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, fake: FakePrinter
) -> None:
    """History had no cash sales: a customer who paid cash could not have a copy of their receipt."""
    host = printer_host
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    type_item(window, "Scone", "3.20")
    QTest.keyClick(window, Qt.Key.Key_F6)
    QTest.keyClicks(cashier.keypad_page.cash_input, "5")
    QTest.keyClick(cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: len(fake.jobs()) == 1, what="the cash sale's receipt")
    first = text_of(fake.jobs()[0])
    window.show_tab(Tab.HISTORY)
    history = window.workspace.history
    await until(lambda: history.model.rowCount() == 1 and not history.tasks.busy, what="the cash sale listed")
    assert history.receipt_button.isEnabled()
    QTest.mouseClick(history.receipt_button, Qt.MouseButton.LeftButton)
    await until(lambda: len(fake.jobs()) == 2, what="the copy")

    def lines(text: str) -> list[str]:  # the sale's time is the journal's, read a moment before the first slip's
        return [line for line in text.splitlines() if not line.startswith("Time")]

    assert lines(text_of(fake.jobs()[1])) == lines(first), "the copy is the receipt printed at the sale"
    assert "Scone" in first and "Change" in first
    assert window.banner.text.text() == "The receipt went to the receipt printer."
    await finish(window, host)
