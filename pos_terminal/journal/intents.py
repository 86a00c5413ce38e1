"""Charge intents and the transactions they made, in the journal.

An intent is recorded *before* the create request is sent, keyed by its unique ``refId``, so a crash between the
two is resumed by reconciling, never by charging twice. The transactions this terminal created (or learned
about) are kept with the last state it saw.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from pos_terminal.domain.lifecycle import TxState, normalize_state
from pos_terminal.journal.access import JournalAccess
from pos_terminal.journal.rows import Cells, JsonObject, dump_json, iso_time


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


class IntentBook:
    """The ``charge_intent`` table."""

    def __init__(self, journal: JournalAccess) -> None:
        self.journal = journal

    def record(
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
        stamp = self.journal.stamp()
        self.journal.write(
            "INSERT INTO charge_intent (ref_id, terminal_id, customer, check_body, request, status,"
            " created_at, updated_at, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ref_id,
                terminal_id,
                dump_json(customer),
                dump_json(check),
                dump_json(request),
                IntentStatus.RECORDED,
                stamp,
                stamp,
                actor,
            ),
        )
        intent = self.get(ref_id)
        assert intent is not None
        return intent

    def update(
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
            known = self.get(ref_id)
            if known is not None and (known.create_answer is CreateAnswer.ACCEPTED or known.transaction_id):
                raise ValueError(f"charge {ref_id} was accepted by the service and cannot fail")
        cursor = self.journal.write(
            "UPDATE charge_intent SET status = ?, error = ?, transaction_id = coalesce(?, transaction_id),"
            " create_answer = coalesce(create_answer, ?), updated_at = ? WHERE ref_id = ?",
            (
                IntentStatus(status),
                error,
                transaction_id,
                None if create_answer is None else CreateAnswer(create_answer),
                self.journal.stamp(),
                ref_id,
            ),
        )
        if cursor.rowcount != 1:
            raise KeyError(f"no charge intent {ref_id!r}")
        intent = self.get(ref_id)
        assert intent is not None
        return intent

    def get(self, ref_id: str) -> ChargeIntent | None:
        rows = self.journal.read("SELECT * FROM charge_intent WHERE ref_id = ?", (ref_id,))
        return self._intent(rows[0]) if rows else None

    def unfinished(self) -> list[ChargeIntent]:
        """Intents whose outcome is not settled (recorded or verifying), oldest first."""
        rows = self.journal.read(
            "SELECT * FROM charge_intent WHERE status IN (?, ?) ORDER BY created_at, ref_id", tuple(UNFINISHED)
        )
        return [self._intent(row) for row in rows]

    def authorized_charges(self) -> list[str]:
        """The transactions this terminal's charges created that it last knew as authorized (neither completed
        nor canceled yet), oldest charge first."""
        rows = self.journal.read(  # from the few known as authorized (CROSS JOIN keeps that order), not every charge
            "SELECT i.transaction_id FROM known_transaction k CROSS JOIN charge_intent i"
            " ON i.transaction_id = k.transaction_id WHERE k.state = ? AND i.status = ?"
            " ORDER BY i.created_at, i.ref_id",
            (str(TxState.AUTHORIZED), IntentStatus.CREATED),
        )
        return [str(row[0]) for row in rows]

    def failed(self, *, since: datetime) -> list[ChargeIntent]:
        """Failed intents created at or after ``since``, oldest first (candidates for a late landing)."""
        rows = self.journal.read(
            "SELECT * FROM charge_intent WHERE status = ? AND created_at >= ? ORDER BY created_at, ref_id",
            (IntentStatus.FAILED, iso_time(since)),
        )
        return [self._intent(row) for row in rows]

    def charged_checks(self, customer_id: str, *, since: datetime) -> list[tuple[str, JsonObject]]:
        """The transaction id and the check of each charge of ``customer_id`` since ``since`` that the service
        created and that may still hold their money (the journal's last word on it is "authorized", or it has
        none), oldest first. A regular customer's completed sales are left out in the query: each check read is
        one more to decode before every charge."""
        rows = self.journal.read(
            "SELECT i.ref_id, i.transaction_id, i.check_body FROM charge_intent i"
            " LEFT JOIN known_transaction k ON k.transaction_id = i.transaction_id"
            " WHERE i.created_at >= ? AND i.transaction_id IS NOT NULL"
            " AND json_extract(i.customer, '$.customerId') = ? AND (k.state IS NULL OR k.state = ?)"
            " ORDER BY i.created_at, i.ref_id",
            (iso_time(since), customer_id, str(TxState.AUTHORIZED)),
        )
        found = []
        for row in rows:
            cells = Cells(row, self.journal.path, f"charge {row['ref_id']}")
            found.append((cells.text("transaction_id"), cells.json("check_body")))
        return found

    def _intent(self, row: sqlite3.Row) -> ChargeIntent:
        cells = Cells(row, self.journal.path, f"charge {row['ref_id']}")
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


class TransactionBook:
    """The ``known_transaction`` table."""

    def __init__(self, journal: JournalAccess) -> None:
        self.journal = journal

    def remember(
        self,
        transaction_id: str,
        *,
        ref_id: str | None,
        state: str,
        record: Mapping[str, Any] | None = None,
    ) -> KnownTransaction:
        """Keep the transaction's last known state; a missing ``ref_id`` or ``record`` keeps the old one."""
        stamp = self.journal.stamp()
        self.journal.write(
            "INSERT INTO known_transaction (transaction_id, ref_id, state, record, first_seen, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (transaction_id) DO UPDATE SET"
            " ref_id = coalesce(excluded.ref_id, ref_id), state = excluded.state,"
            " record = coalesce(excluded.record, record), updated_at = excluded.updated_at",
            (transaction_id, ref_id, state, None if record is None else dump_json(record), stamp, stamp),
        )
        known = self.get(transaction_id)
        assert known is not None
        return known

    def states(self, transaction_ids: Sequence[str]) -> dict[str, str]:
        """The last state known of each of ``transaction_ids`` this journal knows, in one query."""
        rows = self.journal.read(
            "SELECT transaction_id, state FROM known_transaction"
            " WHERE transaction_id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(transaction_ids)),),
        )
        known: dict[str, str] = {}
        for row in rows:
            cells = Cells(row, self.journal.path, f"transaction {row['transaction_id']}")
            known[cells.text("transaction_id")] = str(cells.choice("state", normalize_state))
        return known

    def update_states(self, states: Mapping[str, str]) -> None:
        """Set the last known state of transactions the journal knows, all in one write."""
        if not states:
            return
        stamp = self.journal.stamp()
        with self.journal.writing():
            self.journal.conn.executemany(
                "UPDATE known_transaction SET state = ?, updated_at = ? WHERE transaction_id = ?",
                [(str(state), stamp, transaction_id) for transaction_id, state in states.items()],
            )

    def get(self, transaction_id: str) -> KnownTransaction | None:
        rows = self.journal.read("SELECT * FROM known_transaction WHERE transaction_id = ?", (transaction_id,))
        if not rows:
            return None
        cells = Cells(rows[0], self.journal.path, f"transaction {transaction_id}")
        return KnownTransaction(
            transaction_id=cells.text("transaction_id"),
            ref_id=cells.optional_text("ref_id"),
            state=str(cells.choice("state", normalize_state)),
            record=cells.optional_json("record"),
            first_seen=cells.time("first_seen"),
            updated_at=cells.time("updated_at"),
        )
