"""The store database: what the tills of one shop share, on PostgreSQL, or what one till keeps alone, on SQLite.

People, the catalog, the store's details, shifts and drawer counts, cash sales and
the audit log have one home here (``docs/store.md``, "A store of several
tills"). Each till's journal (:mod:`pos_terminal.journal.journal`) stays the
crash-safe record of its own sales; a till writes store data through its
journal's outbox and keeps a local copy, so a sale never waits on the network.
This module is the database end of that: opening, setting up, writing
idempotently, and telling tills what changed. The sync loop that drives it lives
elsewhere.

Opening and setting up
----------------------
``StoreDatabase("postgresql://pos@shop-server:5432/shop?sslmode=require", password=…)``
or ``StoreDatabase("sqlite:///path/to/store.sqlite3")``. The password may sit in
the URL too; the argument wins. It never appears in a sentence, a log line or
``repr``. Query parameters go to libpq as they are (``sslmode``, ``sslrootcert``
…), so TLS is whatever ``sslmode`` says. Nothing connects until the first call.

:meth:`StoreDatabase.init_schema` creates the schema, or migrates it to the
newest revision this version knows (Alembic, from the package's ``migrations``
folder; no ``alembic.ini``). :meth:`StoreDatabase.schema_state` tells whether the
schema is missing, behind, current or too new; every other call refuses to work
on anything but a current schema, with one of the sentences below.

Writing (:meth:`StoreDatabase.put`)
-----------------------------------
Each call is one transaction, and a replay of the same call writes nothing the
second time, so a till's outbox can resend after a crash without knowing whether
the first send landed. ``put`` returns True when it changed the store and False
when it did not (a replay, or an edit that lost). Every change appends one row
to ``change_log`` in the same transaction; on PostgreSQL the same transaction
also runs ``NOTIFY pos_store_changes, '<seq>'``.

How each kind of record is written, and how an edit two tills made merges, is
:mod:`pos_terminal.store.writes`.

Reading
-------
:meth:`StoreDatabase.changes_since` returns the changes after a ``seq``, oldest
first, each with the record as it is now; a till remembers the last ``seq`` it
applied and asks for what follows (from 0 for everything). Writes take one lock
(PostgreSQL: a transaction-level advisory lock; SQLite: ``BEGIN IMMEDIATE``), so
numbers are handed out in commit order and a reader that has seen ``seq`` N has
seen everything before it. :meth:`StoreDatabase.listen` waits for the next
change: LISTEN/NOTIFY on PostgreSQL, polling on SQLite.

Errors
------
Every expected failure is a :class:`~pos_terminal.errors.UserError` with one
sentence naming the server or the file; psycopg, SQLAlchemy and sqlite3 errors
are turned into them in one place (:func:`pos_terminal.store.connection.user_error`)::

    StoreDatabaseError
    ├── BadStoreAddress        the URL cannot be read, or is not postgresql:// or sqlite:///
    ├── StoreUnavailable       connection refused, unknown host, no answer in time, connection lost,
    │                          a SQLite file that cannot be opened or written (try again later)
    ├── StoreAccessDenied      wrong password, unknown user, no pg_hba rule, no right to do it
    ├── StoreTlsUnavailable    sslmode asks for TLS the server does not offer
    ├── StoreDatabaseMissing   the server has no database of that name
    ├── StoreSchemaMissing     the database was never set up (init_schema)
    ├── StoreSchemaBehind      set up by an older pos-terminal (init_schema upgrades it)
    ├── StoreSchemaTooNew      set up by a newer pos-terminal
    ├── StoreDamaged           a row holds what no till writes
    ├── StoreConflict          a name or barcode another record has
    ├── StoreCurrencyDiffers   a till joining in another currency than the store's
    ├── TillIdTaken            a till joining with the terminal id of another till of the store
    └── WrongTill              a till writing another till's shift, cash sale or audit entry

Database roles (PostgreSQL)
---------------------------
The API enforces that a till writes only its own shifts, cash sales and audit
entries. A shop that wants the server to enforce it too gives each till its own
login role, named after its terminal id, in a group role whose grants and
row-level security policies :mod:`pos_terminal.store.roles` sets up as the
store's owner (``store init URL --till-roles``, ``store add-till URL ID``). Every
call here works under such a login; a write the policies refuse is
:class:`StoreAccessDenied` with a sentence of its own.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import psycopg
import sqlalchemy as sa
from alembic import command
from alembic.runtime.migration import MigrationContext
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection

from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.decode import decode_json
from pos_terminal.store import schema
from pos_terminal.store.connection import (
    BUSY_TIMEOUT_MS,
    DEFAULT_CONNECT_TIMEOUT,
    libpq_args,
    parse_address,
    sqlite_begin,
    sqlite_connected,
    user_error,
)
from pos_terminal.store.listen import CHANNEL, ChangeListener, NotifyListener, PollingListener
from pos_terminal.store.records import (
    JSON_COLUMNS,
    KIND_NAMES,
    NEWEST_SEQ,
    Lockout,
    Stamp,
    attach_codes,
    check_id,
    key_column,
    newest_seq,
    one_row,
    primary_key_of,
)
from pos_terminal.store.revisions import SchemaState, alembic_config, revision_state, script_directory
from pos_terminal.store.schema import Kind
from pos_terminal.store.store_errors import (
    FILE_HINT,
    BadStoreAddress,
    StoreAccessDenied,
    StoreConflict,
    StoreCurrencyDiffers,
    StoreDamaged,
    StoreDatabaseError,
    StoreDatabaseMissing,
    StoreSchemaBehind,
    StoreSchemaMissing,
    StoreSchemaTooNew,
    StoreTlsUnavailable,
    StoreUnavailable,
    TillIdTaken,
    WrongTill,
)
from pos_terminal.store.writes import StoreWrites

# The store database's API, which its callers import from here; each name lives in the module of its part.
__all__ = [
    "CHANNEL",
    "DEFAULT_CONNECT_TIMEOUT",
    "PIN_TRIES",
    "Backend",
    "BadStoreAddress",
    "Change",
    "ChangeListener",
    "Lockout",
    "SchemaState",
    "Stamp",
    "StoreAccessDenied",
    "StoreConflict",
    "StoreCurrencyDiffers",
    "StoreDamaged",
    "StoreDatabase",
    "StoreDatabaseError",
    "StoreDatabaseMissing",
    "StoreDayRecords",
    "StoreSchemaBehind",
    "StoreSchemaMissing",
    "StoreSchemaTooNew",
    "StoreTlsUnavailable",
    "StoreUnavailable",
    "TillIdTaken",
    "WrongTill",
    "alembic_config",
]

log = logging.getLogger(__name__)

PIN_TRIES = "pin_tries"  # a till's PIN tries, as put_many takes them: person_id, wrong_pins, locked_until, lock_epoch
# pg_advisory_xact_lock keys ("pos" and a number): one for every write, one for setting up the schema.
_WRITE_LOCK = 0x706F73_0001
_SCHEMA_LOCK = 0x706F73_0002


# --- what the API speaks --------------------------------------------------------------------------------------


class Backend(StrEnum):
    POSTGRESQL = "postgresql"
    SQLITE = "sqlite"


@dataclass(frozen=True)
class StoreDayRecords:
    """The rows of one range of the store's day (:meth:`StoreDatabase.day`), as records."""

    info: dict[str, Any] | None  # the store's details, when they were ever written
    currency: str | None  # the store's currency, None until store init or the first till's join set it
    tills: tuple[dict[str, Any], ...]
    shifts: tuple[dict[str, Any], ...]
    cash_sales: tuple[dict[str, Any], ...]
    audit: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Change:
    """One row of ``change_log`` and the record it names, as the record is now."""

    seq: int
    kind: Kind
    key: str
    terminal_id: str  # the till that made the change
    at: datetime
    record: dict[str, Any] | None  # None only if the record is gone (nothing deletes records yet)


# --- the database ---------------------------------------------------------------------------------------------


class StoreDatabase:
    """The store database at ``url`` (see the module docstring); :meth:`close` it when done.

    ``connect_timeout`` bounds how long opening a connection to PostgreSQL may take
    (unless the URL sets it). ``now`` stamps ``change_log.at`` and the tills'
    ``joined_at``/``last_seen_at``; records carry their own times. Safe to use from
    several threads: each call takes a connection from the pool.
    """

    def __init__(
        self,
        url: str,
        *,
        password: str | None = None,
        connect_timeout: int = DEFAULT_CONNECT_TIMEOUT,
        now: Clock = utcnow,
    ) -> None:
        self.now = now
        self._writes = StoreWrites(now)
        self.url = parse_address(url, password)
        self._current = False
        if self.url.drivername.startswith("postgresql"):
            self.backend = Backend.POSTGRESQL
            host = self.url.host or "localhost"
            self.server = f"{host}:{self.url.port or 5432}"
            self.where = f"{self.server}/{self.url.database}"
            self.path: Path | None = None
            self.connect_args = libpq_args(self.url, connect_timeout)
            self._engine = sa.create_engine(
                self.url, connect_args=self.connect_args, pool_pre_ping=True, pool_size=2, max_overflow=4
            )
        else:
            self.backend = Backend.SQLITE
            self.path = Path(self.url.database or "")
            self.server = self.where = str(self.path)
            self.connect_args = {}
            self._engine = sa.create_engine(self.url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
            event.listen(self._engine, "connect", sqlite_connected)
            event.listen(self._engine, "begin", sqlite_begin)

    def __repr__(self) -> str:
        return f"StoreDatabase({self.backend} {self.where})"

    def close(self) -> None:
        """Close every pooled connection; closing twice is harmless."""
        self._engine.dispose()

    def __enter__(self) -> StoreDatabase:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- the schema ---------------------------------------------------------------------------------------

    def schema_state(self) -> SchemaState:
        """Whether the schema is missing, behind, current or too new for this version (a SQLite file not created
        yet is missing, and stays uncreated)."""
        if self.path is not None and not self.path.exists():
            return SchemaState.MISSING
        with self._reading() as conn:
            return revision_state(conn)

    def init_schema(self, *, currency: str | None = None) -> SchemaState:
        """Create the schema, or upgrade it to the newest revision; a no-op when it is current.

        The whole upgrade is one transaction (PostgreSQL and SQLite both roll DDL
        back), under a lock on PostgreSQL, so two tills doing it at once do it once.
        Raises :class:`StoreSchemaTooNew` for a schema a newer pos-terminal set up.
        ``currency`` becomes the store's currency when it has none yet (a store's
        currency never changes: :meth:`currency` says which it kept).
        """
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreUnavailable(
                    f"The folder for the store database file {self.path} cannot be created.", hint=FILE_HINT
                ) from exc
        with self.schema_transaction() as conn:
            state = revision_state(conn)
            if state is SchemaState.TOO_NEW:
                raise self._too_new(conn)
            if state is not SchemaState.CURRENT:
                log.info(
                    "store database %s: schema %s, upgrading to %s",
                    self.where,
                    state,
                    script_directory().get_current_head(),
                )
                command.upgrade(alembic_config(conn), "head")
            if currency is not None and _store_currency(conn) is None:
                conn.execute(sa.insert(schema.store_currency).values(id=1, currency=currency, set_at=self.now()))
        self._current = True
        return SchemaState.CURRENT

    def currency(self) -> str | None:
        """The store's currency (ISO 4217), or None while neither store init nor a till's join has given it one."""
        self.require_current()
        with self._reading() as conn:
            return _store_currency(conn)

    def require_current(self) -> None:
        """Refuse, with the sentence that says why, a database whose schema is not this version's."""
        if self._current:
            return
        state = self.schema_state()
        if state is SchemaState.MISSING:
            raise StoreSchemaMissing(f"The store database {self._label()} has not been set up yet.")
        if state is SchemaState.BEHIND:
            raise StoreSchemaBehind(f"The store database {self._label()} was set up by an older pos-terminal.")
        if state is SchemaState.TOO_NEW:
            with self._reading() as conn:
                raise self._too_new(conn)
        self._current = True

    def _too_new(self, conn: Connection) -> StoreSchemaTooNew:
        revisions = ", ".join(MigrationContext.configure(conn).get_current_heads())
        return StoreSchemaTooNew(
            f"The store database was set up by a newer pos-terminal ({self._label()} has schema {revisions};"
            f" this version knows up to {script_directory().get_current_head()})."
        )

    def _label(self) -> str:
        return f"file {self.where}" if self.backend is Backend.SQLITE else f"at {self.where}"

    # --- writing ------------------------------------------------------------------------------------------

    def put(self, kind: Kind | str, record: Mapping[str, Any], *, terminal_id: str) -> bool:
        """Write ``record`` of ``kind`` for the till ``terminal_id``; True when the store changed (module docstring).

        ``kind`` is one of cash_sale, audit, shift, person, category, product, store_info.
        """
        writer = self._writes.writer(kind)
        check_id(terminal_id, "terminal_id")
        with self._writing() as conn:
            return writer(conn, record, terminal_id)

    def put_many(self, records: Sequence[tuple[str, Mapping[str, Any]]], *, terminal_id: str) -> list[bool]:
        """Write ``records`` (kind, record) in order, in one transaction: all of them, or none (the first refused
        raises as :meth:`put` does). ``kind`` may also be ``pin_tries`` (:meth:`report_pin_tries`'s arguments as a
        record). A till sends its queue this way: one lock and one commit for a batch, not one per record."""
        check_id(terminal_id, "terminal_id")
        writers = [
            (self._writes.pin_tries_record if kind == PIN_TRIES else self._writes.writer(kind), record)
            for kind, record in records
        ]
        with self._writing() as conn:
            written: list[bool] = []
            start = 0
            while start < len(writers):
                # a run of products (a catalog imported on a till) is written a run at a time, not one by one
                end = start
                while end < len(writers) and writers[end][0] == self._writes.put_product:
                    end += 1
                if end - start > 1:
                    written += self._writes.put_products(
                        conn, [record for _, record in writers[start:end]], terminal_id
                    )
                    start = end
                    continue
                writer, record = writers[start]
                written.append(writer(conn, record, terminal_id))
                start += 1
            return written

    def report_pin_tries(
        self,
        person_id: str,
        *,
        wrong_pins: int,
        locked_until: datetime | None,
        lock_epoch: int,
        terminal_id: str,
    ) -> bool:
        """Merge a till's count of wrong PINs into the person's lockout (:class:`Lockout`); not an edit.

        False when it changes nothing, and when the store has no such person (yet).
        """
        check_id(terminal_id, "terminal_id")
        with self._writing() as conn:
            return self._writes.pin_tries(
                conn,
                person_id,
                wrong_pins=wrong_pins,
                locked_until=locked_until,
                lock_epoch=lock_epoch,
                terminal_id=terminal_id,
            )

    def hello(
        self,
        terminal_id: str,
        name: str | None = None,
        *,
        install_id: str | None = None,
        currency: str | None = None,
    ) -> bool:
        """A till announces itself: joins the store the first time, else is seen now (and renamed, given a name).

        A joining till gives its ``install_id`` (its profile's identity) and its ``currency``: the store refuses a
        till in another currency than its own (:class:`StoreCurrencyDiffers`; a store with none yet takes this
        till's) and a till whose terminal id another install already has (:class:`TillIdTaken`); a row that has
        no install identity yet (joined before schema 0004) takes this till's. Logs a change when the till is new
        or renamed; being seen is bookkeeping and logs none.
        """
        check_id(terminal_id, "terminal_id")
        now = self.now()
        table = schema.till
        with self._writing() as conn:
            self._refuse_join(conn, terminal_id, install_id, currency)
            if currency is not None and _store_currency(conn) is None:
                conn.execute(
                    sa.insert(schema.store_currency).values(
                        id=1, currency=currency, set_at=now, set_by_till=terminal_id
                    )
                )
            stored = one_row(conn, Kind.TILL, terminal_id)
            if stored is None:
                conn.execute(
                    sa.insert(table).values(
                        terminal_id=terminal_id, name=name, joined_at=now, last_seen_at=now, install_id=install_id
                    )
                )
                self._writes.log_change(conn, Kind.TILL, terminal_id, terminal_id)
                return True
            renamed = name is not None and name != stored["name"]
            values: dict[str, Any] = {"last_seen_at": now} | ({"name": name} if renamed else {})
            if install_id is not None and stored["install_id"] is None:
                values["install_id"] = install_id
            conn.execute(sa.update(table).where(table.c.terminal_id == terminal_id).values(**values))
            if renamed:
                self._writes.log_change(conn, Kind.TILL, terminal_id, terminal_id)
            return renamed

    def check_join(self, terminal_id: str, *, install_id: str | None, currency: str | None) -> None:
        """The refusals of :meth:`hello`, reading only: a join asks them before anything is written or kept."""
        check_id(terminal_id, "terminal_id")
        self.require_current()
        with self._reading() as conn:
            self._refuse_join(conn, terminal_id, install_id, currency)

    def _refuse_join(self, conn: Connection, terminal_id: str, install_id: str | None, currency: str | None) -> None:
        """:class:`StoreCurrencyDiffers` for a till not in the store's currency, :class:`TillIdTaken` for a terminal
        id another install has."""
        kept = _store_currency(conn)
        if currency is not None and kept is not None and kept != currency:
            raise StoreCurrencyDiffers(
                f"This store counts in {kept}; this till is set to {currency}.",
                hint=f"Set the till to {kept} to join, or join another store.",
            )
        stored = one_row(conn, Kind.TILL, terminal_id)
        if install_id is not None and stored is not None and stored["install_id"] not in (None, install_id):
            raise TillIdTaken(f"Another till of this store is already called {terminal_id}.")

    def get(self, kind: Kind | str, key: str) -> dict[str, Any] | None:
        """The record of ``kind`` with id ``key`` as it is now (the store's details: key "1"), or None."""
        kind = Kind(kind)
        self.require_current()
        with self._reading() as conn:
            row = one_row(conn, kind, key)
            record = None if row is None else self._record(kind, key, row)
            if record is not None and kind is Kind.PRODUCT:
                attach_codes(conn, [record])
        return record

    def day(self, start: datetime, end: datetime) -> StoreDayRecords:
        """What the store's day report needs from ``[start, end)``: every till, the shifts open in the range (opened
        before its end and not closed before its start), the cash sales and the audit entries in it."""
        self.require_current()
        if start.tzinfo is None or end.tzinfo is None:
            raise ValueError("a store day's range must be timezone-aware")
        shifts, sales, entries, tills = schema.shift, schema.cash_sale, schema.audit, schema.till
        with self._reading() as conn:
            till_rows = conn.execute(sa.select(tills).order_by(tills.c.terminal_id)).mappings().all()
            shift_rows = conn.execute(
                sa.select(shifts)
                .where(shifts.c.opened_at < end, sa.or_(shifts.c.closed_at.is_(None), shifts.c.closed_at >= start))
                .order_by(shifts.c.opened_at, shifts.c.id)
            ).mappings()
            sale_rows = conn.execute(
                sa.select(sales).where(sales.c.at >= start, sales.c.at < end).order_by(sales.c.at, sales.c.id)
            ).mappings()
            audit_rows = conn.execute(
                sa.select(entries).where(entries.c.at >= start, entries.c.at < end).order_by(entries.c.at, entries.c.id)
            ).mappings()
            return StoreDayRecords(
                info=self._info(conn),
                currency=_store_currency(conn),
                tills=tuple(dict(row) for row in till_rows),
                shifts=tuple(self._record(Kind.SHIFT, str(row["id"]), dict(row)) for row in shift_rows),
                cash_sales=tuple(self._record(Kind.CASH_SALE, str(row["id"]), dict(row)) for row in sale_rows),
                audit=tuple(self._record(Kind.AUDIT, str(row["id"]), dict(row)) for row in audit_rows),
            )

    def _info(self, conn: Connection) -> dict[str, Any] | None:
        row = one_row(conn, Kind.STORE_INFO, "1")
        return None if row is None else dict(row)

    def has(self, kind: Kind | str) -> bool:
        """Whether the store has any record of ``kind``."""
        table = schema.TABLES[Kind(kind)]
        self.require_current()
        with self._reading() as conn:
            return conn.execute(sa.select(sa.literal(1)).select_from(table).limit(1)).first() is not None

    def latest_seq(self) -> int:
        """The newest change's number; 0 when nothing has been written."""
        self.require_current()
        with self._reading() as conn:
            return newest_seq(conn)

    def changes_since(self, seq: int, limit: int = 500, *, records_of: Collection[Kind] | None = None) -> list[Change]:
        """Up to ``limit`` changes numbered after ``seq``, oldest first, each with its record as it is now; with
        ``records_of``, only the changes of those kinds carry their record (a till that uses only people does not
        read every till's cash sales back)."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.require_current()
        log_table = schema.change_log
        with self._reading() as conn:
            rows = conn.execute(
                sa.select(log_table).where(log_table.c.seq > seq).order_by(log_table.c.seq).limit(limit)
            ).all()
            wanted: dict[Kind, set[str]] = {}
            for row in rows:
                kind = self._kind(row.kind, row.seq)
                if records_of is None or kind in records_of:
                    wanted.setdefault(kind, set()).add(row.key)
            records: dict[tuple[Kind, str], dict[str, Any]] = {}
            for kind, keys in wanted.items():
                table = schema.TABLES[kind]
                column = key_column(kind)
                for found in conn.execute(
                    sa.select(table).where(column.in_([primary_key_of(kind, key) for key in keys]))
                ).mappings():
                    key = str(found[column.name])
                    records[kind, key] = self._record(kind, key, dict(found))
            attach_codes(conn, [record for (kind, _), record in records.items() if kind is Kind.PRODUCT])
        return [
            Change(
                seq=int(row.seq),
                kind=Kind(row.kind),
                key=row.key,
                terminal_id=row.terminal_id,
                at=row.at,
                record=records.get((Kind(row.kind), row.key)),
            )
            for row in rows
        ]

    def listen(self, *, poll_interval: float = 0.5) -> ChangeListener:
        """A :class:`ChangeListener`: LISTEN on its own connection (PostgreSQL), or polling every ``poll_interval``
        seconds (SQLite). Close it when done."""
        self.require_current()
        if self.backend is Backend.POSTGRESQL:
            return NotifyListener(self.connect_args, self._errors)
        return PollingListener(self.latest_seq, poll_interval)

    def _kind(self, text: str, seq: int) -> Kind:
        try:
            return Kind(text)
        except ValueError:
            raise StoreDamaged(
                f"The store database {self._label()} has a change {seq} of unknown kind “{text}”."
            ) from None

    def _record(self, kind: Kind, key: str, row: Mapping[str, Any]) -> dict[str, Any]:
        """A row as a dict; the JSON columns decoded, within bounds."""
        record = dict(row)
        for column in JSON_COLUMNS.get(kind, ()):
            if record[column] is not None:
                what = f"The store database {self._label()} has a {KIND_NAMES[kind]} {key} whose {column}"
                record[column] = decode_json(record[column], what, StoreDamaged, strict_text=False)
        return record

    # --- connections and transactions ---------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        self.require_current()
        with self._transaction(write=True, lock=_WRITE_LOCK) as conn:
            yield conn

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with self._transaction(write=False, lock=None) as conn:
            yield conn

    @contextmanager
    def schema_transaction(self) -> Iterator[Connection]:
        """One transaction under the schema's lock: two owners setting up the schema or the tills' roles at once
        do it one after the other."""
        with self._transaction(write=True, lock=_SCHEMA_LOCK) as conn:
            yield conn

    @contextmanager
    def _transaction(self, *, write: bool, lock: int | None) -> Iterator[Connection]:
        """One transaction; on SQLite a write begins IMMEDIATE, on PostgreSQL it first takes ``lock``."""
        with self._errors(), self._engine.connect() as conn:
            conn.execution_options(pos_write=write)
            with conn.begin():
                if lock is not None and self.backend is Backend.POSTGRESQL:
                    conn.execute(sa.select(sa.func.pg_advisory_xact_lock(lock)))
                conn.info.pop(NEWEST_SEQ, None)
                yield conn
                newest = conn.info.pop(NEWEST_SEQ, None)
                if newest is not None and self.backend is Backend.POSTGRESQL:
                    conn.execute(sa.select(sa.func.pg_notify(CHANNEL, str(newest))))  # sent at the commit

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn the drivers' expected failures into the sentences of this module; bugs pass unchanged."""
        try:
            yield
        except (sa_exc.DBAPIError, psycopg.Error, sqlite3.Error) as exc:
            error = user_error(exc, self)
            if error is None:
                raise
            log.debug("store database %s: %s", self.where, error.sentence)  # the caller shows or retries it
            raise error from None


def _store_currency(conn: Connection) -> str | None:
    table = schema.store_currency
    found = conn.execute(sa.select(table.c.currency).where(table.c.id == 1)).scalar_one_or_none()
    return None if found is None else str(found)
