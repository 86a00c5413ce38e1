"""The outbox of state changes (complete, cancel, refund) this terminal asked for, in the journal.

A change is queued before it is sent and stays pending until the service confirms it, or it is dropped as one
that can never succeed; a pending change is sent again after a restart.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.journal.access import JournalAccess
from pos_terminal.journal.rows import Cells


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


class OutboxBook:
    """The ``outbox`` table."""

    def __init__(self, journal: JournalAccess) -> None:
        self.journal = journal

    def enqueue(
        self, transaction_id: str, target_state: str, *, actor: str | None = None, approved_by: str | None = None
    ) -> OutboxEntry:
        """Queue a state change asked by ``actor`` (approved by ``approved_by``); pending until confirmed or dropped."""
        cursor = self.journal.write(
            "INSERT INTO outbox (transaction_id, target_state, created_at, actor, approved_by) VALUES (?, ?, ?, ?, ?)",
            (transaction_id, str(target_state), self.journal.stamp(), actor, approved_by),
        )
        entry_id = cursor.lastrowid
        assert entry_id is not None
        return self._entry(entry_id)

    def asked_states(self, transaction_id: str) -> list[str]:
        """The states this terminal asked ``transaction_id`` to move to, sent or still waiting, oldest first."""
        rows = self.journal.read(
            "SELECT target_state FROM outbox WHERE transaction_id = ? AND (outcome IS NULL OR outcome = 'confirmed')"
            " ORDER BY id",
            (transaction_id,),
        )
        return [str(row[0]) for row in rows]

    def pending(self) -> list[OutboxEntry]:
        """Changes not yet confirmed or dropped, in the order they were queued."""
        rows = self.journal.read("SELECT * FROM outbox WHERE outcome IS NULL ORDER BY id")
        return [self._outbox(row) for row in rows]

    def is_pending(self, entry_id: int) -> bool:
        """Whether the change is still neither confirmed nor dropped."""
        return bool(self.journal.read("SELECT 1 FROM outbox WHERE id = ? AND outcome IS NULL", (entry_id,)))

    def record_attempt(self, entry_id: int, error: str) -> OutboxEntry:
        """One more failed delivery; the entry stays pending."""
        self._finish_or_touch(
            "UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE id = ? AND outcome IS NULL",
            (error, entry_id),
            entry_id,
        )
        return self._entry(entry_id)

    def confirm(self, entry_id: int, state: str) -> None:
        """The service confirmed the change (``state`` is what it reported); the entry leaves the pending list."""
        self._finish_or_touch(
            "UPDATE outbox SET outcome = 'confirmed', result = ?, finished_at = ? WHERE id = ? AND outcome IS NULL",
            (str(state), self.journal.stamp(), entry_id),
            entry_id,
        )

    def drop(self, entry_id: int, reason: str) -> None:
        """The change can never succeed (refused, not found); it leaves the pending list with ``reason``."""
        self._finish_or_touch(
            "UPDATE outbox SET outcome = 'dropped', last_error = ?, finished_at = ? WHERE id = ? AND outcome IS NULL",
            (reason, self.journal.stamp(), entry_id),
            entry_id,
        )

    def _finish_or_touch(self, sql: str, params: tuple[Any, ...], entry_id: int) -> None:
        cursor = self.journal.write(sql, params)
        if cursor.rowcount != 1:
            raise KeyError(f"no pending state change {entry_id}")

    def _entry(self, entry_id: int) -> OutboxEntry:
        rows = self.journal.read("SELECT * FROM outbox WHERE id = ?", (entry_id,))
        if not rows:
            raise KeyError(f"no state change {entry_id}")
        return self._outbox(rows[0])

    def _outbox(self, row: sqlite3.Row) -> OutboxEntry:
        cells = Cells(row, self.journal.path, f"state change {row['id']}")
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


def _target_state(text: str) -> TxState:
    """A state a change can ask for (the request enum: complete, canceled, refunded)."""
    state = TxState(text)
    if state is TxState.AUTHORIZED:
        raise ValueError("a transaction is never asked to become authorized")
    return state
