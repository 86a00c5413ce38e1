"""The report's figures on screen: a table model of the report model's figure lines, a mismatch in red."""

from __future__ import annotations

from typing import Any

from pos_terminal.domain.report_document import FigureLine, Figures
from pos_terminal.domain.summary import FIGURES
from pos_terminal.ui.table_model import ReadOnlyTableModel

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont

HEADERS = ("Terminal", "Count", "Total", "Fees", "Payout", "Tips", "Check")
RED = QColor("#b3261e")


class FiguresModel(ReadOnlyTableModel[FigureLine]):
    """The report's figures (:class:`~pos_terminal.domain.report_document.Figures`), one row per terminal and the
    total when there are several."""

    headers = HEADERS
    right_aligned = frozenset(range(1, len(FIGURES) + 1))

    def set_figures(self, figures: Figures | None) -> None:
        lines = () if figures is None else (*figures.lines, *((figures.total,) if figures.total else ()))
        self.replace_rows(list(lines))

    def figure(self, row: int, name: str) -> str:
        """The text shown for figure ``name`` of ``row`` (for tests and accessibility)."""
        return str(self.data(self.index(row, 1 + FIGURES.index(name))))

    def cell(self, row: FigureLine, column: int) -> Any:
        if column == 0:
            return row.label
        if 1 <= column <= len(FIGURES):
            return row.value(FIGURES[column - 1])
        if not row.matches:
            return "differs: " + ", ".join(row.mismatched)
        # the service sends no record for a terminal with nothing completed: the transactions agree with that
        return "matches" if row.reported else "matches (nothing completed)"

    def style(self, row: FigureLine, column: int, role: int) -> Any:
        figure = FIGURES[column - 1] if 1 <= column <= len(FIGURES) else None
        if role == Qt.ItemDataRole.ForegroundRole and (
            (figure is not None and figure in row.mismatched) or (column == len(HEADERS) - 1 and not row.matches)
        ):
            return QBrush(RED)
        if role == Qt.ItemDataRole.FontRole and row.strong and len(self.rows) > 1:
            font = QFont()
            font.setBold(True)
            return font
        return None
