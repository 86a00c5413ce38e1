"""Records in and out of the store database: each column of a record checked for its type, the merge's stamps
and lockouts, and the rows looked up by their key (:mod:`pos_terminal.store.writes` and
:mod:`pos_terminal.store.database` use them)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from pos_terminal.domain.barcode import BadCheckDigit, gtin_key
from pos_terminal.domain.details import logo_of_text
from pos_terminal.domain.money import in_int32
from pos_terminal.store import schema
from pos_terminal.store.schema import Kind
from pos_terminal.store.store_errors import WrongTill


@dataclass(frozen=True, order=True)
class Stamp:
    """Where an edit stands in the last-writer-wins order: version first, then time, then the till."""

    version: int
    updated_at: datetime
    till: str


@dataclass(frozen=True)
class Lockout:
    """A person's PIN lockout, which merges by epoch and then by maximum (:mod:`pos_terminal.store.writes`)."""

    wrong_pins: int = 0
    locked_until: datetime | None = None
    epoch: int = 0

    def merge(self, other: Lockout) -> Lockout:
        """The lockout both tills agree on: the later epoch's, or within one epoch the greater of each part."""
        if self.epoch != other.epoch:
            return self if self.epoch > other.epoch else other
        times = [moment for moment in (self.locked_until, other.locked_until) if moment is not None]
        return Lockout(max(self.wrong_pins, other.wrong_pins), max(times) if times else None, self.epoch)


KIND_NAMES = {
    Kind.STORE_INFO: "the store's details",
    Kind.TILL: "till",
    Kind.PERSON: "person",
    Kind.CATEGORY: "category",
    Kind.PRODUCT: "product",
    Kind.SHIFT: "shift",
    Kind.CASH_SALE: "cash sale",
    Kind.AUDIT: "audit entry",
}
JSON_COLUMNS = {Kind.SHIFT: ("counted_pieces",), Kind.CASH_SALE: ("check_body",), Kind.AUDIT: ("detail",)}
_MISSING = object()
NEWEST_SEQ = "pos_newest_seq"  # conn.info: the newest change_log number the transaction wrote


class Fields:
    """The columns of one record handed to :meth:`~pos_terminal.store.database.StoreDatabase.put`, each checked
    for its type; ValueError else."""

    def __init__(self, kind: Kind, record: Mapping[str, Any]) -> None:
        self.kind = kind
        self.record = record
        self.seen: set[str] = set()

    def _get(self, column: str, default: Any = _MISSING) -> Any:
        self.seen.add(column)
        value = self.record.get(column, default)
        if value is _MISSING:
            raise ValueError(f"a {self.kind} record needs {column}")
        return value

    def _wrong(self, column: str, what: str) -> ValueError:
        return ValueError(f"{self.kind}.{column} must be {what}, not {self.record.get(column)!r}")

    def text(self, column: str) -> str:
        value = self._get(column)
        if not isinstance(value, str):
            raise self._wrong(column, "text")
        return value

    def optional_text(self, column: str) -> str | None:
        return None if self._get(column, None) is None else self.text(column)

    def logo(self, column: str) -> str | None:
        """A logo: base64 text of a PNG, at most LOGO_STORED_LIMIT bytes (domain.details.logo_of_text)."""
        text = self.optional_text(column)
        try:
            logo_of_text(text)
        except ValueError as exc:
            raise ValueError(f"{self.kind}.{column} must be a logo: {exc}") from None  # not the value: it is long
        return text

    def key(self, column: str) -> str:
        value = self.text(column)
        check_id(value, f"{self.kind}.{column}")
        return value

    def count(self, column: str, *, default: int | None = None) -> int:
        value = self._get(column, _MISSING if default is None else default)
        if not isinstance(value, int) or isinstance(value, bool) or not in_int32(value):
            raise self._wrong(column, "a whole number within int32")
        return value

    def optional_count(self, column: str) -> int | None:
        return None if self._get(column, None) is None else self.count(column)

    def flag(self, column: str, *, default: bool) -> bool:
        value = self._get(column, default)
        if not isinstance(value, bool):
            raise self._wrong(column, "true or false")
        return value

    def time(self, column: str) -> datetime:
        value = self._get(column)
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                raise self._wrong(column, "a time") from None
        if not isinstance(value, datetime) or value.tzinfo is None:
            raise self._wrong(column, "a time with its time zone")
        return value.astimezone(UTC)

    def optional_time(self, column: str) -> datetime | None:
        return None if self._get(column, None) is None else self.time(column)

    def json(self, column: str, shape: type[dict[str, Any]] | type[list[Any]], *, default: Any = _MISSING) -> str:
        """A JSON object (``dict``) or array (``list``), as the text the column keeps."""
        value = self._get(column, default)
        if not isinstance(value, shape):
            raise self._wrong(column, "a JSON object" if shape is dict else "a JSON array")
        try:
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            raise self._wrong(column, "JSON") from None

    def optional_json(self, column: str, shape: type[dict[str, Any]] | type[list[Any]]) -> str | None:
        return None if self._get(column, None) is None else self.json(column, shape)

    def codes(self, column: str) -> list[tuple[str, str]]:
        """Barcodes (a JSON array of text, each a GTIN with a right check digit) as (14-digit GTIN, as given),
        each code once."""
        value = self._get(column, [])
        if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
            raise self._wrong(column, "a list of barcodes")
        codes: dict[str, str] = {}
        for code in value:
            try:
                codes.setdefault(gtin_key(code), code.strip())
            except BadCheckDigit as exc:
                raise self._wrong(column, f"barcodes with their check digit ({exc.sentence})") from None
        return list(codes.items())

    def choice(self, column: str, choices: type[StrEnum]) -> StrEnum:
        try:
            return choices(self.text(column))
        except ValueError:
            raise self._wrong(column, " or ".join(choices)) from None

    def owner(self, terminal_id: str) -> str:
        """The record's till: the caller, who may write only its own."""
        given = self.optional_text("terminal_id")
        if given is not None and given != terminal_id:
            what = f"{KIND_NAMES[self.kind]} {self.record.get('id')}"
            raise WrongTill(f"Till {terminal_id} cannot write {what} for till {given}.")
        return terminal_id

    def stamp(self, terminal_id: str) -> Stamp:
        """The edit's place in the last-writer-wins order: the version it was based on, plus one."""
        version = self.count("version")
        if version < 0:
            raise self._wrong("version", "the version the edit was based on (0 for a new record)")
        return Stamp(version + 1, self.time("updated_at"), terminal_id)

    def ignore(self, *columns: str) -> None:
        self.seen.update(columns)

    def done(self) -> None:
        unknown = sorted(set(self.record) - self.seen)
        if unknown:
            raise ValueError(f"a {self.kind} record has no column {', '.join(unknown)}")


def check_id(value: object, what: str) -> None:
    if not isinstance(value, str) or not value or len(value) > 200:
        raise ValueError(f"{what} must be non-empty text of at most 200 characters, not {value!r}")


def edit_columns(stamp: Stamp) -> dict[str, Any]:
    return {"version": stamp.version, "updated_at": stamp.updated_at, "updated_by_till": stamp.till}


def lockout_columns(lockout: Lockout) -> dict[str, Any]:
    return {"wrong_pins": lockout.wrong_pins, "locked_until": lockout.locked_until, "lock_epoch": lockout.epoch}


def stamp_of(row: Mapping[str, Any]) -> Stamp:
    return Stamp(row["version"], row["updated_at"], row["updated_by_till"])


def key_column(kind: Kind) -> sa.Column[Any]:
    table = schema.TABLES[kind]
    return table.c.terminal_id if kind is Kind.TILL else table.c.id


def primary_key_of(kind: Kind, key: str) -> Any:
    if kind is Kind.STORE_INFO:
        return int(key) if key.isdigit() else -1
    return key


def one_row(conn: Connection, kind: Kind, key: str) -> dict[str, Any] | None:
    table = schema.TABLES[kind]
    row = conn.execute(sa.select(table).where(key_column(kind) == primary_key_of(kind, key))).mappings().first()
    return None if row is None else dict(row)


def newest_seq(conn: Connection) -> int:
    return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(schema.change_log.c.seq), 0))).scalar_one())


def chunks(values: Sequence[str], size: int = 500) -> Iterator[Sequence[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def product_fields(
    record: Mapping[str, Any], terminal_id: str
) -> tuple[str, list[tuple[str, str]], dict[str, Any], Stamp]:
    """A product record, checked: its id, its codes (GTIN, as given), its columns, and its edit's stamp."""
    fields = Fields(Kind.PRODUCT, record)
    product_id = fields.key("id")
    codes = fields.codes("barcodes")
    fields.ignore("updated_by_till")
    details = {
        "name": fields.text("name"),
        "price": fields.count("price"),
        "tax_rate_bp": fields.optional_count("tax_rate_bp"),
        "category_id": fields.optional_text("category_id"),
        "position": fields.count("position", default=0),
        "colour": fields.optional_text("colour"),
        "active": fields.flag("active", default=True),
    }
    stamp = fields.stamp(terminal_id)
    fields.done()
    return product_id, codes, details, stamp


def attach_codes(conn: Connection, products: list[dict[str, Any]]) -> None:
    """Give each product record its ``barcodes``, in the order it lists them."""
    if not products:
        return
    table = schema.product_code
    codes: dict[str, list[str]] = {}
    for start in range(0, len(products), 500):
        ids = [product["id"] for product in products[start : start + 500]]
        for row in conn.execute(
            sa.select(table.c.product_id, table.c.code)
            .where(table.c.product_id.in_(ids))
            .order_by(table.c.product_id, table.c.position)
        ):
            codes.setdefault(row.product_id, []).append(row.code)
    for product in products:
        product["barcodes"] = codes.get(product["id"], [])
