"""A message goes when its cause goes (docs/messages.md lists each with what removes it): "There is no printer to
print on" stayed through six sales and every tab; the red "… the store database … cannot be reached" stayed after
the status bar said "Store online"; People said "Anna sets a new PIN at their next sign-in" after she had."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.config import with_changes
from pos_terminal.domain.people import Role
from pos_terminal.domain.sale import Phase
from pos_terminal.logs import CrashReports
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.store.store_errors import StoreUnavailable
from pos_terminal.ui import printing
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.people_page import Form
from tests.helpers.ui import ANA, ANA_PIN, authorized_sale, type_item
from tests.store.postgres import StoreTarget
from tests.ui.conftest import finish, signed_in_window, until
from tests.ui.test_back_office import NEW_PIN, back_to_window, click, fill_add, people_page, reset_pin, set_pin_at_till

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

NO_PRINTER = "There is no printer to print on."


async def test_a_print_refused_goes_when_the_next_sale_starts_and_not_with_a_tab(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    if printing.system_printer_exists():
        pytest.skip("this machine has a system printer: the copy would print there")
    window, register, _ = await authorized_sale(host, make_window, client, "Pia Print", "Tart", "7.00")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    history = window.workspace.history
    window.show_tab(Tab.HISTORY)
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: history.receipt_button.isEnabled() and not history.tasks.busy, what="the sale")
    QTest.mouseClick(history.receipt_button, Qt.MouseButton.LeftButton)
    await until(lambda: not history.tasks.busy and window.banner.isVisible(), what="the sentence")
    assert window.banner.text.text().startswith(NO_PRINTER)

    window.show_tab(Tab.CASHIER)
    assert window.banner.text.text().startswith(NO_PRINTER), "still true: nothing printed the receipt"
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # the next sale
    await until(lambda: register.current.phase is Phase.BUILDING, what="the next check")
    assert not window.banner.isVisible(), window.banner.text.text()
    await finish(window, host)


async def test_an_act_refused_goes_when_the_next_sale_starts(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """F10 with no drawer set up: said, and gone with the next sale (no message without a condition that ends it)."""
    window = await signed_in_window(host, make_window, client)
    type_item(window, "Bun", "3.00")
    register = window.cashier.register
    QTest.keyClick(window, Qt.Key.Key_F10)
    assert window.banner.isVisible() and window.banner.topic == "act", window.banner.text.text()
    said = window.banner.text.text()
    window.cashier.keypad_page.cash_input.setText("3.00")
    window.cashier.on_add_cash_clicked()
    QTest.keyClick(window, Qt.Key.Key_F8)  # the cash sale finishes
    await until(lambda: register.current.phase is not Phase.BUILDING, what="the cash sale finished")
    assert window.banner.text.text() == said, "the same sale: still the last thing said"
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert register.current.phase is Phase.BUILDING and not window.banner.isVisible()
    await finish(window, host)


async def test_the_store_out_of_reach_goes_once_the_store_is_reached_again(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    postgres_target: StoreTarget,
) -> None:
    postgres_target.open().init_schema()
    postgres_target.close_all()
    await (await host.connect()).store.join(postgres_target.url, postgres_target.password)
    window = await signed_in_window(host, make_window, client)
    await until(lambda: window.status.store.text() == "Store online", what="the store online")
    page = await people_page(window)

    server = postgres_target.server
    assert server is not None
    server.stop(mode="immediate")
    try:
        fill_add(page, ANA, ANA_PIN, ANA_PIN)
        click(page.submit_button)
        await until(lambda: not page.tasks.busy, what="refused")
        assert page.reason.isVisible()
        assert page.reason.text().startswith("New people can be added only while the store database can be reached.")
        window.messages.show_error(StoreUnavailable("The store database at db.example cannot be reached."))
        assert window.banner.isVisible()
        await until(lambda: window.status.store.text().startswith("Store offline"), what="offline")
        assert page.reason.isVisible() and window.banner.isVisible(), "true while the store is away"
    finally:
        server.start()
    await until(lambda: window.status.store.text() == "Store online", timeout=30, what="online again")
    assert not page.reason.isVisible(), page.reason.text()
    assert not window.banner.isVisible(), window.banner.text.text()
    assert (page.name.text(), page.pin.text(), page.form) == (ANA, ANA_PIN, Form.ADD), "what was typed stays"
    await finish(window, host, wait=False)  # the till exchanges with the store for as long as it runs


async def test_the_pin_to_set_note_goes_once_the_person_set_it(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    page = await people_page(window)
    await reset_pin(page, ANA)
    assert page.done.isVisible()
    window.show_tab(Tab.CASHIER)
    window.show_tab(Tab.BACK_OFFICE)
    assert page.done.isVisible(), "still true: she has not set it yet"

    await back_to_window(window)
    QTest.keyClick(window, Qt.Key.Key_F12)
    await set_pin_at_till(window, ANA, NEW_PIN)
    assert window.page is Page.WORKSPACE and not terminal.staff.find(ANA).pin_to_set
    window.show_tab(Tab.BACK_OFFICE)
    assert not page.done.isVisible(), page.done.text()
    await finish(window, host)


async def test_a_terminal_that_could_not_open_says_so_until_it_opens(
    profile: Paths, sandbox: SandboxServer, make_window: Callable[[AppHost], MainWindow]
) -> None:
    journal = profile.journal_file
    journal.write_bytes(b"not a journal at all" * 100)
    host = AppHost(profile, service_url=sandbox.url)
    window = make_window(host)
    window.start()
    await until(lambda: window.banner.isVisible() and not window.tasks.is_running("connect"), what="refused")
    assert "damaged" in window.banner.text.text()
    window.connect_terminal()
    await until(lambda: window.banner.isVisible() and not window.tasks.is_running("connect"), what="refused again")
    assert "damaged" in window.banner.text.text(), "still true"

    journal.unlink()
    window.connect_terminal()  # what saving the settings does
    await until(lambda: window.terminal is not None and window.page is Page.SIGN_IN, what="opened")
    assert not window.banner.isVisible(), window.banner.text.text()
    await finish(window, host, wait=False)  # not signed in: the sign-in page waits for a person


async def test_the_crash_notice_stays_through_the_start_until_dismissed(
    profile: Paths, sandbox: SandboxServer, make_window: Callable[[AppHost], MainWindow]
) -> None:
    (profile.log_dir / "crash-running-999999999.txt").write_text("Fatal Python error: Segmentation fault\n")
    host = AppHost(profile, service_url=sandbox.url, crash_notice=CrashReports(profile.log_file).previous_run())
    window = make_window(host)
    window.start()
    await until(lambda: window.terminal is not None and window.page is Page.SIGN_IN, what="opened")
    assert window.banner.text.text().startswith("The last run ended abnormally"), "the start did not take it away"
    QTest.mouseClick(window.banner.close_button, Qt.MouseButton.LeftButton)
    assert not window.banner.isVisible()
    await finish(window, host, wait=False)


async def test_news_goes_after_its_time_and_the_customers_failure_with_the_next_fetch(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    window.banner.INFO_MS = 300  # the strip's own time for news (8 s), shorter for the test
    window.messages.show_info("Settings saved.")
    assert window.banner.isVisible()
    await until(lambda: not window.banner.isVisible(), what="the news gone")

    customers = window.cashier.customers
    fault = {"method": "GET", "path": "/v4/customers*", "mode": "error_before", "times": 20}
    client.post("/sandbox/faults", json=fault).raise_for_status()
    QTest.keyClick(window, Qt.Key.Key_F5)
    await until(lambda: "cannot be fetched" in customers.status.text(), what="the failure")
    client.delete("/sandbox/faults").raise_for_status()
    QTest.keyClick(window, Qt.Key.Key_F5)
    await until(lambda: customers.status.text().endswith("checked in."), what="fetched again")
    await finish(window, host)


async def test_a_catalog_that_cannot_be_read_is_said_until_it_loads(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    catalog = tmp_path / "catalog.json"
    catalog.write_text('{"items": [{"name": "Tea", "price": 400, "taxRate": 10}]')  # cut short
    host.save_settings(with_changes(host.settings, catalog_file=str(catalog)))
    window = await signed_in_window(host, make_window, client)
    window.cashier.load_catalog()  # as a change of the catalog makes it
    assert window.banner.isVisible() and str(catalog) in window.banner.text.text(), window.banner.text.text()
    catalog.write_text('{"items": [{"name": "Tea", "price": 400, "taxRate": 10}]}')
    window.cashier.load_catalog()
    assert [entry.name for entry in window.cashier.products.catalog.entries] == ["Tea"]
    assert not window.banner.isVisible(), window.banner.text.text()
    await finish(window, host)
