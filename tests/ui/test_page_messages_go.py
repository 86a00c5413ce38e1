"""A page's own sentence goes when its cause goes (docs/messages.md, "Sentences in the pages"): a refusal stays while
it is true and goes on the next try or when its form closes; the ticket's reason line and the status bar say what is
true now. Each test makes the sentence appear, shows it staying while its cause stands, then removes the cause."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.people import Role
from pos_terminal.domain.sale import Phase
from pos_terminal.paths import Paths
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.people_page import Form
from pos_terminal.ui.till_view import TillMode
from tests.conftest import mint_token, new_checked_in_customer
from tests.helpers.ui import ANA, ANA_PIN, choose, type_item
from tests.ui.conftest import MANAGER, MANAGER_PIN, finish, sign_in_at_till, signed_in_window, until
from tests.ui.test_back_office import choose as choose_person
from tests.ui.test_back_office import click, details_page, fill_add, people_page
from tests.ui.test_catalog_page import BAD_CSV, GOOD_CSV, catalog_page, choose_product, retype

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


async def test_the_tickets_reason_line_says_what_is_true_of_the_check_now(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    customer = new_checked_in_customer(client, firstName="Rita", lastName="Reason", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    ticket = window.cashier.ticket
    assert ticket.reason.isVisible() and ticket.reason.text() == "Add an item to the check."
    type_item(window, "Scone", "4.00")
    assert ticket.reason.isVisible() and ticket.reason.text().startswith("Choose the customer to charge")
    window.show_tab(Tab.HISTORY)
    window.show_tab(Tab.CASHIER)
    assert ticket.reason.text().startswith("Choose the customer to charge"), "still true: nobody is chosen"
    choose(window, "Rita Reason")
    assert not ticket.reason.isVisible(), ticket.reason.text()
    ticket.table.selectRow(0)
    click(ticket.remove_button)
    assert not window.cashier.register.current.check.items
    assert ticket.reason.isVisible() and ticket.reason.text() == "Add an item to the check.", "true again"
    type_item(window, "Scone", "4.00")
    assert not ticket.reason.isVisible(), ticket.reason.text()
    await finish(window, host)


async def test_a_refusal_about_what_was_typed_stays_until_the_form_is_sent_again_canceled_or_another_opens(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    page = await people_page(window)

    def refused() -> None:
        fill_add(page, ANA, ANA_PIN, ANA_PIN[::-1])
        click(page.submit_button)
        assert page.reason.isVisible() and page.reason.text().startswith("The two PINs differ."), page.reason.text()

    refused()
    window.show_tab(Tab.CASHIER)
    window.show_tab(Tab.BACK_OFFICE)
    assert page.reason.isVisible(), "still true: nothing was sent again"
    assert (page.form, page.name.text()) == (Form.ADD, ANA), "the form keeps what was typed"

    click(page.cancel_button)
    assert not page.reason.isVisible(), page.reason.text()

    refused()
    choose_person(page, page.model.rows[0].name)
    click(page.rename_button)  # another form opens
    assert page.form is Form.RENAME and not page.reason.isVisible(), page.reason.text()
    click(page.cancel_button)

    refused()
    QTest.keyClicks(page.pin, ANA_PIN)
    QTest.keyClicks(page.pin_again, ANA_PIN)
    click(page.submit_button)  # sent again: a manager is at the till, so the change is made
    assert not page.reason.isVisible(), page.reason.text()
    await until(lambda: not page.tasks.busy, what="the person added")
    assert not page.reason.isVisible() and page.done.isVisible(), page.reason.text()
    await finish(window, host)


async def test_the_store_details_refusal_goes_on_the_next_save_or_a_revert(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    page = await details_page(window)
    page.name.setText("")
    click(page.save_button)
    assert page.reason.isVisible() and page.reason.text(), "a store's name is needed"
    said = page.reason.text()
    click(page.save_button)
    assert page.reason.isVisible() and page.reason.text() == said, "still true"
    click(page.revert_button)  # the form as saved: nothing refused
    assert not page.reason.isVisible(), page.reason.text()

    page.name.setText("")
    click(page.save_button)
    assert page.reason.isVisible()
    page.name.setText("Café Reason")
    click(page.save_button)
    assert not page.reason.isVisible(), page.reason.text()
    await until(lambda: page.done.isVisible(), what="saved")
    await finish(window, host)


async def test_an_import_refused_goes_on_the_next_import_and_a_products_refusal_with_its_form(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    page = catalog_page(window)
    bad, good = tmp_path / "bad.csv", tmp_path / "good.csv"
    bad.write_text(BAD_CSV)
    good.write_text(GOOD_CSV)
    page.import_file(bad)
    assert page.notice.isVisible() and "line 3" in page.notice.text(), page.notice.text()
    window.show_tab(Tab.CASHIER)
    page = catalog_page(window)
    assert page.notice.isVisible(), "still true: no catalog was imported since"
    page.import_file(good)
    assert not page.notice.isVisible(), page.notice.text()

    choose_product(page, "Chai latte")
    retype(page.form.price, "five")
    click(page.form.save_button)
    assert page.form.problem.isVisible() and page.form.problem.text()
    click(page.form.revert_button)  # the form as saved
    assert not page.form.problem.isVisible(), page.form.problem.text()
    retype(page.form.price, "five")
    click(page.form.save_button)
    assert page.form.problem.isVisible()
    choose_product(page, "Croissant")  # another product's form
    assert not page.form.problem.isVisible(), page.form.problem.text()
    retype(page.form.price, "five")
    click(page.form.save_button)
    assert page.form.problem.isVisible()
    retype(page.form.price, "5.60")
    click(page.form.save_button)  # the next try, saved
    assert not page.form.problem.isVisible(), page.form.problem.text()
    await finish(window, host)


async def test_a_catalog_refusal_goes_when_the_next_try_asks_a_manager(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """A cashier at the till: the next try waits for a manager's PIN, and the refusal of the last one is gone."""
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    QTest.keyClick(window, Qt.Key.Key_F12)
    await sign_in_at_till(window, ANA, ANA_PIN)
    page = catalog_page(window)
    bad, good = tmp_path / "bad.csv", tmp_path / "good.csv"
    bad.write_text(BAD_CSV)
    good.write_text(GOOD_CSV)
    page.import_file(bad)
    assert page.notice.isVisible() and "line 3" in page.notice.text(), page.notice.text()
    page.import_file(good)
    assert isinstance(page.prompt, ManagerPrompt) and page.prompt.isVisible()
    assert not page.notice.isVisible(), page.notice.text()
    page.prompt.reject()

    choose_product(page, "Chai latte")
    retype(page.form.price, "five")
    click(page.form.save_button)
    assert page.form.problem.isVisible()
    retype(page.form.price, "5.60")
    click(page.form.save_button)
    assert isinstance(page.prompt, ManagerPrompt) and page.prompt.isVisible()
    assert not page.form.problem.isVisible(), page.form.problem.text()
    page.prompt.reject()
    await finish(window, host)


async def test_a_settings_refusal_goes_on_the_next_save_or_when_the_settings_are_left(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    window.show_tab(Tab.SETTINGS)
    view = window.workspace.settings_view
    view.terminal_id.setText("")
    click(view.save_button)
    assert view.error.text().startswith("The terminal id is empty."), view.error.text()
    view.terminal_id.setText("LANE-1")
    view.currency_box.setCurrentText("XYZ")
    click(view.save_button)  # the next try, refused for what is wrong now
    assert view.error.text() and not view.error.text().startswith("The terminal id"), view.error.text()
    window.show_tab(Tab.CASHIER)
    window.show_tab(Tab.SETTINGS)  # the settings as saved, shown again
    assert view.error.text() == "", view.error.text()
    await finish(window, host)


async def test_the_set_up_pages_refusal_goes_on_the_next_try(
    tmp_path: Path, make_window: Callable[[AppHost], MainWindow]
) -> None:
    host = AppHost(Paths.profile(tmp_path / "fresh"))
    window = make_window(host)
    window.start()
    setup = window.setup
    setup.terminal_id.setText("")
    click(setup.continue_button)
    assert setup.error.text().startswith("The terminal id is empty."), setup.error.text()
    setup.terminal_id.setText("LANE-3")
    setup.store_address.setText("mysql://till@host/shop")
    click(setup.continue_button)
    await until(lambda: not setup.joining, timeout=30, what="the join refused")
    assert "address" in setup.error.text() and window.page is Page.SETUP, setup.error.text()
    setup.store_address.clear()
    click(setup.continue_button)  # the till stands alone
    assert setup.error.text() == "", setup.error.text()
    await until(lambda: window.page is Page.SIGN_IN, what="the sign-in")
    await finish(window, host, wait=False)  # the code is still being polled


async def test_the_first_managers_refusal_goes_on_the_next_try(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    terminal = await host.connect()
    await terminal.session.sign_in_with_token(mint_token(client))
    window = make_window(host)
    window.start()
    till = window.till
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.FIRST_MANAGER, what="the first manager")
    QTest.keyClicks(till.first_name, MANAGER)
    QTest.keyClicks(till.first_pin, MANAGER_PIN)
    QTest.keyClicks(till.first_again, MANAGER_PIN[::-1])
    click(till.create_button)
    assert till.error.isVisible() and till.error.text().startswith("The two PINs differ."), till.error.text()
    retype(till.first_again, MANAGER_PIN)
    click(till.create_button)  # the next try: the manager is being made
    assert till.tasks.busy and not till.error.isVisible(), till.error.text()
    await until(lambda: till.mode is TillMode.OPEN_SHIFT, what="the shift step")
    assert not till.error.isVisible(), till.error.text()
    await finish(window, host)


async def test_a_wrong_pin_at_the_tills_sign_in_goes_on_the_next_try_or_another_name(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    QTest.keyClick(window, Qt.Key.Key_F12)
    till = window.till
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.SIGN_IN, what="the till's sign-in")

    async def wrong_pin() -> None:
        click(next(b for b in till.person_buttons if b.text().startswith(ANA)))
        QTest.keyClicks(till.pin, "000000000000")
        QTest.keyClick(till.pin, Qt.Key.Key_Return)
        await until(lambda: not till.tasks.busy and till.error.isVisible(), what="the PIN refused")

    await wrong_pin()
    assert till.error.text().startswith(f"That is not {ANA}'s PIN"), till.error.text()
    click(next(b for b in till.person_buttons if not b.text().startswith(ANA)))  # another name
    assert not till.error.isVisible(), till.error.text()

    await wrong_pin()
    QTest.keyClicks(till.pin, ANA_PIN)
    QTest.keyClick(till.pin, Qt.Key.Key_Return)  # the next try: the PIN is being checked
    assert till.tasks.busy and not till.error.isVisible(), "what was refused is no longer what is tried"
    await until(lambda: window.page is Page.WORKSPACE, what=f"{ANA} at the till")
    assert not till.error.isVisible()
    await finish(window, host)


async def test_the_status_bar_says_the_changes_waiting_and_who_is_at_the_till_as_they_are_now(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    customer = new_checked_in_customer(client, firstName="Stella", lastName="Status", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = host.terminal
    assert terminal is not None
    status = window.status
    assert not status.pending.isVisible() and MANAGER in status.till.text()
    choose(window, "Stella Status")
    type_item(window, "Scone", "4.00")
    register = terminal.register
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized")
    transaction_id = register.current.transaction_id
    fault = {"method": "PATCH", "path": f"/v4/transactions/{transaction_id}", "mode": "error_before", "times": 50}
    client.post("/sandbox/faults", json=fault).raise_for_status()
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.pending and status.pending.isVisible(), what="the complete kept waiting")
    assert "1" in status.pending.text(), status.pending.text()
    client.delete("/sandbox/faults").raise_for_status()
    await until(lambda: register.current.phase is Phase.COMPLETE, timeout=20, what="the complete sent again")
    assert terminal.pending_changes() == 0
    assert not status.pending.isVisible(), status.pending.text()

    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    QTest.keyClick(window, Qt.Key.Key_F12)
    await until(lambda: window.till.mode is TillMode.SIGN_IN, what="the till's sign-in")
    assert MANAGER not in status.till.text(), status.till.text()
    click(next(b for b in window.till.person_buttons if b.text().startswith(ANA)))
    QTest.keyClicks(window.till.pin, ANA_PIN)
    QTest.keyClick(window.till.pin, Qt.Key.Key_Return)
    await until(lambda: window.page is Page.WORKSPACE, what=f"{ANA} at the till")
    assert ANA in status.till.text(), status.till.text()
    await finish(window, host)
