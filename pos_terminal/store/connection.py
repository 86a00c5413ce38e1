"""Opening the store database: the address read, what libpq and SQLite are given, and the drivers' expected
failures turned into the sentences of :mod:`pos_terminal.store.store_errors` (in one place)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import psycopg
import psycopg.conninfo
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection

from pos_terminal.disk.locks import exclusive
from pos_terminal.disk.sqlite import machine_reason
from pos_terminal.store.store_errors import (
    FILE_HINT,
    BadStoreAddress,
    StoreAccessDenied,
    StoreDamaged,
    StoreDatabaseError,
    StoreDatabaseMissing,
    StoreTlsUnavailable,
    StoreUnavailable,
)


class Reached(Protocol):
    """What a sentence about a store database names: the server (or file), the database, the user, the timeout
    (:class:`~pos_terminal.store.database.StoreDatabase` has them)."""

    @property
    def server(self) -> str: ...
    @property
    def where(self) -> str: ...
    @property
    def url(self) -> sa.URL: ...
    @property
    def connect_args(self) -> Mapping[str, Any]: ...


DEFAULT_CONNECT_TIMEOUT = 5  # seconds; libpq counts whole seconds, and at least 2
BUSY_TIMEOUT_MS = 5_000
_POSTGRES_SCHEMES = {"postgresql", "postgres", "postgresql+psycopg"}
_SQLITE_SCHEMES = {"sqlite", "sqlite+pysqlite"}


def parse_address(url: str, password: str | None) -> sa.URL:
    """The SQLAlchemy URL for the user's address: postgresql:// goes through psycopg 3."""
    try:
        parsed = sa.make_url(url)
    except (sa_exc.ArgumentError, ValueError):
        raise BadStoreAddress("The store database address is not a URL pos-terminal can read.") from None
    shown = parsed.render_as_string(hide_password=True)
    if parsed.drivername in _POSTGRES_SCHEMES:
        if not parsed.database:
            raise BadStoreAddress(f"The store database address {shown} names no database.")
        parsed = parsed.set(drivername="postgresql+psycopg")
        if password is not None:
            parsed = parsed.set(password=password)
        try:
            psycopg.conninfo.make_conninfo("", **_query(parsed))
        except psycopg.Error:
            raise BadStoreAddress(
                f"The store database address {shown} has a setting PostgreSQL does not know."
            ) from None
        return parsed
    if parsed.drivername in _SQLITE_SCHEMES:
        database = parsed.database or ""
        if not database or database == ":memory:" or database.startswith("file:") or parsed.query:
            raise BadStoreAddress(f"The store database address {shown} names no file.")
        return parsed.set(drivername="sqlite+pysqlite")
    raise BadStoreAddress(f"The store database address {shown} is neither postgresql:// nor sqlite:///.")


def _query(url: sa.URL) -> dict[str, str]:
    return {name: value if isinstance(value, str) else value[-1] for name, value in url.query.items()}


def libpq_args(url: sa.URL, connect_timeout: int) -> dict[str, Any]:
    """What psycopg.connect takes: the URL's parts and query, a connect timeout, keepalives that notice a dead link."""
    args: dict[str, Any] = {
        "connect_timeout": connect_timeout,
        "application_name": "pos-terminal",
        "keepalives": 1,
        "keepalives_idle": 10,
        "keepalives_interval": 5,
        "keepalives_count": 3,
    }
    args.update(_query(url))
    parts = {"host": url.host, "port": url.port, "dbname": url.database, "user": url.username, "password": url.password}
    args.update({name: value for name, value in parts.items() if value is not None})
    return args


def sqlite_connected(dbapi_connection: Any, _record: Any) -> None:
    # pysqlite's own transaction handling would begin late and commit DDL on its own: "begin" below does it.
    dbapi_connection.isolation_level = None
    dbapi_connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    _write_ahead_log(dbapi_connection)
    dbapi_connection.execute("PRAGMA synchronous = FULL")
    dbapi_connection.execute("PRAGMA foreign_keys = ON")


def _write_ahead_log(dbapi_connection: Any) -> None:
    """The file in WAL mode. Switching a file to WAL needs it to itself, and SQLite answers "locked" at once, without
    waiting, to a switch that meets any other connection's lock, a moment's read included: two tills setting up a new
    store at the same moment failed so (one time in seven). Every connection of the file therefore looks at its mode,
    and sets it when it is not WAL yet, under one lock beside the file, taken in turn."""
    file = str(dbapi_connection.execute("PRAGMA database_list").fetchone()[2])
    if not file:  # in memory: one connection, and no WAL to have
        return
    path = Path(file)
    with exclusive(path.with_name(path.name + ".lock")):
        if str(dbapi_connection.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            dbapi_connection.execute("PRAGMA journal_mode = WAL")


def sqlite_begin(conn: Connection) -> None:
    # A write takes the write lock at BEGIN, so it cannot fail half-way for a lock another writer holds.
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("pos_write") else "BEGIN")


# --- errors from the drivers ----------------------------------------------------------------------------------

# psycopg's sentences when a connection cannot be made (libpq gives no SQLSTATE for these), lower case.
_UNREACHABLE = {
    "connection refused": "cannot be reached (connection refused)",
    "timeout expired": "did not answer in time",
    "timed out": "did not answer in time",
    "could not translate host name": "cannot be found (unknown host name)",
    "name or service not known": "cannot be found (unknown host name)",
    "nodename nor servname": "cannot be found (unknown host name)",
    "temporary failure in name resolution": "cannot be found (unknown host name)",
    "no route to host": "cannot be reached (no route to it)",
    "network is unreachable": "cannot be reached (no network route to it)",
    "the database system is starting up": "is starting up",
    "the database system is shutting down": "is shutting down",
    "the database system is in recovery mode": "is recovering from a crash",
    "too many clients": "has no room for another connection",
    "too many connections": "has no room for another connection",
}


def user_error(exc: BaseException, database: Reached) -> StoreDatabaseError | None:
    """The sentence for an expected failure of the store database; None when ``exc`` is a bug."""
    invalidated = isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated
    orig = exc.orig if isinstance(exc, sa_exc.DBAPIError) else exc
    if isinstance(orig, sqlite3.Error):
        return _sqlite_error(orig, database)
    if not isinstance(orig, psycopg.Error):
        return None
    server, where = database.server, database.where
    message = str(orig).lower()
    sqlstate = orig.sqlstate or ""
    user = database.url.username or "(default)"
    if "no password supplied" in message:
        return StoreAccessDenied(f"The store database server at {server} asks user “{user}” for a password.")
    if "password authentication failed" in message:
        return StoreAccessDenied(f"The store database server at {server} refused user “{user}” with this password.")
    if "authentication failed" in message:
        return StoreAccessDenied(f"The store database server at {server} refused user “{user}”.")
    if 'role "' in message and "does not exist" in message:
        return StoreAccessDenied(f"The store database server at {server} has no user “{user}”.")
    if "pg_hba.conf" in message:
        return StoreAccessDenied(f"The store database server at {server} does not let user “{user}” in from here.")
    if 'database "' in message and "does not exist" in message:
        name = database.url.database
        return StoreDatabaseMissing(f"The store database server at {server} has no database “{name}”.")
    if "does not support ssl" in message:
        return StoreTlsUnavailable(f"The store database server at {server} does not offer the encryption asked for.")
    if sqlstate == "42501" and "row-level security" in message:  # a till's own user, for another till's records
        return StoreAccessDenied(
            f"The store database at {where} lets user “{user}” write only the records of till {user}.",
            hint="Join the store as the user named after this till's terminal id.",
        )
    if sqlstate == "42501":
        return StoreAccessDenied(f"The store database at {where} does not let user “{user}” do this.")
    if "invalid" in message and ("value" in message or "option" in message):
        return BadStoreAddress(f"The store database address for {where} has a setting PostgreSQL refuses.")
    for words, reason in _UNREACHABLE.items():
        if words in message:
            if reason == "did not answer in time":
                seconds = database.connect_args.get("connect_timeout", DEFAULT_CONNECT_TIMEOUT)
                reason = f"did not answer within {seconds} s"
            return StoreUnavailable(f"The store database server at {server} {reason}.")
    if sqlstate.startswith("53"):  # insufficient resources: disk full, out of memory
        return StoreUnavailable(f"The store database server at {server} is out of disk space or memory.")
    lost = sqlstate.startswith("08") or sqlstate in ("57P01", "57P02", "57P03") or not sqlstate
    if isinstance(orig, psycopg.OperationalError | psycopg.InterfaceError) and (lost or invalidated):
        return StoreUnavailable(f"The store database server at {server} stopped answering.")
    return None


def _sqlite_error(exc: sqlite3.Error, database: Reached) -> StoreDatabaseError | None:
    code = getattr(exc, "sqlite_errorcode", None)
    reason = machine_reason(exc)
    if reason is None and type(exc) is sqlite3.DatabaseError:
        reason = "the file is damaged or is not a database"
    if reason is None:
        return None
    if (code or 0) & 0xFF in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
        return StoreDamaged(f"The store database file {database.where} cannot be used: {reason}.")
    return StoreUnavailable(f"The store database file {database.where} cannot be used: {reason}.", hint=FILE_HINT)
