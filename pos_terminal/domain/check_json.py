"""A check read from JSON: the journal's saved check (:meth:`Check.to_json`'s own form) and the command line's
check file (amounts in cents, rates and percents in percent). Either refuses what it cannot read with one
sentence, a :class:`CheckFileError`; the rules on the figures are the check's own (:meth:`Check.problems`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any

from pos_terminal.domain.check import JSON_VERSION, Check, Discount, Item, Payment
from pos_terminal.domain.text import text_problem
from pos_terminal.errors import UserError


class CheckFileError(UserError):
    """A check file (CLI) or a saved check (journal) that cannot be read."""

    hint = 'Each item needs "name", "quantity" and "unitPrice" in cents, and "taxRate" (percent) or "tax" in cents.'


def check_from_json(data: Mapping[str, Any]) -> Check:
    """The check :meth:`Check.to_json` saved; :class:`CheckFileError` when it is damaged."""
    try:
        if data.get("version") != JSON_VERSION:
            raise CheckFileError("The saved check was written by another version of the terminal.")
        items = tuple(
            Item(
                id=_text(i, "id"),
                name=_text(i, "name", allow_empty=True),
                quantity=_int(i, "quantity"),
                unit_price=_int(i, "unitPrice"),
                tax_rate_bp=_optional_int(i, "taxRateBp"),
                tax=_optional_int(i, "tax"),
            )
            for i in _list(data, "items")
        )
        discounts = tuple(
            Discount(
                id=_text(d, "id"),
                name=_text(d, "name", allow_empty=True),
                amount=_optional_int(d, "amount"),
                percent_bp=_optional_int(d, "percentBp"),
            )
            for d in _list(data, "discounts")
        )
        payments = tuple(
            Payment(id=_text(p, "id"), method=_text(p, "method"), amount=_int(p, "amount"))
            for p in _list(data, "payments")
        )
    except _Malformed as exc:
        raise CheckFileError(f"The saved check is damaged ({exc}).") from None
    return Check(items, discounts, payments)


def check_from_file(data: Mapping[str, Any], source: str | None = None) -> Check:
    """A check from the CLI's JSON file; amounts in cents, ``taxRate`` and ``percent`` in percent.

    ``{"items": [{"name", "quantity", "unitPrice", "taxRate" | "tax"}],
    "discounts": [{"name", "amount" | "percent"}], "payments": [{"method", "amount"}]}``.
    Rules on the figures are left to :meth:`Check.problems`; this only refuses what cannot be read.
    ``source`` ("The check file /tmp/c.json") starts the sentence of a :class:`CheckFileError`.
    """
    try:
        _known_keys(data, {"items", "discounts", "payments"}, "the check")
        items = tuple(_file_item(i, raw) for i, raw in enumerate(_list(data, "items", required=True)))
        discounts = tuple(_file_discount(i, raw) for i, raw in enumerate(_list(data, "discounts")))
        payments = tuple(_file_payment(i, raw) for i, raw in enumerate(_list(data, "payments")))
    except _Malformed as exc:
        raise CheckFileError(f"{source}: {exc}." if source else f"{str(exc)[:1].upper()}{str(exc)[1:]}.") from None
    return Check(items, discounts, payments)


# --- reading JSON ----------------------------------------------------------------------------


class _Malformed(Exception):
    """A part of a JSON check that cannot be read; the message is a sentence fragment."""


def _list(data: Mapping[str, Any], key: str, *, required: bool = False) -> list[Mapping[str, Any]]:
    value = data.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise _Malformed(f'the field "{key}" must be a list of objects')
    return value


def _optional_int(data: Mapping[str, Any], key: str) -> int | None:
    return None if data.get(key) is None else _int(data, key)


def _int(data: Mapping[str, Any], key: str, *, where: str = "") -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | Decimal | float):
        raise _Malformed(f'{where or "the field "}"{key}" must be a whole number')
    number = _decimal(value, key, where)
    if number != number.to_integral_value():
        raise _Malformed(f'{where}"{key}" must be a whole number of cents')
    return int(number)


def _text(data: Mapping[str, Any], key: str, *, allow_empty: bool = False, where: str = "") -> str:
    value = data.get(key)
    if not isinstance(value, str) or not (allow_empty or value.strip()):
        raise _Malformed(f'{where or "the field "}"{key}" must be some text')
    if (problem := text_problem(value)) is not None:
        raise _Malformed(f'{where or "the field "}"{key}" {problem}')
    return value


def _decimal(value: int | Decimal | float, key: str, where: str) -> Decimal:
    """A JSON number as a Decimal; floats go through their shortest text, never their binary value."""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise _Malformed(f'{where}"{key}" must be a number') from None
    if not number.is_finite():
        raise _Malformed(f'{where}"{key}" must be a number')
    if number and number.adjusted() >= 18:  # before any arithmetic: 1e999999999 as an int would never finish
        raise _Malformed(f'{where}"{key}" is too large')
    return number


def _percent_bp(data: Mapping[str, Any], key: str, where: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | Decimal | float):
        raise _Malformed(f'{where}"{key}" must be a percent, like 10 or 12.5')
    points = _decimal(value, key, where) * 100
    if points != points.to_integral_value():
        raise _Malformed(f'{where}"{key}" has more than 2 decimals')
    return int(points)


def _known_keys(data: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise _Malformed(f'{where} has an unknown field "{unknown[0]}"')


def _file_item(index: int, raw: Mapping[str, Any]) -> Item:
    where = f"item {index + 1} "
    _known_keys(raw, {"id", "name", "quantity", "unitPrice", "taxRate", "tax"}, f"item {index + 1}")
    if "taxRate" in raw and "tax" in raw:
        raise _Malformed(f'item {index + 1} has both "taxRate" and "tax"; give one')
    if "unitPrice" not in raw:
        raise _Malformed(f'item {index + 1} has no "unitPrice" (cents)')
    item = Item(
        name=_text(raw, "name", where=where),
        quantity=_int(raw, "quantity", where=where) if "quantity" in raw else 1,
        unit_price=_int(raw, "unitPrice", where=where),
        tax_rate_bp=_percent_bp(raw, "taxRate", where) if "taxRate" in raw else None,
        tax=_int(raw, "tax", where=where) if "tax" in raw else None,
    )
    return replace(item, id=_text(raw, "id", where=where)) if "id" in raw else item


def _file_discount(index: int, raw: Mapping[str, Any]) -> Discount:
    where = f"discount {index + 1} "
    _known_keys(raw, {"id", "name", "amount", "percent"}, f"discount {index + 1}")
    if ("amount" in raw) == ("percent" in raw):
        raise _Malformed(f'discount {index + 1} needs either "amount" (negative cents) or "percent"')
    discount = Discount(
        name=_text(raw, "name", where=where),
        amount=_int(raw, "amount", where=where) if "amount" in raw else None,
        percent_bp=_percent_bp(raw, "percent", where) if "percent" in raw else None,
    )
    return replace(discount, id=_text(raw, "id", where=where)) if "id" in raw else discount


def _file_payment(index: int, raw: Mapping[str, Any]) -> Payment:
    where = f"payment {index + 1} "
    _known_keys(raw, {"method", "amount"}, f"payment {index + 1}")
    return Payment(method=_text(raw, "method", where=where), amount=_int(raw, "amount", where=where))
