"""Alembic's entry point for the store database: runs the migrations on the connection it is handed.

Alembic executes this file; nothing imports it. The connection comes from
:meth:`pos_terminal.store.database.StoreDatabase.init_schema`, already inside the
transaction (and, on PostgreSQL, holding the lock) in which the whole upgrade
runs, so two tills setting up the same database one after the other do it once.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from pos_terminal.store.schema import metadata

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("the store migrations run on a connection from StoreDatabase.init_schema")

# Batch mode: SQLite cannot ALTER most things in place, so a later revision's table changes rebuild the table there.
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
