"""Totals and the create request of a 500-line check, each against the least plain Python doing the same sums
or building the same list of dicts, in the same run. The check's work is more (allocation of the discount over
the lines, tax per rate, the int32 bounds, immutable values), so the targets are ratios, not parity.
"""

from __future__ import annotations

import pytest

from pos_terminal.domain.check import Check, Discount, Item, Payment
from tests.bench.conftest import Bench

LINES = 500
TOTALS_TARGET, TOTALS_CI_BOUND = 5.0, 20.0
REQUEST_TARGET, REQUEST_CI_BOUND = 20.0, 60.0
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


def _plain_totals(lines: list[tuple[int, int, int]]) -> tuple[int, int]:
    """The least arithmetic: each line's amount and its tax, rounded half up, summed."""
    amount = tax = 0
    for quantity, price, rate in lines:
        line = quantity * price
        amount += line
        tax += (line * rate + 5_000) // 10_000
    return amount, tax


def _plain_items(check: Check) -> list[dict[str, object]]:
    return [
        {"name": i.name, "quantity": i.quantity, "unitPrice": i.unit_price, "taxRate": i.tax_rate_bp}
        for i in check.items
    ]


def test_totals_of_500_lines(bench: Bench, big_check: Check) -> None:
    lines = [(i.quantity, i.unit_price, i.tax_rate_bp or 0) for i in big_check.items]
    rounds = bench.rounds(measuring=200, smoke=20)
    totals_ms, plain_ms = bench.interleaved(big_check.totals, lambda: _plain_totals(lines), rounds=rounds)
    bench.hold(
        "totals of a 500-line check",
        measured=("Check.totals", totals_ms),
        baseline=("a plain loop of sums", plain_ms),
        target=TOTALS_TARGET,
        ci_bound=TOTALS_CI_BOUND,
        rounds=rounds,
    )
    totals = big_check.totals()
    assert totals.item_total == sum(i.amount for i in big_check.items) == _plain_totals(lines)[0]
    assert totals.balance == totals.total - 5_000 > 0


def test_charge_request_of_500_lines(bench: Bench, big_check: Check) -> None:
    def request() -> dict[str, object]:
        return big_check.charge_request(customer=CUSTOMER, ref_id="pos-bench", terminal_id="LANE-1")

    rounds = bench.rounds(measuring=200, smoke=20)
    request_ms, plain_ms = bench.interleaved(request, lambda: _plain_items(big_check), rounds=rounds)
    bench.hold(
        "create request of a 500-line check",
        measured=("Check.charge_request", request_ms),
        baseline=("a plain list of dicts", plain_ms),
        target=REQUEST_TARGET,
        ci_bound=REQUEST_CI_BOUND,
        rounds=rounds,
    )
    body = request()
    assert len(body["items"]) == LINES  # type: ignore[arg-type]
    assert body["chargeAmount"] == big_check.totals().charge_amount
