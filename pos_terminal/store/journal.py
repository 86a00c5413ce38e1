"""The terminal's journal: what must survive a crash or a power cut.

One SQLite file holds

- the open check, saved on every change (one row);
- charge intents, recorded *before* the create request is sent, keyed by
  their unique ``refId``;
- the transactions this terminal created, with their last known state;
- the outbox of state changes (complete, cancel, refund) waiting to be
  confirmed by the service;
- the audit log (sign-in, charge, complete, cancel, refund, report-printed,
  disconnect …);
- cash sales: checks paid in full before any charge, which the service never
  sees (it takes no charge of zero), kept for the shift's report;
- the people who work the till (PINs only as slow salted hashes) and the shifts
  with their drawer counts (read and written by :mod:`pos_terminal.store.staff`);
- the receipt printer's queue: each slip (receipt, report) waits here until the
  printer has printed it or the cashier cancels it, across restarts.

Charges, state changes and cash sales record the person who asked for them (``actor``).

Every write is committed (WAL, ``synchronous=FULL``) before the method returns.
Times are timezone-aware UTC, stored as fixed-width ISO 8601 text so that they
sort as text.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from pos_terminal.domain.decode import decode_json
from pos_terminal.domain.lifecycle import TxState, normalize_state
from pos_terminal.store.sqlite import StorageError, connect, migrate, transaction, user_errors

Choice = TypeVar("Choice")

JsonObject = dict[str, Any]

MIGRATIONS: list[str] = [
    # 1: the first schema.
    """
    CREATE TABLE open_check (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        body TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE charge_intent (
        ref_id TEXT PRIMARY KEY,
        terminal_id TEXT,
        customer TEXT NOT NULL,
        check_body TEXT NOT NULL,
        request TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('recorded', 'verifying', 'created', 'failed', 'resolved')),
        transaction_id TEXT,
        error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX charge_intent_status ON charge_intent (status, created_at);
    CREATE TABLE known_transaction (
        transaction_id TEXT PRIMARY KEY,
        ref_id TEXT,
        state TEXT NOT NULL,
        record TEXT,
        first_seen TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        transaction_id TEXT NOT NULL,
        target_state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        outcome TEXT CHECK (outcome IN ('confirmed', 'dropped')),
        result TEXT,
        CHECK ((outcome IS NULL) = (finished_at IS NULL))
    );
    CREATE INDEX outbox_pending ON outbox (id) WHERE outcome IS NULL;
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        action TEXT NOT NULL,
        actor TEXT,
        terminal_id TEXT,
        detail TEXT NOT NULL
    );
    CREATE INDEX audit_at ON audit (at);
    """,
    # 2: checks paid in full in cash, never sent to the service (chargeAmount must be more than zero).
    """
    CREATE TABLE cash_sale (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        terminal_id TEXT,
        customer TEXT,
        total INTEGER NOT NULL CHECK (total >= 0),
        tax INTEGER NOT NULL,
        paid INTEGER NOT NULL CHECK (paid >= total),
        change INTEGER NOT NULL CHECK (change = paid - total),
        check_body TEXT NOT NULL
    );
    CREATE INDEX cash_sale_at ON cash_sale (at);
    """,
    # 3: people at the till and shifts (PINs only as slow salted hashes); who charged and who changed a state.
    """
    CREATE TABLE person (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('cashier', 'manager')),
        pin_hash TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        wrong_pins INTEGER NOT NULL DEFAULT 0,
        locked_until TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE shift (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        terminal_id TEXT,
        opened_at TEXT NOT NULL,
        opened_by TEXT NOT NULL,
        opening_float INTEGER NOT NULL CHECK (opening_float >= 0),
        closed_at TEXT,
        closed_by TEXT,
        counted_cash INTEGER,
        counted_pieces TEXT,
        expected_cash INTEGER,
        CHECK ((closed_at IS NULL) = (closed_by IS NULL)),
        CHECK ((closed_at IS NULL) = (counted_cash IS NULL))
    );
    CREATE UNIQUE INDEX shift_one_open ON shift ((closed_at IS NULL)) WHERE closed_at IS NULL;
    ALTER TABLE charge_intent ADD COLUMN actor TEXT;
    ALTER TABLE outbox ADD COLUMN actor TEXT;
    ALTER TABLE outbox ADD COLUMN approved_by TEXT;
    CREATE INDEX outbox_finished ON outbox (target_state, finished_at) WHERE outcome = 'confirmed';
    ALTER TABLE cash_sale ADD COLUMN actor TEXT;
    """,
    # 4: the receipt printer's queue (ESC/POS): a slip waits until printed or canceled, across restarts.
    """
    CREATE TABLE print_job (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'printed', 'canceled')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        CHECK ((status = 'queued') = (finished_at IS NULL))
    );
    CREATE INDEX print_job_queued ON print_job (id) WHERE status = 'queued';
    """,
    # 5: what the service answered to a charge's create, when it answered: 'accepted' (the transaction exists, so
    # the intent can never be failed, whatever a later read says) or 'refused' (nothing was created).
    """
    ALTER TABLE charge_intent ADD COLUMN create_answer TEXT CHECK (create_answer IN ('accepted', 'refused'));
    """,
    # 6: a store of several tills. What the tills share gets an id of its own (the store database's key), people
    # the store's version of their record and their lockout's epoch; a link to the store database, and the
    # outbox of what is still to be written there (filled in the same transaction as the record, while linked).
    """
    ALTER TABLE person ADD COLUMN uid TEXT;
    ALTER TABLE person ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE person ADD COLUMN lock_epoch INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE shift ADD COLUMN uid TEXT;
    ALTER TABLE cash_sale ADD COLUMN uid TEXT;
    ALTER TABLE audit ADD COLUMN uid TEXT;
    UPDATE person SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    UPDATE shift SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    UPDATE cash_sale SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    UPDATE audit SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    CREATE UNIQUE INDEX person_uid ON person (uid);
    CREATE UNIQUE INDEX shift_uid ON shift (uid);
    CREATE UNIQUE INDEX cash_sale_uid ON cash_sale (uid);
    CREATE UNIQUE INDEX audit_uid ON audit (uid);
    CREATE TABLE store_link (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        address TEXT NOT NULL,
        terminal_id TEXT NOT NULL,
        joined_at TEXT NOT NULL,
        last_seq INTEGER NOT NULL DEFAULT 0,
        last_change_at TEXT,
        last_contact_at TEXT,
        offline_since TEXT,
        last_error TEXT
    );
    CREATE TABLE store_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        sent_at TEXT,
        refused TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT
    );
    CREATE INDEX store_outbox_waiting ON store_outbox (id) WHERE sent_at IS NULL AND refused IS NULL;
    """,
    # 7: the catalog and the store's details as the till keeps them: its copy of the store's, while it is part of
    # a store (the store checks names and codes: the copy takes its changes in the store's order, so it has no
    # unique keys of its own), else its own once edited or imported; the rows as they were before the last change
    # made here (its undo); the details are the till's own while it stands alone.
    """
    CREATE TABLE catalog_category (
        uid TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        position INTEGER NOT NULL DEFAULT 0,
        active INTEGER NOT NULL DEFAULT 1,
        version INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE catalog_product (
        uid TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        price INTEGER NOT NULL CHECK (price >= 0),
        tax_rate_bp INTEGER,
        category_uid TEXT,
        barcodes TEXT NOT NULL DEFAULT '[]',
        position INTEGER NOT NULL DEFAULT 0,
        colour TEXT,
        active INTEGER NOT NULL DEFAULT 1,
        version INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE catalog_undo (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        what TEXT NOT NULL,
        rows TEXT NOT NULL,
        at TEXT NOT NULL
    );
    CREATE TABLE store_details (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        name TEXT NOT NULL,
        address TEXT,
        tax_number TEXT,
        receipt_header TEXT,
        receipt_footer TEXT,
        updated_by TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
    );
    """,
    # 8: the store's logo, as the store database keeps it (base64 of a grey PNG); a journal made at 7 by a
    # development build gets the column too.
    """
    ALTER TABLE store_details ADD COLUMN logo TEXT;
    """,
]


def new_uid() -> str:
    """The id of a record the tills of a store share: made here, so a till can make one while the store is away."""
    return os.urandom(16).hex()


class IntentStatus(StrEnum):
    """Where a charge intent is: RECORDED and VERIFYING are unfinished and resumed at startup."""

    RECORDED = "recorded"  # written, the create request not (known to be) answered yet
    VERIFYING = "verifying"  # the outcome is unknown: reconcile by refId, never create again
    CREATED = "created"  # the service has the transaction (``transaction_id``)
    FAILED = "failed"  # refused, never sent, or not found in time (a late landing is canceled on resume)
    RESOLVED = "resolved"  # failed, and a late landing was found and dealt with


UNFINISHED = (IntentStatus.RECORDED, IntentStatus.VERIFYING)


class CreateAnswer(StrEnum):
    """What the service answered to a charge's create request."""

    ACCEPTED = "accepted"  # a success: the transaction exists, even when its id is not known yet
    REFUSED = "refused"  # an error that says nothing was done, or the request never left the terminal


TABLES = (
    "open_check",
    "charge_intent",
    "known_transaction",
    "outbox",
    "audit",
    "cash_sale",
    "person",
    "shift",
    "print_job",
    "store_link",
    "store_outbox",
    "catalog_category",
    "catalog_product",
    "catalog_undo",
    "store_details",
)


class PrintStatus(StrEnum):
    QUEUED = "queued"  # waiting for the printer
    PRINTED = "printed"
    CANCELED = "canceled"  # the cashier gave it up


class DamagedJournal(StorageError):
    """The file is a journal, but a table or a row holds what the terminal never writes
    (a hand edit, a restore from elsewhere, another program)."""


@dataclass(frozen=True)
class ChargeIntent:
    ref_id: str
    terminal_id: str | None
    customer: JsonObject
    check: JsonObject
    request: JsonObject
    status: IntentStatus
    transaction_id: str | None
    error: str | None
    created_at: datetime
    updated_at: datetime
    actor: str | None = None  # the person at the till who charged
    create_answer: CreateAnswer | None = None  # None: the create got no answer (yet), or was never sent

    @property
    def nothing_created(self) -> bool:
        """The terminal knows the service created nothing for this intent: it refused the create, or never got it."""
        return self.status is IntentStatus.FAILED and self.create_answer is CreateAnswer.REFUSED


@dataclass(frozen=True)
class KnownTransaction:
    """A transaction this terminal created (or learned about), with the last state it saw."""

    transaction_id: str
    ref_id: str | None
    state: str
    record: JsonObject | None
    first_seen: datetime
    updated_at: datetime


@dataclass(frozen=True)
class OutboxEntry:
    """A state change waiting for the service to confirm it."""

    id: int
    transaction_id: str
    target_state: str
    attempts: int
    last_error: str | None
    created_at: datetime
    actor: str | None = None  # who asked for the change (None: the terminal itself, e.g. a duplicate's cancel)
    approved_by: str | None = None  # the manager who approved it, when it needed one


@dataclass(frozen=True)
class CashSale:
    """A check paid in full in cash at this terminal; amounts in cents, ``change`` handed back."""

    id: int
    at: datetime
    terminal_id: str | None
    customer: str | None
    total: int
    tax: int
    paid: int
    change: int
    check: JsonObject
    actor: str | None = None  # the person at the till who took it
    uid: str = ""  # its id in the store database


@dataclass(frozen=True)
class PrintJob:
    """A slip for the receipt printer (``body`` is the slip as JSON), and how its printing went."""

    id: int
    kind: str
    title: str
    body: JsonObject
    status: PrintStatus
    attempts: int
    last_error: str | None
    created_at: datetime


@dataclass(frozen=True)
class AuditEntry:
    at: datetime
    action: str
    actor: str | None
    terminal_id: str | None
    detail: JsonObject = field(default_factory=dict)
    uid: str = field(default_factory=new_uid)  # the entry's id in the store database


def cash_sale_record(sale: CashSale) -> JsonObject:
    """A cash sale as the store database takes it (its outbox body)."""
    return {
        "id": sale.uid,
        "terminal_id": sale.terminal_id,
        "at": _when(sale.at),
        "actor": sale.actor,
        "customer": sale.customer,
        "total": sale.total,
        "tax": sale.tax,
        "paid": sale.paid,
        "change": sale.change,
        "check_body": sale.check,
    }


def audit_record(entry: AuditEntry) -> JsonObject:
    """An audit entry as the store database takes it (its outbox body)."""
    return {
        "id": entry.uid,
        "terminal_id": entry.terminal_id,
        "at": _when(entry.at),
        "action": entry.action,
        "actor": entry.actor,
        "detail": entry.detail,
    }


def utcnow() -> datetime:
    return datetime.now(UTC)


def _when(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("journal times must be timezone-aware")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _dump(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class _Cells:
    """One row read back: each cell checked for what the terminal writes there, or one sentence naming it."""

    row: sqlite3.Row
    path: Path
    entry: str  # "charge pos-…", "state change 12": the row, as a person would look for it

    def damaged(self, column: str, problem: str) -> DamagedJournal:
        return DamagedJournal(f"The journal file {self.path} has a damaged {self.entry}: {column} {problem}.")

    def text(self, column: str) -> str:
        value = self.row[column]
        if not isinstance(value, str):
            raise self.damaged(column, "is not text")
        return value

    def optional_text(self, column: str) -> str | None:
        return None if self.row[column] is None else self.text(column)

    def count(self, column: str) -> int:
        value = self.row[column]
        if not isinstance(value, int):
            raise self.damaged(column, "is not a whole number")
        return value

    def json(self, column: str) -> JsonObject:
        """Bounded like every file the terminal reads (size, nesting, numbers); control characters are kept."""
        raw = self.row[column]
        if not isinstance(raw, str | bytes):
            raise self.damaged(column, "is not JSON")
        error = self.damaged(column, "")  # the decoder finishes the sentence ("is not valid JSON …")
        value = decode_json(raw, error.sentence[:-2], DamagedJournal, strict_text=False)
        if not isinstance(value, dict):
            raise self.damaged(column, "is not a JSON object")
        return value

    def optional_json(self, column: str) -> JsonObject | None:
        return None if self.row[column] is None else self.json(column)

    def time(self, column: str) -> datetime:
        try:
            moment = datetime.fromisoformat(self.text(column))
        except ValueError:
            raise self.damaged(column, "is not a time") from None
        if moment.tzinfo is None:
            raise self.damaged(column, "is a time without its time zone")
        return moment.astimezone(UTC)

    def choice(self, column: str, read: Callable[[str], Choice]) -> Choice:
        try:
            return read(self.text(column))
        except ValueError:
            raise self.damaged(column, "is not one the terminal knows") from None


class Journal:
    """The journal file at ``path``; open it once per process and :meth:`close` it at exit.

    Safe to call from more than one thread (one connection, serialised by a lock).
    ``now`` is injectable so tests move time instead of sleeping.
    """

    def __init__(self, path: Path, *, now: Callable[[], datetime] = utcnow) -> None:
        self.path = path
        self.now = now
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = connect(path, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        try:
            migrate(self._conn, MIGRATIONS)
            self._check_tables()
        except BaseException:
            self._conn.close()
            self._conn = None
            raise

    def _check_tables(self) -> None:
        """Every table the schema made is there: a file with one dropped fails here, not at the first sale."""
        with user_errors(self.path):
            present = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table in TABLES:
            if table not in present:
                raise DamagedJournal(f"The journal file {self.path} has lost its table “{table}”.")

    # --- plumbing -----------------------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("the journal is closed")
        return self._conn

    def _stamp(self) -> str:
        return _when(self.now())

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock, user_errors(self.path):
            rows: list[sqlite3.Row] = self.conn.execute(sql, params).fetchall()
            return rows

    def _write(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        with self._lock, transaction(self.conn):
            return self.conn.execute(sql, params)

    def _share(self, kind: str, key: str, body: Mapping[str, Any]) -> None:
        """Queue ``body`` for the store database while this terminal is part of a store (no-op otherwise). Call it
        inside the transaction that writes the record: the record and its place in the outbox commit together."""
        self.conn.execute(
            "INSERT INTO store_outbox (kind, key, body, created_at) SELECT ?, ?, ?, ? WHERE EXISTS"
            " (SELECT 1 FROM store_link)",
            (kind, key, json.dumps(body, ensure_ascii=False, separators=(",", ":")), self._stamp()),
        )

    def integrity_check(self) -> str:
        """``"ok"`` when SQLite finds the file sound; otherwise its first complaint."""
        rows = self._read("PRAGMA integrity_check")
        return str(rows[0][0]) if rows else "no answer"

    def close(self) -> None:
        """Checkpoint the write-ahead log into the file and close; closing twice is harmless."""
        with self._lock:
            if self._conn is None:
                return
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error:
                pass  # another process may hold the log; the data is safe in it either way
            finally:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- the open check -----------------------------------------------------------------------

    def save_open_check(self, check: Mapping[str, Any]) -> None:
        """Replace the open check; called on every change so a power cut never loses one."""
        self._write(
            "INSERT INTO open_check (id, body, updated_at) VALUES (1, ?, ?)"
            " ON CONFLICT (id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
            (_dump(check), self._stamp()),
        )

    def load_open_check(self) -> JsonObject | None:
        rows = self._read("SELECT body FROM open_check WHERE id = 1")
        return _Cells(rows[0], self.path, "open check").json("body") if rows else None

    def clear_open_check(self) -> None:
        self._write("DELETE FROM open_check")

    # --- charge intents -----------------------------------------------------------------------

    def record_intent(
        self,
        ref_id: str,
        *,
        terminal_id: str | None,
        customer: Mapping[str, Any],
        check: Mapping[str, Any],
        request: Mapping[str, Any],
        actor: str | None = None,
    ) -> ChargeIntent:
        """Write the intent before the create request is sent; a ``ref_id`` is recorded once only."""
        stamp = self._stamp()
        self._write(
            "INSERT INTO charge_intent (ref_id, terminal_id, customer, check_body, request, status,"
            " created_at, updated_at, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ref_id,
                terminal_id,
                _dump(customer),
                _dump(check),
                _dump(request),
                IntentStatus.RECORDED,
                stamp,
                stamp,
                actor,
            ),
        )
        intent = self.intent(ref_id)
        assert intent is not None
        return intent

    def update_intent(
        self,
        ref_id: str,
        *,
        status: IntentStatus,
        error: str | None = None,
        transaction_id: str | None = None,
        create_answer: CreateAnswer | None = None,
    ) -> ChargeIntent:
        """Move an intent to ``status``; ``error`` replaces the last one; a transaction id and the create's answer,
        once known, are never unset. An accepted create is never failed."""
        if status is IntentStatus.FAILED and create_answer is not CreateAnswer.REFUSED:
            known = self.intent(ref_id)
            if known is not None and (known.create_answer is CreateAnswer.ACCEPTED or known.transaction_id):
                raise ValueError(f"charge {ref_id} was accepted by the service and cannot fail")
        cursor = self._write(
            "UPDATE charge_intent SET status = ?, error = ?, transaction_id = coalesce(?, transaction_id),"
            " create_answer = coalesce(create_answer, ?), updated_at = ? WHERE ref_id = ?",
            (
                IntentStatus(status),
                error,
                transaction_id,
                None if create_answer is None else CreateAnswer(create_answer),
                self._stamp(),
                ref_id,
            ),
        )
        if cursor.rowcount != 1:
            raise KeyError(f"no charge intent {ref_id!r}")
        intent = self.intent(ref_id)
        assert intent is not None
        return intent

    def intent(self, ref_id: str) -> ChargeIntent | None:
        rows = self._read("SELECT * FROM charge_intent WHERE ref_id = ?", (ref_id,))
        return self._intent(rows[0]) if rows else None

    def unfinished_intents(self) -> list[ChargeIntent]:
        """Intents whose outcome is not settled (recorded or verifying), oldest first."""
        rows = self._read(
            "SELECT * FROM charge_intent WHERE status IN (?, ?) ORDER BY created_at, ref_id", tuple(UNFINISHED)
        )
        return [self._intent(row) for row in rows]

    def authorized_charges(self) -> list[str]:
        """The transactions this terminal's charges created that it last knew as authorized (neither completed
        nor canceled yet), oldest charge first."""
        rows = self._read(
            "SELECT i.transaction_id FROM charge_intent i JOIN known_transaction k"
            " ON k.transaction_id = i.transaction_id WHERE i.status = ? AND k.state = ?"
            " ORDER BY i.created_at, i.ref_id",
            (IntentStatus.CREATED, str(TxState.AUTHORIZED)),
        )
        return [str(row[0]) for row in rows]

    def failed_intents(self, *, since: datetime) -> list[ChargeIntent]:
        """Failed intents created at or after ``since``, oldest first (candidates for a late landing)."""
        rows = self._read(
            "SELECT * FROM charge_intent WHERE status = ? AND created_at >= ? ORDER BY created_at, ref_id",
            (IntentStatus.FAILED, _when(since)),
        )
        return [self._intent(row) for row in rows]

    def charged_checks(self, customer_id: str, *, since: datetime) -> list[tuple[str, JsonObject]]:
        """The transaction id and the check of each charge of ``customer_id`` since ``since`` that the service
        created, oldest first (only what a check's comparison needs is read)."""
        rows = self._read(
            "SELECT ref_id, transaction_id, check_body FROM charge_intent WHERE created_at >= ?"
            " AND transaction_id IS NOT NULL AND json_extract(customer, '$.customerId') = ?"
            " ORDER BY created_at, ref_id",
            (_when(since), customer_id),
        )
        found = []
        for row in rows:
            cells = _Cells(row, self.path, f"charge {row['ref_id']}")
            found.append((cells.text("transaction_id"), cells.json("check_body")))
        return found

    # --- transactions -------------------------------------------------------------------------

    def remember_transaction(
        self,
        transaction_id: str,
        *,
        ref_id: str | None,
        state: str,
        record: Mapping[str, Any] | None = None,
    ) -> KnownTransaction:
        """Keep the transaction's last known state; a missing ``ref_id`` or ``record`` keeps the old one."""
        stamp = self._stamp()
        self._write(
            "INSERT INTO known_transaction (transaction_id, ref_id, state, record, first_seen, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (transaction_id) DO UPDATE SET"
            " ref_id = coalesce(excluded.ref_id, ref_id), state = excluded.state,"
            " record = coalesce(excluded.record, record), updated_at = excluded.updated_at",
            (transaction_id, ref_id, state, None if record is None else _dump(record), stamp, stamp),
        )
        known = self.known_transaction(transaction_id)
        assert known is not None
        return known

    def known_states(self, transaction_ids: Sequence[str]) -> dict[str, str]:
        """The last state known of each of ``transaction_ids`` this journal knows, in one query."""
        rows = self._read(
            "SELECT transaction_id, state FROM known_transaction"
            " WHERE transaction_id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(transaction_ids)),),
        )
        known: dict[str, str] = {}
        for row in rows:
            cells = _Cells(row, self.path, f"transaction {row['transaction_id']}")
            known[cells.text("transaction_id")] = str(cells.choice("state", normalize_state))
        return known

    def update_states(self, states: Mapping[str, str]) -> None:
        """Set the last known state of transactions the journal knows, all in one write."""
        if not states:
            return
        stamp = self._stamp()
        with self._lock, transaction(self.conn):
            self.conn.executemany(
                "UPDATE known_transaction SET state = ?, updated_at = ? WHERE transaction_id = ?",
                [(str(state), stamp, transaction_id) for transaction_id, state in states.items()],
            )

    def known_transaction(self, transaction_id: str) -> KnownTransaction | None:
        rows = self._read("SELECT * FROM known_transaction WHERE transaction_id = ?", (transaction_id,))
        if not rows:
            return None
        cells = _Cells(rows[0], self.path, f"transaction {transaction_id}")
        return KnownTransaction(
            transaction_id=cells.text("transaction_id"),
            ref_id=cells.optional_text("ref_id"),
            state=str(cells.choice("state", normalize_state)),
            record=cells.optional_json("record"),
            first_seen=cells.time("first_seen"),
            updated_at=cells.time("updated_at"),
        )

    # --- the outbox ---------------------------------------------------------------------------

    def enqueue_state_change(
        self, transaction_id: str, target_state: str, *, actor: str | None = None, approved_by: str | None = None
    ) -> OutboxEntry:
        """Queue a state change asked by ``actor`` (approved by ``approved_by``); pending until confirmed or dropped."""
        cursor = self._write(
            "INSERT INTO outbox (transaction_id, target_state, created_at, actor, approved_by) VALUES (?, ?, ?, ?, ?)",
            (transaction_id, str(target_state), self._stamp(), actor, approved_by),
        )
        entry_id = cursor.lastrowid
        assert entry_id is not None
        return self._entry(entry_id)

    def asked_states(self, transaction_id: str) -> list[str]:
        """The states this terminal asked ``transaction_id`` to move to, sent or still waiting, oldest first."""
        rows = self._read(
            "SELECT target_state FROM outbox WHERE transaction_id = ? AND (outcome IS NULL OR outcome = 'confirmed')"
            " ORDER BY id",
            (transaction_id,),
        )
        return [str(row[0]) for row in rows]

    def pending_state_changes(self) -> list[OutboxEntry]:
        """Changes not yet confirmed or dropped, in the order they were queued."""
        rows = self._read("SELECT * FROM outbox WHERE outcome IS NULL ORDER BY id")
        return [self._outbox(row) for row in rows]

    def is_pending(self, entry_id: int) -> bool:
        """Whether the change is still neither confirmed nor dropped."""
        return bool(self._read("SELECT 1 FROM outbox WHERE id = ? AND outcome IS NULL", (entry_id,)))

    def record_attempt(self, entry_id: int, error: str) -> OutboxEntry:
        """One more failed delivery; the entry stays pending."""
        self._finish_or_touch(
            "UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE id = ? AND outcome IS NULL",
            (error, entry_id),
            entry_id,
        )
        return self._entry(entry_id)

    def confirm_state_change(self, entry_id: int, state: str) -> None:
        """The service confirmed the change (``state`` is what it reported); the entry leaves the pending list."""
        self._finish_or_touch(
            "UPDATE outbox SET outcome = 'confirmed', result = ?, finished_at = ? WHERE id = ? AND outcome IS NULL",
            (str(state), self._stamp(), entry_id),
            entry_id,
        )

    def drop_state_change(self, entry_id: int, reason: str) -> None:
        """The change can never succeed (refused, not found); it leaves the pending list with ``reason``."""
        self._finish_or_touch(
            "UPDATE outbox SET outcome = 'dropped', last_error = ?, finished_at = ? WHERE id = ? AND outcome IS NULL",
            (reason, self._stamp(), entry_id),
            entry_id,
        )

    def _finish_or_touch(self, sql: str, params: tuple[Any, ...], entry_id: int) -> None:
        cursor = self._write(sql, params)
        if cursor.rowcount != 1:
            raise KeyError(f"no pending state change {entry_id}")

    def _entry(self, entry_id: int) -> OutboxEntry:
        rows = self._read("SELECT * FROM outbox WHERE id = ?", (entry_id,))
        if not rows:
            raise KeyError(f"no state change {entry_id}")
        return self._outbox(rows[0])

    # --- cash sales ---------------------------------------------------------------------------

    def record_cash_sale(
        self,
        *,
        terminal_id: str | None,
        customer: str | None,
        total: int,
        tax: int,
        paid: int,
        check: Mapping[str, Any],
        actor: str | None = None,
    ) -> CashSale:
        """Keep a check paid in full in cash (``paid`` is the cash taken, the change is what exceeds ``total``)."""
        at = self.now()
        uid = new_uid()
        with self._lock, transaction(self.conn):
            cursor = self.conn.execute(
                "INSERT INTO cash_sale (at, terminal_id, customer, total, tax, paid, change, check_body, actor, uid)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (_when(at), terminal_id, customer, total, tax, paid, paid - total, _dump(check), actor, uid),
            )
            row = self.conn.execute("SELECT * FROM cash_sale WHERE id = ?", (cursor.lastrowid,)).fetchone()
            sale = self._cash_sale(row)
            self._share("cash_sale", uid, cash_sale_record(sale))
        return sale

    def all_cash_sales(self) -> list[CashSale]:
        """Every cash sale this journal holds, oldest first (what a till brings when it joins a store)."""
        return [self._cash_sale(row) for row in self._read("SELECT * FROM cash_sale ORDER BY id")]

    def cash_sales(self, since: datetime, until: datetime, *, terminal_id: str | None = None) -> list[CashSale]:
        """Cash sales with ``since <= at < until``, oldest first, optionally of one terminal."""
        sql = "SELECT * FROM cash_sale WHERE at >= ? AND at < ?"
        params: list[Any] = [_when(since), _when(until)]
        if terminal_id is not None:
            sql += " AND terminal_id = ?"
            params.append(terminal_id)
        return [self._cash_sale(row) for row in self._read(sql + " ORDER BY at, id", tuple(params))]

    # --- the print queue ----------------------------------------------------------------------

    def queue_print(self, *, kind: str, title: str, body: Mapping[str, Any]) -> PrintJob:
        """Keep a slip for the printer; it stays queued until :meth:`finish_print`."""
        cursor = self._write(
            "INSERT INTO print_job (kind, title, body, status, created_at) VALUES (?, ?, ?, ?, ?)",
            (kind, title, _dump(body), PrintStatus.QUEUED, self._stamp()),
        )
        assert cursor.lastrowid is not None
        job = self.print_job(cursor.lastrowid)
        assert job is not None
        return job

    def print_job(self, job_id: int) -> PrintJob | None:
        rows = self._read("SELECT * FROM print_job WHERE id = ?", (job_id,))
        return self._print_job(rows[0]) if rows else None

    def queued_prints(self) -> list[PrintJob]:
        """Slips waiting for the printer, oldest first."""
        return [
            self._print_job(row)
            for row in self._read("SELECT * FROM print_job WHERE status = ? ORDER BY id", (PrintStatus.QUEUED,))
        ]

    def print_failed(self, job_id: int, error: str) -> None:
        """One more try that the printer refused; the slip stays queued."""
        self._write(
            "UPDATE print_job SET attempts = attempts + 1, last_error = ? WHERE id = ? AND status = ?",
            (error, job_id, PrintStatus.QUEUED),
        )

    def finish_print(self, job_id: int, status: PrintStatus) -> bool:
        """The slip was printed, or canceled; False when it had left the queue already (printed, canceled)."""
        if status is PrintStatus.QUEUED:
            raise ValueError("a print job is finished as printed or canceled")
        cursor = self._write(
            "UPDATE print_job SET status = ?, finished_at = ? WHERE id = ? AND status = ?",
            (PrintStatus(status), self._stamp(), job_id, PrintStatus.QUEUED),
        )
        return cursor.rowcount == 1

    # --- the audit log ------------------------------------------------------------------------

    def audit(
        self,
        action: str,
        *,
        actor: str | None = None,
        terminal_id: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> AuditEntry:
        """Append to the audit log (sign-in, charge, complete, cancel, refund, report-printed, disconnect …)."""
        at = self.now()
        _when(at)  # refuse a naive time before writing anything
        entry = AuditEntry(
            at=at.astimezone(UTC), action=str(action), actor=actor, terminal_id=terminal_id, detail=dict(detail or {})
        )
        with self._lock, transaction(self.conn):
            self.conn.execute(
                "INSERT INTO audit (at, action, actor, terminal_id, detail, uid) VALUES (?, ?, ?, ?, ?, ?)",
                (_when(entry.at), entry.action, actor, terminal_id, _dump(entry.detail), entry.uid),
            )
            self._share("audit", entry.uid, audit_record(entry))
        return entry

    def all_audit_entries(self) -> list[AuditEntry]:
        """The whole audit log, oldest first (what a till brings when it joins a store)."""
        return [self._audit(row) for row in self._read("SELECT * FROM audit ORDER BY id")]

    def audit_entries(
        self,
        since: datetime,
        until: datetime,
        *,
        action: str | None = None,
        terminal_id: str | None = None,
    ) -> list[AuditEntry]:
        """Entries with ``since <= at < until``, oldest first, optionally of one action or terminal."""
        sql = "SELECT * FROM audit WHERE at >= ? AND at < ?"
        params: list[Any] = [_when(since), _when(until)]
        if action is not None:
            sql += " AND action = ?"
            params.append(action)
        if terminal_id is not None:
            sql += " AND terminal_id = ?"
            params.append(terminal_id)
        rows = self._read(sql + " ORDER BY at, id", tuple(params))
        return [self._audit(row) for row in rows]

    # --- rows read back -----------------------------------------------------------------------

    def _intent(self, row: sqlite3.Row) -> ChargeIntent:
        cells = _Cells(row, self.path, f"charge {row['ref_id']}")
        return ChargeIntent(
            ref_id=cells.text("ref_id"),
            terminal_id=cells.optional_text("terminal_id"),
            customer=cells.json("customer"),
            check=cells.json("check_body"),
            request=cells.json("request"),
            status=cells.choice("status", IntentStatus),
            transaction_id=cells.optional_text("transaction_id"),
            error=cells.optional_text("error"),
            created_at=cells.time("created_at"),
            updated_at=cells.time("updated_at"),
            actor=cells.optional_text("actor"),
            create_answer=None if row["create_answer"] is None else cells.choice("create_answer", CreateAnswer),
        )

    def _outbox(self, row: sqlite3.Row) -> OutboxEntry:
        cells = _Cells(row, self.path, f"state change {row['id']}")
        return OutboxEntry(
            id=cells.count("id"),
            transaction_id=cells.text("transaction_id"),
            target_state=str(cells.choice("target_state", _target_state)),
            attempts=cells.count("attempts"),
            last_error=cells.optional_text("last_error"),
            created_at=cells.time("created_at"),
            actor=cells.optional_text("actor"),
            approved_by=cells.optional_text("approved_by"),
        )

    def _cash_sale(self, row: sqlite3.Row) -> CashSale:
        cells = _Cells(row, self.path, f"cash sale {row['id']}")
        return CashSale(
            id=cells.count("id"),
            at=cells.time("at"),
            terminal_id=cells.optional_text("terminal_id"),
            customer=cells.optional_text("customer"),
            total=cells.count("total"),
            tax=cells.count("tax"),
            paid=cells.count("paid"),
            change=cells.count("change"),
            check=cells.json("check_body"),
            actor=cells.optional_text("actor"),
            uid=cells.text("uid"),
        )

    def _print_job(self, row: sqlite3.Row) -> PrintJob:
        cells = _Cells(row, self.path, f"print job {row['id']}")
        return PrintJob(
            id=cells.count("id"),
            kind=cells.text("kind"),
            title=cells.text("title"),
            body=cells.json("body"),
            status=cells.choice("status", PrintStatus),
            attempts=cells.count("attempts"),
            last_error=cells.optional_text("last_error"),
            created_at=cells.time("created_at"),
        )

    def _audit(self, row: sqlite3.Row) -> AuditEntry:
        cells = _Cells(row, self.path, f"audit entry {row['id']}")
        return AuditEntry(
            at=cells.time("at"),
            action=cells.text("action"),
            actor=cells.optional_text("actor"),
            terminal_id=cells.optional_text("terminal_id"),
            detail=cells.json("detail"),
            uid=cells.text("uid"),
        )


def _target_state(text: str) -> TxState:
    """A state a change can ask for (the request enum: complete, canceled, refunded)."""
    state = TxState(text)
    if state is TxState.AUTHORIZED:
        raise ValueError("a transaction is never asked to become authorized")
    return state
