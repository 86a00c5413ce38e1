"""The lists of the back office's catalog page: its products and its categories as Qt models whose rows are
dragged to reorder them, the tables that show them, and the colour swatches of a product's form."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pos_terminal.ui.table_model import Index, ReadOnlyTableModel

if TYPE_CHECKING:  # the services load after the first paint (pos_terminal.app)
    from pos_terminal.journal.catalog import CategoryRow, ProductRow

from PySide6.QtCore import QByteArray, QMimeData, QModelIndex, QObject, QSize, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QPushButton, QTableView

MIME = "application/x-pos-terminal-catalog-row"
BARCODES = 4  # the products' column of codes: they differ in their last digits, so shortened in the middle
ROW_HEIGHT = 40  # a fingertip per row
SWATCH = 40
INACTIVE = QColor("#8c959f")
RowT = TypeVar("RowT")


def place(order: Sequence[str], shown: Sequence[str], uid: str, row: int) -> int | None:
    """Where :meth:`CatalogEditor.move` puts ``uid`` (its place in ``order`` once taken out) when it is dropped
    before row ``row`` of the rows ``shown`` (``len(shown)``: after the last); None when it would not move."""
    if uid not in shown or uid not in order:
        return None
    if shown.index(uid) < row:
        row -= 1  # the rows after it move up once it is taken out
    others = [u for u in shown if u != uid]
    rest = [u for u in order if u != uid]
    if not others:
        return None
    row = max(0, min(row, len(others)))
    to = rest.index(others[row]) if row < len(others) else rest.index(others[-1]) + 1
    return None if to == list(order).index(uid) else to


class RowsModel(ReadOnlyTableModel[RowT]):
    """Rows with a uid that can be dragged to another place. Signals: ``dropped(str, int)`` a row's uid and
    the row it was dropped before (the row count: after the last)."""

    dropped = Signal(str, int)

    def uid(self, row: RowT) -> str:
        return str(getattr(row, "uid", ""))

    def row_of(self, uid: str) -> int | None:
        return next((n for n, row in enumerate(self.rows) if self.uid(row) == uid), None)

    def style(self, row: RowT, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and not getattr(row, "active", True):
            return INACTIVE  # taken off: still listed, greyed
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        return flags | Qt.ItemFlag.ItemIsDragEnabled if index.isValid() else flags | Qt.ItemFlag.ItemIsDropEnabled

    def supportedDropActions(self) -> Qt.DropAction:  # noqa: N802 (Qt's name)
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:  # noqa: N802 (Qt's name)
        return [MIME]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:  # noqa: N802 (Qt's name)
        data = QMimeData()
        rows = {index.row() for index in indexes if index.isValid()}
        if len(rows) == 1 and (row := self.row(rows.pop())) is not None:
            data.setData(MIME, QByteArray(self.uid(row).encode()))
        return data

    def dropMimeData(  # noqa: N802 (Qt's name)
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index
    ) -> bool:
        if action != Qt.DropAction.MoveAction or not data.hasFormat(MIME):
            return False
        uid = bytes(data.data(MIME).data()).decode()
        if row < 0:  # dropped on a row (not between two): it takes that row's place
            row = parent.row() if parent.isValid() else len(self.rows)
        if self.row_of(uid) is None:
            return False
        self.dropped.emit(uid, row)
        return False  # the page moves it and reads the lists again: the view removes nothing itself


class ProductModel(RowsModel["ProductRow"]):
    headers: ClassVar[tuple[str, ...]] = ("Name", "Price", "Tax", "Category", "Barcodes", "Active")
    right_aligned: ClassVar[frozenset[int]] = frozenset({1, 2})

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.price: Callable[[int], str] = lambda cents: f"{cents / 100:.2f}"
        self.category_names: dict[str, str] = {}

    def cell(self, row: ProductRow, column: int) -> Any:
        if column == 0:
            return row.name
        if column == 1:
            return self.price(row.price)
        if column == 2:
            return "" if row.tax_rate_bp is None else f"{percent(row.tax_rate_bp)} %"
        if column == 3:
            return self.category_names.get(row.category_uid or "", "")
        if column == 4:
            return " ".join(row.barcodes)
        return "yes" if row.active else "no"

    def style(self, row: ProductRow, column: int, role: int) -> Any:
        """A name (its column gives way when the page is narrow) and the barcodes (shortened in the middle) are
        whole in their tool tips."""
        if column == 0 and role == Qt.ItemDataRole.ToolTipRole:
            return row.name
        if column == BARCODES and row.barcodes and role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join(row.barcodes)
        return super().style(row, column, role)


class CategoryModel(RowsModel["CategoryRow"]):
    headers: ClassVar[tuple[str, ...]] = ("Category", "Active")

    def cell(self, row: CategoryRow, column: int) -> Any:
        return row.name if column == 0 else ("yes" if row.active else "no")


def percent(points: int) -> str:
    """Basis points as a percent typed: 1000 → "10", 1250 → "12.5"."""
    whole, rest = divmod(points, 100)
    return f"{whole}" if not rest else f"{whole}.{rest:02d}".rstrip("0")


def rows_table(model: RowsModel[Any], name: str) -> QTableView:
    table = QTableView()
    table.setModel(model)
    table.setAccessibleName(name)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setDragEnabled(True)
    table.setAcceptDrops(True)
    table.setDropIndicatorShown(True)
    table.setDragDropOverwriteMode(False)
    table.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)  # our rows only: the model knows one type
    table.setDefaultDropAction(Qt.DropAction.MoveAction)
    table.verticalHeader().hide()
    table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
    table.setWordWrap(False)
    table.setTabKeyNavigation(False)  # Tab leaves the list for the next control
    return table


class Swatch(QPushButton):
    """A colour to tap: a fingertip square, as narrow as the room it has allows."""

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(SWATCH, SWATCH)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(SWATCH, SWATCH)
