"""Storage on this machine: the journal (SQLite) and the sign-in (OS keychain).

The only package that imports ``sqlite3`` and ``keyring``. Every expected
failure (a damaged file, a full disk, no keychain) is raised as a
:class:`~pos_terminal.errors.UserError` carrying one plain sentence.
"""
