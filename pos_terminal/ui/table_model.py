"""The read-only table model every list on screen is: rows of one kind, fixed column headers.

Subclasses set ``headers``, fill ``rows`` between ``beginResetModel``/``endResetModel``
(or through :meth:`replace_rows`), and answer :meth:`cell` for what a row shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex
RowT = TypeVar("RowT")

_SHOWN = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole)


class ReadOnlyTableModel(QAbstractTableModel, Generic[RowT]):
    headers: ClassVar[tuple[str, ...]] = ()
    right_aligned: ClassVar[frozenset[int]] = frozenset()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[RowT] = []

    def replace_rows(self, rows: Sequence[RowT]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row(self, row: int) -> RowT | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def cell(self, row: RowT, column: int) -> Any:
        """What ``row`` shows in ``column`` (display and accessible text)."""
        raise NotImplementedError

    def style(self, row: RowT, column: int, role: int) -> Any:
        """Any other role (colour, font, tooltip) of a cell; none by default."""
        return None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 (Qt's signature)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 (Qt's signature)
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row(index.row()) if index.isValid() else None
        if row is None:
            return None
        if role in _SHOWN:
            return self.cell(row, index.column())
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in self.right_aligned:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return self.style(row, index.column(), role)
