"""The receipt printer's queue in the journal: each slip (receipt, report) waits here until the printer has
printed it or the cashier cancels it, across restarts."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from pos_terminal.journal.access import JournalAccess
from pos_terminal.journal.rows import Cells, JsonObject, dump_json, iso_time


class PrintStatus(StrEnum):
    QUEUED = "queued"  # waiting for the printer
    PRINTED = "printed"
    CANCELED = "canceled"  # the cashier gave it up


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


class PrintBook:
    """The ``print_job`` table."""

    def __init__(self, journal: JournalAccess) -> None:
        self.journal = journal

    def queue(self, *, kind: str, title: str, body: Mapping[str, Any]) -> PrintJob:
        """Keep a slip for the printer; it stays queued until :meth:`finish`."""
        cursor = self.journal.write(
            "INSERT INTO print_job (kind, title, body, status, created_at) VALUES (?, ?, ?, ?, ?)",
            (kind, title, dump_json(body), PrintStatus.QUEUED, self.journal.stamp()),
        )
        assert cursor.lastrowid is not None
        job = self.get(cursor.lastrowid)
        assert job is not None
        return job

    def get(self, job_id: int) -> PrintJob | None:
        rows = self.journal.read("SELECT * FROM print_job WHERE id = ?", (job_id,))
        return self._print_job(rows[0]) if rows else None

    def queued(self) -> list[PrintJob]:
        """Slips waiting for the printer, oldest first."""
        return [
            self._print_job(row)
            for row in self.journal.read("SELECT * FROM print_job WHERE status = ? ORDER BY id", (PrintStatus.QUEUED,))
        ]

    def failed(self, job_id: int, error: str) -> None:
        """One more try that the printer refused; the slip stays queued."""
        self.journal.write(
            "UPDATE print_job SET attempts = attempts + 1, last_error = ? WHERE id = ? AND status = ?",
            (error, job_id, PrintStatus.QUEUED),
        )

    def finish(self, job_id: int, status: PrintStatus) -> bool:
        """The slip was printed, or canceled; False when it had left the queue already (printed, canceled)."""
        if status is PrintStatus.QUEUED:
            raise ValueError("a print job is finished as printed or canceled")
        cursor = self.journal.write(
            "UPDATE print_job SET status = ?, finished_at = ? WHERE id = ? AND status = ?",
            (PrintStatus(status), self.journal.stamp(), job_id, PrintStatus.QUEUED),
        )
        return cursor.rowcount == 1

    def forget_finished(self, before: datetime, limit: int) -> int:
        """Delete up to ``limit`` slips printed or canceled before ``before``, oldest first; returns how many. Nothing
        reads a finished slip again; a queued one stays."""
        cursor = self.journal.write(
            "DELETE FROM print_job WHERE id IN (SELECT id FROM print_job INDEXED BY print_job_finished"
            " WHERE status != 'queued' AND finished_at < ? ORDER BY finished_at LIMIT ?)",
            (iso_time(before), limit),
        )
        return cursor.rowcount

    def _print_job(self, row: sqlite3.Row) -> PrintJob:
        cells = Cells(row, self.journal.path, f"print job {row['id']}")
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
