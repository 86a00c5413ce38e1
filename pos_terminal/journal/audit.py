"""The audit log in the journal: sign-in, charge, complete, cancel, refund, report-printed, disconnect …, shared
with the store database while the till is part of one."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pos_terminal.journal.access import JournalAccess
from pos_terminal.journal.rows import Cells, JsonObject, dump_json, iso_time, new_uid


@dataclass(frozen=True)
class AuditEntry:
    at: datetime
    action: str
    actor: str | None
    terminal_id: str | None
    detail: JsonObject = field(default_factory=dict)
    uid: str = field(default_factory=new_uid)  # the entry's id in the store database


def audit_record(entry: AuditEntry) -> JsonObject:
    """An audit entry as the store database takes it (its outbox body)."""
    return {
        "id": entry.uid,
        "terminal_id": entry.terminal_id,
        "at": iso_time(entry.at),
        "action": entry.action,
        "actor": entry.actor,
        "detail": entry.detail,
    }


class AuditBook:
    """The ``audit`` table."""

    def __init__(self, journal: JournalAccess) -> None:
        self.journal = journal

    def record(
        self,
        action: str,
        *,
        actor: str | None = None,
        terminal_id: str | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> AuditEntry:
        """Append to the audit log (sign-in, charge, complete, cancel, refund, report-printed, disconnect …)."""
        at = self.journal.now()
        iso_time(at)  # refuse a naive time before writing anything
        entry = AuditEntry(
            at=at.astimezone(UTC), action=str(action), actor=actor, terminal_id=terminal_id, detail=dict(detail or {})
        )
        with self.journal.writing():
            self.journal.conn.execute(
                "INSERT INTO audit (at, action, actor, terminal_id, detail, uid) VALUES (?, ?, ?, ?, ?, ?)",
                (iso_time(entry.at), entry.action, actor, terminal_id, dump_json(entry.detail), entry.uid),
            )
            self.journal.share("audit", entry.uid, audit_record(entry))
        return entry

    def all(self) -> list[AuditEntry]:
        """The whole audit log, oldest first (what a till brings when it joins a store)."""
        return [self._audit(row) for row in self.journal.read("SELECT * FROM audit ORDER BY id")]

    def between(
        self,
        since: datetime,
        until: datetime,
        *,
        action: str | None = None,
        terminal_id: str | None = None,
    ) -> list[AuditEntry]:
        """Entries with ``since <= at < until``, oldest first, optionally of one action or terminal."""
        return list(self.each_between(since, until, action=action, terminal_id=terminal_id))

    def each_between(
        self,
        since: datetime,
        until: datetime,
        *,
        action: str | None = None,
        terminal_id: str | None = None,
    ) -> Iterator[AuditEntry]:
        """:meth:`between`, an entry at a time: a report turns a day of entries into its rows without holding the
        day's entries (about a kilobyte each) all at once."""
        sql = "SELECT * FROM audit WHERE at >= ? AND at < ?"
        params: list[Any] = [iso_time(since), iso_time(until)]
        if action is not None:
            sql += " AND action = ?"
            params.append(action)
        if terminal_id is not None:
            sql += " AND terminal_id = ?"
            params.append(terminal_id)
        for row in self.journal.rows(sql + " ORDER BY at, id", tuple(params)):
            yield self._audit(row)

    def last(self, action: str, *, terminal_id: str, before: datetime) -> AuditEntry | None:
        """The newest entry of ``action`` by ``terminal_id`` before ``before``: read from the index of actions, not
        by a walk through the whole log (what :meth:`between` from the first day would do; a start of a till with a
        year of entries spent 200 ms on it)."""
        rows = self.journal.read(
            "SELECT * FROM audit WHERE action = ? AND terminal_id = ? AND at < ? ORDER BY at DESC, id DESC LIMIT 1",
            (action, terminal_id, iso_time(before)),
        )
        return self._audit(rows[0]) if rows else None

    def _audit(self, row: sqlite3.Row) -> AuditEntry:
        cells = Cells(row, self.journal.path, f"audit entry {row['id']}")
        return AuditEntry(
            at=cells.time("at"),
            action=cells.text("action"),
            actor=cells.optional_text("actor"),
            terminal_id=cells.optional_text("terminal_id"),
            detail=cells.json("detail"),
            uid=cells.text("uid"),
        )
