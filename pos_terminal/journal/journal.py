"""The terminal's journal: what must survive a crash or a power cut.

One SQLite file holds, each table read and written by its own book (``journal.intents.record(...)``):

- the open check, saved on every change (one row; :attr:`Journal.open_check`);
- charge intents, recorded *before* the create request is sent, keyed by their unique ``refId``, and the
  transactions this terminal created, with their last known state (:mod:`pos_terminal.journal.intents`);
- the outbox of state changes (complete, cancel, refund) waiting to be confirmed by the service
  (:mod:`pos_terminal.journal.outbox`);
- the audit log (sign-in, charge, complete, cancel, refund, report-printed, disconnect …;
  :mod:`pos_terminal.journal.audit`);
- cash sales: checks paid in full before any charge, which the service never sees (it takes no charge of zero),
  kept for the shift's report (:mod:`pos_terminal.journal.cash_sales`);
- the people who work the till (PINs only as slow salted hashes) and the shifts with their drawer counts
  (:mod:`pos_terminal.journal.staff`);
- the receipt printer's queue: each slip (receipt, report) waits here until the printer has printed it or the
  cashier cancels it, across restarts (:mod:`pos_terminal.journal.prints`);
- the till's link to its store and its copy of the store's catalog (:mod:`~pos_terminal.journal.store_link`,
  :mod:`~pos_terminal.journal.catalog`).

Charges, state changes and cash sales record the person who asked for them (``actor``).

:class:`Journal` owns the connection and the schema; every write is committed (WAL, ``synchronous=FULL``) before
the method returns. Times are timezone-aware UTC, stored as fixed-width ISO 8601 text so that they sort as text
(:mod:`pos_terminal.journal.rows`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pos_terminal.disk.sqlite import connect, migrate, transaction, user_errors
from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.journal.audit import AuditBook, AuditEntry, audit_record
from pos_terminal.journal.cash_sales import CashSale, CashSaleBook, cash_sale_record
from pos_terminal.journal.intents import (
    UNFINISHED,
    ChargeIntent,
    CreateAnswer,
    IntentBook,
    IntentStatus,
    KnownTransaction,
    TransactionBook,
)
from pos_terminal.journal.outbox import OutboxBook, OutboxEntry
from pos_terminal.journal.prints import PrintBook, PrintJob, PrintStatus
from pos_terminal.journal.rows import Cells, DamagedJournal, JsonObject, dump_json, iso_time
from pos_terminal.journal.schema import MIGRATIONS, TABLES

# What callers have always imported from here; each lives with its table's book.
__all__ = [
    "FORGET_BATCH",
    "MIGRATIONS",
    "UNFINISHED",
    "AuditEntry",
    "CashSale",
    "ChargeIntent",
    "CreateAnswer",
    "DamagedJournal",
    "IntentStatus",
    "Journal",
    "JsonObject",
    "KnownTransaction",
    "OpenCheckBook",
    "OutboxEntry",
    "PrintJob",
    "PrintStatus",
    "audit_record",
    "cash_sale_record",
]

# The rows one transaction deletes when the journal lets go of old copies (sent to the store, printed): 3 ms at the
# median and 30 ms at most on a year's journal, so a sale that writes meanwhile hardly waits.
FORGET_BATCH = 500


class Journal:
    """The journal file at ``path``; open it once per process and :meth:`close` it at exit.

    It owns the connection and the schema; each table is read and written through its book (``journal.intents``,
    ``journal.outbox`` …), and the books in other modules (:mod:`~pos_terminal.journal.staff`,
    :mod:`~pos_terminal.journal.catalog`, :mod:`~pos_terminal.journal.store_link`) take the journal the same way.
    Safe to call from more than one thread (one connection, serialised by a lock).
    ``now`` is injectable so tests move time instead of sleeping.
    """

    def __init__(self, path: Path, *, now: Clock = utcnow) -> None:
        self.path = path
        self.now = now
        self.open_check = OpenCheckBook(self)
        self.intents = IntentBook(self)
        self.transactions = TransactionBook(self)
        self.outbox = OutboxBook(self)
        self.cash_sales = CashSaleBook(self)
        self.prints = PrintBook(self)
        self.audit = AuditBook(self)
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

    def stamp(self) -> str:
        """Now, as the journal writes a time (fixed-width ISO 8601 UTC text)."""
        return iso_time(self.now())

    def read(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """Every row ``sql`` selects, in a list."""
        return list(self.rows(sql, params))

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> Iterator[sqlite3.Row]:
        """The rows ``sql`` selects, a row at a time: a day's rows never all in memory at once. The journal stays
        locked until the last row is read (or the reader drops the iterator), so read it through without waiting."""
        with self._lock, user_errors(self.path):
            yield from self.conn.execute(sql, params)

    def write(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        """``sql`` run in a transaction of its own, or in the one :meth:`writing` has open."""
        with self.writing() as conn:
            return conn.execute(sql, params)

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One transaction for everything written inside it, committed or rolled back as one.

        Inside another ``writing()`` (of this thread: the lock is held) it joins that one, so writes of several
        books that belong together, such as a charge's intent and its audit entry, are kept together or not at
        all, at the cost of one sync to disk rather than one per book.
        """
        with self._lock:
            if self.conn.in_transaction:
                yield self.conn
                return
            with transaction(self.conn):
                yield self.conn

    def share(self, kind: str, key: str, body: Mapping[str, Any]) -> None:
        """Queue ``body`` for the store database while this terminal is part of a store (no-op otherwise). Call it
        inside the transaction that writes the record: the record and its place in the outbox commit together."""
        self.conn.execute(
            "INSERT INTO store_outbox (kind, key, body, created_at) SELECT ?, ?, ?, ? WHERE EXISTS"
            " (SELECT 1 FROM store_link)",
            (kind, key, json.dumps(body, ensure_ascii=False, separators=(",", ":")), self.stamp()),
        )

    def integrity_check(self) -> str:
        """``"ok"`` when SQLite finds the file sound; otherwise its first complaint."""
        rows = self.read("PRAGMA integrity_check")
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


class OpenCheckBook:
    """The ``open_check`` table: the check being rung up, saved on every change so a power cut never loses one."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def save(self, check: Mapping[str, Any]) -> None:
        """Replace the open check."""
        self.journal.write(
            "INSERT INTO open_check (id, body, updated_at) VALUES (1, ?, ?)"
            " ON CONFLICT (id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
            (dump_json(check), self.journal.stamp()),
        )

    def load(self) -> JsonObject | None:
        rows = self.journal.read("SELECT body FROM open_check WHERE id = 1")
        return Cells(rows[0], self.journal.path, "open check").json("body") if rows else None

    def clear(self) -> None:
        self.journal.write("DELETE FROM open_check")
