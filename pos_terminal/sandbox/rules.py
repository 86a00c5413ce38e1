"""Check arithmetic the sandbox enforces (contract section 7), as a pure function.

Each field is checked against the truth computed from the lines, not against
other sent totals, so a check that breaks one rule gets exactly one error
naming that field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pos_terminal.sandbox.problems import FieldError

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
MAX_REF_LENGTH = 64


class Line(Protocol):
    amount: int

    @property
    def tax(self) -> int | None: ...


class Item(Line, Protocol):
    quantity: int


class Payment(Protocol):
    amount: int


class Check(Protocol):
    """The fields of a create request (2.6) that the rules look at."""

    pointsEarned: int | None
    refId: str | None
    terminalId: str | None
    chargeAmount: int
    itemTotal: int
    itemTax: int | None
    discountTotal: int | None
    discountTax: int | None
    total: int
    tax: int | None
    balance: int

    @property
    def items(self) -> Sequence[Item]: ...

    @property
    def discounts(self) -> Sequence[Line] | None: ...

    @property
    def payments(self) -> Sequence[Payment] | None: ...


def _in_int32(value: int) -> bool:
    return INT32_MIN <= value <= INT32_MAX


def check_errors(check: Check) -> list[FieldError]:
    """Every rule of contract section 7 the check breaks; empty when it is valid."""
    errors: list[FieldError] = []

    def fail(field: str, message: str) -> None:
        errors.append(FieldError(field=field, message=message))

    def amount_ok(field: str, value: int | None) -> bool:
        if value is None or _in_int32(value):
            return True
        fail(field, f"{value} is outside the int32 range")
        return False

    for field in (
        "chargeAmount",
        "itemTotal",
        "itemTax",
        "discountTotal",
        "discountTax",
        "total",
        "tax",
        "balance",
        "pointsEarned",
    ):
        amount_ok(field, getattr(check, field))

    if not check.items:
        fail("items", "a transaction needs at least 1 item")
    item_sum = item_tax_sum = 0
    for i, item in enumerate(check.items):
        tax = item.tax or 0
        if amount_ok(f"items[{i}].quantity", item.quantity) and item.quantity < 1:
            fail(f"items[{i}].quantity", f"quantity {item.quantity} must be at least 1")
        if amount_ok(f"items[{i}].amount", item.amount) and item.amount < 0:
            fail(f"items[{i}].amount", f"amount {item.amount} must not be negative")
        if amount_ok(f"items[{i}].tax", item.tax) and not 0 <= tax <= max(item.amount, 0):
            fail(f"items[{i}].tax", f"tax {tax} must lie between 0 and the amount {item.amount}")
        item_sum += item.amount
        item_tax_sum += tax

    discount_sum = discount_tax_sum = 0
    for i, discount in enumerate(check.discounts or ()):
        tax = discount.tax or 0
        if amount_ok(f"discounts[{i}].amount", discount.amount) and discount.amount >= 0:
            fail(f"discounts[{i}].amount", f"discount amount {discount.amount} must be negative")
        if amount_ok(f"discounts[{i}].tax", discount.tax) and not discount.amount <= tax <= 0:
            fail(f"discounts[{i}].tax", f"discount tax {tax} must lie between the amount {discount.amount} and 0")
        discount_sum += discount.amount
        discount_tax_sum += tax

    payment_sum = 0
    for i, payment in enumerate(check.payments or ()):
        if amount_ok(f"payments[{i}].amount", payment.amount) and payment.amount <= 0:
            fail(f"payments[{i}].amount", f"payment amount {payment.amount} must be positive")
        payment_sum += payment.amount

    if check.itemTotal != item_sum:
        fail("itemTotal", f"itemTotal {check.itemTotal} does not match the sum of item amounts {item_sum}")
    if check.itemTax is not None and check.itemTax != item_tax_sum:
        fail("itemTax", f"itemTax {check.itemTax} does not match the sum of item taxes {item_tax_sum}")
    discount_total = check.discountTotal or 0
    if discount_total != discount_sum:
        fail(
            "discountTotal", f"discountTotal {discount_total} does not match the sum of discount amounts {discount_sum}"
        )
    discount_tax = check.discountTax or 0
    if discount_tax != discount_tax_sum:
        fail("discountTax", f"discountTax {discount_tax} does not match the sum of discount taxes {discount_tax_sum}")

    total = item_sum + discount_sum
    if check.total != total:
        fail("total", f"total {check.total} does not equal itemTotal plus discountTotal ({total})")
    elif total < 0:
        fail("total", f"total {total} must not be negative")
    if check.tax is not None and check.tax != item_tax_sum + discount_tax_sum:
        fail("tax", f"tax {check.tax} does not equal itemTax plus discountTax ({item_tax_sum + discount_tax_sum})")

    balance = total - payment_sum
    if check.balance != balance:
        fail("balance", f"balance {check.balance} does not equal total minus payments ({balance})")
    if check.chargeAmount != balance:
        fail("chargeAmount", f"chargeAmount {check.chargeAmount} must equal the balance ({balance})")
    elif balance <= 0:
        fail("chargeAmount", f"chargeAmount {balance} must be positive: a check paid in full is not sent")

    for field in ("refId", "terminalId"):
        value = getattr(check, field)
        if value is not None and len(value) > MAX_REF_LENGTH:
            fail(field, f"{field} is longer than {MAX_REF_LENGTH} characters")
    return errors
