"""A till of a store, in the window: the status bar says whether the store database is reached and what waits,
the till keeps selling while PostgreSQL is down, and catches up when it is back (a real PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.sale import Phase
from pos_terminal.ui.main_window import MainWindow
from tests.conftest import StoreTarget, new_checked_in_customer
from tests.ui.conftest import finish, screenshot, signed_in_window, until
from tests.ui.test_cashier_flow import choose, type_item
from tests.ui.test_counter_rules import enter, keys

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
