"""The next check starts clean: the last sale's customer search is gone, whichever way the check was started
(issue 51: Ctrl+N started the next check with "1 of 7 checked-in customers match")."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.domain.sale import Phase
from pos_terminal.ui.main_window import MainWindow
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import completed_sale
from tests.ui.conftest import finish, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


@pytest.mark.parametrize("way", ["ctrl+n", "new check button"])
async def test_the_next_check_shows_every_checked_in_customer(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, way: str
) -> None:
    zoe = new_checked_in_customer(client, firstName="Zoë", lastName="Quigley", balance=50_000)
    other = new_checked_in_customer(client, firstName="Otto", lastName="Nachbar", balance=50_000)
    window = await signed_in_window(host, make_window, client, listing=other)
    panel = window.cashier.customers
    await until(lambda: panel.model.row_of(zoe["customerId"]) is not None, what="Zoë")
    everyone = panel.model.total
    await completed_sale(window, "Quigley", "Cake", "2.50")
    assert panel.search.text() and "match" in panel.status.text()

    if way == "ctrl+n":  # where the cashier's keys go after Complete: the focused New check button
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    else:
        QTest.mouseClick(window.cashier.ticket.new_check_button, Qt.MouseButton.LeftButton)
    await until(
        lambda: host.terminal is not None and host.terminal.register.current.phase is Phase.BUILDING, what="next"
    )
    assert panel.search.text() == ""
    assert panel.model.rowCount() == everyone
    assert "match" not in panel.status.text(), panel.status.text()
    await finish(window, host)
