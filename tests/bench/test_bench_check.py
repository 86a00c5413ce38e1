"""Totals and the create request of a 500-line check; target well under 1 ms each.

Run for real with ``pytest tests/bench --benchmark-enable``; by default each runs once as a smoke test.
"""

from __future__ import annotations

from typing import Any

import pytest

from pos_terminal.domain.check import Check, Discount, Item, Payment

LINES = 500
RATES_BP = (None, 0, 500, 1000, 2000)
CUSTOMER = {"customerId": "cus-ava", "checkInId": "chk-ava-cafe"}


@pytest.fixture(scope="module")
def big_check() -> Check:
    """500 items with assorted tax rates, a 10 % discount and a cash payment."""
    items = tuple(
        Item(
            name=f"Item {n}",
            quantity=1 + n % 4,
            unit_price=99 + (n * 37) % 2_000,
            tax_rate_bp=RATES_BP[n % len(RATES_BP)],
        )
        for n in range(LINES)
    )
    return Check(items, (Discount("Staff 10 %", percent_bp=1_000),), (Payment("cash", 5_000),))


def test_totals_of_500_lines(benchmark: Any, big_check: Check) -> None:
    totals = benchmark(big_check.totals)
    assert totals.item_total == sum(i.amount for i in big_check.items)
    assert totals.balance == totals.total - 5_000 > 0


def test_charge_request_of_500_lines(benchmark: Any, big_check: Check) -> None:
    body = benchmark(big_check.charge_request, customer=CUSTOMER, ref_id="pos-bench", terminal_id="LANE-1")
    assert len(body["items"]) == LINES
    assert body["chargeAmount"] == big_check.totals().charge_amount
