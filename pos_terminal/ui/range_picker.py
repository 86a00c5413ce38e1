"""Choosing what to list, shared by History and Reports: a time range (today, this shift since a time, yesterday, or
custom) and, for another terminal, its id.

The arithmetic is the domain's (:class:`TimeRange`); the picker only reads the widgets.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pos_terminal.domain.report import TimeRange
from pos_terminal.errors import UserError
from pos_terminal.ui.widgets import label

from PySide6.QtCore import QDateTime, QTime
from PySide6.QtWidgets import QComboBox, QDateTimeEdit, QHBoxLayout, QTimeEdit, QWidget


class NoOtherTerminal(UserError):
    sentence = "No terminal id is given for the other terminal."
    hint = "Type the other terminal's id, or choose another scope."


def other_terminal(typed: str) -> str:
    """The other terminal's id as typed; :class:`NoOtherTerminal` when none is (not this terminal's, silently)."""
    if not (other := typed.strip()):
        raise NoOtherTerminal()
    return other


PRESETS = (("Today", "today"), ("This shift", "shift"), ("Yesterday", "yesterday"), ("Custom", "custom"))


def _utc(moment: QDateTime) -> datetime:
    return datetime.fromtimestamp(moment.toSecsSinceEpoch(), UTC)


class RangePicker(QWidget):
    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preset = QComboBox()
        self.preset.setAccessibleName(f"{name} range")
        for text, kind in PRESETS:
            self.preset.addItem(text, kind)
        self.since_label = label("since")
        self.since = QTimeEdit()
        self.since.setDisplayFormat("HH:mm")
        self.since.setAccessibleName("Shift started at")
        self.since.setTime(QTime(6, 0))
        self.from_label = label("from")
        self.start = QDateTimeEdit()
        self.to_label = label("to")
        self.end = QDateTimeEdit()
        for edit, end in ((self.start, "from"), (self.end, "to")):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd HH:mm")
            edit.setAccessibleName(f"{name} {end}")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (
            self.preset,
            self.since_label,
            self.since,
            self.from_label,
            self.start,
            self.to_label,
            self.end,
        ):
            row.addWidget(widget)
        self.preset.currentIndexChanged.connect(self.on_preset_changed)
        self.on_preset_changed(0)

    @property
    def kind(self) -> str:
        return str(self.preset.currentData())

    def on_preset_changed(self, index: int) -> None:
        kind = self.preset.itemData(index)
        for shift_widget in (self.since_label, self.since):
            shift_widget.setVisible(kind == "shift")
        for custom_widget in (self.from_label, self.start, self.to_label, self.end):
            custom_widget.setVisible(kind == "custom")
        if kind == "custom" and self.start.dateTime() >= self.end.dateTime():
            now = QDateTime.currentDateTime()
            self.start.setDateTime(QDateTime(now.date(), QTime(0, 0)))
            self.end.setDateTime(now)

    def selected(self, now: datetime) -> TimeRange:
        """The range chosen, as of ``now``; ReportRangeError (one sentence) when it cannot be."""
        if self.kind == "today":
            return TimeRange.today(now)
        if self.kind == "yesterday":
            return TimeRange.yesterday(now)
        if self.kind == "shift":
            local = now.astimezone()
            time = self.since.time()
            started = local.replace(hour=time.hour(), minute=time.minute(), second=0, microsecond=0)
            if started > local:  # a shift that began before midnight
                started -= timedelta(days=1)
            return TimeRange.shift(started, now)
        return TimeRange.custom(_utc(self.start.dateTime()), _utc(self.end.dateTime()))
