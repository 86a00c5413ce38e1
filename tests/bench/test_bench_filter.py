"""Filtering 5,000 checked-in customers per keystroke, accents and case folded, with the cashier's table view
attached, against Qt's stock way in the same run: a QSortFilterProxyModel over a QStandardItemModel of the same
names (case folded only), with a table view attached the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import cycle

import pytest

from pos_terminal.api.models import Customer
from pos_terminal.ui.customers import CustomerModel, CustomerPanel, search_key
from pos_terminal.ui.tasks import Messages
from tests.bench.conftest import Bench

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QTableView

COUNT = 5_000
TARGET = 1.0
CI_BOUND = 4.0


@pytest.fixture
def model(qapp: QApplication) -> Iterator[tuple[CustomerModel, QTableView]]:
    """The cashier's customer panel with 5,000 customers, shown; closed and deleted afterwards (a GUI test after it
    in the same process found it still on the screen, a window with no title)."""
    customers = [
        Customer(
            customer_id=f"cus-{n:05d}",
            first_name=("Ava", "Zoë", "Mia", "Owen", "Łukasz")[n % 5] + str(n),
            last_name=("Nguyen", "Quigley", "Declined", "Broke", "Wiśniewski")[n % 5],
            member_no=f"M-{100_000 + n}" if n % 2 else None,
            check_in_number=str(100 + n),
        )
        for n in range(COUNT)
    ]
    panel = CustomerPanel(Messages())  # the cashier's real table, with its column sizing
    panel.model.set_customers(customers)
    panel.resize(400, 600)
    panel.show()
    yield panel.model, panel.table
    panel.close()
    panel.deleteLater()


@pytest.fixture
def stock(qapp: QApplication, model: tuple[CustomerModel, QTableView]) -> Iterator[QSortFilterProxyModel]:
    customers = model[0]
    source = QStandardItemModel()
    for r in range(customers.rowCount()):
        c = customers.customer(r)
        source.appendRow([QStandardItem(f"{c.first_name} {c.last_name}"), QStandardItem(c.member_no or "")])
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(source)
    proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    proxy.setFilterKeyColumn(-1)
    view = QTableView()
    view.setModel(proxy)
    view.resize(400, 600)
    view.show()
    yield proxy
    view.close()
    view.deleteLater()


def test_filter_5000_customers_per_keystroke(
    bench: Bench, model: tuple[CustomerModel, QTableView], stock: QSortFilterProxyModel
) -> None:
    customers, view = model
    all_customers = [customers.customer(r) for r in range(customers.rowCount())]
    typed = ["a", "av", "ava", "ava 1", "ava 12", "ava 1", "ava", "av", "", "q", "zo", "zoë", "ZOE 4", "", "łu"]
    ours, theirs = cycle(typed), cycle(typed)

    def keystroke() -> None:
        customers.set_filter(next(ours))
        QApplication.processEvents()  # the view takes the reset as it would on screen

    def stock_keystroke() -> None:
        stock.setFilterFixedString(next(theirs))
        QApplication.processEvents()

    rounds = bench.rounds(measuring=60, smoke=len(typed))
    ours_ms, stock_ms = bench.interleaved(keystroke, stock_keystroke, rounds=rounds)
    bench.hold(
        "filter 5,000 customers, a keystroke",
        measured=("CustomerModel, accents folded", ours_ms),
        baseline=("QSortFilterProxyModel", stock_ms),
        target=TARGET,
        ci_bound=CI_BOUND,
        rounds=rounds,
    )
    customers.set_filter("quigley 17")
    shown = [customers.customer(r) for r in range(customers.rowCount())]
    expected = [c for c in all_customers if "quigley" in search_key(c) and "17" in search_key(c)]
    assert shown == expected and 0 < len(expected) < COUNT // 5
    view.close()
