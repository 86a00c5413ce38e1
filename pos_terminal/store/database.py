"""The store database: what the tills of one shop share, on PostgreSQL, or what one till keeps alone, on SQLite.

People, the catalog, the store's details, shifts and drawer counts, cash sales and
the audit log have one home here (``docs/store.md``, "A store of several
tills"). Each till's journal (:mod:`pos_terminal.store.journal`) stays the
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

Records created once (cash sales, audit entries, shifts) are written
insert-if-absent by their uuid: the first write of an id stays, a replay is a
no-op and logs nothing. A shift is written again when it closes: the close
(closed_at, closed_by, the counts, expected_cash) is recorded once, on a shift
still open; what it was opened with never changes. A till writes only its own
shifts, cash sales and audit entries: ``terminal_id`` in the record, when given,
must be the caller's, and so must the stored row's on a replay (:class:`WrongTill`).

Records tills edit (person, category, product, store_info) merge by this rule,
which a till applies to its local copy the same way:

* **Last writer wins per record.** The record carries ``version``, the version
  the till based its edit on, and ``updated_at``, when it made the edit. The
  edit's :class:`Stamp` is (version + 1, updated_at, the writing till); it
  replaces the stored record when its stamp is greater than the stored one
  (version first, then time, then the till's id so that a tie still has one
  winner), and the stored version becomes version + 1. An edit made without
  seeing a later one therefore loses to it, however late it arrives; two edits
  from the same version are ordered by their time. A replay has the stamp
  already stored and changes nothing.
* **A lockout holds everywhere.** A person's ``wrong_pins`` and ``locked_until``
  are merged apart from the edit (:class:`Lockout`): by the greater
  ``lock_epoch``, and within one epoch by the greater of each, so a lockout known
  on any till holds on all. A PIN try is not an edit: a till reports it with
  :meth:`StoreDatabase.report_pin_tries`. Lifting a lock (a manager's unlock, a
  new PIN) is the one way down: the till writes ``lock_epoch`` + 1 with
  ``wrong_pins`` 0 and no ``locked_until``, and tries counted in the old epoch,
  arriving late, no longer count.

``updated_by_till`` is always the writing till; ``name_key`` is always
:func:`pos_terminal.domain.people.name_key` of the name. Both may be present in
a record (a till sending back the row it pulled) and are then ignored.

Records are plain mappings of column names (``pos_terminal.store.schema``):
times are aware datetimes or ISO 8601 text with an offset (as an outbox keeps
them), JSON columns take the value itself (a dict or list), money is int cents.
A record the schema cannot take (an unknown column, a missing one, a naive time,
a check that does not add up) raises ``ValueError``, or SQLAlchemy's
``IntegrityError`` for a product whose category the store does not have: a bug,
and a write that will never be accepted.

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
are turned into them in one place (:func:`_user_error`)::

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

import json
import logging
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

import psycopg
import psycopg.conninfo
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection

from pos_terminal.domain.barcode import BadCheckDigit, gtin_key
from pos_terminal.domain.decode import decode_json
from pos_terminal.domain.details import logo_of_text
from pos_terminal.domain.money import in_int32
from pos_terminal.domain.people import Role, name_key
from pos_terminal.errors import UserError
from pos_terminal.store import schema
from pos_terminal.store.locks import exclusive
from pos_terminal.store.schema import Kind
from pos_terminal.store.sqlite import _ENVIRONMENT

log = logging.getLogger(__name__)

CHANNEL = "pos_store_changes"
PIN_TRIES = "pin_tries"  # a till's PIN tries, as put_many takes them: person_id, wrong_pins, locked_until, lock_epoch
DEFAULT_CONNECT_TIMEOUT = 5  # seconds; libpq counts whole seconds, and at least 2
BUSY_TIMEOUT_MS = 5_000
# pg_advisory_xact_lock keys ("pos" and a number): one for every write, one for setting up the schema.
_WRITE_LOCK = 0x706F73_0001
_SCHEMA_LOCK = 0x706F73_0002
_MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_POSTGRES_SCHEMES = {"postgresql", "postgres", "postgresql+psycopg"}
_SQLITE_SCHEMES = {"sqlite", "sqlite+pysqlite"}


# --- errors ---------------------------------------------------------------------------------------------------


class StoreDatabaseError(UserError):
    """Anything expected that goes wrong with the store database."""


class BadStoreAddress(StoreDatabaseError):
    hint = "Use postgresql://user@host:port/database or sqlite:///path/to/file."


class StoreUnavailable(StoreDatabaseError):
    """Cannot be reached or used just now; trying again later may work."""

    hint = "Check that the store's server is on and reachable from this till; the till keeps selling meanwhile."


_FILE_HINT = "Check the disk and the folder the file is in."


class StoreAccessDenied(StoreDatabaseError):
    hint = "Check the user name and password in the store settings."


class StoreTlsUnavailable(StoreDatabaseError):
    hint = "Turn on TLS on the server, or change sslmode in the address."


class StoreDatabaseMissing(StoreDatabaseError):
    hint = "Check the database name in the address, or create the database on the server."


class StoreSchemaMissing(StoreDatabaseError):
    hint = "Set it up once, from any till: pos-terminal store init URL."


class StoreSchemaBehind(StoreDatabaseError):
    hint = "Bring it up to date, from any till: pos-terminal store init URL."


class StoreSchemaTooNew(StoreDatabaseError):
    hint = "Update pos-terminal on this till."


class StoreDamaged(StoreDatabaseError):
    hint = "Restore the store database from a backup, or correct the row."


class StoreConflict(StoreDatabaseError):
    hint = "Choose another one."


class WrongTill(StoreDatabaseError):
    hint = "Each till writes only its own shifts, cash sales and audit entries."


# --- what the API speaks --------------------------------------------------------------------------------------


class Backend(StrEnum):
    POSTGRESQL = "postgresql"
    SQLITE = "sqlite"


class SchemaState(StrEnum):
    MISSING = "missing"  # never set up
    BEHIND = "behind"  # set up by an older pos-terminal: init_schema upgrades it
    CURRENT = "current"
    TOO_NEW = "too new"  # set up by a newer pos-terminal: this one must not touch it


@dataclass(frozen=True, order=True)
class Stamp:
    """Where an edit stands in the last-writer-wins order: version first, then time, then the till."""

    version: int
    updated_at: datetime
    till: str


@dataclass(frozen=True)
class Lockout:
    """A person's PIN lockout, which merges by epoch and then by maximum (see the module docstring)."""

    wrong_pins: int = 0
    locked_until: datetime | None = None
    epoch: int = 0

    def merge(self, other: Lockout) -> Lockout:
        """The lockout both tills agree on: the later epoch's, or within one epoch the greater of each part."""
        if self.epoch != other.epoch:
            return self if self.epoch > other.epoch else other
        times = [moment for moment in (self.locked_until, other.locked_until) if moment is not None]
        return Lockout(max(self.wrong_pins, other.wrong_pins), max(times) if times else None, self.epoch)


@dataclass(frozen=True)
class StoreDayRecords:
    """The rows of one range of the store's day (:meth:`StoreDatabase.day`), as records."""

    info: dict[str, Any] | None  # the store's details, when they were ever written
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


def utcnow() -> datetime:
    return datetime.now(UTC)


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for the store migrations, built in code; ``connection`` is the one env.py uses."""
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS).replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


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
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.now = now
        self._url = _parse(url, password)
        self._current = False
        if self._url.drivername.startswith("postgresql"):
            self.backend = Backend.POSTGRESQL
            host = self._url.host or "localhost"
            self.server = f"{host}:{self._url.port or 5432}"
            self.where = f"{self.server}/{self._url.database}"
            self.path: Path | None = None
            self._connect_args = _libpq_args(self._url, connect_timeout)
            self._engine = sa.create_engine(
                self._url, connect_args=self._connect_args, pool_pre_ping=True, pool_size=2, max_overflow=4
            )
        else:
            self.backend = Backend.SQLITE
            self.path = Path(self._url.database or "")
            self.server = self.where = str(self.path)
            self._connect_args = {}
            self._engine = sa.create_engine(self._url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
            event.listen(self._engine, "connect", _sqlite_connected)
            event.listen(self._engine, "begin", _sqlite_begin)

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
            return _state(conn)

    def init_schema(self) -> SchemaState:
        """Create the schema, or upgrade it to the newest revision; a no-op when it is current.

        The whole upgrade is one transaction (PostgreSQL and SQLite both roll DDL
        back), under a lock on PostgreSQL, so two tills doing it at once do it once.
        Raises :class:`StoreSchemaTooNew` for a schema a newer pos-terminal set up.
        """
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreUnavailable(
                    f"The folder for the store database file {self.path} cannot be created.", hint=_FILE_HINT
                ) from exc
        with self._transaction(write=True, lock=_SCHEMA_LOCK) as conn:
            state = _state(conn)
            if state is SchemaState.TOO_NEW:
                raise self._too_new(conn)
            if state is not SchemaState.CURRENT:
                log.info(
                    "store database %s: schema %s, upgrading to %s", self.where, state, _scripts().get_current_head()
                )
                command.upgrade(alembic_config(conn), "head")
        self._current = True
        return SchemaState.CURRENT

    def _require_current(self) -> None:
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
            f" this version knows up to {_scripts().get_current_head()})."
        )

    def _label(self) -> str:
        return f"file {self.where}" if self.backend is Backend.SQLITE else f"at {self.where}"

    # --- writing ------------------------------------------------------------------------------------------

    def put(self, kind: Kind | str, record: Mapping[str, Any], *, terminal_id: str) -> bool:
        """Write ``record`` of ``kind`` for the till ``terminal_id``; True when the store changed (module docstring).

        ``kind`` is one of cash_sale, audit, shift, person, category, product, store_info.
        """
        writer = self._writer(kind)
        _check_id(terminal_id, "terminal_id")
        with self._writing() as conn:
            return writer(conn, record, terminal_id)

    def put_many(self, records: Sequence[tuple[str, Mapping[str, Any]]], *, terminal_id: str) -> list[bool]:
        """Write ``records`` (kind, record) in order, in one transaction: all of them, or none (the first refused
        raises as :meth:`put` does). ``kind`` may also be ``pin_tries`` (:meth:`report_pin_tries`'s arguments as a
        record). A till sends its queue this way: one lock and one commit for a batch, not one per record."""
        _check_id(terminal_id, "terminal_id")
        writers = [
            (self._pin_tries_writer if kind == PIN_TRIES else self._writer(kind), record) for kind, record in records
        ]
        with self._writing() as conn:
            written: list[bool] = []
            start = 0
            while start < len(writers):
                # a run of products (a catalog imported on a till) is written a run at a time, not one by one
                end = start
                while end < len(writers) and writers[end][0] == self._put_product:
                    end += 1
                if end - start > 1:
                    written += self._put_products(conn, [record for _, record in writers[start:end]], terminal_id)
                    start = end
                    continue
                writer, record = writers[start]
                written.append(writer(conn, record, terminal_id))
                start += 1
            return written

    def _writer(self, kind: Kind | str) -> Callable[[Connection, Mapping[str, Any], str], bool]:
        writers: dict[Kind, Callable[[Connection, Mapping[str, Any], str], bool]] = {
            Kind.CASH_SALE: self._put_cash_sale,
            Kind.AUDIT: self._put_audit,
            Kind.SHIFT: self._put_shift,
            Kind.PERSON: self._put_person,
            Kind.CATEGORY: self._put_category,
            Kind.PRODUCT: self._put_product,
            Kind.STORE_INFO: self._put_store_info,
        }
        writer = writers.get(Kind(kind))
        if writer is None:
            raise ValueError(f"{kind} records are not written with put (a till announces itself with hello)")
        return writer

    def _pin_tries_writer(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        locked = record.get("locked_until")
        moment = locked if isinstance(locked, datetime) or locked is None else datetime.fromisoformat(str(locked))
        return self._pin_tries(
            conn,
            str(record["person_id"]),
            wrong_pins=int(record.get("wrong_pins") or 0),
            locked_until=moment,
            lock_epoch=int(record.get("lock_epoch") or 0),
            terminal_id=terminal_id,
        )

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
        _check_id(terminal_id, "terminal_id")
        with self._writing() as conn:
            return self._pin_tries(
                conn,
                person_id,
                wrong_pins=wrong_pins,
                locked_until=locked_until,
                lock_epoch=lock_epoch,
                terminal_id=terminal_id,
            )

    def _pin_tries(
        self,
        conn: Connection,
        person_id: str,
        *,
        wrong_pins: int,
        locked_until: datetime | None,
        lock_epoch: int,
        terminal_id: str,
    ) -> bool:
        _check_id(person_id, "person_id")
        fields = _Fields(
            Kind.PERSON, {"wrong_pins": wrong_pins, "locked_until": locked_until, "lock_epoch": lock_epoch}
        )
        incoming = Lockout(fields.count("wrong_pins"), fields.optional_time("locked_until"), fields.count("lock_epoch"))
        stored = _one(conn, Kind.PERSON, person_id)
        if stored is None or not self._merge_lockout(conn, person_id, stored, incoming):
            return False
        self._log(conn, Kind.PERSON, person_id, terminal_id)
        return True

    def hello(self, terminal_id: str, name: str | None = None) -> bool:
        """A till announces itself: joins the store the first time, else is seen now (and renamed, given a name).

        Logs a change when the till is new or renamed; being seen is bookkeeping and logs none.
        """
        _check_id(terminal_id, "terminal_id")
        now = self.now()
        table = schema.till
        with self._writing() as conn:
            stored = _one(conn, Kind.TILL, terminal_id)
            if stored is None:
                conn.execute(
                    sa.insert(table).values(terminal_id=terminal_id, name=name, joined_at=now, last_seen_at=now)
                )
                self._log(conn, Kind.TILL, terminal_id, terminal_id)
                return True
            renamed = name is not None and name != stored["name"]
            values: dict[str, Any] = {"last_seen_at": now} | ({"name": name} if renamed else {})
            conn.execute(sa.update(table).where(table.c.terminal_id == terminal_id).values(**values))
            if renamed:
                self._log(conn, Kind.TILL, terminal_id, terminal_id)
            return renamed

    def _put_cash_sale(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = _Fields(Kind.CASH_SALE, record)
        total, paid = fields.count("total"), fields.count("paid")
        change = fields.optional_count("change")
        if change is not None and change != paid - total:
            raise ValueError(f"cash sale change {change} is not paid {paid} minus total {total}")
        row = {
            "id": fields.key("id"),
            "terminal_id": fields.owner(terminal_id),
            "shift_id": fields.optional_text("shift_id"),
            "at": fields.time("at"),
            "actor": fields.optional_text("actor"),
            "customer": fields.optional_text("customer"),
            "total": total,
            "tax": fields.count("tax"),
            "paid": paid,
            "change": paid - total,
            "check_body": fields.json("check_body", dict),
        }
        fields.done()
        return self._insert_once(conn, Kind.CASH_SALE, row, terminal_id)

    def _put_audit(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = _Fields(Kind.AUDIT, record)
        row = {
            "id": fields.key("id"),
            "terminal_id": fields.owner(terminal_id),
            "at": fields.time("at"),
            "action": fields.text("action"),
            "actor": fields.optional_text("actor"),
            "detail": fields.json("detail", dict, default={}),
        }
        fields.done()
        return self._insert_once(conn, Kind.AUDIT, row, terminal_id)

    def _put_shift(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = _Fields(Kind.SHIFT, record)
        row: dict[str, Any] = {
            "id": fields.key("id"),
            "terminal_id": fields.owner(terminal_id),
            "opened_at": fields.time("opened_at"),
            "opened_by": fields.text("opened_by"),
            "opening_float": fields.count("opening_float"),
        }
        close: dict[str, Any] = {
            "closed_at": fields.optional_time("closed_at"),
            "closed_by": fields.optional_text("closed_by"),
            "counted_cash": fields.optional_count("counted_cash"),
            "counted_pieces": fields.optional_json("counted_pieces", list),
            "expected_cash": fields.optional_count("expected_cash"),
        }
        fields.done()
        if (close["closed_at"] is None) != (close["closed_by"] is None) or (close["closed_at"] is None) != (
            close["counted_cash"] is None
        ):
            raise ValueError("a shift is closed with closed_at, closed_by and counted_cash together")
        stored = _one(conn, Kind.SHIFT, row["id"])
        if stored is None:
            return self._insert_once(conn, Kind.SHIFT, row | close, terminal_id)
        self._own(stored, Kind.SHIFT, terminal_id)
        if stored["closed_at"] is not None or close["closed_at"] is None:
            return False  # a replay, or a close recorded already: the first close stays
        table = schema.shift
        conn.execute(sa.update(table).where(table.c.id == row["id"], table.c.closed_at.is_(None)).values(**close))
        self._log(conn, Kind.SHIFT, row["id"], terminal_id)
        return True

    def _put_person(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = _Fields(Kind.PERSON, record)
        person_id = fields.key("id")
        name = fields.text("name")
        key = name_key(name)
        fields.ignore("name_key", "updated_by_till")
        details = {
            "name": name,
            "name_key": key,
            "role": str(fields.choice("role", Role)),
            "pin_hash": fields.text("pin_hash"),
            "active": fields.flag("active", default=True),
        }
        stamp = fields.stamp(terminal_id)
        lock_given = any(column in record for column in ("wrong_pins", "locked_until", "lock_epoch"))
        lockout = Lockout(
            fields.count("wrong_pins", default=0),
            fields.optional_time("locked_until"),
            fields.count("lock_epoch", default=0),
        )
        fields.done()
        table = schema.person
        stored = _one(conn, Kind.PERSON, person_id)
        wins = stored is None or stamp > _stamp(stored)
        if wins:
            taken = f"Someone else in the store is already called “{name}”."
            self._unique(conn, Kind.PERSON, person_id, table.c.name_key, key, taken)
        if stored is None:
            row = details | _edit_columns(stamp) | _lockout_columns(lockout) | {"id": person_id}
            conn.execute(sa.insert(table).values(**row))
        else:
            if wins:
                conn.execute(sa.update(table).where(table.c.id == person_id).values(**details, **_edit_columns(stamp)))
            locked = lock_given and self._merge_lockout(conn, person_id, stored, lockout)
            if not (wins or locked):
                return False
        self._log(conn, Kind.PERSON, person_id, terminal_id)
        return True

    def _merge_lockout(self, conn: Connection, person_id: str, stored: Mapping[str, Any], incoming: Lockout) -> bool:
        """Write the merge of the stored lockout and ``incoming``; False when that is the stored one."""
        known = Lockout(stored["wrong_pins"], stored["locked_until"], stored["lock_epoch"])
        merged = known.merge(incoming)
        if merged == known:
            return False
        table = schema.person
        conn.execute(sa.update(table).where(table.c.id == person_id).values(**_lockout_columns(merged)))
        return True

    def _put_category(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = _Fields(Kind.CATEGORY, record)
        category_id = fields.key("id")
        name = fields.text("name")
        fields.ignore("updated_by_till")
        details = {
            "name": name,
            "position": fields.count("position", default=0),
            "active": fields.flag("active", default=True),
        }
        stamp = fields.stamp(terminal_id)
        fields.done()
        table = schema.category
        return self._edit(
            conn,
            Kind.CATEGORY,
            category_id,
            details,
            stamp,
            lambda: self._unique(
                conn, Kind.CATEGORY, category_id, table.c.name, name, f"Another category is already called “{name}”."
            ),
            _one(conn, Kind.CATEGORY, category_id),
        )

    def _put_product(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        product_id, codes, details, stamp = _product_fields(record, terminal_id)
        table = schema.product_code

        def unique() -> None:
            if not details["active"]:
                return  # a product taken off keeps its codes, and keeps no one from them
            for gtin, code in codes:
                other = conn.execute(
                    sa.select(table.c.product_id).where(
                        table.c.gtin == gtin, table.c.active, table.c.product_id != product_id
                    )
                ).scalar()
                if other is not None:
                    raise StoreConflict(f"Another product already has the barcode {code}.")

        stored = _one(conn, Kind.PRODUCT, product_id)
        if not self._edit(conn, Kind.PRODUCT, product_id, details, stamp, unique, stored):
            return False
        if stored is not None:  # a new product has no codes to replace
            conn.execute(sa.delete(table).where(table.c.product_id == product_id))
        if codes:
            conn.execute(
                sa.insert(table),
                [
                    {
                        "gtin": gtin,
                        "code": code,
                        "product_id": product_id,
                        "position": position,
                        "active": details["active"],
                    }
                    for position, (gtin, code) in enumerate(codes)
                ],
            )
        return True

    def _put_products(self, conn: Connection, records: Sequence[Mapping[str, Any]], terminal_id: str) -> list[bool]:
        """:meth:`_put_product` for each of ``records`` in order, with a few statements for the run: the same
        checks and the same outcome (a code another active product holds, as the run leaves it, is refused)."""
        parsed = [_product_fields(record, terminal_id) for record in records]
        ids = [product_id for product_id, *_ in parsed]
        if len(set(ids)) != len(ids):  # the same product twice in one run: one at a time, in order
            return [self._put_product(conn, record, terminal_id) for record in records]
        products, codes_table = schema.product, schema.product_code
        stored: dict[str, dict[str, Any]] = {}
        held: dict[str, str] = {}  # gtin -> the active product holding it
        wanted = {gtin for _, codes, _, _ in parsed for gtin, _ in codes}
        for chunk in _chunks(ids):
            for found in conn.execute(sa.select(products).where(products.c.id.in_(chunk))).mappings():
                stored[found["id"]] = dict(found)
            for holder in conn.execute(
                sa.select(codes_table.c.product_id, codes_table.c.gtin).where(
                    codes_table.c.product_id.in_(chunk), codes_table.c.active
                )
            ):
                held[holder.gtin] = holder.product_id
        for chunk in _chunks(sorted(wanted)):
            for holder in conn.execute(
                sa.select(codes_table.c.product_id, codes_table.c.gtin).where(
                    codes_table.c.gtin.in_(chunk), codes_table.c.active
                )
            ):
                held[holder.gtin] = holder.product_id
        written: list[bool] = []
        inserts: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        new_codes: list[dict[str, Any]] = []
        replaced: list[str] = []
        for product_id, codes, details, stamp in parsed:
            before = stored.get(product_id)
            if before is not None and not stamp > _stamp(before):
                written.append(False)
                continue
            for gtin in [g for g, owner in held.items() if owner == product_id]:
                del held[gtin]  # what it held is replaced by what it gives now
            if details["active"]:
                for gtin, code in codes:
                    if held.get(gtin, product_id) != product_id:
                        raise StoreConflict(f"Another product already has the barcode {code}.")
                    held[gtin] = product_id
            row = details | _edit_columns(stamp)
            if before is None:
                inserts.append(row | {"id": product_id})
            else:
                updates.append({f"new_{name}": value for name, value in row.items()} | {"key": product_id})
                replaced.append(product_id)
            new_codes += [
                {"product_id": product_id, "gtin": gtin, "code": code, "position": index, "active": details["active"]}
                for index, (gtin, code) in enumerate(codes)
            ]
            written.append(True)
        if inserts:
            conn.execute(sa.insert(products), inserts)
        if updates:
            # bound under other names: SQLAlchemy keeps a column's own name for its SET clause
            columns: dict[str, Any] = {name[4:]: sa.bindparam(name) for name in updates[0] if name != "key"}
            conn.execute(sa.update(products).where(products.c.id == sa.bindparam("key")).values(columns), updates)
        for chunk in _chunks(replaced):
            conn.execute(sa.delete(codes_table).where(codes_table.c.product_id.in_(chunk)))
        if new_codes:
            conn.execute(sa.insert(codes_table), new_codes)
        changed = [product_id for (product_id, *_), done in zip(parsed, written, strict=True) if done]
        if changed:
            at = self.now()
            log = schema.change_log
            conn.execute(
                sa.insert(log),
                [{"kind": str(Kind.PRODUCT), "key": key, "terminal_id": terminal_id, "at": at} for key in changed],
            )
            conn.info[_NEWEST] = max(_latest_seq(conn), conn.info.get(_NEWEST, 0))
        return written

    def _put_store_info(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = _Fields(Kind.STORE_INFO, record)
        if fields.count("id", default=1) != 1:
            raise ValueError("the store's details are one record, id 1")
        fields.ignore("updated_by_till")
        details = {
            "name": fields.text("name"),
            "address": fields.optional_text("address"),
            "tax_number": fields.optional_text("tax_number"),
            "receipt_header": fields.optional_text("receipt_header"),
            "receipt_footer": fields.optional_text("receipt_footer"),
            "updated_by": fields.optional_text("updated_by"),
            "logo": fields.logo("logo"),
        }
        stamp = fields.stamp(terminal_id)
        fields.done()
        return self._edit(conn, Kind.STORE_INFO, "1", details, stamp, lambda: None, _one(conn, Kind.STORE_INFO, "1"))

    def _edit(
        self,
        conn: Connection,
        kind: Kind,
        key: str,
        details: dict[str, Any],
        stamp: Stamp,
        check_unique: Callable[[], None],
        stored: Mapping[str, Any] | None,
    ) -> bool:
        """Last writer wins: write ``details`` when ``stamp`` is greater than ``stored``'s (the record as it is)."""
        table = schema.TABLES[kind]
        if stored is not None and not stamp > _stamp(stored):
            return False
        check_unique()
        values = details | _edit_columns(stamp)
        if stored is None:
            conn.execute(sa.insert(table).values(id=_primary_key(kind, key), **values))
        else:
            conn.execute(sa.update(table).where(table.c.id == _primary_key(kind, key)).values(**values))
        self._log(conn, kind, key, stamp.till)
        return True

    def _unique(self, conn: Connection, kind: Kind, key: str, column: sa.Column[Any], value: Any, taken: str) -> None:
        """:class:`StoreConflict` with the sentence ``taken`` when another record of ``kind`` has ``value``."""
        table = schema.TABLES[kind]
        other = conn.execute(sa.select(table.c.id).where(column == value, table.c.id != key)).scalar()
        if other is not None:
            raise StoreConflict(taken)

    def _insert_once(self, conn: Connection, kind: Kind, row: dict[str, Any], terminal_id: str) -> bool:
        stored = _one(conn, kind, row["id"])
        if stored is not None:
            self._own(stored, kind, terminal_id)
            return False
        conn.execute(sa.insert(schema.TABLES[kind]).values(**row))
        self._log(conn, kind, row["id"], terminal_id)
        return True

    @staticmethod
    def _own(stored: Mapping[str, Any], kind: Kind, terminal_id: str) -> None:
        if stored["terminal_id"] != terminal_id:
            raise WrongTill(
                f"Till {terminal_id} cannot write {_NAMES[kind]} {stored['id']}, which belongs to till"
                f" {stored['terminal_id']}."
            )

    def _log(self, conn: Connection, kind: Kind, key: str, terminal_id: str) -> int:
        """Append to change_log in the writing transaction; on PostgreSQL the transaction NOTIFYs its newest
        number once, at its end (a batch of 200 records is one notification, not 200)."""
        table = schema.change_log
        result = conn.execute(sa.insert(table).values(kind=str(kind), key=key, terminal_id=terminal_id, at=self.now()))
        inserted = result.inserted_primary_key
        assert inserted is not None
        seq = int(inserted[0])
        conn.info[_NEWEST] = max(seq, conn.info.get(_NEWEST, 0))
        return seq

    # --- reading ------------------------------------------------------------------------------------------

    def get(self, kind: Kind | str, key: str) -> dict[str, Any] | None:
        """The record of ``kind`` with id ``key`` as it is now (the store's details: key "1"), or None."""
        kind = Kind(kind)
        self._require_current()
        with self._reading() as conn:
            row = _one(conn, kind, key)
            record = None if row is None else self._record(kind, key, row)
            if record is not None and kind is Kind.PRODUCT:
                _attach_codes(conn, [record])
        return record

    def day(self, start: datetime, end: datetime) -> StoreDayRecords:
        """What the store's day report needs from ``[start, end)``: every till, the shifts open in the range (opened
        before its end and not closed before its start), the cash sales and the audit entries in it."""
        self._require_current()
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
                tills=tuple(dict(row) for row in till_rows),
                shifts=tuple(self._record(Kind.SHIFT, str(row["id"]), dict(row)) for row in shift_rows),
                cash_sales=tuple(self._record(Kind.CASH_SALE, str(row["id"]), dict(row)) for row in sale_rows),
                audit=tuple(self._record(Kind.AUDIT, str(row["id"]), dict(row)) for row in audit_rows),
            )

    def _info(self, conn: Connection) -> dict[str, Any] | None:
        row = _one(conn, Kind.STORE_INFO, "1")
        return None if row is None else dict(row)

    def has(self, kind: Kind | str) -> bool:
        """Whether the store has any record of ``kind``."""
        table = schema.TABLES[Kind(kind)]
        self._require_current()
        with self._reading() as conn:
            return conn.execute(sa.select(sa.literal(1)).select_from(table).limit(1)).first() is not None

    def latest_seq(self) -> int:
        """The newest change's number; 0 when nothing has been written."""
        self._require_current()
        with self._reading() as conn:
            return _latest_seq(conn)

    def changes_since(self, seq: int, limit: int = 500, *, records_of: Collection[Kind] | None = None) -> list[Change]:
        """Up to ``limit`` changes numbered after ``seq``, oldest first, each with its record as it is now; with
        ``records_of``, only the changes of those kinds carry their record (a till that uses only people does not
        read every till's cash sales back)."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self._require_current()
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
                column = _key_column(kind)
                for found in conn.execute(
                    sa.select(table).where(column.in_([_primary_key(kind, key) for key in keys]))
                ).mappings():
                    key = str(found[column.name])
                    records[kind, key] = self._record(kind, key, dict(found))
            _attach_codes(conn, [record for (kind, _), record in records.items() if kind is Kind.PRODUCT])
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
        self._require_current()
        if self.backend is Backend.POSTGRESQL:
            return NotifyListener(self)
        return PollingListener(self, poll_interval)

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
        for column in _JSON_COLUMNS.get(kind, ()):
            if record[column] is not None:
                what = f"The store database {self._label()} has a {_NAMES[kind]} {key} whose {column}"
                record[column] = decode_json(record[column], what, StoreDamaged, strict_text=False)
        return record

    # --- connections and transactions ---------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        self._require_current()
        with self._transaction(write=True, lock=_WRITE_LOCK) as conn:
            yield conn

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        with self._transaction(write=False, lock=None) as conn:
            yield conn

    @contextmanager
    def _transaction(self, *, write: bool, lock: int | None) -> Iterator[Connection]:
        """One transaction; on SQLite a write begins IMMEDIATE, on PostgreSQL it first takes ``lock``."""
        with self._errors(), self._engine.connect() as conn:
            conn.execution_options(pos_write=write)
            with conn.begin():
                if lock is not None and self.backend is Backend.POSTGRESQL:
                    conn.execute(sa.select(sa.func.pg_advisory_xact_lock(lock)))
                conn.info.pop(_NEWEST, None)
                yield conn
                newest = conn.info.pop(_NEWEST, None)
                if newest is not None and self.backend is Backend.POSTGRESQL:
                    conn.execute(sa.select(sa.func.pg_notify(CHANNEL, str(newest))))  # sent at the commit

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn the drivers' expected failures into the sentences of this module; bugs pass unchanged."""
        try:
            yield
        except (sa_exc.DBAPIError, psycopg.Error, sqlite3.Error) as exc:
            error = _user_error(exc, self)
            if error is None:
                raise
            log.debug("store database %s: %s", self.where, error.sentence)  # the caller shows or retries it
            raise error from None


# --- listening for changes ------------------------------------------------------------------------------------


class ChangeListener(ABC):
    """Waits until the store database has a change after a given ``seq``. Blocking: run it on a worker thread
    (``await asyncio.to_thread(listener.wait, seq, 5)``) with short timeouts, and close it from that thread."""

    @abstractmethod
    def wait(self, after_seq: int, timeout: float) -> int | None:
        """The newest ``seq`` once it is greater than ``after_seq``, or None when ``timeout`` seconds pass first.

        Returns at once when such a change is there already, so nothing written
        between the last pull and this call is missed.
        """

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> ChangeListener:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class NotifyListener(ChangeListener):
    """LISTEN pos_store_changes on a connection of its own (autocommit); each NOTIFY carries the new ``seq``."""

    def __init__(self, database: StoreDatabase) -> None:
        self._database = database
        with database._errors():
            self._conn = psycopg.connect(**database._connect_args, autocommit=True)
            self._conn.execute(f"LISTEN {CHANNEL}")
        self._caught_up = False

    def wait(self, after_seq: int, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        with self._database._errors():
            latest = 0
            if not self._caught_up:
                # once, right after LISTEN: a change committed before it sent no notification this connection saw;
                # from then on every one is queued on the connection, even while nobody waits
                cursor = self._conn.execute("SELECT coalesce(max(seq), 0) FROM change_log")
                row = cursor.fetchone()
                latest = int(row[0]) if row is not None else 0
                self._caught_up = True
            while latest <= after_seq:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                for notify in self._conn.notifies(timeout=left, stop_after=1):
                    if notify.channel == CHANNEL and notify.payload.isdigit():
                        latest = max(latest, int(notify.payload))
        return latest

    def close(self) -> None:
        self._conn.close()


class PollingListener(ChangeListener):
    """Asks for the newest ``seq`` every ``interval`` seconds (SQLite has no notifications between processes)."""

    def __init__(self, database: StoreDatabase, interval: float) -> None:
        self._database = database
        self._interval = interval

    def wait(self, after_seq: int, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while True:
            latest = self._database.latest_seq()
            if latest > after_seq:
                return latest
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            time.sleep(min(self._interval, left))

    def close(self) -> None:
        pass


def _chunks(values: Sequence[str], size: int = 500) -> Iterator[Sequence[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _product_fields(
    record: Mapping[str, Any], terminal_id: str
) -> tuple[str, list[tuple[str, str]], dict[str, Any], Stamp]:
    """A product record, checked: its id, its codes (GTIN, as given), its columns, and its edit's stamp."""
    fields = _Fields(Kind.PRODUCT, record)
    product_id = fields.key("id")
    codes = fields.codes("barcodes")
    fields.ignore("updated_by_till")
    details = {
        "name": fields.text("name"),
        "price": fields.count("price"),
        "tax_rate_bp": fields.optional_count("tax_rate_bp"),
        "category_id": fields.optional_text("category_id"),
        "position": fields.count("position", default=0),
        "colour": fields.optional_text("colour"),
        "active": fields.flag("active", default=True),
    }
    stamp = fields.stamp(terminal_id)
    fields.done()
    return product_id, codes, details, stamp


def _attach_codes(conn: Connection, products: list[dict[str, Any]]) -> None:
    """Give each product record its ``barcodes``, in the order it lists them."""
    if not products:
        return
    table = schema.product_code
    codes: dict[str, list[str]] = {}
    for start in range(0, len(products), 500):
        ids = [product["id"] for product in products[start : start + 500]]
        for row in conn.execute(
            sa.select(table.c.product_id, table.c.code)
            .where(table.c.product_id.in_(ids))
            .order_by(table.c.product_id, table.c.position)
        ):
            codes.setdefault(row.product_id, []).append(row.code)
    for product in products:
        product["barcodes"] = codes.get(product["id"], [])


# --- records in -----------------------------------------------------------------------------------------------

_NAMES = {
    Kind.STORE_INFO: "the store's details",
    Kind.TILL: "till",
    Kind.PERSON: "person",
    Kind.CATEGORY: "category",
    Kind.PRODUCT: "product",
    Kind.SHIFT: "shift",
    Kind.CASH_SALE: "cash sale",
    Kind.AUDIT: "audit entry",
}
_JSON_COLUMNS = {Kind.SHIFT: ("counted_pieces",), Kind.CASH_SALE: ("check_body",), Kind.AUDIT: ("detail",)}
_MISSING = object()
_NEWEST = "pos_newest_seq"  # conn.info: the newest change_log number the transaction wrote


class _Fields:
    """The columns of one record handed to :meth:`StoreDatabase.put`, each checked for its type; ValueError else."""

    def __init__(self, kind: Kind, record: Mapping[str, Any]) -> None:
        self.kind = kind
        self.record = record
        self.seen: set[str] = set()

    def _get(self, column: str, default: Any = _MISSING) -> Any:
        self.seen.add(column)
        value = self.record.get(column, default)
        if value is _MISSING:
            raise ValueError(f"a {self.kind} record needs {column}")
        return value

    def _wrong(self, column: str, what: str) -> ValueError:
        return ValueError(f"{self.kind}.{column} must be {what}, not {self.record.get(column)!r}")

    def text(self, column: str) -> str:
        value = self._get(column)
        if not isinstance(value, str):
            raise self._wrong(column, "text")
        return value

    def optional_text(self, column: str) -> str | None:
        return None if self._get(column, None) is None else self.text(column)

    def logo(self, column: str) -> str | None:
        """A logo: base64 text of a PNG, at most LOGO_STORED_LIMIT bytes (domain.details.logo_of_text)."""
        text = self.optional_text(column)
        try:
            logo_of_text(text)
        except ValueError as exc:
            raise ValueError(f"{self.kind}.{column} must be a logo: {exc}") from None  # not the value: it is long
        return text

    def key(self, column: str) -> str:
        value = self.text(column)
        _check_id(value, f"{self.kind}.{column}")
        return value

    def count(self, column: str, *, default: int | None = None) -> int:
        value = self._get(column, _MISSING if default is None else default)
        if not isinstance(value, int) or isinstance(value, bool) or not in_int32(value):
            raise self._wrong(column, "a whole number within int32")
        return value

    def optional_count(self, column: str) -> int | None:
        return None if self._get(column, None) is None else self.count(column)

    def flag(self, column: str, *, default: bool) -> bool:
        value = self._get(column, default)
        if not isinstance(value, bool):
            raise self._wrong(column, "true or false")
        return value

    def time(self, column: str) -> datetime:
        value = self._get(column)
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                raise self._wrong(column, "a time") from None
        if not isinstance(value, datetime) or value.tzinfo is None:
            raise self._wrong(column, "a time with its time zone")
        return value.astimezone(UTC)

    def optional_time(self, column: str) -> datetime | None:
        return None if self._get(column, None) is None else self.time(column)

    def json(self, column: str, shape: type[dict[str, Any]] | type[list[Any]], *, default: Any = _MISSING) -> str:
        """A JSON object (``dict``) or array (``list``), as the text the column keeps."""
        value = self._get(column, default)
        if not isinstance(value, shape):
            raise self._wrong(column, "a JSON object" if shape is dict else "a JSON array")
        try:
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            raise self._wrong(column, "JSON") from None

    def optional_json(self, column: str, shape: type[dict[str, Any]] | type[list[Any]]) -> str | None:
        return None if self._get(column, None) is None else self.json(column, shape)

    def codes(self, column: str) -> list[tuple[str, str]]:
        """Barcodes (a JSON array of text, each a GTIN with a right check digit) as (14-digit GTIN, as given),
        each code once."""
        value = self._get(column, [])
        if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
            raise self._wrong(column, "a list of barcodes")
        codes: dict[str, str] = {}
        for code in value:
            try:
                codes.setdefault(gtin_key(code), code.strip())
            except BadCheckDigit as exc:
                raise self._wrong(column, f"barcodes with their check digit ({exc.sentence})") from None
        return list(codes.items())

    def choice(self, column: str, choices: type[StrEnum]) -> StrEnum:
        try:
            return choices(self.text(column))
        except ValueError:
            raise self._wrong(column, " or ".join(choices)) from None

    def owner(self, terminal_id: str) -> str:
        """The record's till: the caller, who may write only its own."""
        given = self.optional_text("terminal_id")
        if given is not None and given != terminal_id:
            what = f"{_NAMES[self.kind]} {self.record.get('id')}"
            raise WrongTill(f"Till {terminal_id} cannot write {what} for till {given}.")
        return terminal_id

    def stamp(self, terminal_id: str) -> Stamp:
        """The edit's place in the last-writer-wins order: the version it was based on, plus one."""
        version = self.count("version")
        if version < 0:
            raise self._wrong("version", "the version the edit was based on (0 for a new record)")
        return Stamp(version + 1, self.time("updated_at"), terminal_id)

    def ignore(self, *columns: str) -> None:
        self.seen.update(columns)

    def done(self) -> None:
        unknown = sorted(set(self.record) - self.seen)
        if unknown:
            raise ValueError(f"a {self.kind} record has no column {', '.join(unknown)}")


def _check_id(value: object, what: str) -> None:
    if not isinstance(value, str) or not value or len(value) > 200:
        raise ValueError(f"{what} must be non-empty text of at most 200 characters, not {value!r}")


def _edit_columns(stamp: Stamp) -> dict[str, Any]:
    return {"version": stamp.version, "updated_at": stamp.updated_at, "updated_by_till": stamp.till}


def _lockout_columns(lockout: Lockout) -> dict[str, Any]:
    return {"wrong_pins": lockout.wrong_pins, "locked_until": lockout.locked_until, "lock_epoch": lockout.epoch}


def _stamp(row: Mapping[str, Any]) -> Stamp:
    return Stamp(row["version"], row["updated_at"], row["updated_by_till"])


def _key_column(kind: Kind) -> sa.Column[Any]:
    table = schema.TABLES[kind]
    return table.c.terminal_id if kind is Kind.TILL else table.c.id


def _primary_key(kind: Kind, key: str) -> Any:
    if kind is Kind.STORE_INFO:
        return int(key) if key.isdigit() else -1
    return key


def _one(conn: Connection, kind: Kind, key: str) -> dict[str, Any] | None:
    table = schema.TABLES[kind]
    row = conn.execute(sa.select(table).where(_key_column(kind) == _primary_key(kind, key))).mappings().first()
    return None if row is None else dict(row)


def _latest_seq(conn: Connection) -> int:
    return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(schema.change_log.c.seq), 0))).scalar_one())


def _state(conn: Connection) -> SchemaState:
    heads = MigrationContext.configure(conn).get_current_heads()
    if not heads:
        return SchemaState.MISSING
    scripts = _scripts()
    known = {script.revision for script in scripts.walk_revisions()}
    if any(head not in known for head in heads):
        return SchemaState.TOO_NEW
    return SchemaState.CURRENT if set(heads) == set(scripts.get_heads()) else SchemaState.BEHIND


# --- opening --------------------------------------------------------------------------------------------------


def _parse(url: str, password: str | None) -> sa.URL:
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


def _libpq_args(url: sa.URL, connect_timeout: int) -> dict[str, Any]:
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


def _sqlite_connected(dbapi_connection: Any, _record: Any) -> None:
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


def _sqlite_begin(conn: Connection) -> None:
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


def _user_error(exc: BaseException, database: StoreDatabase) -> StoreDatabaseError | None:
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
    user = database._url.username or "(default)"
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
        name = database._url.database
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
                seconds = database._connect_args.get("connect_timeout", DEFAULT_CONNECT_TIMEOUT)
                reason = f"did not answer within {seconds} s"
            return StoreUnavailable(f"The store database server at {server} {reason}.")
    if sqlstate.startswith("53"):  # insufficient resources: disk full, out of memory
        return StoreUnavailable(f"The store database server at {server} is out of disk space or memory.")
    lost = sqlstate.startswith("08") or sqlstate in ("57P01", "57P02", "57P03") or not sqlstate
    if isinstance(orig, psycopg.OperationalError | psycopg.InterfaceError) and (lost or invalidated):
        return StoreUnavailable(f"The store database server at {server} stopped answering.")
    return None


def _sqlite_error(exc: sqlite3.Error, database: StoreDatabase) -> StoreDatabaseError | None:
    code = getattr(exc, "sqlite_errorcode", None)
    reason = _ENVIRONMENT.get(code & 0xFF) if isinstance(code, int) else None
    if reason is None and type(exc) is sqlite3.DatabaseError:
        reason = "the file is damaged or is not a database"
    if reason is None:
        return None
    if (code or 0) & 0xFF in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
        return StoreDamaged(f"The store database file {database.where} cannot be used: {reason}.")
    return StoreUnavailable(f"The store database file {database.where} cannot be used: {reason}.", hint=_FILE_HINT)
