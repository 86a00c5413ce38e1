"""The cashier's ticket, the right-hand column: the customer chosen, the lines, the totals, and one big button.

The big button does the next thing (Charge, Complete or Cancel, New check) and is always in the same place
at the bottom; the reason line above it keeps its room, so a sentence coming or going never moves the rest.
What the ticket shows is worked out by :mod:`pos_terminal.ui.cashier_presenter`; the ticket only renders it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_terminal.ui.actions import Act, key
from pos_terminal.ui.cashier_presenter import ButtonPage, Offer, balance_line
from pos_terminal.ui.check_model import CheckModel
from pos_terminal.ui.widgets import button, label, least_room

if TYPE_CHECKING:
    from pos_terminal.domain.money import MoneyFormat
    from pos_terminal.services.register import OpenCheck

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

FIGURES = (
    ("item_total", "Items"),
    ("discount_total", "Discounts"),
    ("total", "Total"),
    ("tax", "Tax included"),
    ("payments", "Cash taken"),
    ("balance", "Balance"),
    ("loyalty", "Member's benefit"),  # what the service took off a member's charge, once it is known
)


class LinesTable(QTableView):
    """The lines of the check, one row each; a long item name wraps rather than shrinking to "Fla…"."""

    def __init__(self, lines: CheckModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(lines)
        self.setAccessibleName("Lines of the check")
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # a long item name wraps onto a second line beside a large amount, rather than shrinking to "Fla…"
        self.setWordWrap(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # its heading and a line at the least (960×640), where the totals and a three-line reason keep their room
        self.setMinimumHeight(80)
        self.verticalHeader().hide()
        self.verticalHeader().setMinimumSectionSize(34)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            self.horizontalHeader().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)


class Totals(QFrame):
    """The check's figures, a name and an amount a row; the balance becomes the change due, or what was
    charged or refunded once the check is finished; the loyalty row keeps its room while hidden."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("totals")
        self.setAccessibleName("Totals")
        grid = QGridLayout(self)
        grid.setContentsMargins(12, 6, 12, 6)
        grid.setVerticalSpacing(2)
        self.figures: dict[str, tuple[QLabel, QLabel]] = {}
        for row, (name_of, text) in enumerate(FIGURES):
            name, value = label(text), label()
            value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            value.setAccessibleName(text)
            if name_of in ("total", "balance"):
                name.setProperty("role", "big")
                value.setProperty("role", "big")
            grid.addWidget(name, row, 0)
            grid.addWidget(value, row, 1)
            self.figures[name_of] = (name, value)
        for shown in self.figures["loyalty"]:  # its room is kept: it coming never moves the lines above
            policy = shown.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            shown.setSizePolicy(policy)
            shown.hide()

    def show_totals(self, state: OpenCheck, money: MoneyFormat) -> None:
        totals = state.totals
        for name_of in ("item_total", "discount_total", "total", "tax", "payments"):
            self.figures[name_of][1].setText(money.format(getattr(totals, name_of)))
        name, value = self.figures["balance"]
        balance, figure, loyalty = balance_line(state, money.format)
        name.setText(balance)
        value.setText(figure)
        self.figures["loyalty"][1].setText(money.format(loyalty))
        for shown in self.figures["loyalty"]:
            shown.setVisible(bool(loyalty))


class Ticket(QWidget):
    """The right-hand column. Its buttons are wired by the cashier's view; their shortcuts are their actions'."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # wraps rather than shortens: a long name with its member number is read whole at 1024 px
        self.customer_text = label("No customer chosen", role="heading", wrap=True)
        self.customer_text.setAccessibleName("Customer of the check")
        self.lines = CheckModel(self)
        self.table = LinesTable(self.lines)

        self.less_button = button("−1", name="One less", shortcut=key(Act.LESS))
        self.more_button = button("+1", name="One more", shortcut=key(Act.MORE))
        self.remove_button = button("Remove line", name="Remove line", shortcut=key(Act.REMOVE_LINE))
        line_buttons = QHBoxLayout()
        for widget in (self.less_button, self.more_button, self.remove_button):
            line_buttons.addWidget(widget, 1)

        self.totals = Totals()
        self.figures = self.totals.figures

        self.reason = label(role="reason", wrap=True)
        self.reason.setAccessibleName("Why the check cannot be charged")
        least_room(self.reason, 3)  # a decline's sentence takes three lines of the column: it moved the ±1 buttons

        self.charge_button = button("Charge", role="primary", name="Charge", shortcut=key(Act.CHARGE))
        self.complete_button = button("Complete", role="primary", name="Complete", shortcut=key(Act.COMPLETE))
        self.cancel_button = button("Cancel", role="danger", name="Cancel transaction", shortcut=key(Act.CANCEL_TX))
        self.new_check_button = button("New check", role="primary", name="New check", shortcut=key(Act.NEW_CHECK))
        for big in (self.charge_button, self.complete_button, self.cancel_button, self.new_check_button):
            big.setMinimumHeight(64)
            big.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            big.setAutoDefault(True)  # Enter on the button in focus presses it
        self.charge_button.setEnabled(False)  # nothing to charge before the terminal's check is shown
        self.action_area = QStackedWidget()
        decide = QWidget()
        decide_row = QHBoxLayout(decide)
        decide_row.setContentsMargins(0, 0, 0, 0)
        decide_row.addWidget(self.complete_button, 3)
        decide_row.addWidget(self.cancel_button, 2)
        for page in (self.charge_button, decide, self.new_check_button):
            self.action_area.addWidget(page)
        self.action_area.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.action_area.setFixedHeight(64)

        self.setAccessibleName("Ticket")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.customer_text)
        layout.addWidget(self.table, 1)
        layout.addLayout(line_buttons)
        layout.addWidget(self.totals)
        layout.addWidget(self.reason)
        layout.addWidget(self.action_area)

    def buttons_by_act(self) -> dict[Act, QWidget]:
        """Each of the ticket's buttons with the action whose shortcut it shows."""
        return {
            Act.LESS: self.less_button,
            Act.MORE: self.more_button,
            Act.REMOVE_LINE: self.remove_button,
            Act.CHARGE: self.charge_button,
            Act.COMPLETE: self.complete_button,
            Act.CANCEL_TX: self.cancel_button,
            Act.NEW_CHECK: self.new_check_button,
        }

    def fit_name(self, name: str) -> str:
        """A customer's name shortened to the charge button's width."""
        room = max(120, self.charge_button.width() - 40)
        return self.charge_button.fontMetrics().elidedText(name, Qt.TextElideMode.ElideRight, room)

    def render_offer(self, offer: Offer) -> None:
        self.action_area.setCurrentIndex(offer.page)
        if offer.page is ButtonPage.DECIDE:
            self.complete_button.setEnabled(offer.enabled)
            self.cancel_button.setEnabled(offer.enabled)
        elif offer.page is ButtonPage.CHARGE:
            if offer.text is not None:
                self.charge_button.setText(offer.text)
            self.charge_button.setEnabled(offer.enabled)
        if offer.reason is None:
            self.reason.hide()
            return
        self.reason.setText(offer.reason)
        self.reason.setVisible(bool(offer.reason))
