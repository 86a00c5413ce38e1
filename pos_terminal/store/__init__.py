"""Storage: the journal (SQLite), the sign-in (OS keychain), and the store database the tills share.

The only package that imports ``sqlite3``, ``keyring`` and the store database's
libraries (SQLAlchemy, Alembic, psycopg). Every expected failure (a damaged file,
a full disk, no keychain, a store database out of reach) is raised as a
:class:`~pos_terminal.errors.UserError` carrying one plain sentence.
"""
