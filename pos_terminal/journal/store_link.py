"""This till's link to its store database, kept in the journal: where the store is, and what is still to be sent.

``store_link`` (one row, or none for a till that stands alone) says which store database this till joined,
the last change of the store it has applied (``last_seq``), and how the last contact went: since when the store
has been out of reach, and why. ``store_outbox`` holds the records still to be written there, oldest first;
each was queued in the transaction that wrote the record (:meth:`Journal.share`), so a crash loses none, and
the store writes each idempotently, so one sent twice (a crash between the write and :meth:`LinkBook.sent`)
lands once. A record the store refuses for good (a name another till took first) leaves the queue with the
store's sentence, for the status to show.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pos_terminal.journal.journal import Journal
from pos_terminal.journal.rows import Cells, JsonObject, iso_time


@dataclass(frozen=True)
class LinkState:
    """The store this till joined, and how the link stands."""

    address: str  # the store database's address, without its password
    terminal_id: str
    joined_at: datetime
    last_seq: int  # the last change of the store applied here
    last_change_at: datetime | None  # when the last change from another till arrived
    last_contact_at: datetime | None  # the last time the store answered
    offline_since: datetime | None  # the store has not answered since then (None: it answered last time)
    last_error: str | None


@dataclass(frozen=True)
class Waiting:
    """A record queued for the store database."""

    id: int
    kind: str
    key: str
    body: JsonObject
    created_at: datetime
    attempts: int


@dataclass(frozen=True)
class Refused:
    """A record the store refused for good, and its sentence."""

    kind: str
    key: str
    reason: str
    at: datetime


class LinkBook:
    """The ``store_link`` row and the ``store_outbox`` queue of one journal."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def state(self) -> LinkState | None:
        rows = self.journal.read("SELECT * FROM store_link WHERE id = 1")
        if not rows:
            return None
        cells = Cells(rows[0], self.journal.path, "the store link")

        def moment(column: str) -> datetime | None:
            return None if rows[0][column] is None else cells.time(column)

        return LinkState(
            address=cells.text("address"),
            terminal_id=cells.text("terminal_id"),
            joined_at=cells.time("joined_at"),
            last_seq=cells.count("last_seq"),
            last_change_at=moment("last_change_at"),
            last_contact_at=moment("last_contact_at"),
            offline_since=moment("offline_since"),
            last_error=cells.optional_text("last_error"),
        )

    def join(self, address: str, terminal_id: str, records: list[tuple[str, str, JsonObject]]) -> LinkState:
        """Link this till to the store at ``address`` and queue ``records`` (kind, key, body): what it holds
        already. Joining the same store again starts from its first change again; every write is idempotent."""
        journal = self.journal
        stamp = journal.stamp()
        with journal.writing():
            journal.conn.execute("DELETE FROM store_link")
            journal.conn.execute(
                "INSERT INTO store_link (id, address, terminal_id, joined_at) VALUES (1, ?, ?, ?)",
                (address, terminal_id, stamp),
            )
            for kind, key, body in records:
                journal.share(kind, key, body)
        state = self.state()
        assert state is not None
        return state

    def leave(self) -> None:
        """Unlink: nothing more is queued. What is queued stays, and goes if this till joins a store again."""
        self.journal.write("DELETE FROM store_link")

    def waiting(self, limit: int = 200) -> list[Waiting]:
        rows = self.journal.read(
            "SELECT * FROM store_outbox WHERE sent_at IS NULL AND refused IS NULL ORDER BY id LIMIT ?", (limit,)
        )
        found = []
        for row in rows:
            cells = Cells(row, self.journal.path, f"store record {row['id']}")
            found.append(
                Waiting(
                    id=cells.count("id"),
                    kind=cells.text("kind"),
                    key=cells.text("key"),
                    body=cells.json("body"),
                    created_at=cells.time("created_at"),
                    attempts=cells.count("attempts"),
                )
            )
        return found

    def waiting_count(self) -> int:
        rows = self.journal.read("SELECT count(*) FROM store_outbox WHERE sent_at IS NULL AND refused IS NULL")
        return int(rows[0][0])

    def waiting_keys(self, kind: str) -> set[str]:
        """The keys of the records of ``kind`` still to be sent (edits the store has not ruled on)."""
        rows = self.journal.read(
            "SELECT DISTINCT key FROM store_outbox WHERE kind = ? AND sent_at IS NULL AND refused IS NULL", (kind,)
        )
        return {str(row[0]) for row in rows}

    def sent_many(self, entry_ids: list[int]) -> None:
        """The store has these records (one transaction for them all)."""
        journal = self.journal
        stamp = journal.stamp()
        with journal.writing():
            journal.conn.executemany(
                "UPDATE store_outbox SET sent_at = ?, attempts = attempts + 1 WHERE id = ?",
                [(stamp, entry_id) for entry_id in entry_ids],
            )

    def forget_sent(self, before: datetime, limit: int) -> int:
        """Delete up to ``limit`` records the store took before ``before``, oldest first; returns how many. The store
        holds them, and nothing here reads a sent record again. What waits and what was refused stay."""
        cursor = self.journal.write(
            "DELETE FROM store_outbox WHERE id IN (SELECT id FROM store_outbox INDEXED BY store_outbox_sent"
            " WHERE sent_at IS NOT NULL AND refused IS NULL AND sent_at < ? ORDER BY sent_at LIMIT ?)",
            (iso_time(before), limit),
        )
        return cursor.rowcount

    def refuse(self, entry_id: int, reason: str) -> None:
        self.journal.write(
            "UPDATE store_outbox SET refused = ?, attempts = attempts + 1, sent_at = ? WHERE id = ?",
            (reason, self.journal.stamp(), entry_id),
        )

    def refused(self, limit: int = 20) -> list[Refused]:
        rows = self.journal.read(
            "SELECT * FROM store_outbox WHERE refused IS NOT NULL ORDER BY id DESC LIMIT ?", (limit,)
        )
        result = []
        for row in rows:
            cells = Cells(row, self.journal.path, f"store record {row['id']}")
            result.append(Refused(cells.text("kind"), cells.text("key"), cells.text("refused"), cells.time("sent_at")))
        return result

    def reached(self) -> None:
        """The store answered: it is online."""
        self.journal.write(
            "UPDATE store_link SET last_contact_at = ?, offline_since = NULL, last_error = NULL",
            (self.journal.stamp(),),
        )

    def unreachable(self, sentence: str) -> None:
        """The store did not answer; the first failure of a run sets since when."""
        self.journal.write(
            "UPDATE store_link SET offline_since = coalesce(offline_since, ?), last_error = ?",
            (self.journal.stamp(), sentence),
        )

    def applied(self, seq: int, *, changed: bool) -> None:
        """Changes up to ``seq`` are applied here; ``changed``: one of them came from another till just now."""
        if changed:
            self.journal.write(
                "UPDATE store_link SET last_seq = max(last_seq, ?), last_change_at = ?", (seq, self.journal.stamp())
            )
        else:
            self.journal.write("UPDATE store_link SET last_seq = max(last_seq, ?)", (seq,))
