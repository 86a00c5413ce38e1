"""Editing the catalog at the till: a product or a category at a time, their order, an undo, and CSV in and out.

What is edited is the till's catalog: its copy of the store's while it is part of a store (every change goes to
every till), else its own (the first change starts from its catalog file). Each change is checked whole before
anything is written, written in one transaction, and written in the audit log as who, what, and old → new.

The CSV format (``catalog import FILE.csv``, ``catalog export FILE.csv``, the back office)::

    name,price,tax_rate,category,barcodes,colour,active
    Flat white,4.80,10,Coffee,9300000000019 036000291452,#6f4e37,yes

``name`` and ``price`` are needed; ``price`` is in the currency's units with a dot (``4.80``), ``tax_rate`` a
percent (empty: no rate), ``barcodes`` codes separated by spaces, ``colour`` ``#rrggbb``, ``active`` yes or no
(empty: yes). Columns come in any order; the rows' order is the grid's, and categories take the order in which
rows first name them. A file with any bad row imports nothing: each bad row is named by its line number.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pos_terminal.domain.barcode import BadCheckDigit, gtin_key, is_gtin_shaped
from pos_terminal.domain.check import MAX_RATE_BP
from pos_terminal.domain.money import in_int32
from pos_terminal.domain.text import text_problem
from pos_terminal.errors import UserError
from pos_terminal.journal.catalog import (
    CATEGORIES,
    PRODUCTS,
    CatalogBook,
    CategoryRow,
    ProductDraft,
    ProductRow,
    Published,
)
from pos_terminal.journal.journal import Journal
from pos_terminal.services.catalog import Catalog, CatalogError, drafts_of

MAX_PRODUCT_NAME = 80
MAX_CATEGORY_NAME = 40
MAX_BARCODES = 10
MAX_CSV_BYTES = 8 * 1024 * 1024
MAX_CSV_ROWS = 20_000
COLUMNS = ("name", "price", "tax_rate", "category", "barcodes", "colour", "active")
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet would run as a formula at the start of a cell


class CatalogEditError(UserError):
    hint = "Correct it and save again; nothing was changed."


@dataclass(frozen=True)
class ProductEdit:
    """A product as the back office's form gives it (amounts in cents, the tax rate in basis points)."""

    name: str
    price: int
    tax_rate_bp: int | None = None
    category_uid: str | None = None
    barcodes: tuple[str, ...] = ()
    colour: str | None = None
    active: bool = True


class CatalogEditor:
    """The till's catalog, edited; ``seed`` is the till's catalog before its first edit (its file)."""

    def __init__(self, book: CatalogBook, journal: Journal, *, terminal_id: str, seed: Callable[[], Catalog]) -> None:
        self.book = book
        self.journal = journal
        self.terminal_id = terminal_id
        self.seed = seed

    # --- reading --------------------------------------------------------------------------------------------------

    def products(self) -> list[ProductRow]:
        self._own()
        return self.book.products()

    def categories(self) -> list[CategoryRow]:
        self._own()
        return self.book.categories()

    def last_change(self) -> str | None:
        return self.book.last_change()

    # --- one product or category ----------------------------------------------------------------------------------

    def save_product(self, uid: str | None, edit: ProductEdit, *, by: str | None) -> ProductRow:
        """Add a product (``uid`` None) or change one, checked whole first (CatalogEditError names the field)."""
        self._own()
        products = {row.uid: row for row in self.book.products()}
        categories = {row.uid: row for row in self.book.categories()}
        name = product_name(edit.name)
        if not in_int32(edit.price) or edit.price < 0:
            raise CatalogEditError("The price must be an amount from 0 up.")
        if edit.tax_rate_bp is not None and not 0 <= edit.tax_rate_bp <= MAX_RATE_BP:
            raise CatalogEditError("The tax rate must be a percent from 0 to 100.")
        if edit.category_uid is not None and edit.category_uid not in categories:
            raise CatalogEditError("The category is not in the catalog.", hint="Choose one from the list.")
        codes = checked_codes(edit.barcodes)
        taken = {
            gtin_key(code): row for row in products.values() if row.active and row.uid != uid for code in row.barcodes
        }
        for code in codes:
            if (other := taken.get(gtin_key(code))) is not None:
                raise CatalogEditError(f"The barcode {code} is already on “{other.name}”.")
        colour = checked_colour(edit.colour)
        values: dict[str, Any] = {
            "name": name,
            "price": edit.price,
            "tax_rate_bp": edit.tax_rate_bp,
            "category_uid": edit.category_uid,
            "barcodes": codes,
            "colour": colour,
            "active": int(edit.active),
        }
        before = products.get(uid) if uid is not None else None
        if uid is not None and before is None:
            raise CatalogEditError("That product is no longer in the catalog.", hint="Choose it again.")
        what = f"“{name}” added" if before is None else f"“{before.name}” changed"
        uid = self.book.save_product(uid, values, what=what)
        after = next(row for row in self.book.products() if row.uid == uid)
        changes = _changes(before, after, categories)
        if before is None or changes:
            self._audit("product added" if before is None else "product changed", by, {"product": name, **changes})
        return after

    def save_category(self, uid: str | None, name: str, *, active: bool = True, by: str | None) -> CategoryRow:
        self._own()
        name = category_name(name)
        categories = {row.uid: row for row in self.book.categories()}
        for row in categories.values():
            if row.uid != uid and row.active and row.name.casefold() == name.casefold():
                raise CatalogEditError(f"There is a category “{row.name}” already.")
        before = categories.get(uid) if uid is not None else None
        if uid is not None and before is None:
            raise CatalogEditError("That category is no longer in the catalog.", hint="Choose it again.")
        what = f"category “{name}” added" if before is None else f"category “{before.name}” changed"
        uid = self.book.save_category(uid, {"name": name, "active": int(active)}, what=what)
        after = next(row for row in self.book.categories() if row.uid == uid)
        detail: dict[str, object] = {"category": name}
        if before is not None:
            detail |= {
                k: [getattr(before, k), getattr(after, k)]
                for k in ("name", "active")
                if getattr(before, k) != getattr(after, k)
            }
        self._audit("category added" if before is None else "category changed", by, detail)
        return after

    def move(self, kind: str, uid: str, to: int, *, by: str | None) -> None:
        """Move a product or category (``kind``) to place ``to`` (0 first) of its list, the others following."""
        self._own()
        rows = [(row.uid, row.name) for row in (self.book.products() if kind == "product" else self.book.categories())]
        uids = [row_uid for row_uid, _ in rows]
        if uid not in uids:
            raise CatalogEditError(f"That {kind} is no longer in the catalog.", hint="Choose it again.")
        name = rows[uids.index(uid)][1]
        order = [row_uid for row_uid in uids if row_uid != uid]
        order.insert(max(0, min(to, len(order))), uid)
        self.book.reorder(PRODUCTS if kind == "product" else CATEGORIES, order, what=f"“{name}” moved")
        self._audit(f"{kind} moved", by, {kind: name, "place": [uids.index(uid) + 1, order.index(uid) + 1]})

    def undo(self, *, by: str | None) -> str | None:
        """Take back the last change made here; what it was, or None when there was none."""
        what = self.book.undo()
        if what is not None:
            self._audit("catalog change undone", by, {"change": what})
        return what

    # --- whole catalogs -------------------------------------------------------------------------------------------

    def publish(self, catalog: Catalog, *, source: str, by: str | None) -> Published:
        """Make ``catalog`` (a file's, checked whole already) the till's; what it drops is made inactive."""
        return self._publish(*drafts_of(catalog), source=source, by=by)

    def import_csv(self, data: bytes | str, *, source: str, by: str | None) -> Published:
        """Make a CSV catalog the till's, every row checked before anything changes."""
        return self._publish(*parse_csv(data, source), source=source, by=by)

    def _publish(self, categories: list[str], drafts: list[ProductDraft], *, source: str, by: str | None) -> Published:
        self._own()  # so what the file drops from the till's catalog is counted, and undone
        published = self.book.publish(categories, drafts)
        if published.any:
            detail = {
                "from": source,
                "added": len(published.added),
                "changed": len(published.changed),
                "retired": len(published.retired),
            }
            self._audit("catalog published", by, detail)
        return published

    def export_csv(self) -> str:
        """The till's catalog as CSV, inactive products included (as "active: no"); before any edit, its file's."""
        if not self.book.count():
            return catalog_csv(drafts_of(self.seed())[1])
        names = {row.uid: row.name for row in self.book.categories()}
        return catalog_csv(
            ProductDraft(
                row.name,
                row.price,
                row.tax_rate_bp,
                names.get(row.category_uid or ""),
                row.barcodes,
                row.colour,
                row.active,
            )
            for row in self.book.products()
        )

    # --- plumbing -------------------------------------------------------------------------------------------------

    def _own(self) -> None:
        """Before the first edit of a till standing alone: its catalog (the file) becomes its own copy."""
        if self.book.count() == 0:
            self.book.publish(*drafts_of(self.seed()), undoable=False)  # taking the file in is no one's change

    def _audit(self, action: str, actor: str | None, detail: Mapping[str, object]) -> None:
        self.journal.audit.record(action, actor=actor, terminal_id=self.terminal_id, detail=dict(detail))


def _changes(before: ProductRow | None, after: ProductRow, categories: Mapping[str, CategoryRow]) -> dict[str, object]:
    """Old → new of each field an edit changed (category by name), for the audit log."""
    if before is None:
        return {}

    def shown(row: ProductRow, field: str) -> object:
        value = getattr(row, field)
        if field == "category_uid":
            return categories[value].name if value in categories else None
        return list(value) if isinstance(value, tuple) else value

    fields = ("name", "price", "tax_rate_bp", "category_uid", "barcodes", "colour", "active")
    return {
        ("category" if field == "category_uid" else field): [shown(before, field), shown(after, field)]
        for field in fields
        if getattr(before, field) != getattr(after, field)
    }


# --- the checks, for a form and a file alike ----------------------------------------------------------------------


def product_name(text: str) -> str:
    name = " ".join(text.split())
    if not name:
        raise CatalogEditError("The product's name is empty.")
    if len(name) > MAX_PRODUCT_NAME:
        raise CatalogEditError(f"The product's name is longer than {MAX_PRODUCT_NAME} characters.")
    if (problem := text_problem(name)) is not None:
        raise CatalogEditError(f"The product's name {problem}.")
    return name


def category_name(text: str) -> str:
    name = " ".join(text.split())
    if not name:
        raise CatalogEditError("The category's name is empty.")
    if len(name) > MAX_CATEGORY_NAME:
        raise CatalogEditError(f"The category's name is longer than {MAX_CATEGORY_NAME} characters.")
    if (problem := text_problem(name)) is not None:
        raise CatalogEditError(f"The category's name {problem}.")
    return name


def checked_codes(codes: Iterable[str]) -> list[str]:
    """Barcodes with their check digit verified, each once (any GTIN spelling of one code is that code)."""
    result: dict[str, str] = {}
    for code in codes:
        code = code.strip()
        if not code:
            continue
        try:
            result.setdefault(gtin_key(code), code)
        except BadCheckDigit:
            # the scanner's sentence ("was misread") is not what a person who typed the code needs to hear
            if is_gtin_shaped(code):
                raise CatalogEditError(f"The barcode {code} has a wrong check digit.") from None
            raise CatalogEditError(
                f"The barcode “{code[:20]}” is not a product code (8, 12, 13 or 14 digits)."
            ) from None
    if len(result) > MAX_BARCODES:
        raise CatalogEditError(f"A product has at most {MAX_BARCODES} barcodes.")
    return list(result.values())


def checked_colour(colour: str | None) -> str | None:
    if colour is None or not colour.strip():
        return None
    if not _COLOUR.fullmatch(colour.strip()):
        raise CatalogEditError(f"The colour “{colour.strip()[:12]}” is not a colour like #6f4e37.")
    return colour.strip().lower()


def parse_price(text: str) -> int:
    """Cents from ``4.80`` (a dot, at most two decimals); CatalogEditError else."""
    body = text.strip()
    try:
        amount = Decimal(body)
    except InvalidOperation:
        raise CatalogEditError(f"the price “{body[:20]}” is not an amount like 4.80") from None
    if not amount.is_finite() or amount < 0 or amount != amount.quantize(Decimal("0.01")) or "e" in body.lower():
        raise CatalogEditError(f"the price “{body[:20]}” is not an amount like 4.80")
    cents = int(amount * 100)
    if not in_int32(cents):
        raise CatalogEditError(f"the price “{body[:20]}” is too large")
    return cents


def parse_rate(text: str) -> int | None:
    body = text.strip().removesuffix("%").strip()
    if not body:
        return None
    try:
        points = Decimal(body) * 100
    except InvalidOperation:
        points = Decimal(-1)
    if not points.is_finite() or points % 1 or not 0 <= points <= MAX_RATE_BP:
        raise CatalogEditError(f"the tax rate “{text.strip()[:20]}” is not a percent from 0 to 100")
    return int(points)


def _cell(text: str) -> str:
    """A cell as typed: a leading apostrophe that kept a spreadsheet from running it as a formula goes."""
    text = text.strip()
    return text[1:] if text.startswith("'") and text[1:2] in _FORMULA else text


def read_csv(path: Path) -> bytes:
    """A CSV file's bytes, bounded; CatalogError with one sentence when it cannot be read."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CSV_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise CatalogError(f"The file {path} cannot be read ({getattr(exc, 'strerror', None) or exc}).") from exc
    return data


def parse_csv(data: bytes | str, source: str) -> tuple[list[str], list[ProductDraft]]:
    """The categories and products of a CSV catalog, every row checked first: one CatalogError naming each bad
    row by its line number (at most ten of them) when any is bad."""
    if isinstance(data, bytes):
        if len(data) > MAX_CSV_BYTES:
            raise CatalogError(f"The file {source} is larger than {MAX_CSV_BYTES // (1024 * 1024)} MB.")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CatalogError(f"The file {source} is not UTF-8 text.", hint="Save it as CSV UTF-8.") from None
    else:
        text = data
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [_cell(h).casefold().replace(" ", "_") for h in next(reader)]
    except (StopIteration, csv.Error):
        raise CatalogError(
            f"The file {source} is empty.", hint="Its first line names the columns: name,price,…"
        ) from None
    unknown = [h for h in header if h and h not in COLUMNS]
    if unknown or "name" not in header or "price" not in header or len(set(header)) != len(header):
        raise CatalogError(
            f"The first line of {source} must name the columns (name, price, and any of tax_rate, category, barcodes,"
            f" colour, active){'; “' + unknown[0][:20] + '” is not one' if unknown else ''}.",
            hint="See the catalog's CSV format in the README.",
        )
    problems: list[str] = []
    drafts: list[ProductDraft] = []
    names: dict[str, int] = {}
    codes: dict[str, int] = {}
    categories: list[str] = []
    line = 1
    try:
        for cells in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            if len(drafts) >= MAX_CSV_ROWS:
                raise CatalogError(f"The file {source} has more than {MAX_CSV_ROWS} products.")
            row = dict(zip(header, cells, strict=False))
            try:
                if len(cells) > len(header):
                    raise CatalogEditError(f"it has {len(cells)} cells, more than the {len(header)} columns")
                draft = _draft(row)
                key = draft.name.casefold()
                if key in names:
                    raise CatalogEditError(f"“{draft.name}” is on line {names[key]} already")
                for code in draft.barcodes if draft.active else ():  # a product taken off holds no code
                    if gtin_key(code) in codes:
                        raise CatalogEditError(f"the barcode {code} is on line {codes[gtin_key(code)]} already")
            except CatalogEditError as exc:
                problems.append(f"line {line}: {exc.sentence.rstrip('.')}")
                continue
            names[key] = line
            codes.update((gtin_key(code), line) for code in draft.barcodes if draft.active)
            if draft.category and draft.category not in categories:
                categories.append(draft.category)
            drafts.append(draft)
    except csv.Error as exc:
        problems.append(f"line {line}: it cannot be read as CSV ({exc})")
    if problems:
        shown = "; ".join(problems[:10]) + (f"; and {len(problems) - 10} more" if len(problems) > 10 else "")
        rows = "row" if len(problems) == 1 else "rows"
        raise CatalogError(
            f"{len(problems)} {rows} of {source} cannot be imported: {shown}.",
            hint="Nothing was imported; correct them and import again.",
        )
    return categories, drafts


def _draft(row: Mapping[str, str]) -> ProductDraft:
    def sentence(error: CatalogEditError) -> str:
        return error.sentence[0].lower() + error.sentence[1:].rstrip(".")

    try:
        name = product_name(_cell(row.get("name", "")))
    except CatalogEditError as exc:
        raise CatalogEditError(sentence(exc)) from None
    price = parse_price(row.get("price", ""))
    rate = parse_rate(row.get("tax_rate", ""))
    category = _cell(row.get("category", "")) or None
    if category is not None:
        try:
            category = category_name(category)
        except CatalogEditError as exc:
            raise CatalogEditError(sentence(exc)) from None
    try:
        barcodes = tuple(checked_codes(row.get("barcodes", "").split()))
        colour = checked_colour(row.get("colour"))
    except CatalogEditError as exc:
        raise CatalogEditError(sentence(exc)) from None
    active_text = row.get("active", "").strip().casefold()
    if active_text not in ("", "yes", "no", "y", "n", "true", "false", "1", "0"):
        raise CatalogEditError(f"active must be yes or no, not “{active_text[:10]}”")
    active = active_text not in ("no", "n", "false", "0")
    return ProductDraft(name, price, rate, category, barcodes, colour, active)


def _safe(text: str) -> str:
    """A cell a spreadsheet will not run as a formula."""
    return f"'{text}" if text.startswith(_FORMULA) else text


def catalog_csv(products: Iterable[ProductDraft]) -> str:
    """Products in the CSV format, a header first (Excel reads the CRLF lines and the UTF-8 of a BOM-less file
    written by "CSV UTF-8")."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for draft in products:
        rate = "" if draft.tax_rate_bp is None else f"{Decimal(draft.tax_rate_bp) / 100:f}"
        rate = rate.rstrip("0").rstrip(".") if "." in rate else rate
        writer.writerow(
            [
                _safe(draft.name),
                f"{draft.price // 100}.{draft.price % 100:02d}",
                rate,
                _safe(draft.category or ""),
                " ".join(draft.barcodes),
                draft.colour or "",
                "yes" if draft.active else "no",
            ]
        )
    return out.getvalue()
