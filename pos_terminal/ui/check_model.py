"""The lines of the check as a table: items, then discounts, then payments already taken."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pos_terminal.ui import theme
from pos_terminal.ui.table_model import ReadOnlyTableModel

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

if TYPE_CHECKING:  # the check and its money format come with the terminal, after the first paint
    from pos_terminal.domain.check import Check
    from pos_terminal.domain.money import MoneyFormat

HEADERS = ("Line", "Qty", "Price", "Amount")


@dataclass(frozen=True)
class Row:
    kind: str  # "item", "discount" or "payment"
    line_id: str
    text: str
    quantity: str
    price: str
    amount: str
    detail: str = ""  # the tool tip: the tax an item includes


def rows_of(check: Check, money: MoneyFormat) -> list[Row]:
    from pos_terminal.domain.check import is_cash  # with the check (after the first paint)

    rows = [
        Row(
            "item",
            item.id,
            item.name,
            str(item.quantity),
            money.format(item.unit_price),
            money.format(item.amount),
            f"{item.name}: tax {money.format(item.tax_amount)} included" if item.tax_amount else item.name,
        )
        for item in check.items
    ]
    for priced in check.priced_discounts():
        discount = priced.discount
        rows.append(Row("discount", discount.id, discount.name, "", "", money.format(priced.amount)))
    for payment in check.payments:
        method = "Cash taken" if is_cash(payment.method) else f"Paid: {payment.method}"
        rows.append(Row("payment", payment.id, method, "", "", money.format(-payment.amount)))
    return rows


class CheckModel(ReadOnlyTableModel[Row]):
    headers = HEADERS
    right_aligned = frozenset({1, 2, 3})

    def set_check(self, check: Check, money: MoneyFormat) -> None:
        self.replace_rows(rows_of(check, money))

    def row_of(self, line_id: str) -> int | None:
        for index, row in enumerate(self.rows):
            if row.line_id == line_id:
                return index
        return None

    def cell(self, row: Row, column: int) -> Any:
        return (row.text, row.quantity, row.price, row.amount)[column]

    def style(self, row: Row, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and row.kind != "item":
            colours = theme.current()  # drawn on the table's base colour, with AA contrast in either scheme
            return QColor(colours.success if row.kind == "discount" else colours.payment)
        if role == Qt.ItemDataRole.ToolTipRole and row.detail:
            return row.detail
        return None
