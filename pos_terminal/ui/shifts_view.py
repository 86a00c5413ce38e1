"""Shifts, in the Reports tab: the open shift and the ones before it, with their X or Z report.

The view lists and asks; the reports are made by the Report view beside it (the same
preview, save and print), and opening or closing a shift is the main window's (the
till's rules, a manager's approval, the count).
"""

from __future__ import annotations

from typing import Any

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.shift import Shift
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.table_model import ReadOnlyTableModel
from pos_terminal.ui.widgets import button, label, spread_columns

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHBoxLayout, QTableView, QVBoxLayout, QWidget

HEADERS = ("Shift", "Opened", "By", "Float", "Closed", "By", "Counted", "Expected", "Over / short")
RED = QColor("#b3261e")


def _when(shift_time: Any) -> str:
    return shift_time.astimezone().strftime("%d %b %H:%M") if shift_time else ""


class ShiftModel(ReadOnlyTableModel[Shift]):
    headers = HEADERS
    right_aligned = frozenset({3, 6, 7, 8})

    def __init__(self, money: MoneyFormat, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.money = money

    def cell(self, s: Shift, column: int) -> Any:
        money = self.money.format
        over_short = s.over_short
        return (
            str(s.id),
            _when(s.opened_at),
            s.opened_by,
            money(s.opening_float),
            _when(s.closed_at) if s.closed_at else "open",
            s.closed_by or "",
            money(s.count.total) if s.count else "",
            money(s.expected_cash) if s.expected_cash is not None else "",
            "" if over_short is None else ("right" if over_short == 0 else money(over_short)),
        )[column]

    def style(self, s: Shift, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and column == 8 and s.over_short:
            return QBrush(RED)
        return None


class ShiftsView(QWidget):
    """Signals: ``report_requested(object)`` a Shift whose X or Z report to show; ``open_requested()``;
    ``close_requested()``."""

    report_requested = Signal(object)
    open_requested = Signal()
    close_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.terminal: Terminal | None = None
        self.model = ShiftModel(MoneyFormat("en_AU", "AUD"), self)
        self.current = label(role="heading", wrap=True)
        self.current.setAccessibleName("The open shift")
        self.open_button = button("&Open a shift…", name="Open a shift")
        self.x_button = button("&X report", name="X report of the open shift")
        self.close_button = button("&Close the shift…", role="danger", name="Close the shift")
        self.report_button = button("Show its &report", name="Show the selected shift's report")
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Shifts")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(34)
        spread_columns(self.table)  # "Over / short", stretched last, took 70% of the table at 1920 px
        actions = QHBoxLayout()
        for widget in (self.open_button, self.x_button, self.close_button):
            actions.addWidget(widget)
        actions.addStretch(1)
        below = QHBoxLayout()
        below.addWidget(self.report_button)
        below.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.current)
        layout.addLayout(actions)
        layout.addWidget(self.table, 1)
        layout.addLayout(below)
        self.open_button.clicked.connect(self.open_requested)
        self.close_button.clicked.connect(self.close_requested)
        self.x_button.clicked.connect(self.on_x_clicked)
        self.report_button.clicked.connect(self.on_report_clicked)
        self.table.doubleClicked.connect(lambda _: self.on_report_clicked())
        self.refresh()

    def attach(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.model.money = terminal.money
        self.refresh()

    def detach(self) -> None:
        self.terminal = None
        self.refresh()

    def refresh(self) -> None:
        """Read the shifts again (after one opened or closed)."""
        terminal = self.terminal
        shifts = terminal.shifts.all() if terminal is not None else []
        self.model.replace_rows(shifts)
        open_shift = next((s for s in shifts if s.is_open), None)
        if terminal is None:
            self.current.setText("Not connected.")
        elif open_shift is None:
            self.current.setText("No shift is open.")
        else:
            self.current.setText(
                f"Shift {open_shift.id} is open since {_when(open_shift.opened_at)}, opened by "
                f"{open_shift.opened_by} with a float of {terminal.money.format(open_shift.opening_float)}."
            )
        self.open_button.setEnabled(terminal is not None and open_shift is None)
        self.x_button.setEnabled(open_shift is not None)
        self.close_button.setEnabled(open_shift is not None)
        self.report_button.setEnabled(bool(shifts))
        if shifts:
            self.table.selectRow(0)

    def selected(self) -> Shift | None:
        index = self.table.currentIndex()
        return self.model.row(index.row()) if index.isValid() else None

    def on_x_clicked(self) -> None:
        if self.terminal is not None and (shift := self.terminal.shifts.current()) is not None:
            self.report_requested.emit(shift)

    def on_report_clicked(self) -> None:
        if (shift := self.selected()) is not None:
            self.report_requested.emit(shift)
