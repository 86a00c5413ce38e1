"""The customer display: a window of its own for a second screen, facing the customer across the counter.

It shows the lines as they are added, the total, the cash paid and the balance or the
change; then "Charging $X to NAME", "Authorized" and "Thank you". Everything is large and
light on dark, to be read at two metres. It is driven by the register (services), never by
the cashier's widgets: it shows exactly the open check and nothing else, so a check being
started, a new check, or the terminal signing out leaves nothing of the last customer on it,
and a finished check shows no lines and no name, and returns to the welcome after a short while.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.sale import FINISHED, Phase
from pos_terminal.ui.widgets import label

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QResizeEvent, QScreen
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

if TYPE_CHECKING:  # the service's side loads after the first screen is painted (pos_terminal.app)
    from pos_terminal.services.register import OpenCheck, Register

THANKS_SECONDS = 20  # a finished check is shown this long, then the welcome
LINES_SHOWN = 8  # the latest lines; older ones scroll away


def style_for(height: int) -> str:
    """The display's look for a window ``height`` pixels tall: every size a share of the height, so that a
    1080-line screen at two metres reads as easily as a 768-line one (a line of the check is 1/22 of it)."""
    unit = max(24, height // 22)

    def px(times: float) -> str:
        return f"{round(unit * times)}px"

    return f"""
#customerDisplay {{ background: #101418; }}
#customerDisplay QLabel {{ color: #f5f7fa; font-size: {px(1)}; }}
#customerDisplay QLabel[role="welcome"] {{ font-size: {px(2.2)}; font-weight: 600; }}
#customerDisplay QLabel[role="status"] {{ font-size: {px(1.5)}; font-weight: 700; color: #8fd694; }}
#customerDisplay QLabel[role="status-warning"] {{ font-size: {px(1.5)}; font-weight: 700; color: #ffb86b; }}
#customerDisplay QLabel[role="total"] {{ font-size: {px(1.9)}; font-weight: 700; }}
#customerDisplay QLabel[role="figure"] {{ font-size: {px(1.2)}; color: #d8dee9; }}
#customerDisplay QLabel[role="quiet"] {{ font-size: {px(0.9)}; color: #aeb6c2; }}
#customerDisplay QFrame#displayRule {{ background: #3b4252; max-height: 3px; }}
"""


def display_screen(screens: Sequence[QScreen], index: int, cashiers: QScreen | None) -> QScreen | None:
    """The screen the display goes on: the ``index``-th (-1: the last; one out of range: the last), if it is not the
    cashier's; else None."""
    if not screens:
        return None
    screen = screens[index] if -len(screens) <= index < len(screens) else screens[-1]
    return None if screen is cashiers else screen


def _set_role(widget: QLabel, role: str) -> None:
    if widget.property("role") != role:
        widget.setProperty("role", role)
        widget.style().unpolish(widget)
        widget.style().polish(widget)


class CustomerDisplay(QWidget):
    """The open check as the customer sees it. :meth:`attach` follows a register; :meth:`detach` blanks it."""

    def __init__(self, money: MoneyFormat, parent: QWidget | None = None) -> None:
        # never the active window: the cashier's keyboard and scanner stay on the cashier's window
        super().__init__(parent, Qt.WindowType.Window | Qt.WindowType.WindowDoesNotAcceptFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
        self.setObjectName("customerDisplay")
        self.setWindowTitle("pos-terminal — customer display")
        self.setAccessibleName("Customer display")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self._styled_height = 0
        self.money = money
        self.register: Register | None = None
        self.shown: OpenCheck | None = None
        self.store_name: Callable[[], str | None] = lambda: None

        self.welcome = label("Welcome", role="welcome", wrap=True)
        self.welcome.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.welcome.setAccessibleName("Welcome")
        self.status = label(role="status", wrap=True)
        self.status.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.status.setAccessibleName("What happens now")
        self.lines_box = QWidget()
        self.lines_grid = QGridLayout(self.lines_box)
        self.lines_grid.setContentsMargins(0, 0, 0, 0)
        self.lines_grid.setHorizontalSpacing(24)
        self.lines_grid.setColumnStretch(1, 1)
        self.lines_grid.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.lines_scroll = QScrollArea()
        self.lines_scroll.setWidget(self.lines_box)
        self.lines_scroll.setWidgetResizable(True)
        self.lines_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.lines_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.lines_scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.lines_scroll.setStyleSheet("background: transparent;")
        self.line_labels: list[tuple[QLabel, QLabel, QLabel]] = []
        rule = QFrame()
        rule.setObjectName("displayRule")
        rule.setFrameShape(QFrame.Shape.HLine)
        self.total_name, self.total = label("Total", role="total"), label(role="total")
        self.paid_name, self.paid = label("Cash paid", role="figure"), label(role="figure")
        self.balance_name, self.balance = label("To pay", role="figure"), label(role="figure")
        figures = QGridLayout()
        for row, (name, value) in enumerate(
            ((self.total_name, self.total), (self.paid_name, self.paid), (self.balance_name, self.balance))
        ):
            value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            value.setAccessibleName(name.text())
            figures.addWidget(name, row, 0)
            figures.addWidget(value, row, 1)
        self.sale = QWidget()
        sale = QVBoxLayout(self.sale)
        sale.setContentsMargins(0, 0, 0, 0)
        sale.addWidget(self.lines_scroll, 1)
        sale.addWidget(rule)
        sale.addLayout(figures)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 36, 48, 36)
        layout.setSpacing(20)
        layout.addWidget(self.welcome, 1)
        layout.addWidget(self.sale, 3)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        layout.addLayout(status_row)
        self._thanks = QTimer(self)
        self._thanks.setSingleShot(True)
        self._thanks.setInterval(THANKS_SECONDS * 1000)
        self._thanks.timeout.connect(lambda: self.show_state(None))
        self.resize(1024, 768)
        self._styled_height = self.height()
        self.setStyleSheet(style_for(self.height()))
        self.show_state(None)

    # --- following the register ---------------------------------------------------------------------------------

    def attach(
        self, register: Register, money: MoneyFormat, store_name: Callable[[], str | None] = lambda: None
    ) -> None:
        """Follow ``register``'s open check from now on (a listener that goes quiet once another is attached);
        ``store_name`` is the name the welcome says, read each time it is shown (another till may change it)."""
        self.register = register
        self.money = money
        self.store_name = store_name
        register.on_change(lambda state: self.show_state(state) if self.register is register else None)
        self.show_state(register.current)

    def detach(self) -> None:
        self.register = None
        self.show_state(None)

    def place(self, screen_index: int, cashiers: QScreen | None) -> bool:
        """Full screen on screen ``screen_index`` (-1: the last one), unless that is the cashier's screen
        (``cashiers``): then hidden, and False. On a till of one screen the display, screen-sized, had covered the
        cashier's window (the settings to switch it off included)."""
        screen = display_screen(QGuiApplication.screens(), screen_index, cashiers)
        if screen is None:
            self.hide()
            return False
        self.setScreen(screen)
        self.setGeometry(screen.geometry())
        # full screen as showFullScreen() makes it, without its activateWindow(): the keyboard stays the cashier's
        self.setWindowState(Qt.WindowState.WindowFullScreen)
        self.show()
        return True

    # --- showing ------------------------------------------------------------------------------------------------

    def show_state(self, state: OpenCheck | None) -> None:
        """Show ``state`` (None: nobody's check, the welcome). A check's end shows only to the customer who watched
        it: one that ended out of sight (restored finished at a start, refunded later from History) keeps the
        welcome, where its "Refunded." had been shown to whoever stood at the counter next."""
        self._thanks.stop()
        if state is not None and state.phase in FINISHED and self.shown is None:
            state = None
        check = state.check if state is not None else None
        if state is None or check is None or (state.phase is Phase.BUILDING and not check.items and not check.payments):
            self.shown = None
            name = self.store_name()
            self.welcome.setText(f"Welcome to {name}" if name else "Welcome")
            self.welcome.show()
            self.sale.hide()
            self.status.setText("")
            return
        self.shown = state
        finished = state.phase in FINISHED
        text, warning = self._status(state)
        self.status.setText(text)
        _set_role(self.status, "status-warning" if warning else "status")
        if finished:  # what was sold, and to whom, is no longer anybody's business
            self.welcome.setText("Thank you!" if state.phase in (Phase.COMPLETE, Phase.PAID_IN_CASH) else "")
            self.welcome.setVisible(bool(self.welcome.text()))
            self.sale.hide()
            self._show_lines([])
            self._thanks.start()
            return
        self.welcome.hide()
        self.sale.show()
        totals = state.totals
        money = self.money.format
        self._show_lines(self._lines(state))
        self.total.setText(money(totals.total))
        self.paid.setText(money(totals.payments))
        for widget in (self.paid_name, self.paid):
            widget.setVisible(bool(totals.payments))
        if totals.change_due:
            self.balance_name.setText("Change")
            self.balance.setText(money(totals.change_due))
        else:
            self.balance_name.setText("To pay")
            self.balance.setText(money(max(0, totals.left_to_pay)))
        for widget in (self.balance_name, self.balance):
            widget.setVisible(bool(totals.payments))

    def _lines(self, state: OpenCheck) -> list[tuple[str, str, str]]:
        money = self.money.format
        rows = [
            (f"{item.quantity} ×" if item.quantity != 1 else "", item.name, money(item.amount))
            for item in state.check.items
        ]
        rows += [("", priced.discount.name, money(priced.amount)) for priced in state.check.priced_discounts()]
        return rows

    def _show_lines(self, rows: list[tuple[str, str, str]]) -> None:
        while len(self.line_labels) < len(rows):
            row = len(self.line_labels)
            quantity, name, amount = label(role="quiet"), label(), label()
            amount.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            for column, widget in enumerate((quantity, name, amount)):
                self.lines_grid.addWidget(widget, row, column)
            self.line_labels.append((quantity, name, amount))
        for index, labels in enumerate(self.line_labels):
            shown = index < len(rows)
            for widget, text in zip(labels, rows[index] if shown else ("", "", ""), strict=True):
                widget.setText(text)
                widget.setVisible(shown)
        if rows:
            QTimer.singleShot(0, lambda: self.lines_scroll.ensureWidgetVisible(self.line_labels[len(rows) - 1][1]))

    def _status(self, state: OpenCheck) -> tuple[str, bool]:
        money = self.money.format
        totals = state.totals
        name = state.customer.display_name if state.customer else ""
        charge = money(max(0, totals.charge_amount))
        phase = state.phase
        if phase in (Phase.CHARGING, Phase.VERIFYING):
            return (f"Charging {charge} to {name}" if name else f"Charging {charge}"), False
        if phase is Phase.AUTHORIZED:
            return f"Authorized: {charge}", False
        if phase is Phase.COMPLETE:
            charged = state.transaction.amount_charged if state.transaction is not None else totals.charge_amount
            return f"{money(charged)} charged", False
        if phase is Phase.PAID_IN_CASH:
            change = f"Your change: {money(totals.change_due)}" if totals.change_due else "Paid in cash"
            return change, False
        if phase is Phase.CANCELED:
            return "Canceled: nothing was charged.", True
        if phase is Phase.REFUNDED:
            return "Refunded.", True
        if phase is Phase.FAILED:
            return "Not charged.", True
        if phase is Phase.UNCONFIRMED:
            return "The charge was not confirmed.", True
        return "", False

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if abs(self.height() - self._styled_height) > 8:
            self._styled_height = self.height()
            self.setStyleSheet(style_for(self.height()))
