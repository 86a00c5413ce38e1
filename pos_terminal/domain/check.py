"""The check: items, discounts and payments, its totals, and the request that charges it.

A :class:`Check` is immutable; every edit returns a new one, so the journal can
save each version and the UI can undo by keeping the previous one.

Rounding rule (one rule everywhere, integer arithmetic only): a figure that is a
fraction of cents is rounded half to even (banker's rounding).

- Item tax from a rate: tax is *included* in the amount, so
  ``tax = round_half_even(amount × rate / (10000 + rate))`` with the rate in basis
  points. For 0 ≤ rate this always gives ``0 ≤ tax ≤ amount``.
- Percent discount: ``amount = −round_half_even(itemTotal × percent / 10000)``.
- Discount tax (fixed or percent): the discount's share of the item tax,
  ``tax = round_half_even(amount × itemTax / itemTotal)``; since
  ``0 ≤ itemTax ≤ itemTotal`` this keeps ``amount ≤ tax ≤ 0``.

Every figure in :meth:`Check.charge_request` satisfies contract section 7, which
the service (and the sandbox) enforce.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar

from pos_terminal.domain.limits import MAX_QUANTITY as MAX_QUANTITY  # the screen reads it before the check loads
from pos_terminal.domain.money import INT32_MAX, in_int32
from pos_terminal.domain.text import text_problem
from pos_terminal.errors import UserError

MAX_RATE_BP = 10000  # a tax rate or discount percent of at most 100 %
MAX_REF_LENGTH = 64
JSON_VERSION = 1


def round_half_even(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half to even, for a positive ``denominator``."""
    if denominator <= 0:
        raise ValueError("denominator must be positive")
    quotient, remainder = divmod(numerator, denominator)
    twice = 2 * remainder
    if twice > denominator or (twice == denominator and quotient % 2):
        quotient += 1
    return quotient


def inclusive_tax(amount: int, rate_bp: int) -> int:
    """The tax contained in a tax-inclusive ``amount`` at ``rate_bp`` basis points."""
    return round_half_even(amount * rate_bp, 10000 + rate_bp)


def lines_of(saved: Mapping[str, Any]) -> dict[str, Any]:
    """A check saved by :meth:`Check.to_json`, without its line ids; a saved check of another shape is kept whole."""
    if saved.get("version") != JSON_VERSION:
        return dict(saved)
    return {
        key: [{k: v for k, v in line.items() if k != "id"} for line in value] if isinstance(value, list) else value
        for key, value in saved.items()
    }


def new_line_id() -> str:
    return os.urandom(6).hex()  # 48 random bits, as the first 12 digits of a uuid4 were (uuid loads slowly)


@dataclass(frozen=True, slots=True)
class Item:
    """One line of the check. ``unit_price`` in cents, tax included.

    The tax is ``tax`` when given (cents), else derived from ``tax_rate_bp``, else 0.
    """

    name: str
    quantity: int = 1
    unit_price: int = 0
    tax_rate_bp: int | None = None
    tax: int | None = None
    id: str = field(default_factory=new_line_id)

    @property
    def amount(self) -> int:
        return self.quantity * self.unit_price

    @property
    def tax_amount(self) -> int:
        if self.tax is not None:
            return self.tax
        if self.tax_rate_bp is not None and 0 <= self.tax_rate_bp <= MAX_RATE_BP:
            return inclusive_tax(self.amount, self.tax_rate_bp)
        return 0


@dataclass(frozen=True, slots=True)
class Discount:
    """A discount on the whole check: a fixed ``amount`` (negative cents) or a ``percent_bp`` of the items."""

    name: str
    amount: int | None = None
    percent_bp: int | None = None
    id: str = field(default_factory=new_line_id)


CASH = "cash"  # the payment method of cash taken at the counter


def is_cash(method: str) -> bool:
    """Whether a payment's method is cash, however a check file or an older release spelled it."""
    return method.strip().casefold() == CASH


@dataclass(frozen=True, slots=True)
class Payment:
    """A payment already made on the check by other means (cash, voucher)."""

    method: str
    amount: int
    id: str = field(default_factory=new_line_id)


@dataclass(frozen=True, slots=True)
class PricedDiscount:
    """A discount with its figures worked out against the check's items."""

    discount: Discount
    amount: int
    tax: int


@dataclass(frozen=True, slots=True)
class Totals:
    """The figures of a check, named as in contract section 7 (``payments`` is their sum)."""

    item_total: int
    item_tax: int
    discount_total: int
    discount_tax: int
    total: int
    tax: int
    payments: int
    balance: int
    charge_amount: int
    change_due: int = 0  # what goes back to the customer when the payments taken exceed the total

    @property
    def left_to_pay(self) -> int:
        """The balance as the cashier reads it: what is still owed, never below zero (the rest is change)."""
        return max(0, self.balance)


class CheckRule(StrEnum):
    NO_ITEMS = "no_items"
    BAD_QUANTITY = "bad_quantity"
    NEGATIVE_PRICE = "negative_price"
    TAX_OUT_OF_RANGE = "tax_out_of_range"
    BAD_DISCOUNT = "bad_discount"
    DISCOUNT_NOT_NEGATIVE = "discount_not_negative"
    NEGATIVE_TOTAL = "negative_total"
    PAYMENT_NOT_POSITIVE = "payment_not_positive"
    OVERPAID = "overpaid"
    NOTHING_TO_CHARGE = "nothing_to_charge"
    OUT_OF_INT32 = "out_of_int32"
    BAD_TEXT = "bad_text"


_SETTLED = frozenset({CheckRule.OVERPAID, CheckRule.NOTHING_TO_CHARGE})
_TOTAL_RULES = _SETTLED | {CheckRule.NEGATIVE_TOTAL, CheckRule.NO_ITEMS}


@dataclass(frozen=True, slots=True)
class CheckProblem:
    """One broken rule: which, the wire field it concerns (``items[0].quantity``), and a sentence."""

    rule: CheckRule
    field: str
    sentence: str


class CheckRuleError(UserError):
    """The check cannot be charged; ``problems`` lists why, the first one is the sentence."""

    hint = "Correct the check and charge again."

    def __init__(self, problems: Iterable[CheckProblem]) -> None:
        self.problems = tuple(problems)
        sentence = self.problems[0].sentence if self.problems else "The check cannot be charged."
        super().__init__(sentence)


class LineNotFound(UserError):
    sentence = "That line is no longer on the check."


class DiscountTooLarge(UserError):
    """A discount that would take the check below zero; ``discount`` and ``available`` are cents."""

    hint = "Take off at most what the check comes to."

    def __init__(self, discount: int, available: int) -> None:
        self.discount = discount
        self.available = available
        super().__init__("The discount is more than the check comes to.")

    def explained(self, money: Callable[[int], str]) -> str:
        """One sentence with the amounts written by ``money`` (the terminal's money format)."""
        return f"A discount of {money(self.discount)} is more than the check's {money(self.available)}."


class TooLarge(UserError):
    """A line or a check that would come to more than an int32 of cents (the service's bound), or a quantity above
    :data:`MAX_QUANTITY`: refused when it is typed, never left on the check for Charge to turn off later."""

    hint = "Check the quantity and the price."

    def __init__(self, sentence: str, *, amount: int | None = None, what: str = "") -> None:
        self.amount = amount
        self.what = what
        super().__init__(sentence)

    def explained(self, money: Callable[[int], str]) -> str:
        """One sentence with the amounts written by ``money`` (the terminal's money format)."""
        if self.amount is None:
            return self.sentence
        return f"{self.what} would come to {money(self.amount)}, more than the {money(INT32_MAX)} the service takes."


def _sound_line(item: Item) -> None:
    """A line the cashier adds or changes: at most :data:`MAX_QUANTITY`, and an amount the service can take."""
    if item.quantity > MAX_QUANTITY:
        raise TooLarge(f"A line holds at most {MAX_QUANTITY:,} of an item.", what=item.name)
    if item.unit_price >= 0 and not in_int32(item.amount):
        raise TooLarge("The line is too large.", amount=item.amount, what=f"{item.quantity:,} × {item.name}")


_Line = TypeVar("_Line", Item, Discount, Payment)


def _locate(lines: tuple[_Line, ...], which: int | str) -> int:
    if isinstance(which, str):
        for index, line in enumerate(lines):
            if line.id == which:
                return index
        raise LineNotFound()
    if not -len(lines) <= which < len(lines):
        raise LineNotFound()
    return which % len(lines)


def _without(lines: tuple[_Line, ...], which: int | str) -> tuple[_Line, ...]:
    index = _locate(lines, which)
    return lines[:index] + lines[index + 1 :]


def _label(kind: str, index: int, name: str) -> str:
    return f"{kind} {index + 1} ({name})" if name else f"{kind} {index + 1}"


@dataclass(frozen=True, slots=True)
class Check:
    """An immutable check being built at the terminal."""

    items: tuple[Item, ...] = ()
    discounts: tuple[Discount, ...] = ()
    payments: tuple[Payment, ...] = ()

    @property
    def item_count(self) -> int:
        """How many items the check holds, as a receipt counts them: 2 × Pretzel is two."""
        return sum(item.quantity for item in self.items)

    # --- editing: each returns a new check ----------------------------------------------------

    def add_item(self, item: Item) -> Check:
        """The check with ``item``; :class:`TooLarge` when the line or the check would come to more than the
        service takes (or the quantity is above :data:`MAX_QUANTITY`)."""
        _sound_line(item)
        return self._bounded(replace(self, items=(*self.items, item)))

    def set_quantity(self, which: int | str, quantity: int) -> Check:
        """The item at an index or with an id, with a new quantity; :class:`TooLarge` as :meth:`add_item`."""
        index = _locate(self.items, which)
        items = list(self.items)
        items[index] = replace(items[index], quantity=quantity)
        _sound_line(items[index])
        return self._bounded(replace(self, items=tuple(items)))

    def _bounded(self, changed: Check) -> Check:
        """``changed``, unless its items come to more than an int32 of cents where this check's did not."""
        after = changed._item_sums()[0]
        if not in_int32(after) and in_int32(self._item_sums()[0]):
            raise TooLarge("The check is too large.", amount=after, what="The check")
        return changed

    def remove_item(self, which: int | str) -> Check:
        return replace(self, items=_without(self.items, which))

    def add_discount(self, discount: Discount) -> Check:
        """The check with ``discount``; :class:`DiscountTooLarge` when it would take the total below zero.

        Refused here, when the cashier adds it, rather than left as a rule the check breaks: a check whose
        total is negative shows nonsense figures (a negative tax) until someone notices.
        """
        before = self.totals().total
        added = replace(self, discounts=(*self.discounts, discount))
        after = added.totals().total
        if after < 0 <= before and not added._line_problems():
            raise DiscountTooLarge(before - after, before)
        return added

    def remove_discount(self, which: int | str) -> Check:
        return replace(self, discounts=_without(self.discounts, which))

    def add_payment(self, payment: Payment) -> Check:
        return replace(self, payments=(*self.payments, payment))

    def remove_payment(self, which: int | str) -> Check:
        return replace(self, payments=_without(self.payments, which))

    # --- figures ------------------------------------------------------------------------------

    def priced_discounts(self) -> tuple[PricedDiscount, ...]:
        """Each discount's amount and tax, by the rounding rule in the module docstring."""
        return self._priced(*self._item_sums())

    def _item_sums(self) -> tuple[int, int]:
        """The sums of :attr:`Item.amount` and :attr:`Item.tax_amount` over the items, in one pass.

        The hot path of :meth:`totals` on a long check: the same figures as the properties (and
        :func:`inclusive_tax`), worked out inline to save a call or three per line.
        """
        item_total = item_tax = 0
        for item in self.items:
            amount = item.quantity * item.unit_price
            item_total += amount
            tax = item.tax
            if tax is None:
                rate = item.tax_rate_bp
                if rate is not None and 0 <= rate <= MAX_RATE_BP:
                    # inclusive_tax(amount, rate): round_half_even(amount × rate, 10000 + rate)
                    denominator = 10000 + rate
                    tax, remainder = divmod(amount * rate, denominator)
                    twice = 2 * remainder
                    if twice > denominator or (twice == denominator and tax % 2):
                        tax += 1
                else:
                    tax = 0
            item_tax += tax
        return item_total, item_tax

    def _priced(self, item_total: int, item_tax: int) -> tuple[PricedDiscount, ...]:
        priced = []
        for discount in self.discounts:
            if discount.amount is not None:
                amount = discount.amount
            elif discount.percent_bp is not None:
                amount = -round_half_even(item_total * discount.percent_bp, 10000)
            else:
                amount = 0
            if item_total > 0 and 0 <= item_tax <= item_total and amount <= 0:
                tax = round_half_even(amount * item_tax, item_total)
            else:
                tax = 0
            priced.append(PricedDiscount(discount, amount, tax))
        return tuple(priced)

    def totals(self) -> Totals:
        """The figures as they stand; they may break rules, see :meth:`problems`."""
        item_total, item_tax = self._item_sums()
        priced = self._priced(item_total, item_tax)
        discount_total = sum(d.amount for d in priced)
        discount_tax = sum(d.tax for d in priced)
        total = item_total + discount_total
        paid = sum(p.amount for p in self.payments)
        balance = total - paid
        return Totals(
            item_total=item_total,
            item_tax=item_tax,
            discount_total=discount_total,
            discount_tax=discount_tax,
            total=total,
            tax=item_tax + discount_tax,
            payments=paid,
            balance=balance,
            charge_amount=balance,
            change_due=-balance if balance < 0 <= total else 0,
        )

    # --- rules --------------------------------------------------------------------------------

    def problems(self) -> list[CheckProblem]:
        """Every rule the check breaks, in the order of its lines; empty when it can be charged.

        Problems of single lines come first; the rules on the totals are only looked at when every
        line is sound, so a cashier sees the cause and not its consequences.
        """
        found: list[CheckProblem] = []

        def fail(rule: CheckRule, where: str, sentence: str) -> None:
            found.append(CheckProblem(rule, where, sentence))

        texts = [(f"items[{i}].name", "Item", i, item.name) for i, item in enumerate(self.items)]
        texts += [(f"discounts[{i}].name", "Discount", i, d.name) for i, d in enumerate(self.discounts)]
        texts += [(f"payments[{i}].method", "Payment", i, p.method) for i, p in enumerate(self.payments)]
        for where, kind, i, text in texts:
            if (problem := text_problem(text)) is not None:
                fail(CheckRule.BAD_TEXT, where, f"The name of {kind.lower()} {i + 1} {problem}.")
        if found:
            return found  # a name that cannot be sent would also garble every sentence below

        for i, item in enumerate(self.items):
            label = _label("Item", i, item.name)
            where = f"items[{i}]"
            quantity_ok = False
            if not in_int32(item.quantity):
                fail(CheckRule.OUT_OF_INT32, f"{where}.quantity", f"{label} has too large a quantity.")
            elif item.quantity < 1:
                fail(CheckRule.BAD_QUANTITY, f"{where}.quantity", f"{label} needs a quantity of at least 1.")
            else:
                quantity_ok = True
            price_ok = False  # the amount means something; a tax is only held against a sound amount
            if item.unit_price < 0:
                fail(CheckRule.NEGATIVE_PRICE, f"{where}.amount", f"{label} has a negative price.")
            elif quantity_ok and not in_int32(item.amount):
                fail(CheckRule.OUT_OF_INT32, f"{where}.amount", f"{label} comes to too large an amount.")
            else:
                price_ok = quantity_ok
            if item.tax is not None:
                if not in_int32(item.tax):
                    fail(CheckRule.OUT_OF_INT32, f"{where}.tax", f"{label} has too large a tax.")
                elif price_ok and not 0 <= item.tax <= max(item.amount, 0):
                    fail(
                        CheckRule.TAX_OUT_OF_RANGE,
                        f"{where}.tax",
                        f"The tax of {label.lower()} must lie between 0 and its amount.",
                    )
            elif item.tax_rate_bp is not None and not 0 <= item.tax_rate_bp <= MAX_RATE_BP:
                fail(
                    CheckRule.TAX_OUT_OF_RANGE,
                    f"{where}.tax",
                    f"The tax rate of {label.lower()} must lie between 0 and 100 %.",
                )

        for i, discount in enumerate(self.discounts):
            label = _label("Discount", i, discount.name)
            where = f"discounts[{i}].amount"
            if (discount.amount is None) == (discount.percent_bp is None):
                fail(CheckRule.BAD_DISCOUNT, where, f"{label} needs either an amount or a percent, not both.")
            elif discount.amount is not None:
                if not in_int32(discount.amount):
                    fail(CheckRule.OUT_OF_INT32, where, f"{label} is too large.")
                elif discount.amount >= 0:
                    fail(CheckRule.DISCOUNT_NOT_NEGATIVE, where, f"{label} must take money off the check.")
            elif discount.percent_bp is not None and not 0 < discount.percent_bp <= MAX_RATE_BP:
                fail(CheckRule.BAD_DISCOUNT, where, f"{label} must be more than 0 and at most 100 %.")

        for i, payment in enumerate(self.payments):
            label = _label("Payment", i, payment.method)
            where = f"payments[{i}].amount"
            if not in_int32(payment.amount):
                fail(CheckRule.OUT_OF_INT32, where, f"{label} is too large.")
            elif payment.amount <= 0:
                fail(CheckRule.PAYMENT_NOT_POSITIVE, where, f"{label} must be more than zero.")

        if not self.items:
            fail(CheckRule.NO_ITEMS, "items", "The check has no items.")
        if found:
            return found

        for i, priced in enumerate(self.priced_discounts()):
            if priced.amount >= 0:
                label = _label("Discount", i, priced.discount.name)
                fail(
                    CheckRule.DISCOUNT_NOT_NEGATIVE,
                    f"discounts[{i}].amount",
                    f"{label} comes to nothing on this check.",
                )
        if found:
            return found

        totals = self.totals()
        for name, value in (
            ("itemTotal", totals.item_total),
            ("itemTax", totals.item_tax),
            ("discountTotal", totals.discount_total),
            ("discountTax", totals.discount_tax),
            ("total", totals.total),
            ("tax", totals.tax),
            ("balance", totals.balance),
        ):
            if not in_int32(value):
                fail(CheckRule.OUT_OF_INT32, name, "The check comes to more than the service can take.")
                return found
        if totals.total < 0:
            fail(CheckRule.NEGATIVE_TOTAL, "total", "The discounts come to more than the items.")
        elif totals.balance < 0:
            fail(CheckRule.OVERPAID, "balance", "The payments come to more than the check's total.")
        elif totals.balance == 0:
            fail(CheckRule.NOTHING_TO_CHARGE, "chargeAmount", "The check is paid in full; there is nothing to charge.")
        return found

    def _line_problems(self) -> bool:
        """Whether a single line breaks a rule (the rules on the totals aside)."""
        return any(p.rule not in _TOTAL_RULES for p in self.problems())

    @property
    def paid_in_full(self) -> bool:
        """Nothing is left to charge: every line is sound and the payments taken (cash) cover the total.

        Such a check is never sent to the service (``chargeAmount`` must be more than zero); the terminal
        records it as a cash sale instead, with any change due.
        """
        problems = self.problems()
        return bool(problems) and all(p.rule in _SETTLED for p in problems)

    @property
    def is_valid(self) -> bool:
        return not self.problems()

    def validate(self) -> Totals:
        """The totals of a check that can be charged; :class:`CheckRuleError` otherwise."""
        problems = self.problems()
        if problems:
            raise CheckRuleError(problems)
        return self.totals()

    # --- wire ---------------------------------------------------------------------------------

    def charge_request(self, *, customer: Mapping[str, Any], ref_id: str, terminal_id: str | None) -> dict[str, Any]:
        """The body of *create transaction* (interface 2.6), camelCase, every figure per contract section 7."""
        totals = self.validate()
        if not customer.get("customerId") or not customer.get("checkInId"):
            raise UserError("The customer is not checked in.", hint="Pick a checked-in customer and charge again.")
        if not ref_id or len(ref_id) > MAX_REF_LENGTH:
            raise ValueError(f"refId must have 1 to {MAX_REF_LENGTH} characters")
        if terminal_id is not None and len(terminal_id) > MAX_REF_LENGTH:
            raise UserError(f"The terminal id is longer than {MAX_REF_LENGTH} characters.")
        body: dict[str, Any] = {"refId": ref_id}
        if terminal_id is not None:
            body["terminalId"] = terminal_id
        body.update(
            chargeAmount=totals.charge_amount,
            itemTotal=totals.item_total,
            itemTax=totals.item_tax,
        )
        if self.discounts:
            body.update(discountTotal=totals.discount_total, discountTax=totals.discount_tax)
        body.update(
            total=totals.total,
            tax=totals.tax,
            balance=totals.balance,
            customer=dict(customer),
            items=[
                {"id": i.id, "name": i.name, "quantity": i.quantity, "amount": i.amount, "tax": i.tax_amount}
                for i in self.items
            ],
        )
        if self.discounts:
            body["discounts"] = [
                {"id": d.discount.id, "name": d.discount.name, "amount": d.amount, "tax": d.tax}
                for d in self.priced_discounts()
            ]
        if self.payments:
            body["payments"] = [{"method": p.method, "amount": p.amount} for p in self.payments]
        return body

    # --- journal ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Everything needed to rebuild this check (ids included), as plain JSON values."""
        return {
            "version": JSON_VERSION,
            "items": [
                {
                    "id": i.id,
                    "name": i.name,
                    "quantity": i.quantity,
                    "unitPrice": i.unit_price,
                    "taxRateBp": i.tax_rate_bp,
                    "tax": i.tax,
                }
                for i in self.items
            ],
            "discounts": [
                {"id": d.id, "name": d.name, "amount": d.amount, "percentBp": d.percent_bp} for d in self.discounts
            ],
            "payments": [{"id": p.id, "method": p.method, "amount": p.amount} for p in self.payments],
        }

    def lines(self) -> dict[str, Any]:
        """What the check holds, line ids aside (:func:`lines_of` of :meth:`to_json`): equal for the same check read
        from its file twice, or typed in again."""
        return lines_of(self.to_json())
