"""People and shifts in the journal file: who works the till, and each shift with its drawer counts.

Tables ``person`` and ``shift`` come with the journal's second migration. A PIN is
never stored, only its hash (:mod:`pos_terminal.domain.pins`), and the hash is read
only to check a PIN: :class:`~pos_terminal.domain.people.Person` does not carry it.
At most one shift is open at a time (a unique index says so), and a shift stays
open across restarts and crashes until someone closes it.

What a shift's report needs from the rest of the journal (checks completed in it,
refunds and cancellations sent from this terminal) is read here too, as rows; the
arithmetic is the domain's.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pos_terminal.domain.people import Person, Role, name_key, pin_to_set
from pos_terminal.domain.shift import DrawerCount, Shift
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import Journal
from pos_terminal.journal.rows import Cells, JsonObject, iso_time, new_uid


class NameTaken(UserError):
    hint = "Choose another name, or reset that person's PIN."


class ShiftAlreadyOpen(UserError):
    sentence = "A shift is already open on this terminal."
    hint = "Close it before opening another."


@dataclass(frozen=True)
class CompletedRow:
    """A check whose transaction this terminal completed (the first confirmation, by the terminal's clock)."""

    ref_id: str
    transaction_id: str
    actor: str | None
    completed_at: datetime
    check: JsonObject


@dataclass(frozen=True)
class ChangeRow:
    """A refund or cancellation this terminal sent and the service confirmed."""

    transaction_id: str
    at: datetime
    actor: str | None
    approved_by: str | None
    record: JsonObject | None  # the transaction as last seen
    check: JsonObject | None  # the check of this terminal's charge, when it made the transaction


class PeopleBook:
    """The ``person`` table."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def count(self) -> int:
        return int(self.journal.read("SELECT count(*) FROM person")[0][0])

    def all(self) -> list[Person]:
        return [self._person(row) for row in self.journal.read("SELECT * FROM person ORDER BY name_key")]

    def find(self, name: str) -> Person | None:
        rows = self.journal.read("SELECT * FROM person WHERE name_key = ?", (name_key(name),))
        return self._person(rows[0]) if rows else None

    def get(self, person_id: int) -> Person | None:
        rows = self.journal.read("SELECT * FROM person WHERE id = ?", (person_id,))
        return self._person(rows[0]) if rows else None

    def add(self, name: str, role: Role, pin_hash: str, *, uid: str | None = None) -> Person:
        """A new person (``uid``: their id in the store, when the store made them first)."""
        stamp = self.journal.stamp()
        journal = self.journal
        try:
            with journal.writing():
                cursor = journal.conn.execute(
                    "INSERT INTO person (name, name_key, role, pin_hash, created_at, updated_at, uid)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (name, name_key(name), str(role), pin_hash, stamp, stamp, uid or new_uid()),
                )
                self._share(int(cursor.lastrowid or 0))
        except sqlite3.IntegrityError:
            raise NameTaken(f"Someone called “{name}” is already on this terminal.") from None
        added = self.get(int(cursor.lastrowid or 0))
        assert added is not None
        return added

    def pin_hash(self, person_id: int) -> str:
        rows = self.journal.read("SELECT id, pin_hash FROM person WHERE id = ?", (person_id,))
        if not rows:
            raise KeyError(f"no person {person_id}")
        return Cells(rows[0], self.journal.path, f"person {person_id}").text("pin_hash")

    def record_pin_try(self, person_id: int, wrong_pins: int, locked_until: datetime | None) -> None:
        """A PIN try's count and lock: not an edit of the person, so the store merges it into their lockout."""
        self._update(
            person_id,
            "wrong_pins = ?, locked_until = ?",
            (wrong_pins, None if locked_until is None else iso_time(locked_until)),
            edit=False,
        )

    def set_pin(self, person_id: int, pin_hash: str) -> None:
        """A new PIN (or :data:`~pos_terminal.domain.people.PIN_TO_SET`: none until the person chooses one), which
        also lifts any lock (a new lockout epoch: tries counted before it no longer count)."""
        self._update(
            person_id, "pin_hash = ?, wrong_pins = 0, locked_until = NULL, lock_epoch = lock_epoch + 1", (pin_hash,)
        )

    def unlock(self, person_id: int) -> None:
        self._update(person_id, "wrong_pins = 0, locked_until = NULL, lock_epoch = lock_epoch + 1", ())

    def set_active(self, person_id: int, active: bool) -> None:
        self._update(person_id, "active = ?", (int(active),))

    def rename(self, person_id: int, name: str) -> None:
        try:
            self._update(person_id, "name = ?, name_key = ?", (name, name_key(name)))
        except sqlite3.IntegrityError:
            raise NameTaken(f"Someone called “{name}” is already on this terminal.") from None

    def set_role(self, person_id: int, role: Role) -> None:
        self._update(person_id, "role = ?", (str(role),))

    def _update(self, person_id: int, assignments: str, params: tuple[object, ...], *, edit: bool = True) -> None:
        journal = self.journal
        with journal.writing():
            cursor = journal.conn.execute(
                f"UPDATE person SET {assignments}, updated_at = ? WHERE id = ?",  # noqa: S608 (our own column names)
                (*params, journal.stamp(), person_id),
            )
            if cursor.rowcount != 1:
                raise KeyError(f"no person {person_id}")
            self._share(person_id, edit=edit)

    def _share(self, person_id: int, *, edit: bool = True) -> None:
        """Queue the person for the store (inside the write's transaction): the whole record after an edit, the
        lockout alone after a PIN try."""
        row = self.journal.conn.execute("SELECT * FROM person WHERE id = ?", (person_id,)).fetchone()
        record = person_record(row)
        if edit:
            self.journal.share("person", record["id"], record)
        else:
            lockout = {k: record[k] for k in ("wrong_pins", "locked_until", "lock_epoch")}
            self.journal.share("pin_tries", record["id"], {"person_id": record["id"], **lockout})

    # --- the store's copy --------------------------------------------------------------------------

    def uid_of(self, person_id: int) -> str:
        rows = self.journal.read("SELECT uid FROM person WHERE id = ?", (person_id,))
        if not rows:
            raise KeyError(f"no person {person_id}")
        return str(rows[0][0])

    def records(self) -> list[JsonObject]:
        """Every person as the store database takes them."""
        return [person_record(row) for row in self.journal.read("SELECT * FROM person ORDER BY id")]

    def take_from_store(self, record: JsonObject, *, keep_edits: bool) -> bool:
        """Make the local copy of a person the store's ``record`` (matched by id, else by name); with
        ``keep_edits`` (this till has edits of them still to send) only the lockout is merged, as the store merges
        it, and the rest waits for the store's verdict on those edits. Never queued back for the store.
        True when the local copy changed."""
        journal = self.journal
        theirs = {key: _journal_value(record.get(key)) for key in PERSON_FIELDS}
        with journal.writing():
            row = journal.conn.execute("SELECT * FROM person WHERE uid = ?", (theirs["id"],)).fetchone()
            if row is None:
                row = journal.conn.execute(
                    "SELECT * FROM person WHERE name_key = ?", (name_key(str(theirs["name"])),)
                ).fetchone()
            ours = None if row is None else person_record(row)
            values = {**(ours if ours is not None and keep_edits else theirs), **_merge_lockout(ours, theirs)}
            values["id"] = theirs["id"]
            if values == ours:
                return False
            columns = {
                "uid": values["id"],
                "name": values["name"],
                "name_key": name_key(str(values["name"])),
                "role": str(Role(str(values["role"]))),
                "pin_hash": values["pin_hash"],
                "active": int(bool(values["active"])),
                "version": int(values["version"] or 0),
                "wrong_pins": int(values["wrong_pins"] or 0),
                "locked_until": values["locked_until"],
                "lock_epoch": int(values["lock_epoch"] or 0),
                "updated_at": values["updated_at"] or journal.stamp(),
            }
            if row is None:
                columns["created_at"] = journal.stamp()
                names, marks = ", ".join(columns), ", ".join("?" for _ in columns)
                journal.conn.execute(
                    f"INSERT INTO person ({names}) VALUES ({marks})",  # noqa: S608 (our own column names)
                    tuple(columns.values()),
                )
            else:
                assignments = ", ".join(f"{name} = ?" for name in columns)
                journal.conn.execute(
                    f"UPDATE person SET {assignments} WHERE id = ?",  # noqa: S608 (our own column names)
                    (*columns.values(), row["id"]),
                )
            return True

    def _person(self, row: sqlite3.Row) -> Person:
        cells = Cells(row, self.journal.path, f"person {row['id']}")
        locked = row["locked_until"]
        return Person(
            id=cells.count("id"),
            name=cells.text("name"),
            role=cells.choice("role", Role),
            active=bool(cells.count("active")),
            wrong_pins=cells.count("wrong_pins"),
            locked_until=None if locked is None else cells.time("locked_until"),
            pin_to_set=pin_to_set(cells.text("pin_hash")),
        )


PERSON_FIELDS = (
    "id",
    "name",
    "role",
    "pin_hash",
    "active",
    "version",
    "updated_at",
    "wrong_pins",
    "locked_until",
    "lock_epoch",
)


def _journal_value(value: object) -> object:
    """A store value as the journal keeps it: times as its fixed-width UTC text."""
    return iso_time(value) if isinstance(value, datetime) else value


def person_record(row: sqlite3.Row) -> JsonObject:
    """A person as the store database takes them: ``version`` is the store's version this copy is based on."""
    return {
        key: row["uid"] if key == "id" else bool(row["active"]) if key == "active" else row[key]
        for key in PERSON_FIELDS
    }


def _merge_lockout(local: JsonObject | None, record: JsonObject) -> dict[str, Any]:
    """The lockout both copies agree on, as the store merges it: the later epoch's, else the greater of each."""
    theirs = {k: record.get(k) for k in ("wrong_pins", "locked_until", "lock_epoch")}
    if local is None:
        return theirs
    ours = {k: local[k] for k in ("wrong_pins", "locked_until", "lock_epoch")}
    their_epoch, our_epoch = int(theirs["lock_epoch"] or 0), int(ours["lock_epoch"] or 0)
    if their_epoch != our_epoch:
        return theirs if their_epoch > our_epoch else ours
    times = [_time(t) for t in (theirs["locked_until"], ours["locked_until"]) if t]
    return {
        "wrong_pins": max(int(theirs["wrong_pins"] or 0), int(ours["wrong_pins"] or 0)),
        "locked_until": iso_time(max(times)) if times else None,
        "lock_epoch": our_epoch,
    }


def _time(value: object) -> datetime:
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def shift_record(row: sqlite3.Row) -> JsonObject:
    """A shift as the store database takes it."""
    pieces = json.loads(row["counted_pieces"]) if row["counted_pieces"] else None
    return {
        "id": row["uid"],
        "terminal_id": row["terminal_id"],
        "opened_at": row["opened_at"],
        "opened_by": row["opened_by"],
        "opening_float": row["opening_float"],
        "closed_at": row["closed_at"],
        "closed_by": row["closed_by"],
        "counted_cash": row["counted_cash"],
        "counted_pieces": pieces,
        "expected_cash": row["expected_cash"],
    }


class ShiftBook:
    """The ``shift`` table, and the rows of the journal a shift's report is made from."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def open(self, terminal_id: str | None, opened_by: str, opening_float: int, at: datetime) -> Shift:
        journal = self.journal
        try:
            with journal.writing():
                cursor = journal.conn.execute(
                    "INSERT INTO shift (terminal_id, opened_at, opened_by, opening_float, uid) VALUES (?, ?, ?, ?, ?)",
                    (terminal_id, iso_time(at), opened_by, opening_float, new_uid()),
                )
                self._share(int(cursor.lastrowid or 0))
        except sqlite3.IntegrityError:
            raise ShiftAlreadyOpen() from None
        opened = self.get(int(cursor.lastrowid or 0))
        assert opened is not None
        return opened

    def close(self, shift_id: int, closed_by: str, count: DrawerCount, expected: int, at: datetime) -> Shift:
        pieces = json.dumps([[value, quantity] for value, quantity in count.pieces]) if count.pieces else None
        journal = self.journal
        with journal.writing():
            cursor = journal.conn.execute(
                "UPDATE shift SET closed_at = ?, closed_by = ?, counted_cash = ?, counted_pieces = ?,"
                " expected_cash = ? WHERE id = ? AND closed_at IS NULL",
                (iso_time(at), closed_by, count.total, pieces, expected, shift_id),
            )
            if cursor.rowcount != 1:
                raise UserError(f"Shift {shift_id} is not open.", hint="It may have been closed elsewhere.")
            self._share(shift_id)
        closed = self.get(shift_id)
        assert closed is not None
        return closed

    def _share(self, shift_id: int) -> None:
        row = self.journal.conn.execute("SELECT * FROM shift WHERE id = ?", (shift_id,)).fetchone()
        self.journal.share("shift", row["uid"], shift_record(row))

    def records(self) -> list[JsonObject]:
        """Every shift of this terminal as the store database takes it."""
        return [shift_record(row) for row in self.journal.read("SELECT * FROM shift ORDER BY id")]

    def current(self) -> Shift | None:
        rows = self.journal.read("SELECT * FROM shift WHERE closed_at IS NULL ORDER BY id DESC LIMIT 1")
        return self._shift(rows[0]) if rows else None

    def get(self, shift_id: int) -> Shift | None:
        rows = self.journal.read("SELECT * FROM shift WHERE id = ?", (shift_id,))
        return self._shift(rows[0]) if rows else None

    def last_closed(self) -> Shift | None:
        rows = self.journal.read("SELECT * FROM shift WHERE closed_at IS NOT NULL ORDER BY id DESC LIMIT 1")
        return self._shift(rows[0]) if rows else None

    def all(self, limit: int = 1000) -> list[Shift]:
        """Newest first."""
        rows = self.journal.read("SELECT * FROM shift ORDER BY id DESC LIMIT ?", (limit,))
        return [self._shift(row) for row in rows]

    # --- what a shift's report is made of --------------------------------------------------------------------

    def completed_checks(self, since: datetime, until: datetime) -> list[CompletedRow]:
        """Checks charged on this terminal whose transaction it completed in ``[since, until)``."""
        # A transaction completed when its first complete was confirmed: one confirmed again later (a repeat) is not
        # completed a second time, so a confirmation in the range counts only when none came before it. That looks
        # up the transaction's own changes: by the range of times instead, SQLite read every complete of the year
        # before the range for each check of the shift (13 s).
        start = iso_time(since)
        rows = self.journal.read(
            "SELECT i.ref_id, i.transaction_id, i.actor, i.check_body, c.completed_at FROM"
            " (SELECT transaction_id, min(finished_at) AS completed_at FROM outbox"
            "  WHERE target_state = 'complete' AND outcome = 'confirmed' AND finished_at >= ? AND finished_at < ?"
            "  GROUP BY transaction_id) c"
            " JOIN charge_intent i ON i.transaction_id = c.transaction_id"
            " WHERE NOT EXISTS (SELECT 1 FROM outbox e INDEXED BY outbox_transaction"
            "  WHERE e.transaction_id = c.transaction_id AND e.target_state = 'complete' AND e.outcome = 'confirmed'"
            "  AND e.finished_at < ?)"
            " ORDER BY c.completed_at, i.ref_id",
            (start, iso_time(until), start),
        )
        result = []
        for row in rows:
            cells = Cells(row, self.journal.path, f"charge {row['ref_id']}")
            result.append(
                CompletedRow(
                    ref_id=cells.text("ref_id"),
                    transaction_id=cells.text("transaction_id"),
                    actor=cells.optional_text("actor"),
                    completed_at=cells.time("completed_at"),
                    check=cells.json("check_body"),
                )
            )
        return result

    def confirmed_changes(self, target_state: str, since: datetime, until: datetime) -> list[ChangeRow]:
        """Changes to ``target_state`` this terminal sent and the service confirmed in ``[since, until)``."""
        rows = self.journal.read(
            "SELECT o.id, o.transaction_id, o.finished_at, o.actor, o.approved_by, k.record, i.check_body"
            " FROM outbox o LEFT JOIN known_transaction k ON k.transaction_id = o.transaction_id"
            " LEFT JOIN charge_intent i ON i.transaction_id = o.transaction_id"
            " WHERE o.target_state = ? AND o.outcome = 'confirmed' AND o.finished_at >= ? AND o.finished_at < ?"
            " ORDER BY o.finished_at, o.id",
            (target_state, iso_time(since), iso_time(until)),
        )
        seen: set[str] = set()
        result = []
        for row in rows:
            cells = Cells(row, self.journal.path, f"state change {row['id']}")
            transaction_id = cells.text("transaction_id")
            if transaction_id in seen:  # a repeat confirmed again changed nothing
                continue
            seen.add(transaction_id)
            result.append(
                ChangeRow(
                    transaction_id=transaction_id,
                    at=cells.time("finished_at"),
                    actor=cells.optional_text("actor"),
                    approved_by=cells.optional_text("approved_by"),
                    record=cells.optional_json("record"),
                    check=cells.optional_json("check_body"),
                )
            )
        return result

    def unconfirmed_at(self, moment: datetime) -> int:
        """State changes queued before ``moment`` that the service had not confirmed (nor refused) by then."""
        stamp = iso_time(moment)
        rows = self.journal.read(  # each half from its index: the changes still waiting, those finished since
            "SELECT (SELECT count(*) FROM outbox WHERE outcome IS NULL AND created_at < ?)"
            " + (SELECT count(*) FROM outbox WHERE finished_at >= ? AND created_at < ?)",
            (stamp, stamp, stamp),
        )
        return int(rows[0][0])

    def _shift(self, row: sqlite3.Row) -> Shift:
        cells = Cells(row, self.journal.path, f"shift {row['id']}")
        closed = row["closed_at"] is not None
        count = None
        if closed:
            pieces: tuple[tuple[int, int], ...] = ()
            if row["counted_pieces"] is not None:
                try:
                    raw = json.loads(cells.text("counted_pieces"))
                    pieces = tuple((int(value), int(quantity)) for value, quantity in raw)
                except (ValueError, TypeError):
                    raise cells.damaged("counted_pieces", "is not a count of notes and coins") from None
            count = DrawerCount(cells.count("counted_cash"), pieces)
        expected = row["expected_cash"]
        return Shift(
            id=cells.count("id"),
            terminal_id=cells.optional_text("terminal_id"),
            opened_at=cells.time("opened_at"),
            opened_by=cells.text("opened_by"),
            opening_float=cells.count("opening_float"),
            closed_at=cells.time("closed_at") if closed else None,
            closed_by=cells.optional_text("closed_by"),
            count=count,
            expected_cash=None if expected is None else cells.count("expected_cash"),
        )
