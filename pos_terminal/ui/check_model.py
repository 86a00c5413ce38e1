"""The lines of the check as a table: items, then discounts, then payments already taken."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pos_terminal.domain.check import Check
from pos_terminal.domain.money import MoneyFormat

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Line", "Qty", "Price", "Amount")


@dataclass(frozen=True)
class Row:
    kind: str  # "item", "discount" or "payment"
    line_id: str
    text: str
    quantity: str
    price: str
    amount: str


def rows_of(check: Check, money: MoneyFormat) -> list[Row]:
    rows = [
        Row(
            "item",
            item.id,
            item.name + (f"  (tax {money.format(item.tax_amount)})" if item.tax_amount else ""),
            str(item.quantity),
            money.format(item.unit_price),
            money.format(item.amount),
        )
        for item in check.items
    ]
    for priced in check.priced_discounts():
        discount = priced.discount
        rows.append(Row("discount", discount.id, discount.name, "", "", money.format(priced.amount)))
    for payment in check.payments:
        rows.append(Row("payment", payment.id, f"Paid: {payment.method}", "", "", money.format(-payment.amount)))
    return rows


class CheckModel(QAbstractTableModel):
    def __init__(self, money: MoneyFormat, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.money = money
        self._rows: list[Row] = []

    def set_check(self, check: Check) -> None:
        self.beginResetModel()
        self._rows = rows_of(check, self.money)
        self.endResetModel()

    def row(self, row: int) -> Row | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, line_id: str) -> int | None:
        for index, row in enumerate(self._rows):
            if row.line_id == line_id:
                return index
        return None

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 (Qt's signature)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 (Qt's signature)
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row(index.row())
        if row is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return (row.text, row.quantity, row.price, row.amount)[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and row.kind != "item":
            return QColor("#1f7a4d") if row.kind == "discount" else QColor("#2680c2")
        return None
