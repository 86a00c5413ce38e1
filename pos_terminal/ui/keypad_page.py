"""The keypad page of the cashier's middle column: an item typed by hand, a discount, the cash taken, a numpad.

The page reads what was typed into the check's own terms (an item, a discount, a payment) with the terminal's
one money format; a mistake is one sentence (a :class:`UserError`) and the fields keep what was typed. The
cashier's view adds what the page read to the check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_terminal.errors import UserError
from pos_terminal.ui.actions import Act, key
from pos_terminal.ui.keypad import Keypad
from pos_terminal.ui.widgets import MAX_TYPED_NAME, button, label, roomy

if TYPE_CHECKING:
    from pos_terminal.domain.check import Discount, Item, Payment
    from pos_terminal.domain.money import MoneyFormat

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSpacerItem,
    QSpinBox,
    QStyle,
    QVBoxLayout,
    QWidget,
)

MAX_TYPED_AMOUNT = 20  # a price, a percent, a discount, the cash taken: more than an int32 of cents can hold


class QuantityBox(QSpinBox):
    """The keypad's quantity: a number above the most a line holds is refused as it is typed (or pasted), and
    said (``refused(str)``), rather than cut to the maximum without a word.

    Signals: ``refused(str)`` the sentence."""

    refused = Signal(str)

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        answer = super().validate(text, pos)
        state = answer[0]
        digits = text.strip().replace(",", "").replace("\u00a0", "")
        if state == QValidator.State.Invalid and digits.isdigit() and int(digits) > self.maximum():
            self.refused.emit(f"A line holds at most {self.maximum():,} of an item.")
        return answer


class KeypadPage(QWidget):
    """The fields, their Add buttons and the numpad, which says which field it types into."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from pos_terminal.domain.limits import MAX_QUANTITY  # the check's arithmetic itself loads after the paint

        self.item_name = QLineEdit()
        self.item_name.setPlaceholderText(f"What is sold ({key(Act.TYPE_ITEM)})")
        self.item_name.setAccessibleName("Item name")
        self.item_price = QLineEdit()
        self.item_price.setPlaceholderText("0.00")
        self.item_price.setAccessibleName("Item price")
        self.item_quantity = QuantityBox()
        self.item_quantity.setRange(1, MAX_QUANTITY)
        self.item_quantity.setAccessibleName("Item quantity")
        # typed here or on the numpad: its arrows were 10 px high, and arrows a finger can hit leave the row no room
        self.item_quantity.setButtonSymbols(QSpinBox.ButtonSymbols.NoButtons)
        self.item_tax = QLineEdit("10")
        self.item_tax.setAccessibleName("Item tax rate in percent")
        self.item_tax.setToolTip("Tax rate in percent, included in the price (leave empty for no tax)")
        self.add_item_button = button("Add", name="Add item")
        self.discount_input = QLineEdit()
        self.discount_input.setPlaceholderText(self._discount_example("5.00", "10"))
        self.discount_input.setAccessibleName("Discount")
        self.discount_input.setToolTip("A discount on the check: an amount, or a percent of the items")
        self.add_discount_button = button("Add", name="Add discount")
        self.cash_input = QLineEdit()
        self.cash_input.setPlaceholderText(f"Cash the customer gave ({key(Act.CASH)})")
        self.cash_input.setAccessibleName("Cash taken")
        self.add_cash_button = button("Add", name="Add cash taken")
        for typed, most in (
            (self.item_name, MAX_TYPED_NAME),
            (self.item_price, MAX_TYPED_AMOUNT),
            (self.item_tax, MAX_TYPED_AMOUNT),
            (self.discount_input, MAX_TYPED_AMOUNT),
            (self.cash_input, MAX_TYPED_AMOUNT),
        ):
            typed.setMaxLength(most)
        self.keypad = Keypad()
        self.keypad.serve(self.item_price, self.item_quantity, self.item_tax, self.discount_input, self.cash_input)
        self.typing_into = label(role="hint")
        self.typing_into.setAccessibleName("The field the numpad types into")
        self._lay_out()
        self.item_name.returnPressed.connect(self.item_price.setFocus)
        for field in (self.item_price, self.item_quantity, self.item_tax, self.discount_input, self.cash_input):
            field.installEventFilter(self)

    def _lay_out(self) -> None:
        captions: list[QLabel] = []

        def caption(text: str, buddy: QWidget) -> QLabel:
            shown = label(text)
            shown.setBuddy(buddy)
            shown.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            roomy(shown)
            captions.append(shown)
            return shown

        def row(*widgets: QWidget) -> QHBoxLayout:
            line = QHBoxLayout()
            for widget in widgets:
                line.addWidget(widget, 0, Qt.AlignmentFlag.AlignVCenter)
            return line

        for field, width in ((self.item_price, 84), (self.item_quantity, 0), (self.item_tax, 60)):
            field.ensurePolished()
            field.setFixedWidth(max(width, field.minimumSizeHint().width()))
        rows = [
            row(caption("&Item", self.item_name), self.item_name, self.add_item_button),
            row(
                caption("&Price", self.item_price),
                self.item_price,
                caption("&Qty", self.item_quantity),
                self.item_quantity,
                caption("&Tax %", self.item_tax),
                self.item_tax,
            ),
            row(caption("&Discount", self.discount_input), self.discount_input, self.add_discount_button),
            row(caption("&Cash taken", self.cash_input), self.cash_input, self.add_cash_button),
        ]
        for stretchy, line in ((self.item_name, rows[0]), (self.discount_input, rows[2]), (self.cash_input, rows[3])):
            line.setStretchFactor(stretchy, 1)
        rows[1].addStretch(1)
        first_column = (captions[0], captions[4], captions[5])  # Item, Discount, Cash taken
        width = max(c.minimumWidth() for c in (*first_column, captions[1]))
        for shown in first_column:
            shown.setFixedWidth(width)
        # the price's row is the widest: its caption keeps its own width and a space before it lines it up with the
        # first column, a space that gives way where the page is narrower (the window at its least size), rather
        # than the caption being run over ("Pric")
        captions[1].setFixedWidth(captions[1].minimumWidth())
        spacing = max(0, self.style().pixelMetric(QStyle.PixelMetric.PM_LayoutHorizontalSpacing))  # after the space
        ahead = max(0, width - captions[1].minimumWidth() - spacing)
        rows[1].insertSpacerItem(0, QSpacerItem(ahead, 0, QSizePolicy.Policy.Preferred))
        self.setAccessibleName("Keypad")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        for line in rows:
            layout.addLayout(line)
        layout.addWidget(self.typing_into)
        layout.addWidget(self.keypad)
        layout.addStretch(1)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        """An amount field took the focus: say it is the one the numpad types into."""
        if event.type() == QEvent.Type.FocusIn:
            QTimer.singleShot(0, self.say_typing_into)
        return False

    def say_typing_into(self) -> None:
        target = self.keypad.target
        name = target.accessibleName() if target is not None else ""
        self.typing_into.setText(f"The numpad types into: {name}" if name else "")

    # --- what was typed ------------------------------------------------------------------------------

    @staticmethod
    def _discount_example(amount: str, percent: str) -> str:
        return f"{amount} or {percent}% ({key(Act.DISCOUNT)})"

    def use_money(self, money: MoneyFormat) -> None:
        """Examples and the numpad's decimal key as the locale writes amounts ("0,00" and "," in de_DE)."""
        self.item_price.setPlaceholderText(money.example(0))
        self.discount_input.setPlaceholderText(self._discount_example(money.example(500), "10"))
        self.keypad.use_decimal_mark(money.decimal_mark)

    def typed_item(self, money: MoneyFormat) -> Item:
        from pos_terminal.domain.check import Item

        name = self.item_name.text().strip()
        if not name:
            raise UserError("The item has no name.", hint="Type what is sold, then its price.")
        price = money.parse(self.item_price.text())
        tax_text = self.item_tax.text().strip()
        rate = money.parse_percent(tax_text) if tax_text not in ("", "0") else None
        return Item(name, quantity=self.item_quantity.value(), unit_price=price, tax_rate_bp=rate)

    def typed_discount(self, money: MoneyFormat) -> Discount:
        from pos_terminal.domain.check import Discount

        text = self.discount_input.text().strip()
        if text.endswith("%"):
            percent = money.parse_percent(text)
            return Discount(f"Discount {text}", percent_bp=percent)
        amount = money.parse(text, allow_negative=True)
        if amount == 0:
            raise UserError("A discount of nothing is not a discount.", hint="Type an amount or a percent.")
        return Discount("Discount", amount=-abs(amount))

    def typed_cash(self, money: MoneyFormat) -> Payment:
        from pos_terminal.domain.check import CASH, Payment

        amount = money.parse(self.cash_input.text())
        if amount == 0:
            raise UserError("The cash taken is zero.", hint="Type the amount the customer gave.")
        return Payment(CASH, amount)
