"""The product catalog: a small editable JSON file of items with a price in cents, a tax rate and a category.

The shipped file is ``resources/catalog.json``; the settings may name another.
A file that cannot be read is a :class:`CatalogError` with one sentence; the
cashier can still enter items by hand.

Format (version 2)::

    {"version": 2, "categories": ["Coffee", "Food"],
     "items": [{"name": "Flat white", "price": 480, "taxRate": 10, "category": "Coffee"}]}

``categories`` gives the order of the category tabs and is optional: a category
named only by its items follows, in the order they first name it. Files of
version 1 (no categories) still load: their items have no category and show
under "All".

An entry may carry the codes printed on its packaging, for the barcode scanner:
``"barcode": "9300000000011"`` or ``"barcodes": [...]`` (GTIN-8, UPC-A, EAN-13 or
GTIN-14; a wrong check digit, or a code two entries share, is refused with a sentence).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pos_terminal import assets
from pos_terminal.domain.barcode import BadCheckDigit, gtin_key
from pos_terminal.domain.check import MAX_RATE_BP, Item
from pos_terminal.domain.decode import MAX_BYTES, decode_json
from pos_terminal.domain.money import in_int32
from pos_terminal.errors import UserError
from pos_terminal.journal.catalog import CatalogBook, CategoryRow, ProductDraft, ProductRow


class CatalogError(UserError):
    hint = (
        'Each entry needs "name", "price" in cents, an optional "taxRate" in percent and an optional "category"; '
        "items can still be typed."
    )


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    price: int
    tax_rate_bp: int | None
    category: str | None = None
    barcodes: tuple[str, ...] = ()

    def item(self, quantity: int = 1) -> Item:
        return Item(self.name, quantity=quantity, unit_price=self.price, tax_rate_bp=self.tax_rate_bp)


@dataclass(frozen=True)
class Catalog:
    """The entries in the file's order, and the categories in the order their tabs are shown."""

    entries: tuple[CatalogEntry, ...] = ()
    categories: tuple[str, ...] = ()
    by_gtin: Mapping[str, CatalogEntry] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, entries: tuple[CatalogEntry, ...], categories: tuple[str, ...] = (), source: str = "") -> Catalog:
        """The catalog of ``entries``, its codes indexed; a code two entries share is a CatalogError."""
        index: dict[str, CatalogEntry] = {}
        for entry in entries:
            for code in entry.barcodes:
                key = gtin_key(code)
                if key in index and index[key] is not entry:
                    raise CatalogError(
                        f"The code {code} is on both “{index[key].name}” and “{entry.name}” in the catalog {source}."
                    )
                index[key] = entry
        return cls(entries, categories, index)

    def __iter__(self) -> Iterator[CatalogEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def in_category(self, category: str | None) -> tuple[CatalogEntry, ...]:
        """The entries of ``category``; every entry for ``None`` ("All")."""
        return self.entries if category is None else tuple(e for e in self.entries if e.category == category)

    def by_code(self, code: str) -> CatalogEntry | None:
        """The entry whose packaging carries ``code`` (any GTIN spelling of it); BadCheckDigit when misread."""
        return self.by_gtin.get(gtin_key(code))


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
    category = raw.get("category")
    if category is not None and (not isinstance(category, str) or not category.strip()):
        raise CatalogError(f"The category of {where} must be some text.")
    return CatalogEntry(name.strip(), price, rate_bp, category.strip() if category else None, _codes(raw, where))


def _codes(raw: dict[str, Any], where: str) -> tuple[str, ...]:
    one, many = raw.get("barcode"), raw.get("barcodes", [])
    if not isinstance(many, list) or (one is not None and not isinstance(one, str)):
        raise CatalogError(f'The barcodes of {where} must be text, like "9300000000011".')
    codes = ([one] if one is not None else []) + many
    for code in codes:
        if not isinstance(code, str):
            raise CatalogError(f'The barcodes of {where} must be text, like "9300000000011".')
        try:
            gtin_key(code)
        except BadCheckDigit as exc:
            raise CatalogError(f"The barcode of {where} is wrong: {exc.sentence}") from None
    return tuple(code.strip() for code in codes)


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


def _categories(data: dict[str, Any], entries: tuple[CatalogEntry, ...], source: str) -> tuple[str, ...]:
    listed = data.get("categories", [])
    if not isinstance(listed, list) or not all(isinstance(c, str) and c.strip() for c in listed):
        raise CatalogError(f"The catalog {source} has a list of categories that is not a list of names.")
    order = [c.strip() for c in listed]
    order += [e.category for e in entries if e.category is not None]
    used = {e.category for e in entries}
    return tuple(c for c in dict.fromkeys(order) if c in used)


def parse_catalog(raw: bytes | str, source: str) -> Catalog:
    data = decode_json(raw, f"The catalog {source}", CatalogError, decimals=True)
    raw_entries = data.get("items") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(raw_entries, list):
        raise CatalogError(f"The catalog {source} has no list of items.")
    entries = tuple(_entry(index, raw, source) for index, raw in enumerate(raw_entries))
    return Catalog.of(entries, _categories(data, entries, source), source)


def load_catalog(path: str | Path | None) -> Catalog:
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


def catalog_of(categories: Sequence[CategoryRow], products: Sequence[ProductRow]) -> Catalog:
    """The catalog a till that is part of a store sells from: its copy of the store's active products, in their
    grid order, and the tabs of the active categories they use, in the store's order."""
    names = {row.uid: row.name for row in categories if row.active}
    entries = tuple(
        CatalogEntry(
            row.name,
            row.price,
            row.tax_rate_bp,
            names.get(row.category_uid) if row.category_uid else None,
            row.barcodes,
        )
        for row in products
        if row.active
    )
    used = {entry.category for entry in entries}
    order = tuple(row.name for row in categories if row.active and row.name in used)
    return Catalog.of(entries, order, "of the store")


def till_catalog(book: CatalogBook, catalog_file: str | None) -> Catalog:
    """The catalog a till sells from: its copy in the journal (the store's, while it is part of a store; its own
    once edited or imported, and after it leaves a store), else its catalog file, or the one shipped."""
    if book.count():
        return catalog_of(book.categories(), book.products())
    return load_catalog(catalog_file)


def drafts_of(catalog: Catalog) -> tuple[list[str], list[ProductDraft]]:
    """``catalog`` as the categories and products :meth:`CatalogBook.publish` takes."""
    products = [
        ProductDraft(entry.name, entry.price, entry.tax_rate_bp, entry.category, entry.barcodes) for entry in catalog
    ]
    return list(catalog.categories), products


def catalog_json(catalog: Catalog) -> dict[str, Any]:
    """``catalog`` in the file format :func:`parse_catalog` reads (version 2)."""
    items: list[dict[str, Any]] = []
    for entry in catalog:
        item: dict[str, Any] = {"name": entry.name, "price": entry.price}
        if entry.tax_rate_bp is not None:
            rate = Decimal(entry.tax_rate_bp) / 100
            item["taxRate"] = int(rate) if rate == rate.to_integral_value() else float(rate)
        if entry.category is not None:
            item["category"] = entry.category
        if entry.barcodes:
            item["barcodes"] = list(entry.barcodes)
        items.append(item)
    return {"version": 2, "categories": list(catalog.categories), "items": items}


def write_catalog(path: Path, catalog: Catalog) -> None:
    """Write ``catalog`` to ``path`` as a catalog file (JSON), whole or not at all."""
    write_text(path, json.dumps(catalog_json(catalog), ensure_ascii=False, indent=2) + "\n")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file renamed over it)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise CatalogError(
            f"The file {path} cannot be written ({exc.strerror or exc}).", hint="Choose another place."
        ) from exc
