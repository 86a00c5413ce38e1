"""The store: the database the tills of one shop share (PostgreSQL), or one till keeps alone (SQLite).

Its schema, migrations and roles, opening it, writing to it and hearing its changes. A till's own records and
its copy of what it shares are in its journal (:mod:`pos_terminal.journal`). With the journal and the keychain,
the only package that imports ``sqlite3``, and the only one that imports the store database's libraries
(SQLAlchemy, Alembic, psycopg). Every expected failure (a damaged file, a store database out of reach) is raised
as a :class:`~pos_terminal.errors.UserError` carrying one plain sentence.
"""
