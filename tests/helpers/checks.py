"""Hypothesis strategies of checks."""

from __future__ import annotations

from hypothesis import strategies as st

from pos_terminal.domain.check import (
    Check,
    Discount,
    Item,
    Payment,
)


@st.composite
def valid_checks(draw: st.DrawFn) -> Check:
    """Checks that are valid by construction: a big first item, small discounts and payments."""
    items = [Item(name="Anchor", quantity=draw(st.integers(1, 3)), unit_price=draw(st.integers(1000, 100_000)))]
    for n in range(draw(st.integers(0, 5))):
        quantity = draw(st.integers(1, 20))
        price = draw(st.integers(0, 100_000))
        if draw(st.booleans()):
            items.append(Item(f"Item {n}", quantity, price, tax_rate_bp=draw(st.integers(0, 10000))))
        else:
            items.append(Item(f"Item {n}", quantity, price, tax=draw(st.integers(0, quantity * price))))
    check = Check(items=tuple(items))
    percents = draw(st.lists(st.integers(100, 1600), max_size=3))  # at most 48 % off in all
    for n, points in enumerate(percents):
        check = check.add_discount(Discount(f"Percent {n}", percent_bp=points))
    for n, amount in enumerate(draw(st.lists(st.integers(1, 100), max_size=3))):
        check = check.add_discount(Discount(f"Fixed {n}", amount=-amount))
    for n, amount in enumerate(draw(st.lists(st.integers(1, 50), max_size=3))):
        check = check.add_payment(Payment(f"cash {n}", amount))
    return check
