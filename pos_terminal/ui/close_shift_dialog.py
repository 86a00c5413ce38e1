"""Closing a shift: the drawer counted note by note and coin by coin for the configured currency, or in total.

The count is blind: what the drawer should hold is worked out by the till when the
shift closes and shown on the Z report, never here, so the count is what was counted.
The arithmetic of the count is the domain's (:class:`~pos_terminal.domain.shift.DrawerCount`).
Opened with ``open()``, never a nested ``exec()``.
"""

from __future__ import annotations

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.shift import DrawerCount, Shift, denominations, is_note
from pos_terminal.errors import UserError
from pos_terminal.ui.widgets import (
    BUTTON,
    LABEL_SLACK,
    button,
    keyboard_back,
    label,
    least_room,
    wheel_when_focused,
)

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

MOST = 99_999  # of one note or coin


class CloseShiftDialog(QDialog):
    """Signals: ``counted(object, bool)`` the :class:`DrawerCount`, and whether to print the Z report."""

    counted = Signal(object, bool)

    def __init__(self, shift: Shift, money: MoneyFormat, parent: QWidget) -> None:
        super().__init__(parent)
        keyboard_back(self)
        self.money = money
        self.setWindowTitle(f"Close shift {shift.id}")
        self.setAccessibleName(f"Close shift {shift.id}")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        opened = shift.opened_at.astimezone().strftime("%d %b %H:%M")
        layout = QVBoxLayout(self)
        layout.addWidget(label(f"Close shift {shift.id}", role="heading"))
        layout.addWidget(
            label(
                f"Opened {opened} by {shift.opened_by}. Count the cash in the drawer, each note and coin. "
                "The Z report then shows what the drawer should hold, and any difference.",
                role="hint",
                wrap=True,
            )
        )
        self.spins: dict[int, QSpinBox] = {}
        self.line_totals: dict[int, QLabel] = {}
        self.steppers: dict[int, tuple[QPushButton, QPushButton]] = {}
        grid = QGridLayout()
        values = denominations(money.currency)
        columns = {True: 0, False: 5}  # notes on the left, coins on the right, a gap between
        rows = {True: 0, False: 0}
        for heading, note in (("Notes", True), ("Coins", False)):
            if any(is_note(money.currency, v) == note for v in values):
                grid.addWidget(label(heading, role="hint"), 0, columns[note])
        for value in values:
            note = is_note(money.currency, value)
            rows[note] += 1
            spin = QSpinBox()
            spin.setRange(0, MOST)
            spin.setAccessibleName(f"Count of {money.format(value)}")
            # typed, or stepped with buttons a finger can hit: the spin box's own arrows were 10 px
            spin.setButtonSymbols(QSpinBox.ButtonSymbols.NoButtons)
            spin.setAlignment(Qt.AlignmentFlag.AlignRight)
            spin.ensurePolished()
            spin.setMinimumSize(max(72, spin.minimumSizeHint().width()), BUTTON)
            less = button("−", name=f"One {money.format(value)} less")
            more = button("+", name=f"One {money.format(value)} more")
            for step, by in ((less, -1), (more, +1)):
                step.setFixedSize(BUTTON, BUTTON)
                step.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes from count to count
                step.setAutoRepeat(True)
                step.clicked.connect(lambda _=False, s=spin, b=by: s.setValue(s.value() + b))
            stepper = QHBoxLayout()
            stepper.setSpacing(4)
            stepper.addWidget(less)
            stepper.addWidget(spin)
            stepper.addWidget(more)
            line = label(money.format(0))
            line.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            line.ensurePolished()  # measured in the style sheet's font
            # room for the most that can be counted, so no total loses its "$" nor moves the grid
            line.setMinimumWidth(line.fontMetrics().horizontalAdvance(money.format(value * MOST)) + LABEL_SLACK)
            column, row = columns[note], rows[note]
            grid.addWidget(label(money.format(value)), row, column)
            grid.addWidget(label("×"), row, column + 1)
            grid.addLayout(stepper, row, column + 2)
            grid.addWidget(line, row, column + 3)
            self.steppers[value] = (less, more)
            spin.valueChanged.connect(self.on_count_changed)
            self.spins[value] = spin
            self.line_totals[value] = line
        grid.setColumnMinimumWidth(4, 40)
        grid.setHorizontalSpacing(10)
        layout.addLayout(grid)
        if not values:
            layout.addWidget(
                label(f"The terminal has no notes and coins for {money.currency}: type the total.", wrap=True)
            )
        self.total = label(role="heading")
        self.total.setAccessibleName("Cash counted")
        layout.addWidget(self.total)
        typed = QHBoxLayout()
        self.typed_total = QLineEdit()
        self.typed_total.setAccessibleName("Cash counted, in total")
        self.typed_total.setPlaceholderText("Or type the total counted")
        self.typed_total.textChanged.connect(self.on_count_changed)
        typed.addWidget(self.typed_total)
        layout.addLayout(typed)
        self.print_z = QCheckBox("Print the Z report")
        self.print_z.setChecked(True)
        layout.addWidget(self.print_z)
        self.error = label(role="reason", wrap=True)
        least_room(self.error, 2)  # a sentence coming or going as a total is typed never moves the counts
        self.error.hide()
        layout.addWidget(self.error)
        buttons = QHBoxLayout()
        self.close_button = button("Close the &shift", role="danger", name="Close the shift")
        self.cancel_button = button("&Keep the shift open", name="Keep the shift open")
        buttons.addWidget(self.close_button, 2)
        buttons.addWidget(self.cancel_button, 1)
        layout.addLayout(buttons)
        self.close_button.clicked.connect(self.on_close_clicked)
        self.cancel_button.clicked.connect(self.reject)
        wheel_when_focused(self)  # a count changes where it is typed or stepped, never under a passing wheel
        self.on_count_changed()
        if self.spins:
            next(iter(self.spins.values())).setFocus()
        else:
            self.typed_total.setFocus()

    def count(self) -> DrawerCount:
        """What was counted: the total typed, when one is, else the notes and coins."""
        if self.typed_total.text().strip():
            return DrawerCount.of_total(self.money.parse(self.typed_total.text()))
        return DrawerCount.by_denomination({v: s.value() for v, s in self.spins.items()}, self.money.currency)

    def on_count_changed(self) -> None:
        for value, spin in self.spins.items():
            self.line_totals[value].setText(self.money.format(value * spin.value()))
        try:
            count = self.count()
        except UserError as exc:
            self.total.setText("Cash counted: —")
            self.error.setText(exc.text())
            self.error.show()
            return
        self.error.hide()
        self.total.setText(f"Cash counted: {self.money.format(count.total)}")

    def on_close_clicked(self) -> None:
        try:
            count = self.count()
        except UserError as exc:
            self.error.setText(exc.text())
            self.error.show()
            return
        self.counted.emit(count, self.print_z.isChecked())
        self.accept()
