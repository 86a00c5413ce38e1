"""The store database's tables, written once with SQLAlchemy Core for PostgreSQL and SQLite alike.

This is the schema as the code sees it; the migrations in
:mod:`pos_terminal.store.migrations` build the same tables in a database, and
``tests/store/test_database.py`` checks that the two agree on both backends.

Portable types only: ``Text``, ``Integer``, ``BigInteger``, ``Boolean`` and
``DateTime(timezone=True)``. Money is ``Integer`` cents (int32, as everywhere in
the terminal). JSON (a check, an audit entry's detail, a drawer count by piece)
is kept as text: both backends store and return it unchanged, and the terminal
decodes it within the bounds of :mod:`pos_terminal.domain.decode`.

Times are ``DateTime(timezone=True)`` through :class:`UtcDateTime`: on PostgreSQL
a ``timestamptz``, a real instant that ``psql``, reports and range queries
compare correctly whatever the session's time zone; SQLite has no time type and
gets fixed-width ISO 8601 text in UTC, which sorts as time (as in the journal).
Either way the terminal writes only aware times and reads back aware UTC ones.

Records that tills create get text ids: a uuid made by the till that created the
record, so a till can create one while the store database is away. Only
``change_log`` numbers its rows in the database, and that number is the order in
which tills pull changes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect

# Named constraints, so that later migrations (batch mode on SQLite) can name what they change.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UtcDateTime(sa.TypeDecorator[datetime]):
    """``DateTime(timezone=True)`` that refuses naive times and always reads back aware UTC."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("store database times must be timezone-aware")
        value = value.astimezone(UTC)
        # SQLite's text format has no offset: the instant is written in UTC without one.
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Kind(StrEnum):
    """A kind of record in the store database; also the table that holds it (``change_log.kind``)."""

    STORE_INFO = "store_info"
    TILL = "till"
    PERSON = "person"
    CATEGORY = "category"
    PRODUCT = "product"
    SHIFT = "shift"
    CASH_SALE = "cash_sale"
    AUDIT = "audit"


metadata = sa.MetaData(naming_convention=NAMING)


def _time(name: str, *, nullable: bool = False) -> sa.Column[datetime]:
    return sa.Column(name, UtcDateTime(), nullable=nullable)


def _edits() -> list[sa.Column[Any]]:
    """The columns of a record that tills edit: the merge rule of :mod:`pos_terminal.store.database` reads them."""
    return [
        sa.Column("version", sa.Integer, nullable=False),
        _time("updated_at"),
        sa.Column("updated_by_till", sa.Text, nullable=False),
    ]


store_info = sa.Table(
    "store_info",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("address", sa.Text),
    sa.Column("tax_number", sa.Text),
    sa.Column("receipt_header", sa.Text),
    sa.Column("receipt_footer", sa.Text),
    sa.Column("updated_by", sa.Text),  # the person who made the edit
    *_edits(),
    sa.Column("logo", sa.Text),  # base64 of a grey PNG (domain.details.logo_text), after the edit columns: 0003
    sa.CheckConstraint("id = 1", name="single_row"),
    sa.CheckConstraint("version >= 1", name="version"),
)

till = sa.Table(
    "till",
    metadata,
    sa.Column("terminal_id", sa.Text, primary_key=True),
    sa.Column("name", sa.Text),
    _time("joined_at"),
    _time("last_seen_at"),
    # the profile the till was set up in (a uuid4 kept in its settings), which tells the same till joining again
    # from another one given the same terminal id; NULL for a till that joined before 0004, until it joins again
    sa.Column("install_id", sa.Text),
)

# The one currency every till of the store counts in (0004): set by store init, else by the first till to join.
store_currency = sa.Table(
    "store_currency",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("currency", sa.Text, nullable=False),
    _time("set_at"),
    sa.Column("set_by_till", sa.Text),  # None: set by store init
    sa.CheckConstraint("id = 1", name="single_row"),
    sa.CheckConstraint("length(currency) = 3", name="currency"),
)

person = sa.Table(
    "person",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("name_key", sa.Text, nullable=False, unique=True),
    sa.Column("role", sa.Text, nullable=False),
    sa.Column("pin_hash", sa.Text, nullable=False),
    sa.Column("active", sa.Boolean, nullable=False),
    # The lockout merges apart from the rest (see the database module): a PIN try is not an edit.
    sa.Column("wrong_pins", sa.Integer, nullable=False),
    _time("locked_until", nullable=True),
    sa.Column("lock_epoch", sa.Integer, nullable=False),
    *_edits(),
    sa.CheckConstraint("role IN ('cashier', 'manager')", name="role"),
    sa.CheckConstraint("wrong_pins >= 0", name="wrong_pins"),
    sa.CheckConstraint("lock_epoch >= 0", name="lock_epoch"),
    sa.CheckConstraint("version >= 1", name="version"),
)

category = sa.Table(
    "category",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, nullable=False, unique=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("active", sa.Boolean, nullable=False),
    *_edits(),
    sa.CheckConstraint("version >= 1", name="version"),
)

product = sa.Table(
    "product",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("price", sa.Integer, nullable=False),  # cents
    sa.Column("tax_rate_bp", sa.Integer),  # basis points: 1000 is 10 %; NULL: no rate given (not 0 %)
    sa.Column("category_id", sa.Text, sa.ForeignKey("category.id"), index=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("colour", sa.Text),
    sa.Column("active", sa.Boolean, nullable=False),
    *_edits(),
    sa.CheckConstraint("price >= 0", name="price"),
    sa.CheckConstraint("tax_rate_bp >= 0 AND tax_rate_bp <= 10000", name="tax_rate_bp"),
    sa.CheckConstraint("version >= 1", name="version"),
)

product_code = sa.Table(
    "product_code",
    metadata,
    sa.Column("product_id", sa.Text, sa.ForeignKey("product.id"), primary_key=True),
    sa.Column("gtin", sa.Text, primary_key=True),  # the code in its 14-digit GTIN form, however it is printed
    sa.Column("code", sa.Text, nullable=False),  # as printed on the packaging
    sa.Column("position", sa.Integer, nullable=False),  # the order the product lists its codes in
    sa.Column("active", sa.Boolean, nullable=False),  # the product's: one code is on one active product
    sa.Index(
        "ix_product_code_active_gtin",
        "gtin",
        unique=True,
        postgresql_where=sa.text("active"),
        sqlite_where=sa.text("active"),
    ),
)

shift = sa.Table(
    "shift",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("terminal_id", sa.Text, nullable=False),
    _time("opened_at"),
    sa.Column("opened_by", sa.Text, nullable=False),
    sa.Column("opening_float", sa.Integer, nullable=False),
    _time("closed_at", nullable=True),
    sa.Column("closed_by", sa.Text),
    sa.Column("counted_cash", sa.Integer),
    sa.Column("counted_pieces", sa.Text),  # JSON: [[value in cents, quantity], …]
    sa.Column("expected_cash", sa.Integer),
    sa.CheckConstraint("opening_float >= 0", name="opening_float"),
    sa.CheckConstraint("(closed_at IS NULL) = (closed_by IS NULL)", name="closed_by"),
    sa.CheckConstraint("(closed_at IS NULL) = (counted_cash IS NULL)", name="counted_cash"),
    sa.Index(None, "terminal_id", "opened_at"),
)

cash_sale = sa.Table(
    "cash_sale",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("terminal_id", sa.Text, nullable=False),
    sa.Column("shift_id", sa.Text),
    _time("at"),
    sa.Column("actor", sa.Text),
    sa.Column("customer", sa.Text),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("tax", sa.Integer, nullable=False),
    sa.Column("paid", sa.Integer, nullable=False),
    sa.Column("change", sa.Integer, nullable=False),
    sa.Column("check_body", sa.Text, nullable=False),  # JSON: the check as the till built it
    sa.CheckConstraint("total >= 0", name="total"),
    sa.CheckConstraint("paid >= total", name="paid"),
    sa.CheckConstraint("change = paid - total", name="change"),
    sa.Index(None, "at"),
    sa.Index(None, "terminal_id", "at"),
)

audit = sa.Table(
    "audit",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("terminal_id", sa.Text, nullable=False),
    _time("at"),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("actor", sa.Text),
    sa.Column("detail", sa.Text, nullable=False),  # JSON object
    sa.Index(None, "at"),
)

change_log = sa.Table(
    "change_log",
    metadata,
    # BIGINT GENERATED BY DEFAULT AS IDENTITY on PostgreSQL; INTEGER PRIMARY KEY AUTOINCREMENT on SQLite,
    # whose AUTOINCREMENT never hands out a number twice, even after the last row is deleted.
    sa.Column("seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), sa.Identity(), primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("key", sa.Text, nullable=False),
    sa.Column("terminal_id", sa.Text, nullable=False),
    _time("at"),
    sqlite_autoincrement=True,
)

TABLES: dict[Kind, sa.Table] = {
    Kind.STORE_INFO: store_info,
    Kind.TILL: till,
    Kind.PERSON: person,
    Kind.CATEGORY: category,
    Kind.PRODUCT: product,
    Kind.SHIFT: shift,
    Kind.CASH_SALE: cash_sale,
    Kind.AUDIT: audit,
}
