"""The quick-button catalog: a small editable JSON file of items with a price in cents and a tax rate.

The shipped file is ``resources/catalog.json``; the settings may name another.
A file that cannot be read is a :class:`CatalogError` with one sentence; the
cashier can still enter items by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pos_terminal import assets
from pos_terminal.domain.check import MAX_RATE_BP, Item
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


def _entry(index: int, raw: Any) -> CatalogEntry:
    where = f"entry {index + 1}"
    if not isinstance(raw, dict):
        raise CatalogError(f"The catalog's {where} is not an object.")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CatalogError(f"The catalog's {where} has no name.")
    price = raw.get("price")
    if isinstance(price, bool) or not isinstance(price, int) or price < 0 or not in_int32(price):
        raise CatalogError(f"The price of “{name}” in the catalog must be a whole number of cents.")
    rate = raw.get("taxRate")
    rate_bp: int | None = None
    if rate is not None:
        try:
            points = Decimal(str(rate)) * 100
        except InvalidOperation:
            points = Decimal(-1)
        if isinstance(rate, bool) or points != points.to_integral_value() or not 0 <= points <= MAX_RATE_BP:
            raise CatalogError(f"The tax rate of “{name}” in the catalog must be a percent from 0 to 100.")
        rate_bp = int(points)
    return CatalogEntry(name.strip(), price, rate_bp)


def parse_catalog(text: str, source: str) -> tuple[CatalogEntry, ...]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(f"The catalog {source} is not valid JSON (line {exc.lineno}: {exc.msg}).") from exc
    entries = data.get("items") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise CatalogError(f"The catalog {source} has no list of items.")
    return tuple(_entry(index, raw) for index, raw in enumerate(entries))


def load_catalog(path: str | Path | None) -> tuple[CatalogEntry, ...]:
    """The catalog at ``path``, or the shipped one."""
    if path is None:
        text = assets.read_text("catalog.json")
        return parse_catalog(text, "shipped with the terminal")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError(f"The catalog file {path} does not exist.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"The catalog file {path} cannot be read ({exc}).") from exc
    return parse_catalog(text, str(path))
