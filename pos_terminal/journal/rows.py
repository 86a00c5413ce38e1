"""The journal's rows, written and read back: times as text, JSON bodies, and each cell checked on the way in.

Times are timezone-aware UTC, stored as fixed-width ISO 8601 text so that they sort as text. A cell that holds
what the terminal never writes there (a hand edit, a restore from elsewhere) is a :class:`DamagedJournal` that
names the row, not a crash at the first use of the value.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pos_terminal.disk.sqlite import StorageError
from pos_terminal.domain.decode import decode_json

Choice = TypeVar("Choice")

JsonObject = dict[str, Any]


def new_uid() -> str:
    """The id of a record the tills of a store share: made here, so a till can make one while the store is away."""
    return os.urandom(16).hex()


class DamagedJournal(StorageError):
    """The file is a journal, but a table or a row holds what the terminal never writes
    (a hand edit, a restore from elsewhere, another program)."""


def iso_time(moment: datetime) -> str:
    """``moment`` as the journal stores it: UTC, fixed-width, so that times sort as text."""
    if moment.tzinfo is None:
        raise ValueError("journal times must be timezone-aware")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def dump_json(value: Mapping[str, Any]) -> str:
    """A JSON body as the journal stores it: compact, keys sorted."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class Cells:
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
