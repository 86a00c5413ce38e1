"""The store's details carry an optional logo.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02

``store_info.logo`` is base64 text of a grey PNG (at most 384 dots square, as every
till prints it), NULL when the store has no logo. Text, not a binary column, so the
record travels as the tills' outbox and the change feed carry every other: JSON.
A revision of its own rather than a change to 0002: a store database already at
0002 would never be given the column, since Alembic counts it as current.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("store_info", sa.Column("logo", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("store_info") as batch:
        batch.drop_column("logo")
