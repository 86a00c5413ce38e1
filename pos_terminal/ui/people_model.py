"""The list of everyone who works the till, on the back office's people page: a Qt model of the people as read
at one moment (whether a person is locked after wrong PINs depends on when)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.people import Person
from pos_terminal.ui.table_model import ReadOnlyTableModel

from PySide6.QtCore import QObject, Qt

HEADERS = ("Name", "Role", "Signs in", "Locked until")


def locked_until(person: Person, now: datetime) -> str:
    """The local time a person's lock after wrong PINs ends, or nothing when they are not locked."""
    if person.locked_until is None or not person.locked(now):
        return ""
    return person.locked_until.astimezone().strftime("%H:%M")


class PeopleModel(ReadOnlyTableModel[Person]):
    """Everyone who works the till, as read at :attr:`at`."""

    headers = HEADERS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.at = utcnow()

    def cell(self, person: Person, column: int) -> Any:
        if column == 0:
            return person.name
        if column == 1:
            return str(person.role).capitalize()
        if column == 2:
            if not person.active:
                return "No: disabled"
            return "Yes: new PIN to set" if person.pin_to_set else "Yes"
        return locked_until(person, self.at)

    def style(self, person: Person, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return person.label  # whole, where a long name is shortened with "…"
        return None

    def row_of(self, person_id: int) -> int | None:
        return next((row for row, person in enumerate(self.rows) if person.id == person_id), None)
