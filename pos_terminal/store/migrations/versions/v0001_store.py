"""The first store schema: the store's details, tills, people, catalog, shifts, cash sales, audit, change log.

Revision ID: 0001
Revises:
Create Date: 2026-11-01

Written out here rather than taken from :mod:`pos_terminal.store.schema`: a
revision is frozen once shipped, while the schema module moves on with later ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _time(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _edits(table: str) -> list[sa.Column[Any] | sa.CheckConstraint]:
    return [
        sa.Column("version", sa.Integer, nullable=False),
        _time("updated_at"),
        sa.Column("updated_by_till", sa.Text, nullable=False),
        sa.CheckConstraint("version >= 1", name=op.f(f"ck_{table}_version")),
    ]


def upgrade() -> None:
    op.create_table(
        "store_info",
        sa.Column("id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("address", sa.Text),
        sa.Column("tax_number", sa.Text),
        sa.Column("receipt_header", sa.Text),
        sa.Column("receipt_footer", sa.Text),
        sa.Column("updated_by", sa.Text),
        *_edits("store_info"),
        sa.CheckConstraint("id = 1", name=op.f("ck_store_info_single_row")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_info")),
    )
    op.create_table(
        "till",
        sa.Column("terminal_id", sa.Text, nullable=False),
        sa.Column("name", sa.Text),
        _time("joined_at"),
        _time("last_seen_at"),
        sa.PrimaryKeyConstraint("terminal_id", name=op.f("pk_till")),
    )
    op.create_table(
        "person",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("name_key", sa.Text, nullable=False),
        sa.Column("role", sa.Text, nullable=False),
        sa.Column("pin_hash", sa.Text, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("wrong_pins", sa.Integer, nullable=False),
        _time("locked_until", nullable=True),
        sa.Column("lock_epoch", sa.Integer, nullable=False),
        *_edits("person"),
        sa.CheckConstraint("role IN ('cashier', 'manager')", name=op.f("ck_person_role")),
        sa.CheckConstraint("wrong_pins >= 0", name=op.f("ck_person_wrong_pins")),
        sa.CheckConstraint("lock_epoch >= 0", name=op.f("ck_person_lock_epoch")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_person")),
        sa.UniqueConstraint("name_key", name=op.f("uq_person_name_key")),
    )
    op.create_table(
        "category",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        *_edits("category"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_category")),
        sa.UniqueConstraint("name", name=op.f("uq_category_name")),
    )
    op.create_table(
        "product",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("price", sa.Integer, nullable=False),
        sa.Column("tax_rate_bp", sa.Integer, nullable=False),
        sa.Column("category_id", sa.Text),
        sa.Column("barcode", sa.Text),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("colour", sa.Text),
        sa.Column("active", sa.Boolean, nullable=False),
        *_edits("product"),
        sa.CheckConstraint("price >= 0", name=op.f("ck_product_price")),
        sa.CheckConstraint("tax_rate_bp >= 0 AND tax_rate_bp <= 10000", name=op.f("ck_product_tax_rate_bp")),
        sa.ForeignKeyConstraint(["category_id"], ["category.id"], name=op.f("fk_product_category_id_category")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_product")),
        sa.UniqueConstraint("barcode", name=op.f("uq_product_barcode")),
    )
    op.create_index(op.f("ix_product_category_id"), "product", ["category_id"])
    op.create_table(
        "shift",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("terminal_id", sa.Text, nullable=False),
        _time("opened_at"),
        sa.Column("opened_by", sa.Text, nullable=False),
        sa.Column("opening_float", sa.Integer, nullable=False),
        _time("closed_at", nullable=True),
        sa.Column("closed_by", sa.Text),
        sa.Column("counted_cash", sa.Integer),
        sa.Column("counted_pieces", sa.Text),
        sa.Column("expected_cash", sa.Integer),
        sa.CheckConstraint("opening_float >= 0", name=op.f("ck_shift_opening_float")),
        sa.CheckConstraint("(closed_at IS NULL) = (closed_by IS NULL)", name=op.f("ck_shift_closed_by")),
        sa.CheckConstraint("(closed_at IS NULL) = (counted_cash IS NULL)", name=op.f("ck_shift_counted_cash")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_shift")),
    )
    op.create_index(op.f("ix_shift_terminal_id_opened_at"), "shift", ["terminal_id", "opened_at"])
    op.create_table(
        "cash_sale",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("terminal_id", sa.Text, nullable=False),
        sa.Column("shift_id", sa.Text),
        _time("at"),
        sa.Column("actor", sa.Text),
        sa.Column("customer", sa.Text),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("tax", sa.Integer, nullable=False),
        sa.Column("paid", sa.Integer, nullable=False),
        sa.Column("change", sa.Integer, nullable=False),
        sa.Column("check_body", sa.Text, nullable=False),
        sa.CheckConstraint("total >= 0", name=op.f("ck_cash_sale_total")),
        sa.CheckConstraint("paid >= total", name=op.f("ck_cash_sale_paid")),
        sa.CheckConstraint("change = paid - total", name=op.f("ck_cash_sale_change")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cash_sale")),
    )
    op.create_index(op.f("ix_cash_sale_at"), "cash_sale", ["at"])
    op.create_index(op.f("ix_cash_sale_terminal_id_at"), "cash_sale", ["terminal_id", "at"])
    op.create_table(
        "audit",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("terminal_id", sa.Text, nullable=False),
        _time("at"),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("actor", sa.Text),
        sa.Column("detail", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit")),
    )
    op.create_index(op.f("ix_audit_at"), "audit", ["at"])
    op.create_table(
        "change_log",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), sa.Identity(), nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("terminal_id", sa.Text, nullable=False),
        _time("at"),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_change_log")),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    for table in ("change_log", "audit", "cash_sale", "shift", "product", "category", "person", "till", "store_info"):
        op.drop_table(table)
