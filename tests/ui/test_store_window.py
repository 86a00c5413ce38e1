"""A till of a store, in the window: the status bar says whether the store database is reached and what waits,
the till keeps selling while PostgreSQL is down, and catches up when it is back (a real PostgreSQL)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import httpx
from pypdf import PdfReader

from pos_terminal.app import AppHost
from pos_terminal.domain.report_document import SectionKey
from pos_terminal.domain.sale import Phase
from pos_terminal.ui.main_window import MainWindow
from tests.conftest import StoreTarget, new_checked_in_customer
from tests.helpers.ui import choose, enter, keys, type_item
from tests.ui.conftest import finish, screenshot, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


def cash_sale(window: MainWindow, name: str) -> None:
    choose(window, name)
    type_item(window, "Scone", "4.00")
    QTest.keyClick(window, Qt.Key.Key_F6)
    keys(window, "5")
    enter()
    QTest.keyClick(window, Qt.Key.Key_F8)
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)


async def test_the_store_offline_shows_in_the_status_bar_and_the_till_catches_up(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    postgres_target: StoreTarget,
    tmp_path: Path,
) -> None:
    postgres_target.open().init_schema()
    postgres_target.close_all()
    await (await host.connect()).store.join(postgres_target.url, postgres_target.password)
    customer = new_checked_in_customer(client, firstName="Sam", lastName="Store", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = host.terminal
    assert terminal is not None
    store_label = window.status.store
    await until(lambda: store_label.text() == "Store online", what="the store online")

    server = postgres_target.server
    assert server is not None
    server.stop(mode="immediate")
    try:
        cash_sale(window, "Sam Store")
        assert terminal.register.current.phase is Phase.BUILDING, "the sale did not wait for the store"
        await until(lambda: store_label.text().startswith("Store offline since "), what="offline in the status bar")
        await until(lambda: "changes waiting" in store_label.text(), what="what waits")
        waiting = terminal.store.status().waiting
        assert f"· {waiting} changes waiting" in store_label.text()
        assert "cannot be reached" in store_label.toolTip()
        for width, height in ((1024, 768), (1920, 1080)):
            window.resize(width, height)
            screenshot(window, f"store-offline-{width}x{height}", tmp_path)
            assert store_label.isVisible() and store_label.width() >= store_label.sizeHint().width()
        window.resize(1280, 800)
    finally:
        server.start()
    await until(lambda: store_label.text() == "Store online", timeout=30, what="online again")
    assert terminal.store.status().waiting == 0
    with server.admin(postgres_target.url.rsplit("/", 1)[-1]) as conn:
        [count] = conn.execute("SELECT count(*) FROM cash_sale WHERE terminal_id = 'LANE-1'").fetchone() or (0,)
    assert count == 1
    await finish(window, host, wait=False)


async def test_a_till_joins_the_store_in_settings_and_shows_the_stores_day(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    from pos_terminal.store.database import StoreDatabase
    from pos_terminal.ui.main_window import Tab
    from pos_terminal.ui.reports_view import ReportsView
    from pos_terminal.ui.settings_view import SettingsView

    address = f"sqlite:///{tmp_path / 'shop' / 'store.sqlite3'}"
    with StoreDatabase(address) as database:
        database.init_schema()
    customer = new_checked_in_customer(client, firstName="Dee", lastName="Day", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = host.terminal
    assert terminal is not None
    cash_sale(window, "Dee Day")  # made before the till joined: it goes to the store with the join
    window.show_tab(Tab.REPORTS)
    reports = window.workspace.reports
    assert isinstance(reports, ReportsView)
    assert reports.scope.findData("store") < 0, "a till alone is not offered the store's day (and then refused it)"

    window.show_tab(Tab.SETTINGS)
    settings = window.workspace.settings_view
    assert isinstance(settings, SettingsView)
    assert settings.store_state.text().startswith("Stands alone")
    assert settings.catalog_browse.isEnabled(), "a till standing alone with its file chooses another"
    assert settings.join_store_button.isVisible() and not settings.leave_store_button.isVisible()
    QTest.mouseClick(settings.join_store_button, Qt.MouseButton.LeftButton)
    assert "address is empty" in settings.error.text()
    settings.store_address.setText(address)
    QTest.mouseClick(settings.join_store_button, Qt.MouseButton.LeftButton)  # the manager at the till approves
    await until(lambda: terminal.store.linked and settings.leave_store_button.isVisible(), what="joined")
    assert settings.store_state.text().startswith("Part of a store · Store online")
    assert address in settings.store_state.toolTip()
    assert not settings.store_address.isEnabled()
    assert not settings.catalog_file.isEnabled() and not settings.catalog_browse.isEnabled(), "the store's catalog"
    await until(lambda: window.status.store.text() == "Store online", what="online")
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        settings.store_address.setFocus()  # the store's part of the settings in sight
        screenshot(window, f"store-settings-{width}x{height}", tmp_path)

    window.show_tab(Tab.REPORTS)
    assert reports.scope.findData("store") >= 0, "joined: the store's day is a choice"
    reports.scope.setCurrentIndex(reports.scope.findData("store"))
    QTest.mouseClick(reports.show_button, Qt.MouseButton.LeftButton)
    await until(lambda: reports.paper is not None and len(reports.pages) >= 1, what="the store's day and its preview")
    report, paper = reports.report, reports.paper
    assert report is not None and report.document.section(SectionKey.STORE) is not None
    assert paper is not None and paper.report is report
    cash = report.document.section(SectionKey.CASH_SALES)
    assert cash is not None and cash.count == 1
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(paper.data)).pages)
    assert "LANE-1" in text and host.terminal is not None and host.terminal.money.format(400) in text
    assert reports.drawer.isVisible() and "tills LANE-1" in reports.drawer.text()
    assert "Cash sales at every till: 1" in reports.counts.text()
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        screenshot(window, f"store-day-{width}x{height}", tmp_path)
    window.resize(1280, 800)
    window.store_link.leave(terminal)  # what Leave does once the manager said yes
    # the leave's last step tells the views, after the store said so: wait for the window, not only the store
    await until(lambda: not window.tasks.is_running("store leave"), what="alone again")
    assert not terminal.store.linked
    assert reports.scope.findData("store") < 0 and reports.scope.currentData() == "this"
    await finish(window, host, wait=False)  # the till exchanges with the store for as long as it runs


async def test_a_price_changed_on_another_till_is_on_this_till_s_tile_and_the_next_sale(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    postgres_target: StoreTarget,
    tmp_path: Path,
) -> None:
    from pos_terminal.journal.journal import Journal
    from pos_terminal.services.catalog import drafts_of, load_catalog
    from pos_terminal.services.store_sync import StoreSync
    from tests.helpers.services import Secrets

    postgres_target.open().init_schema()
    postgres_target.close_all()
    await (await host.connect()).store.join(postgres_target.url, postgres_target.password)  # gives its catalog
    customer = new_checked_in_customer(client, firstName="Pia", lastName="Price", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    products = window.cashier.products
    products.choose_category("Coffee")
    await until(lambda: window.status.store.text() == "Store online", what="the store online")

    def flat_white() -> str:
        return next(tile.text() for tile in products.tiles if products.entries[tile].name == "Flat white")

    assert flat_white().endswith("$4.80")
    other = Journal(tmp_path / "LANE-2.sqlite3")
    lane_2 = StoreSync(other, terminal_id="LANE-2", secrets=lambda _: Secrets())
    try:
        await lane_2.join(postgres_target.url, postgres_target.password)
        categories, drafts = drafts_of(load_catalog(None))
        raised = [d if d.name != "Flat white" else type(d)(**{**d.__dict__, "price": 520}) for d in drafts]
        lane_2.catalog.publish(categories, raised)
        await lane_2.sync()
    finally:
        await lane_2.close()
        other.close()

    await until(lambda: flat_white().endswith("$5.20"), what="the new price on this till's tile")
    assert products.category == "Coffee", "the cashier's tab stays chosen"
    choose(window, "Pia Price")
    tile = next(t for t in products.tiles if products.entries[t].name == "Flat white")
    QTest.mouseClick(tile, Qt.MouseButton.LeftButton)
    terminal = host.terminal
    assert terminal is not None
    assert terminal.register.current.totals.item_total == 520
    await finish(window, host, wait=False)


async def test_the_store_s_day_in_reports_is_in_the_store_s_currency_at_a_till_set_otherwise(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """A till in AUD that joined a store before the store had a currency; the store counts in EUR now (another till
    gave it its own at its join): the store's day made here is written in euros, every amount of it."""
    import sqlalchemy as sa

    from pos_terminal.services.terminal import join_store
    from pos_terminal.store.database import StoreDatabase
    from pos_terminal.ui.main_window import Tab
    from pos_terminal.ui.reports_view import ReportsView

    address = f"sqlite:///{tmp_path / 'shop' / 'store.sqlite3'}"
    with StoreDatabase(address) as database:
        database.init_schema()
    await join_store(host.paths, host.settings, address)
    with StoreDatabase(address) as database, database._engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM store_currency"))
        conn.execute(sa.text("INSERT INTO store_currency (id, currency, set_at) VALUES (1, 'EUR', CURRENT_TIMESTAMP)"))
    customer = new_checked_in_customer(client, firstName="Eve", lastName="Euro", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = host.terminal
    assert terminal is not None and terminal.settings.currency == "AUD"
    cash_sale(window, "Eve Euro")
    window.show_tab(Tab.REPORTS)
    reports = window.workspace.reports
    assert isinstance(reports, ReportsView)
    await until(lambda: reports.scope.findData("store") >= 0, what="the store's day offered")
    reports.scope.setCurrentIndex(reports.scope.findData("store"))
    QTest.mouseClick(reports.show_button, Qt.MouseButton.LeftButton)
    await until(lambda: reports.paper is not None and len(reports.pages) >= 1, what="the store's day and its preview")
    paper = reports.paper
    assert paper is not None
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(paper.data)).pages)
    assert "$" not in text, "no amount of the store's day is in the till's dollars"
    assert terminal.money_of("EUR").format(400) in text, text
    await finish(window, host, wait=False)  # the till exchanges with the store for as long as it runs
