"""The catalog and the store's details in the journal: the till's copy of the store's, and what it sends there.

A till that is part of a store sells from its copy of the store's catalog
(``catalog_category``, ``catalog_product``); the copy takes the store's changes as
they arrive (:meth:`CatalogBook.take_from_store`), and a catalog published from this
till (``catalog import``, or the till's own catalog file offered to a store that has
none) is written to the copy and queued for the store in one transaction, like every
record the tills share. Products and categories are never deleted: one that leaves
the catalog is made inactive, so a sale, a report or another till's queue that names
it still finds it.

The store's details (name, address, tax number, receipt header and footer, logo) are one
row, ``store_details``: the store's while the till is part of one, the till's own
while it stands alone.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pos_terminal.domain.details import StoreDetails, logo_of_text, logo_text
from pos_terminal.domain.people import name_key
from pos_terminal.journal.journal import Journal
from pos_terminal.journal.rows import Cells, JsonObject, iso_time, new_uid


@dataclass(frozen=True)
class CategoryRow:
    uid: str
    name: str
    position: int
    active: bool


@dataclass(frozen=True)
class ProductRow:
    uid: str
    name: str
    price: int  # cents
    tax_rate_bp: int | None
    category_uid: str | None
    barcodes: tuple[str, ...]
    position: int
    colour: str | None
    active: bool


@dataclass(frozen=True)
class ProductDraft:
    """A product as a catalog file or an import gives it: matched to the copy's products by name."""

    name: str
    price: int
    tax_rate_bp: int | None
    category: str | None = None
    barcodes: tuple[str, ...] = ()
    colour: str | None = None
    active: bool = True


@dataclass
class Published:
    """What a :meth:`CatalogBook.publish` changed."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.added or self.changed or self.retired)


CATEGORY_FIELDS = ("id", "name", "position", "active", "version", "updated_at")
PRODUCT_FIELDS = (
    "id",
    "name",
    "price",
    "tax_rate_bp",
    "category_id",
    "barcodes",
    "position",
    "colour",
    "active",
    "version",
    "updated_at",
)
DETAILS_FIELDS = (
    "id",
    "name",
    "address",
    "tax_number",
    "receipt_header",
    "receipt_footer",
    "updated_by",
    "logo",
    "version",
    "updated_at",
)
# The logo is base64 text here as in the store database (details.logo_text): every column is text.
DETAIL_TEXTS = ("name", "address", "tax_number", "receipt_header", "receipt_footer", "updated_by", "logo")


class CatalogBook:
    """The ``catalog_category`` and ``catalog_product`` tables."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def categories(self) -> list[CategoryRow]:
        rows = self.journal.read("SELECT * FROM catalog_category ORDER BY position, name, uid")
        return [_category(row, self.journal) for row in rows]

    def products(self) -> list[ProductRow]:
        rows = self.journal.read("SELECT * FROM catalog_product ORDER BY position, name, uid")
        return [_product(row, self.journal) for row in rows]

    def count(self) -> int:
        """Products in the copy, active or not."""
        return int(self.journal.read("SELECT count(*) FROM catalog_product")[0][0])

    def clear(self) -> None:
        """Forget the copy (a till joining a store takes that store's catalog, not one it had before)."""
        with self.journal.writing():
            self.journal.conn.execute("DELETE FROM catalog_product")
            self.journal.conn.execute("DELETE FROM catalog_category")
            self.journal.conn.execute("DELETE FROM catalog_undo")

    def records(self) -> list[tuple[str, str, JsonObject]]:
        """Every category, then every product, as the store database takes them (categories first: a product
        names its category)."""
        result: list[tuple[str, str, JsonObject]] = []
        for row in self.journal.read("SELECT * FROM catalog_category ORDER BY position, uid"):
            result.append(("category", row["uid"], category_record(row)))
        for row in self.journal.read("SELECT * FROM catalog_product ORDER BY position, uid"):
            result.append(("product", row["uid"], product_record(row)))
        return result

    def publish(
        self, categories: Sequence[str], products: Sequence[ProductDraft], *, undoable: bool = True
    ) -> Published:
        """Make the catalog ``categories`` (tab order) and ``products`` (grid order), in one transaction.

        A product or category is matched to the copy's by name (case and spacing aside), so its id, and what
        other tills and reports know of it, stays; what the copy has and the new catalog does not is made
        inactive. Every record that changes is queued for the store (while the till is part of one), and the
        whole publication is the change :meth:`undo` takes back; ``undoable=False`` when it is no change anyone
        made (a till's catalog file taken in, or brought to a new store), and nothing is there to undo after it.
        """
        published = Published()
        with self._edit("import", undoable=undoable) as edit:
            conn = edit.conn
            known = {name_key(row["name"]): row for row in conn.execute("SELECT * FROM catalog_category")}
            wanted = list(dict.fromkeys(c.strip() for c in categories if c.strip()))
            wanted += [p.category.strip() for p in products if p.category and p.category.strip() not in wanted]
            wanted = list(dict.fromkeys(wanted))
            category_uid: dict[str, str] = {}
            for position, name in enumerate(wanted):
                row = known.pop(name_key(name), None)
                uid = row["uid"] if row is not None else new_uid()
                category_uid[name_key(name)] = uid
                edit.write(CATEGORIES, uid, row, {"name": name, "position": position, "active": 1})
            for row in known.values():
                if row["active"]:
                    edit.write(CATEGORIES, row["uid"], row, {"active": 0})

            by_name: dict[str, list[sqlite3.Row]] = {}
            for row in conn.execute("SELECT * FROM catalog_product ORDER BY active DESC, position, uid"):
                by_name.setdefault(name_key(row["name"]), []).append(row)
            planned: list[tuple[ProductDraft, sqlite3.Row | None, dict[str, Any]]] = []
            for position, draft in enumerate(products):
                matches = by_name.get(name_key(draft.name))
                row = matches.pop(0) if matches else None
                values = {
                    "name": draft.name,
                    "price": draft.price,
                    "tax_rate_bp": draft.tax_rate_bp,
                    "category_uid": category_uid.get(name_key(draft.category)) if draft.category else None,
                    "barcodes": json.dumps(list(draft.barcodes)),
                    "position": position,
                    "colour": draft.colour,
                    "active": int(draft.active),
                }
                planned.append((draft, row, values))
            # The store lets one active product hold a code: what gives codes up goes first, so a code moving
            # from one product to another (or from one taken off) is free when the other asks for it.
            for rows in by_name.values():
                for row in rows:
                    if row["active"] and edit.write(PRODUCTS, row["uid"], row, {"active": 0}):
                        published.retired.append(row["name"])
            planned.sort(key=lambda plan: 0 if plan[1] is not None and _gives_up_codes(plan[1], plan[2]) else 1)
            for draft, row, values in planned:
                uid = row["uid"] if row is not None else new_uid()
                if edit.write(PRODUCTS, uid, row, values):
                    (published.added if row is None else published.changed).append(draft.name)
        return published

    def save_product(self, uid: str | None, values: Mapping[str, Any], *, what: str) -> str:
        """Add a product (``uid`` None) or change one: ``values`` are columns of the copy (checked by the caller),
        the barcodes a list. Its id; the change is the one :meth:`undo` takes back, described as ``what``."""
        columns = {key: json.dumps(list(value)) if key == "barcodes" else value for key, value in values.items()}
        with self._edit(what) as edit:
            row = None if uid is None else edit.row(PRODUCTS, uid)
            if uid is not None and row is None:
                raise KeyError(f"no product {uid}")
            if row is None:
                columns.setdefault("position", edit.next_position(PRODUCTS))
                columns.setdefault("active", 1)
            uid = uid or new_uid()
            edit.write(PRODUCTS, uid, row, columns)
        return uid

    def save_category(self, uid: str | None, values: Mapping[str, Any], *, what: str) -> str:
        with self._edit(what) as edit:
            row = None if uid is None else edit.row(CATEGORIES, uid)
            if uid is not None and row is None:
                raise KeyError(f"no category {uid}")
            columns = dict(values)
            if row is None:
                columns.setdefault("position", edit.next_position(CATEGORIES))
                columns.setdefault("active", 1)
            uid = uid or new_uid()
            edit.write(CATEGORIES, uid, row, columns)
        return uid

    def reorder(self, table: str, order: Sequence[str], *, what: str) -> None:
        """Give the rows of ``table`` (``catalog_product`` or ``catalog_category``) the positions of ``order``;
        rows it does not name follow, in their order."""
        if table not in (PRODUCTS, CATEGORIES):
            raise ValueError(f"no catalog table {table}")
        with self._edit(what) as edit:
            rows = {row["uid"]: row for row in edit.conn.execute(f"SELECT * FROM {table} ORDER BY position, uid")}  # noqa: S608
            uids = [uid for uid in dict.fromkeys(order) if uid in rows]
            uids += [uid for uid in rows if uid not in uids]
            for position, uid in enumerate(uids):
                edit.write(table, uid, rows[uid], {"position": position})

    def last_change(self) -> str | None:
        """What :meth:`undo` would take back, when there is something."""
        rows = self.journal.read("SELECT what FROM catalog_undo WHERE id = 1")
        return str(rows[0][0]) if rows else None

    def undo(self) -> str | None:
        """Take back the last change made on this till (one level): what it changed is written back as it was, a
        product or category it added is made inactive; every row so written goes to the store as an edit. What
        was taken back, or None when nothing was to be."""
        journal = self.journal
        with journal.writing():
            entry = journal.conn.execute("SELECT what, rows FROM catalog_undo WHERE id = 1").fetchone()
            if entry is None:
                return None
            edit = _Edit(self, journal.conn, journal.stamp(), "")
            for table, uid, before in json.loads(entry["rows"]):
                row = edit.row(table, uid)
                if row is None:
                    continue
                if before is None:
                    edit.write(table, uid, row, {"active": 0})
                else:
                    kept = {k: v for k, v in before.items() if k not in ("uid", "version", "updated_at")}
                    edit.write(table, uid, row, kept)
            journal.conn.execute("DELETE FROM catalog_undo")
            return str(entry["what"])

    @contextmanager
    def _edit(self, what: str, *, undoable: bool = True) -> Iterator[_Edit]:
        journal = self.journal
        with journal.writing():
            edit = _Edit(self, journal.conn, journal.stamp(), what)
            yield edit
            if not undoable:
                journal.conn.execute("DELETE FROM catalog_undo")
            elif edit.before:
                journal.conn.execute(
                    "INSERT OR REPLACE INTO catalog_undo (id, what, rows, at) VALUES (1, ?, ?, ?)",
                    (what, json.dumps(edit.before, ensure_ascii=False), edit.stamp),
                )

    @staticmethod
    def _write(
        conn: sqlite3.Connection, table: str, uid: str, row: sqlite3.Row | None, values: dict[str, Any], stamp: str
    ) -> bool:
        """Insert or update one row of the copy; False when ``values`` are what it holds already."""
        if row is not None and all(row[column] == value for column, value in values.items()):
            return False
        columns = {**values, "updated_at": stamp}
        if row is None:
            columns["uid"] = uid
            names, marks = ", ".join(columns), ", ".join("?" for _ in columns)
            conn.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", tuple(columns.values()))  # noqa: S608
        else:
            assignments = ", ".join(f"{name} = ?" for name in columns)
            conn.execute(f"UPDATE {table} SET {assignments} WHERE uid = ?", (*columns.values(), uid))  # noqa: S608
        return True

    def take_from_store(self, changes: Sequence[tuple[str, JsonObject]], *, keep: Collection[str] = ()) -> bool:
        """Make the copy of each category or product in ``changes`` (kind, record) the store's record, in one
        transaction; a record whose id is in ``keep`` (this till has an edit of it still to send) keeps that edit
        until the store's verdict. True when the copy changed."""
        journal = self.journal
        changed = False
        with journal.writing():
            for kind, record in changes:
                uid = str(record["id"])
                if uid in keep:
                    continue
                table, values = _copy_values(kind, record)
                row = journal.conn.execute(f"SELECT * FROM {table} WHERE uid = ?", (uid,)).fetchone()  # noqa: S608
                changed = self._write(journal.conn, table, uid, row, values, _store_time(record, journal)) or changed
        return changed


def _gives_up_codes(row: sqlite3.Row, values: Mapping[str, Any]) -> bool:
    """Whether writing ``values`` over ``row`` frees a code (taken off the product, or the product taken off)."""
    old = set(json.loads(row["barcodes"]))
    return bool(old - set(json.loads(values["barcodes"]))) or (bool(row["active"]) and not values["active"])


PRODUCTS, CATEGORIES = "catalog_product", "catalog_category"
_KINDS = {PRODUCTS: "product", CATEGORIES: "category"}


class _Edit:
    """One change of the catalog made on this till, inside its transaction: each row it writes is queued for the
    store, and the row as it was is kept for :meth:`CatalogBook.undo`."""

    def __init__(self, book: CatalogBook, conn: sqlite3.Connection, stamp: str, what: str) -> None:
        self.book, self.conn, self.stamp, self.what = book, conn, stamp, what
        self.before: list[tuple[str, str, dict[str, Any] | None]] = []

    def row(self, table: str, uid: str) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.conn.execute(f"SELECT * FROM {table} WHERE uid = ?", (uid,)).fetchone()  # noqa: S608
        return row

    def next_position(self, table: str) -> int:
        return int(self.conn.execute(f"SELECT coalesce(max(position) + 1, 0) FROM {table}").fetchone()[0])  # noqa: S608

    def write(self, table: str, uid: str, row: sqlite3.Row | None, values: dict[str, Any]) -> bool:
        if not self.book._write(self.conn, table, uid, row, values, self.stamp):
            return False
        self.before.append((table, uid, None if row is None else dict(row)))
        written = self.row(table, uid)
        assert written is not None
        record = product_record(written) if table == PRODUCTS else category_record(written)
        self.book.journal.share(_KINDS[table], uid, record)
        return True


def _copy_values(kind: str, record: JsonObject) -> tuple[str, dict[str, Any]]:
    """The table of the copy, and its columns, for a store's category or product record."""
    values: dict[str, Any]
    if kind == "category":
        table = "catalog_category"
        values = {
            "name": str(record["name"]),
            "position": int(record.get("position") or 0),
            "active": int(bool(record.get("active", True))),
        }
    elif kind == "product":
        table = "catalog_product"
        rate = record.get("tax_rate_bp")
        values = {
            "name": str(record["name"]),
            "price": int(record["price"]),
            "tax_rate_bp": None if rate is None else int(rate),
            "category_uid": record.get("category_id"),
            "barcodes": json.dumps([str(code) for code in record.get("barcodes") or []]),
            "position": int(record.get("position") or 0),
            "colour": record.get("colour"),
            "active": int(bool(record.get("active", True))),
        }
    else:
        raise ValueError(f"no catalog record of kind {kind}")
    values["version"] = int(record.get("version") or 0)
    return table, values


class DetailsBook:
    """The ``store_details`` row."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def get(self) -> StoreDetails | None:
        rows = self.journal.read("SELECT * FROM store_details WHERE id = 1")
        if not rows:
            return None
        cells = Cells(rows[0], self.journal.path, "store's details")
        try:
            logo = logo_of_text(cells.optional_text("logo"))
        except ValueError as exc:
            raise cells.damaged("logo", f"is not a picture the till keeps ({exc})") from None
        return StoreDetails(
            name=cells.text("name"),
            address=cells.optional_text("address"),
            tax_number=cells.optional_text("tax_number"),
            receipt_header=cells.optional_text("receipt_header"),
            receipt_footer=cells.optional_text("receipt_footer"),
            updated_by=cells.optional_text("updated_by"),
            logo=logo,
        )

    def record(self) -> JsonObject | None:
        """The details as the store database takes them, when the till has any."""
        rows = self.journal.read("SELECT * FROM store_details WHERE id = 1")
        return details_record(rows[0]) if rows else None

    def set(self, details: StoreDetails) -> bool:
        """Write ``details`` (queued for the store while the till is part of one); False when nothing changed."""
        values = {name: getattr(details, name) for name in DETAIL_TEXTS if name != "logo"}
        values["logo"] = logo_text(details.logo)
        journal = self.journal
        with journal.writing():
            row = journal.conn.execute("SELECT * FROM store_details WHERE id = 1").fetchone()
            if row is not None and all(row[name] == value for name, value in values.items() if name != "updated_by"):
                return False
            self._write(row, values, journal.stamp(), version=None)
            written = journal.conn.execute("SELECT * FROM store_details WHERE id = 1").fetchone()
            journal.share("store_info", "1", details_record(written))
        return True

    def take_from_store(self, record: JsonObject, *, keep_edits: bool) -> bool:
        if keep_edits:
            return False
        values = {name: record.get(name) for name in DETAIL_TEXTS}
        journal = self.journal
        with journal.writing():
            row = journal.conn.execute("SELECT * FROM store_details WHERE id = 1").fetchone()
            version = int(record.get("version") or 0)
            if row is not None and row["version"] == version and all(row[k] == v for k, v in values.items()):
                return False
            self._write(row, values, _store_time(record, journal), version=version)
            return True

    def _write(self, row: sqlite3.Row | None, values: dict[str, Any], stamp: str, *, version: int | None) -> None:
        conn = self.journal.conn
        columns = {**values, "updated_at": stamp}
        if version is not None:
            columns["version"] = version
        if row is None:
            columns["id"] = 1
            names, marks = ", ".join(columns), ", ".join("?" for _ in columns)
            conn.execute(f"INSERT INTO store_details ({names}) VALUES ({marks})", tuple(columns.values()))  # noqa: S608
        else:
            assignments = ", ".join(f"{name} = ?" for name in columns)
            conn.execute(f"UPDATE store_details SET {assignments} WHERE id = 1", tuple(columns.values()))  # noqa: S608


def _store_time(record: JsonObject, journal: Journal) -> str:
    """The store's time of a record, as the journal writes times."""
    value = record.get("updated_at")
    if isinstance(value, datetime):
        return iso_time(value)
    return str(value) if value else journal.stamp()


def category_record(row: sqlite3.Row) -> JsonObject:
    """A category as the store database takes it: ``version`` is the store's version this copy is based on."""
    return {
        "id": row["uid"],
        "name": row["name"],
        "position": row["position"],
        "active": bool(row["active"]),
        "version": row["version"],
        "updated_at": row["updated_at"],
    }


def product_record(row: sqlite3.Row) -> JsonObject:
    return {
        "id": row["uid"],
        "name": row["name"],
        "price": row["price"],
        "tax_rate_bp": row["tax_rate_bp"],
        "category_id": row["category_uid"],
        "barcodes": json.loads(row["barcodes"]),
        "position": row["position"],
        "colour": row["colour"],
        "active": bool(row["active"]),
        "version": row["version"],
        "updated_at": row["updated_at"],
    }


def details_record(row: sqlite3.Row) -> JsonObject:
    return {
        "id": 1,
        **{name: row[name] for name in DETAIL_TEXTS},
        "version": row["version"],
        "updated_at": row["updated_at"],
    }


def _category(row: sqlite3.Row, journal: Journal) -> CategoryRow:
    cells = Cells(row, journal.path, f"catalog category {row['uid']}")
    return CategoryRow(cells.text("uid"), cells.text("name"), cells.count("position"), bool(cells.count("active")))


def _product(row: sqlite3.Row, journal: Journal) -> ProductRow:
    cells = Cells(row, journal.path, f"catalog product {row['uid']}")
    try:
        codes = json.loads(cells.text("barcodes"))
    except ValueError:
        codes = None
    if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
        raise cells.damaged("barcodes", "is not a list of codes")
    rate = row["tax_rate_bp"]
    return ProductRow(
        uid=cells.text("uid"),
        name=cells.text("name"),
        price=cells.count("price"),
        tax_rate_bp=None if rate is None else cells.count("tax_rate_bp"),
        category_uid=cells.optional_text("category_uid"),
        barcodes=tuple(codes),
        position=cells.count("position"),
        colour=cells.optional_text("colour"),
        active=bool(cells.count("active")),
    )
