"""Alembic migrations of the store database (:mod:`pos_terminal.store.database`), shipped in the wheel.

There is no ``alembic.ini``: :func:`pos_terminal.store.database.alembic_config`
builds the configuration in code, and ``env.py`` runs the migrations on the
connection :meth:`~pos_terminal.store.database.StoreDatabase.init_schema` hands it.

Each revision must run on PostgreSQL and on SQLite: portable types only, and
``op.batch_alter_table`` for changes to existing tables (SQLite rebuilds the
table; ``env.py`` turns batch mode on). A revision never edits one that has
shipped. To start one, with the next number as its id::

    python -c "from alembic import command; from pos_terminal.store.database import alembic_config; \\
    command.revision(alembic_config(), 'what it changes', rev_id='0002')"

then name the file ``vNNNN_….py`` (a module name Python, mypy and ruff accept),
mirror the change in :mod:`pos_terminal.store.schema`, and run
``tests/store/test_database.py``, which compares the two on both backends.
"""
