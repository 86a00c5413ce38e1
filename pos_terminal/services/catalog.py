"""The quick-button catalog: a small editable JSON file of items with a price in cents and a tax rate.

The shipped file is ``resources/catalog.json``; the settings may name another.
A file that cannot be read is a :class:`CatalogError` with one sentence; the
cashier can still enter items by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pos_terminal import assets
from pos_terminal.domain.check import MAX_RATE_BP, Item
from pos_terminal.domain.decode import MAX_BYTES, decode_json
from pos_terminal.domain.money import in_int32
from pos_terminal.errors import UserError


class CatalogError(UserError):
    hint = 'Each entry needs "name", "price" in cents and an optional "taxRate" in percent; items can still be typed.'


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    price: int
    tax_rate_bp: int | None

    def item(self, quantity: int = 1) -> Item:
        return Item(self.name, quantity=quantity, unit_price=self.price, tax_rate_bp=self.tax_rate_bp)


def _entry(index: int, raw: Any, source: str) -> CatalogEntry:
    where = f"entry {index + 1} of the catalog {source}"
    if not isinstance(raw, dict):
        raise CatalogError(f"The {where} is not an object.")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CatalogError(f"The {where} has no name.")
    where = f"“{name.strip()[:40]}” in the catalog {source}"
    price = raw.get("price")
    if isinstance(price, bool) or not isinstance(price, int) or price < 0 or not in_int32(price):
        raise CatalogError(f"The price of {where} must be a whole number of cents.")
    rate = raw.get("taxRate")
    rate_bp: int | None = None
    if rate is not None:
        points = _points(rate)
        if points is None or points % 1 or not 0 <= points <= MAX_RATE_BP:
            raise CatalogError(f"The tax rate of {where} must be a percent from 0 to 100.")
        rate_bp = int(points)
    return CatalogEntry(name.strip(), price, rate_bp)


def _points(rate: Any) -> Decimal | None:
    """A percent (a number, or text holding one, like "10") in basis points; None when it is neither.

    Bounded before any arithmetic: "1e999999" times 100 would overflow the decimal context.
    """
    if isinstance(rate, bool) or not isinstance(rate, int | float | Decimal | str) or len(str(rate)) > 24:
        return None
    try:
        percent = Decimal(str(rate).strip())
    except InvalidOperation:
        return None
    return percent * 100 if percent.is_finite() and -1000 < percent < 1000 else None


def parse_catalog(raw: bytes | str, source: str) -> tuple[CatalogEntry, ...]:
    data = decode_json(raw, f"The catalog {source}", CatalogError, decimals=True)
    entries = data.get("items") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise CatalogError(f"The catalog {source} has no list of items.")
    return tuple(_entry(index, raw, source) for index, raw in enumerate(entries))


def load_catalog(path: str | Path | None) -> tuple[CatalogEntry, ...]:
    """The catalog at ``path``, or the shipped one."""
    if path is None:
        return parse_catalog(assets.path("catalog.json").read_bytes(), "shipped with the terminal")
    try:
        with Path(path).open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise CatalogError(f"The catalog file {path} does not exist.") from None
    except (OSError, ValueError) as exc:  # ValueError: a name holding a NUL character
        raise CatalogError(
            f"The catalog file {path} cannot be read ({getattr(exc, 'strerror', None) or exc})."
        ) from exc
    return parse_catalog(raw, f"file {path}")
