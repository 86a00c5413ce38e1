"""A store counts in one currency, and a till is told from another by the profile it was set up in.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-07

``store_currency`` holds the store's one currency (a single row). ``store init`` sets it on a new store; a store
set up before this revision has none yet, and the first till to join it after the upgrade gives it its own
currency: every till joined later must count in the same, so that the store's day never relabels one till's money
in another's currency.

``till.install_id`` is the install identity of the profile that joined as that terminal id (a uuid4 kept in the
profile's settings). A till whose row has one is the only till that may join as that id again; a row written
before this revision has none, and the first till to join with its id gives it its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("till", sa.Column("install_id", sa.Text))
    op.create_table(
        "store_currency",
        sa.Column("id", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("currency", sa.Text, nullable=False),
        sa.Column("set_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("set_by_till", sa.Text),
        sa.CheckConstraint("id = 1", name=op.f("ck_store_currency_single_row")),
        sa.CheckConstraint("length(currency) = 3", name=op.f("ck_store_currency_currency")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_store_currency")),
    )


def downgrade() -> None:
    op.drop_table("store_currency")
    with op.batch_alter_table("till") as batch:
        batch.drop_column("install_id")
