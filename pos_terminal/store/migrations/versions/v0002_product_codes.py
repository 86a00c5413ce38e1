"""A product carries any number of barcodes, and may have no tax rate.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25

The first schema gave a product one ``barcode``, while a catalog entry lists every
code printed on its packaging. The codes move to ``product_code``, one row per
product and code, the code in its GTIN form (14 digits, so UPC-A 036000291452 and
EAN-13 0036000291452 are one code). One code is on one active product (a unique
index over the codes of active products): a product taken off the catalog keeps
its codes, for the day it comes back, without keeping another from taking them. A
catalog entry without a tax rate is not an entry taxed at 0 %: ``tax_rate_bp``
may now be NULL.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _gtin(code: str) -> str:
    """The 14-digit form of a code already in the store (the first schema took them unchecked: digits only)."""
    digits = "".join(ch for ch in code if ch.isdigit())
    return digits.rjust(14, "0")


def upgrade() -> None:
    # The codes are read before product is rebuilt, and product_code made after it: SQLite's batch mode drops and
    # recreates product, which foreign keys on refuse while rows of another table point at it.
    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT id, barcode FROM product WHERE barcode IS NOT NULL")).all()
    with op.batch_alter_table("product") as batch:
        batch.drop_constraint(op.f("uq_product_barcode"), type_="unique")
        batch.drop_column("barcode")
        batch.alter_column("tax_rate_bp", existing_type=sa.Integer, nullable=True)
    codes = op.create_table(
        "product_code",
        sa.Column("product_id", sa.Text, nullable=False),
        sa.Column("gtin", sa.Text, nullable=False),
        sa.Column("code", sa.Text, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.ForeignKeyConstraint(["product_id"], ["product.id"], name=op.f("fk_product_code_product_id_product")),
        sa.PrimaryKeyConstraint("product_id", "gtin", name=op.f("pk_product_code")),
    )
    op.create_index(
        "ix_product_code_active_gtin",
        "product_code",
        ["gtin"],
        unique=True,
        postgresql_where=sa.text("active"),
        sqlite_where=sa.text("active"),
    )
    if rows:
        op.bulk_insert(
            codes,
            [
                {"gtin": _gtin(row.barcode), "code": row.barcode, "product_id": row.id, "position": 0, "active": True}
                for row in rows
            ],
        )


def downgrade() -> None:
    with op.batch_alter_table("product") as batch:
        batch.alter_column("tax_rate_bp", existing_type=sa.Integer, nullable=False)
        batch.add_column(sa.Column("barcode", sa.Text))
        batch.create_unique_constraint(op.f("uq_product_barcode"), ["barcode"])
    op.drop_index("ix_product_code_active_gtin", "product_code")
    op.drop_table("product_code")
