"""Filtering 5,000 checked-in customers per keystroke, accents and case folded, with the table view attached;
target under 16 ms.

Run for real with ``pytest tests/bench --benchmark-enable``; by default each runs once as a smoke test.
"""

from __future__ import annotations

from itertools import cycle
from typing import Any

import pytest

from pos_terminal.api.models import Customer
from pos_terminal.ui.customers import CustomerModel, CustomerPanel, search_key
from pos_terminal.ui.tasks import Messages

from PySide6.QtWidgets import QApplication, QTableView

COUNT = 5_000


@pytest.fixture
def model(qapp: QApplication) -> tuple[CustomerModel, QTableView]:
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
    return panel.model, panel.table


def test_filter_5000_customers_per_keystroke(benchmark: Any, model: tuple[CustomerModel, QTableView]) -> None:
    customers, view = model
    all_customers = [customers.customer(r) for r in range(customers.rowCount())]
    typed = cycle(["a", "av", "ava", "ava 1", "ava 12", "ava 1", "ava", "av", "", "q", "zo", "zoë", "ZOE 4", "", "łu"])

    def keystroke() -> int:
        customers.set_filter(next(typed))
        QApplication.processEvents()  # the view takes the reset as it would on screen
        return customers.rowCount()

    benchmark(keystroke)
    customers.set_filter("quigley 17")
    shown = [customers.customer(r) for r in range(customers.rowCount())]
    expected = [c for c in all_customers if "quigley" in search_key(c) and "17" in search_key(c)]
    assert shown == expected and 0 < len(expected) < COUNT // 5
    view.close()
