"""A refusal or a save is said once, with what happened and what comes next (issue 51: "Not charged: The payment
was declined: The customer has insufficient funds for this charge."; an offline catalog edit said only "is saved")."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.sale import Phase
from pos_terminal.ui.main_window import MainWindow
from tests.conftest import StoreTarget, new_checked_in_customer
from tests.helpers.ui import choose, type_item
from tests.ui.conftest import finish, signed_in_window, until
from tests.ui.test_catalog_page import catalog_page, choose_product, retype

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


def said_twice(text: str) -> list[str]:
    """The ways a sentence repeats itself: the refusal named twice, or one clause run into another by colons."""
    problems = []
    refusals = re.findall(r"not charged|declined|nothing was charged", text, re.IGNORECASE)
    if len(refusals) > 1:
        problems.append(f"says it was not charged {len(refusals)} times: {refusals}")
    if text.count(":") > 1:
        problems.append("runs three clauses together with colons")
    return problems


async def test_a_declined_charge_says_so_once_and_what_next(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    poor = new_checked_in_customer(client, firstName="Pat", lastName="Poorly", balance=100)
    window = await signed_in_window(host, make_window, client, listing=poor)
    choose(window, "Poorly")
    type_item(window, "Cake", "25.00")
    QTest.keyClick(window, Qt.Key.Key_F8)
    assert host.terminal is not None
    await until(lambda: host.terminal.register.current.phase is Phase.FAILED, what="declined")  # type: ignore[union-attr]
    reason = window.cashier.ticket.reason.text()
    assert "insufficient funds" in reason and "pay another way" in reason, reason
    assert said_twice(reason) == [], reason
    await finish(window, host)


async def test_a_catalog_edit_while_the_store_is_away_says_the_other_tills_get_it_later(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    postgres_target: StoreTarget,
) -> None:
    postgres_target.open().init_schema()
    postgres_target.close_all()
    await (await host.connect()).store.join(postgres_target.url, postgres_target.password)
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await until(lambda: window.status.store.text() == "Store online", what="the store online")
    page = catalog_page(window)
    server = postgres_target.server
    assert server is not None
    server.stop(mode="immediate")
    try:
        await until(lambda: terminal.store.status().offline_since is not None, timeout=30, what="the store away")
        said: list[str] = []
        window.messages.info.connect(said.append)
        choose_product(page, "Flat white")
        retype(page.form.price, "5.25")
        QTest.mouseClick(page.form.save_button, Qt.MouseButton.LeftButton)
        await until(lambda: bool(said), what="the news of the save")
        assert "Flat white" in said[-1], said
        assert "other tills" in said[-1] and "once the store is back" in said[-1], said[-1]
    finally:
        server.start()
    await finish(window, host, wait=False)
