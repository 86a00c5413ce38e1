"""SQLite connections the way the terminal wants them, and schema migrations.

Connections are in autocommit mode (``isolation_level=None``): every write runs
in an explicit ``BEGIN IMMEDIATE`` … ``COMMIT`` (:func:`transaction`), and with
WAL and ``synchronous=FULL`` a committed write survives a power cut.

The schema version is ``PRAGMA user_version``: the number of migrations
applied. Each migration runs in its own transaction together with the bump of
the version, so a crash leaves the file at one version or the next, never
half-way.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from pos_terminal.errors import UserError

BUSY_TIMEOUT_MS = 5_000

# Primary result codes that come from the machine (disk, file, other process), not from our code.
_ENVIRONMENT = {
    3: "the file's permissions do not allow it",  # SQLITE_PERM
    5: "another program is using it",  # SQLITE_BUSY
    6: "another program is using it",  # SQLITE_LOCKED
    7: "the computer is out of memory",  # SQLITE_NOMEM
    8: "it is read-only",  # SQLITE_READONLY
    10: "the disk could not be read or written",  # SQLITE_IOERR
    11: "the file is damaged",  # SQLITE_CORRUPT
    13: "the disk is full",  # SQLITE_FULL
    14: "the file cannot be opened",  # SQLITE_CANTOPEN
    26: "the file is damaged or is not a journal",  # SQLITE_NOTADB
}


class StorageError(UserError):
    """The journal file cannot be read or written, for a reason outside the terminal."""

    hint = "Check the disk, or move the file aside to start a new journal (unsent changes in it are then lost)."


class DatabaseTooNew(UserError):
    """The file was written by a newer version of the terminal."""

    hint = "Update pos-terminal, or use a different profile."


def connect(path: Path, *, check_same_thread: bool = True) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path``; a damaged file raises :class:`StorageError`.

    Pass ``check_same_thread=False`` only when the caller serialises access itself.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"The folder for {path} cannot be created ({exc.strerror}).") from exc
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(
            path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=check_same_thread
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # journal_mode is the first statement that reads the file: a damaged one fails here.
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StorageError(f"The journal file {path} cannot use write-ahead logging (mode {mode}).")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException as exc:
        if conn is not None:
            conn.close()
        error = storage_error(exc, path) if isinstance(exc, sqlite3.Error) else None
        if error is None:
            raise
        raise error from exc
    return conn


def machine_reason(exc: sqlite3.Error) -> str | None:
    """Why the machine (the disk, the file, another process) refused, from ``exc``'s SQLite result code; None when
    the cause is not the machine's."""
    code = getattr(exc, "sqlite_errorcode", None)
    return _ENVIRONMENT.get(code & 0xFF) if isinstance(code, int) else None


def storage_error(exc: sqlite3.Error, path: Path | str) -> StorageError | None:
    """The user sentence for an environment failure; None when ``exc`` is a bug (bad SQL, a broken constraint)."""
    reason = machine_reason(exc)
    if reason is None and type(exc) is sqlite3.DatabaseError:
        reason = "the file is damaged or is not a journal"
    if reason is None:
        return None
    return StorageError(f"The journal file {path} cannot be used: {reason}.")


@contextmanager
def user_errors(conn_or_path: sqlite3.Connection | Path | str) -> Iterator[None]:
    """Turn SQLite failures of the environment into :class:`StorageError`; bugs pass unchanged."""
    try:
        yield
    except sqlite3.Error as exc:
        path = database_path(conn_or_path) if isinstance(conn_or_path, sqlite3.Connection) else conn_or_path
        error = storage_error(exc, path)
        if error is None:
            raise
        raise error from exc


def database_path(conn: sqlite3.Connection) -> str:
    """The file behind ``conn`` (for sentences); ``:memory:`` for an in-memory database."""
    for _seq, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return str(file) or ":memory:"
    return ":memory:"


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; rolled back on any exception; environment failures become UserError."""
    with user_errors(conn):
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, migrations: Sequence[str]) -> int:
    """Apply the migrations not yet applied, in order; returns the new version.

    ``migrations[i]`` is the SQL script taking the schema from version ``i`` to
    ``i + 1``. A file at a version beyond ``len(migrations)`` was written by a
    newer terminal and is refused, never downgraded.
    """
    with user_errors(conn):
        current = user_version(conn)
    if current > len(migrations):
        raise DatabaseTooNew(
            f"The journal file {database_path(conn)} was written by a newer version of pos-terminal "
            f"(schema {current}; this version knows up to {len(migrations)})."
        )
    for version in range(current, len(migrations)):
        # executescript would COMMIT an open transaction first, so the script carries its own BEGIN/COMMIT.
        script = f"BEGIN IMMEDIATE;\n{migrations[version]}\n;PRAGMA user_version = {version + 1};\nCOMMIT;"
        with user_errors(conn):
            try:
                conn.executescript(script)
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
    return len(migrations)
