"""The counter's rules on real widgets: search as names are typed, change due and cash sales, Ctrl+N asks first,
errors that go once untrue, a banner that moves nothing, waits that say how long, a whole sale by keyboard."""

from __future__ import annotations

import io
from collections.abc import Callable

import httpx
from pypdf import PdfReader

from pos_terminal.app import AppHost
from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.sale import Phase
from pos_terminal.services.session import SessionState
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.signin_view import SignInState
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import authorized_sale, choose, enter, keys, transactions_of, type_item
from tests.ui.conftest import finish, signed_in_window, until

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMessageBox,
    QWidget,
)


async def test_names_are_found_however_they_are_typed(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """ "zoe" finds Zoë Ångström, who is checked in; so do her last name without its ring and her numbers."""
    zoe = new_checked_in_customer(client, firstName="Zoë", lastName="Åkesson-Ström", memberNo="M-5150")
    window = await signed_in_window(host, make_window, client, listing=zoe)
    panel = window.cashier.customers
    for typed in ("zoe akesson", "ZOË AKESSON", "akesson-strom", "m-5150", zoe["checkInNumber"]):
        panel.search.setText("")
        QTest.keyClicks(panel.search, typed)
        names = [panel.model.customer(r).display_name for r in range(panel.model.rowCount())]  # type: ignore[union-attr]
        assert "Zoë Åkesson-Ström" in names, (typed, names)
    panel.search.setText("")
    choose(window, "zoe akesson")
    assert window.cashier.ticket.customer_text.text().startswith("Zoë Åkesson-Ström · member M-5150")
    await finish(window, host)


async def test_cash_over_the_balance_is_change_due_and_the_sale_needs_no_charge(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, pos: httpx.Client
) -> None:
    customer = new_checked_in_customer(client, firstName="Cas", lastName="Hpayer", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    cashier = window.cashier
    choose(window, "Hpayer")
    type_item(window, "Tart", "7.00")
    QTest.keyClick(window, Qt.Key.Key_F6)
    keys(window, "50")
    enter()
    name, value = cashier.ticket.figures["balance"]
    assert (name.text(), value.text()) == ("Change due", "$43.00")
    assert cashier.ticket.figures["payments"][1].text() == "$50.00"
    assert (
        cashier.ticket.charge_button.isEnabled()
        and cashier.ticket.charge_button.text() == "Finish cash sale\nchange due $43.00"
    )
    assert not cashier.ticket.reason.isVisible() and not window.banner.isVisible(), window.banner.text.text()

    QTest.keyClick(window, Qt.Key.Key_F8)
    assert host.terminal is not None
    assert host.terminal.register.current.phase is Phase.PAID_IN_CASH
    assert (
        cashier.charge_status.phase.text() == "Paid in cash"
        and "Change due $43.00" in cashier.charge_status.summary.text()
    )
    assert "nothing was sent to the service" in cashier.charge_status.next_text.text()
    assert transactions_of(client, pos, customer["customerId"]) == [], "the service is never asked to charge 0"
    assert client.get(f"/sandbox/customers/{customer['customerId']}").json()["balance"] == 20_000
    [sale] = host.terminal.journal.cash_sales.between(utcnow().replace(year=2000), utcnow())
    assert (sale.total, sale.paid, sale.change) == (700, 5_000, 4_300)

    QTest.keyClick(window, Qt.Key.Key_F4)
    assert window.banner.text.text().startswith("This check is finished."), "no discount lands on a finished check"
    assert host.terminal.register.current.phase is Phase.PAID_IN_CASH
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert host.terminal.register.current.phase is Phase.BUILDING and cashier.ticket.lines.rowCount() == 0
    assert not window.banner.isVisible(), "the finished check's message went with it"

    window.show_tab(Tab.REPORTS)  # the shift keeps it: on screen and on paper, apart from the service's figures
    view = window.workspace.reports
    view.show_report()
    await until(lambda: view.paper is not None, what="the report and its PDF")
    assert "Cash sales on this terminal: 1 ($7.00)" in view.counts.text()
    assert view.report is not None and view.report.reconciled
    assert view.paper is not None
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(view.paper.data)).pages)
    assert "Cash sales on this terminal (1)" in text and "$43.00" in text
    await finish(window, host)


async def test_ctrl_n_asks_before_throwing_away_a_check_being_built(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    choose(window, "Nguyen")
    type_item(window, "Soup", "8.00")
    type_item(window, "Roll", "1.50", quantity=2)
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    box = cashier.confirmation
    assert isinstance(box, QMessageBox) and box.isVisible() and box.text() == "Start a new check?"
    assert "3 items, $11.00 for" in box.informativeText(), "counted as a receipt counts them, not by line"
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
    QTest.mouseClick(box.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
    assert cashier.ticket.lines.rowCount() == 2, "No keeps the check"
    assert host.terminal is not None and host.terminal.journal.open_check.load() is not None

    # the window is active again by itself, its shortcuts live: no window manager did it (a kiosk session has none)
    await until(window.isActiveWindow, what="the window active again once the question is answered")
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    box = cashier.confirmation
    assert isinstance(box, QMessageBox)
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    assert cashier.ticket.lines.rowCount() == 0 and host.terminal.register.current.customer is None
    assert host.terminal.journal.open_check.load() is None
    await finish(window, host)


async def test_an_error_goes_once_its_cause_is_gone_and_the_banner_moves_nothing(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window, register, _ = await authorized_sale(host, make_window, client, "Eve Rror", "Tea", "4.00")
    cashier = window.cashier
    before = (
        cashier.ticket.complete_button.mapTo(window, QPoint(0, 0)),
        cashier.ticket.table.mapTo(window, QPoint(0, 0)),
    )
    QTest.keyClick(window, Qt.Key.Key_F4)
    assert window.banner.isVisible()
    assert window.banner.text.text().startswith("The check cannot be changed while its charge is under way.")
    after = cashier.ticket.complete_button.mapTo(window, QPoint(0, 0)), cashier.ticket.table.mapTo(window, QPoint(0, 0))
    assert after == before, "the message took no room from the screen"
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    assert not window.banner.isVisible(), f"still up after Complete: {window.banner.text.text()}"
    assert cashier.ticket.new_check_button.mapTo(window, QPoint(0, 0)) == before[0]
    await finish(window, host)


async def test_a_sign_in_error_goes_once_signed_in_again(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    assert host.terminal is not None
    window.on_session_state(SessionState.EXPIRED)  # as a refused refresh reports it
    assert window.banner.text.text().startswith("The sign-in is no longer valid.")
    sign_in = window.sign_in
    await until(lambda: sign_in.state is SignInState.PENDING, what="a code to approve")
    QTest.mouseClick(sign_in.demo_button, Qt.MouseButton.LeftButton)
    await until(lambda: window.page is Page.WORKSPACE and window.cashier.terminal is not None, what="signed in")
    assert not window.banner.isVisible() or "sign-in" not in window.banner.text.text()
    await finish(window, host)


async def test_completing_says_what_it_waits_for_and_for_how_long(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window, register, _ = await authorized_sale(host, make_window, client, "Walt Wait", "Tea", "4.00")
    cashier = window.cashier
    path = f"/v4/transactions/{register.current.transaction_id}"
    client.post("/sandbox/faults", json={"method": "PATCH", "path": path, "mode": "delay", "delayMs": 2500})
    QTest.keyClick(window, Qt.Key.Key_F9)
    assert cashier.charge_status.phase.text() == "Completing…"
    await until(lambda: "(1 s)" in cashier.charge_status.wait_text.text(), what="a second counted")
    assert cashier.charge_status.wait_text.text().startswith("Waiting for the service to confirm the complete")
    assert not cashier.ticket.complete_button.isEnabled()
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    assert cashier.charge_status.phase.text() == "Complete" and not cashier.charge_status.wait_text.isVisible()
    await finish(window, host)


async def test_a_charge_being_verified_says_what_happens_next_and_can_be_checked_now(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, pos: httpx.Client
) -> None:
    customer = new_checked_in_customer(client, firstName="Vic", lastName="Verify", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    cashier = window.cashier
    choose(window, "Vic Verify")
    type_item(window, "Tart", "7.00")
    client.post("/sandbox/faults", json={"method": "POST", "path": "/v4/transactions", "mode": "drop_after"})
    # the create lands but its answer is lost, and the listings that would find it fail: the charge's own look
    # and the first look after it (three attempts each)
    failing = {"method": "GET", "path": "/v4/transactions", "mode": "error_before", "times": 6}
    client.post("/sandbox/faults", json=failing)
    assert host.terminal is not None
    register = host.terminal.register
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.VERIFYING, what="verifying")
    await until(cashier.charge_status.check_now_button.isVisible, what="Check now")
    assert cashier.charge_status.wait_text.text().startswith("Verifying the charge with the service: sent")
    # a charge whose create may have landed is never called "not charged" while it is verified
    assert (
        "the check can be charged again, and the terminal cancels this charge" in cashier.charge_status.next_text.text()
    )
    assert "nothing was charged" not in cashier.charge_status.next_text.text()
    assert "No second charge is sent meanwhile" in cashier.charge_status.next_text.text()
    await until(lambda: "asks the service again in" in cashier.charge_status.next_text.text(), what="the next look")
    QTest.mouseClick(cashier.charge_status.check_now_button, Qt.MouseButton.LeftButton)
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="found by refId", timeout=10)
    assert len(transactions_of(client, pos, customer["customerId"])) == 1
    await finish(window, host)


async def test_history_shows_the_sale_the_moment_the_tab_opens(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """Even when the service's clock runs ahead of the terminal's (the sandbox keeps a clock moved forward
    across restarts): "Today" used to end at the terminal's now, and a sale stamped later was missing."""
    client.post("/sandbox/clock", json={"advanceSeconds": 600}).raise_for_status()
    window, register, _ = await authorized_sale(host, make_window, client, "Hester Story", "Scone", "4.00")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    transaction_id = register.current.transaction_id
    QTest.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    history = window.workspace.history
    await until(lambda: any(t.transaction_id == transaction_id for t in history.model.rows), what="the sale in History")
    assert history.status.text().endswith("transaction.") or "transactions." in history.status.text()
    await finish(window, host)


async def test_a_canceled_sale_shows_nothing_charged_in_history(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window, register, _ = await authorized_sale(host, make_window, client, "Cancel Led", "Scone", "5.50")
    QTest.keyClick(window, Qt.Key.Key_F9, Qt.KeyboardModifier.ShiftModifier)
    await until(lambda: register.current.phase is Phase.CANCELED, what="canceled")
    window.show_tab(Tab.HISTORY)
    history = window.workspace.history
    await until(lambda: history.current() is not None, what="the canceled sale")
    assert history.model.data(history.model.index(0, 3)) == "—"
    await until(lambda: "Charged" in history.detail.toPlainText(), what="the whole record, read for its detail")
    detail = history.detail.toPlainText()
    assert "Charged nothing: the amount reserved was released" in " ".join(detail.split())
    assert "Fee" not in detail
    await finish(window, host)


async def test_a_whole_sale_without_a_mouse(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """F2 and a name, F3 and part of a product's name (or all of one), Enter in the quantity box, F8, F9, Ctrl+N:
    no mouse."""
    customer = new_checked_in_customer(client, firstName="Kay", lastName="Board", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    cashier = window.cashier
    assert host.terminal is not None
    register = host.terminal.register
    QTest.keyClick(window, Qt.Key.Key_F2)
    keys(window, "kay board")
    enter()
    assert register.current.customer is not None and register.current.customer.last_name == "Board"
    assert cashier.products.search.hasFocus(), "the next thing to type is what is sold"
    keys(window, "flat wh")
    enter()
    QTest.keyClick(window, Qt.Key.Key_F3)
    keys(window, "flat wh")
    enter()
    assert [(i.name, i.quantity) for i in register.current.check.items] == [("Flat white", 2)]
    QTest.keyClick(window, Qt.Key.Key_F3)
    keys(window, "latte")  # Latte, Chai latte and Matcha latte are found: the one called so is added
    enter()
    assert [i.name for i in register.current.check.items] == ["Flat white", "Latte"]
    QTest.keyClick(window, Qt.Key.Key_F3)
    keys(window, "Lemon tart")
    enter()  # not in the catalog: typed by hand, its price next
    assert cashier.keypad_page.item_name.text() == "Lemon tart" and cashier.keypad_page.item_price.hasFocus()
    keys(window, "6.50")
    QTest.keyClick(window.focusWidget(), Qt.Key.Key_Tab)
    assert cashier.keypad_page.item_quantity.hasFocus()
    cashier.keypad_page.item_quantity.lineEdit().selectAll()
    keys(window, "3")
    enter()
    assert [(i.name, i.quantity) for i in register.current.check.items][-1] == ("Lemon tart", 3)
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized")
    await until(cashier.ticket.complete_button.hasFocus, what="Complete in focus")
    enter()
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert register.current.phase is Phase.BUILDING and cashier.customers.search.hasFocus()
    await finish(window, host)


async def test_every_control_has_a_name_and_the_focus_follows_the_screen(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    cashier = window.cashier
    for tab in (0, 1):
        cashier.entry_tabs.setCurrentIndex(tab)
        QApplication.processEvents()
        controls = (QAbstractButton, QLineEdit, QAbstractSpinBox, QComboBox, QAbstractItemView)
        nameless = [
            f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r}"
            for w in cashier.findChildren(QWidget)
            if isinstance(w, controls)
            and w.isVisible()
            and not w.accessibleName()
            and not isinstance(w.parentWidget(), QLineEdit | QAbstractSpinBox | QAbstractItemView)
        ]
        assert nameless == []

    cashier.entry_tabs.setCurrentIndex(0)
    columns = [cashier.customers, cashier.middle, cashier.ticket.table.parentWidget()]

    def column_of(widget: QWidget) -> int | None:
        return next((n for n, column in enumerate(columns) if column.isAncestorOf(widget)), None)

    seen: list[int] = []
    widget: QWidget = cashier.customers.search
    for _ in range(200):
        if widget.isVisible() and widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
            column = column_of(widget)
            if column is not None and (not seen or seen[-1] != column):
                seen.append(column)
        widget = widget.nextInFocusChain()
        if widget is cashier.customers.search:
            break
    assert seen[:3] == [0, 1, 2], f"Tab visits the columns in the order {seen}"
    await finish(window, host)
