"""The journal as its books see it: what a book (intents, outbox, audit …) may use of the journal it is part of.

:class:`~pos_terminal.journal.journal.Journal` has these and builds its books with itself; a book names this
protocol rather than the journal, so the journal imports its books and no book imports the journal back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from pos_terminal.domain.clock import Clock


class JournalAccess(Protocol):
    """The journal's file, clock and connection, and its ways to read, write and share a row."""

    path: Path
    now: Clock

    @property
    def conn(self) -> sqlite3.Connection: ...

    def stamp(self) -> str:
        """Now, as the journal writes a time."""
        ...

    def read(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """Every row ``sql`` selects."""
        ...

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> Iterator[sqlite3.Row]:
        """The rows ``sql`` selects, a row at a time."""
        ...

    def write(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        """``sql`` run in a transaction of its own, or in the one already open."""
        ...

    def writing(self) -> AbstractContextManager[sqlite3.Connection]:
        """One transaction for everything written inside it."""
        ...

    def share(self, kind: str, key: str, body: Mapping[str, Any]) -> None:
        """Queue ``body`` for the store database, inside the transaction that writes the record."""
        ...
