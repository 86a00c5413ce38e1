"""The cashier's screen, laid out for a counter as Square and Odoo lay out theirs: three columns.

- **Customers**: a compact list of the checked-in customers and its search (F2).
- **The sale**: the product grid with its categories and search (F3) and, on a second
  tab, the keypad page: an item typed by hand (F7), a discount (F4), the cash taken
  (F6), with a numpad for touch screens. While a charge is under way, or once the check
  is finished, this column shows where the charge stands instead: what it waits for
  and for how long, the countdown to automatic cancellation, what happens next.
- **The ticket**: the customer chosen, the lines, the totals with the cash taken and
  the change due, and one big button that does the next thing (Charge, Complete or
  Cancel, New check), always in the same place at the bottom.

The view holds no figures of its own: it asks the register (services) to change the
check and shows what comes back. Amounts the cashier types are read by the terminal's
one money format; a mistake is one sentence and the check stays. Nothing shown or
hidden while the cashier works moves the rest: the reason line, the banner and the
button area keep their room (the reason line grows only for a sentence longer than
its two lines: the whole of why a charge was refused is always shown).
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pos_terminal.domain.people import Approval, ApprovalNeeded, DiscountNeedsApproval, Guarded
from pos_terminal.domain.sale import FINISHED, LOCKED, UNCHARGED, CheckFinished, CheckLocked, Phase
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError
from pos_terminal.ui.approval_dialog import ManagerPrompt, with_approval
from pos_terminal.ui.check_model import CheckModel
from pos_terminal.ui.customers import CustomerPanel
from pos_terminal.ui.keypad import Keypad
from pos_terminal.ui.products import ProductPanel
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import (
    MAX_TYPED_NAME,
    ElidedLabel,
    button,
    confirm,
    empty,
    label,
    on_enter,
    roomy,
    set_role,
    waited,
)

# The first screen is painted before asyncio, the service's side, the check's arithmetic and the catalog load
# (pos_terminal.app): what a method needs of them it imports, by then loaded.
if TYPE_CHECKING:
    import asyncio

    from pos_terminal.api.models import Customer
    from pos_terminal.domain.check import Check
    from pos_terminal.domain.money import MoneyFormat
    from pos_terminal.services.catalog import CatalogEntry
    from pos_terminal.services.register import OpenCheck, Register
    from pos_terminal.services.terminal import Terminal

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

PHASE_TEXT = {
    Phase.BUILDING: "",
    Phase.CHARGING: "Charging…",
    Phase.VERIFYING: "Verifying with the service…",
    Phase.AUTHORIZED: "Authorized",
    Phase.COMPLETE: "Complete",
    Phase.CANCELED: "Canceled",
    Phase.REFUNDED: "Refunded",
    Phase.PAID_IN_CASH: "Paid in cash",
    Phase.FAILED: "Not charged",
    Phase.UNCONFIRMED: "Not confirmed",
}


class NotConnected(UserError):
    """A key that needs the terminal, pressed while the first screen waits for it."""

    sentence = "The terminal is not connected yet."
    hint = "It is connecting; try again in a moment."


CHECK = "check"  # the topic of messages about the open check: they go once the check moves on
VERIFY_FIRST_DELAY = 1.0
VERIFY_MAX_DELAY = 10.0
PENDING_REFRESH_SECONDS = 2  # while a complete or cancel waits to be confirmed, the transaction is read this often
REFRESH_SECONDS = 15  # an authorized transaction is read this often (auto-cancel, a change made elsewhere)
COLUMN_MINIMUM = (200, 400, 330)  # customers, the sale, the ticket: 1024 px wide holds all three
COLUMN_STRETCH = (2, 5, 3)
MAX_TYPED_AMOUNT = 20  # a price, a percent, a discount, the cash taken: more than an int32 of cents can hold


class Page:
    """The pages of the middle column."""

    SALE = 0
    STATUS = 1


class Actions:
    """The pages of the ticket's button area."""

    CHARGE = 0
    DECIDE = 1
    NEXT = 2


def _least_room(widget: QLabel, lines: int) -> None:
    """Keep a wrapped label at least ``lines`` lines high, shown or hidden, so that a short sentence coming or
    going never moves the rest; a longer one grows it to every line it needs (a fixed height drew a third line
    cut at the top and the bottom)."""
    widget.ensurePolished()
    margins = widget.contentsMargins()
    widget.setMinimumHeight(lines * widget.fontMetrics().lineSpacing() + margins.top() + margins.bottom() + 4)
    widget.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    policy = widget.sizePolicy()
    policy.setVerticalPolicy(QSizePolicy.Policy.Minimum)
    policy.setHeightForWidth(True)
    policy.setRetainSizeWhenHidden(True)
    widget.setSizePolicy(policy)


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


class CashierView(QWidget):
    """Signals: ``changed()`` after any change of the open check (the status bar re-reads the outbox);
    ``open_shift_requested()`` the big button (or F8) pressed while no shift is open: it offers to open one."""

    changed = Signal()
    open_shift_requested = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self.tasks = Tasks(messages, self)
        self.terminal: Terminal | None = None
        self.confirmation: QMessageBox | None = None
        self._shown_phase: Phase | None = None
        self._waiting_since: float | None = None  # when the request the screen waits on went out
        self._verify_now: asyncio.Event | None = None  # set by "Check now" while a charge is verified
        self._next_verify_at: float | None = None
        self._changing = ""  # "complete" or "cancel" while that request is out
        self._offering_shift = False  # the big button opens a shift: none is open, and a charge needs one
        self.prompt: ManagerPrompt | None = None  # a manager's approval being asked for

        # Each column is made in its place (the window is built from the top down: see MainWindow).
        self.customers = CustomerPanel(messages, self)
        self.customers.chosen.connect(self.on_customer_chosen)
        self.middle = QStackedWidget(self)
        self.entry_tabs = QTabWidget(self.middle)
        self.entry_tabs.setDocumentMode(True)
        self.entry_tabs.setAccessibleName("Products or keypad")
        self.products = ProductPanel(self.entry_tabs)
        self.products.chosen.connect(self.add_catalog_item)
        self.products.not_found.connect(self.on_product_not_found)
        self.catalog_box = self.products.catalog_box
        self.entry_tabs.addTab(self.products, "Products (F3)")
        self.entry_tabs.addTab(self._keypad_page(QWidget(self.entry_tabs)), "Keypad (F7)")
        self.status_page = self._status_page(self.middle)
        self.middle.addWidget(self.entry_tabs)
        self.middle.addWidget(self.status_page)

        ticket = self._ticket(QWidget(self))
        columns = QHBoxLayout(self)
        columns.setContentsMargins(8, 8, 8, 8)
        columns.setSpacing(12)
        for column, minimum, stretch in zip(
            (self.customers, self.middle, ticket), COLUMN_MINIMUM, COLUMN_STRETCH, strict=True
        ):
            column.setMinimumWidth(minimum)
            columns.addWidget(column, stretch)

        self._connect()
        self._tab_order()
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.on_tick)
        self._ticks = 0

    # --- building the screen ------------------------------------------------------------------------

    def _keypad_page(self, page: QWidget) -> QWidget:
        from pos_terminal.domain.limits import MAX_QUANTITY  # the check's arithmetic itself loads after the paint

        self.item_name = QLineEdit()
        self.item_name.setPlaceholderText("What is sold (F7)")
        self.item_name.setAccessibleName("Item name")
        self.item_price = QLineEdit()
        self.item_price.setPlaceholderText("0.00")
        self.item_price.setAccessibleName("Item price")
        self.item_quantity = QuantityBox()
        self.item_quantity.setRange(1, MAX_QUANTITY)
        self.item_quantity.setAccessibleName("Item quantity")
        self.item_quantity.refused.connect(lambda sentence: self.messages.show_error(sentence, topic=CHECK))
        self.item_tax = QLineEdit("10")
        self.item_tax.setAccessibleName("Item tax rate in percent")
        self.item_tax.setToolTip("Tax rate in percent, included in the price (leave empty for no tax)")
        self.add_item_button = button("Add", name="Add item")
        self.discount_input = QLineEdit()
        self.discount_input.setPlaceholderText("5.00 or 10% (F4)")
        self.discount_input.setAccessibleName("Discount")
        self.discount_input.setToolTip("A discount on the check: an amount, or a percent of the items")
        self.add_discount_button = button("Add", name="Add discount")
        self.cash_input = QLineEdit()
        self.cash_input.setPlaceholderText("Cash the customer gave (F6)")
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
        first_column = (captions[0], captions[1], captions[4], captions[5])  # Item, Price, Discount, Cash taken
        width = max(c.minimumWidth() for c in first_column)
        for shown in first_column:
            shown.setFixedWidth(width)
        page.setAccessibleName("Keypad")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 8, 0, 0)
        for line in rows:
            layout.addLayout(line)
        layout.addWidget(self.typing_into)
        layout.addWidget(self.keypad)
        layout.addStretch(1)
        return page

    def _status_page(self, parent: QWidget) -> QWidget:
        self.phase = label(role="phase")
        self.phase.setAccessibleName("Charge status")
        self.summary = label(role="heading", wrap=True)
        self.summary.setAccessibleName("Amount and customer")
        self.transaction_text = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)
        self.transaction_text.setProperty("role", "hint")
        self.transaction_text.setAccessibleName("Transaction")
        self.wait_text = label(wrap=True)
        self.wait_text.setAccessibleName("What the terminal waits for")
        self.countdown = label(role="reason", wrap=True)
        self.countdown.setAccessibleName("Time before automatic cancellation")
        self.charge_message = label(wrap=True)
        self.charge_message.setAccessibleName("Charge message")
        self.next_text = label(role="hint", wrap=True)
        self.next_text.setAccessibleName("What happens next")
        self.check_now_button = button("Check now", name="Check the charge with the service now")
        self.check_now_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        page = QFrame(parent)
        page.setObjectName("charge")
        page.setAccessibleName("Where the charge stands")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.addStretch(1)  # in the middle of the column, where the eye is
        for widget in (
            self.phase,
            self.summary,
            self.transaction_text,
            self.wait_text,
            self.countdown,
            self.charge_message,
            self.next_text,
        ):
            layout.addWidget(widget)
        layout.addWidget(self.check_now_button)
        layout.addStretch(2)
        return page

    def _ticket(self, ticket: QWidget) -> QWidget:
        # wraps rather than shortens: a long name with its member number is read whole at 1024 px
        self.customer_text = label("No customer chosen", role="heading", wrap=True)
        self.customer_text.setAccessibleName("Customer of the check")

        self.lines = CheckModel(self)
        self.table = QTableView()
        self.table.setModel(self.lines)
        self.table.setAccessibleName("Lines of the check")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # a long item name wraps onto a second line beside a large amount, rather than shrinking to "Fla…"
        self.table.setWordWrap(True)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setMinimumHeight(96)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setMinimumSectionSize(34)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            self.table.horizontalHeader().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)

        self.less_button = button("−1", name="One less", shortcut="-")
        self.more_button = button("+1", name="One more", shortcut="+")
        self.remove_button = button("Remove line", name="Remove line", shortcut="Del")
        line_buttons = QHBoxLayout()
        for widget in (self.less_button, self.more_button, self.remove_button):
            line_buttons.addWidget(widget, 1)

        totals = QFrame()
        totals.setObjectName("totals")
        totals.setAccessibleName("Totals")
        grid = QGridLayout(totals)
        grid.setContentsMargins(12, 6, 12, 6)
        grid.setVerticalSpacing(2)
        self.figures: dict[str, tuple[QLabel, QLabel]] = {}
        for row, (key, text) in enumerate(
            (
                ("item_total", "Items"),
                ("discount_total", "Discounts"),
                ("total", "Total"),
                ("tax", "Tax included"),
                ("payments", "Cash taken"),
                ("balance", "Balance"),
                ("loyalty", "Loyalty"),  # what the service took off a member's charge, once it is known
            )
        ):
            name, value = label(text), label()
            value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            value.setAccessibleName(text)
            if key in ("total", "balance"):
                name.setProperty("role", "big")
                value.setProperty("role", "big")
            grid.addWidget(name, row, 0)
            grid.addWidget(value, row, 1)
            self.figures[key] = (name, value)
        for shown in self.figures["loyalty"]:  # its room is kept: it coming never moves the lines above
            policy = shown.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            shown.setSizePolicy(policy)
            shown.hide()

        self.reason = label(role="reason", wrap=True)
        self.reason.setAccessibleName("Why the check cannot be charged")
        _least_room(self.reason, 2)

        self.charge_button = button("Charge", role="primary", name="Charge", shortcut="F8")
        self.complete_button = button("Complete", role="primary", name="Complete", shortcut="F9")
        self.cancel_button = button("Cancel", role="danger", name="Cancel transaction", shortcut="Shift+F9")
        self.new_check_button = button("New check", role="primary", name="New check", shortcut="Ctrl+N")
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

        ticket.setAccessibleName("Ticket")
        layout = QVBoxLayout(ticket)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.customer_text)
        layout.addWidget(self.table, 1)
        layout.addLayout(line_buttons)
        layout.addWidget(totals)
        layout.addWidget(self.reason)
        layout.addWidget(self.action_area)
        return ticket

    def _connect(self) -> None:
        self.add_item_button.clicked.connect(self.on_add_item_clicked)
        self.item_name.returnPressed.connect(self.item_price.setFocus)
        self.item_price.returnPressed.connect(self.on_add_item_clicked)
        on_enter(self.item_quantity, self.on_add_item_clicked)
        self.item_tax.returnPressed.connect(self.on_add_item_clicked)
        self.add_discount_button.clicked.connect(self.on_add_discount_clicked)
        self.discount_input.returnPressed.connect(self.on_add_discount_clicked)
        self.add_cash_button.clicked.connect(self.on_add_cash_clicked)
        self.cash_input.returnPressed.connect(self.on_add_cash_clicked)
        self.more_button.clicked.connect(lambda: self.change_quantity(+1))
        self.less_button.clicked.connect(lambda: self.change_quantity(-1))
        self.remove_button.clicked.connect(self.remove_line)
        self.charge_button.clicked.connect(self.charge)
        self.complete_button.clicked.connect(self.complete)
        self.cancel_button.clicked.connect(self.cancel_transaction)
        self.new_check_button.clicked.connect(self.new_check)
        self.check_now_button.clicked.connect(self.check_now)
        self.entry_tabs.currentChanged.connect(lambda _: self._say_typing_into())
        for field in (self.item_price, self.item_quantity, self.item_tax, self.discount_input, self.cash_input):
            field.installEventFilter(self)

    def _tab_order(self) -> None:
        """Left to right, top to bottom, as the screen reads."""
        chain: list[QWidget] = [
            self.customers.search,
            self.customers.table,
            self.customers.refresh_button,
            self.entry_tabs.tabBar(),
            self.products.search,
            *self.products.category_group.buttons(),
            self.item_name,  # the item, its price, quantity and tax, then Add: a price typed after Tab is kept
            self.item_price,
            self.item_quantity,
            self.item_tax,
            self.add_item_button,
            self.discount_input,
            self.add_discount_button,
            self.cash_input,
            self.add_cash_button,
            self.check_now_button,
            self.table,
            self.less_button,
            self.more_button,
            self.remove_button,
            self.charge_button,
            self.complete_button,
            self.cancel_button,
            self.new_check_button,
        ]
        for first, second in itertools.pairwise(chain):
            self.setTabOrder(first, second)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        """An amount field took the focus: say it is the one the numpad types into."""
        if event.type() == QEvent.Type.FocusIn:
            QTimer.singleShot(0, self._say_typing_into)
        return False

    def _say_typing_into(self) -> None:
        target = self.keypad.target
        name = target.accessibleName() if target is not None else ""
        self.typing_into.setText(f"The numpad types into: {name}" if name else "")

    # --- attaching -----------------------------------------------------------------------------------

    @property
    def money(self) -> MoneyFormat:
        """The terminal's one money format (its locale's data loads with the terminal, after the first paint)."""
        if self.terminal is None:
            raise NotConnected()
        return self.terminal.money

    @property
    def register(self) -> Register:
        if self.terminal is None:
            raise NotConnected()
        return self.terminal.register

    def attach(self, terminal: Terminal) -> str | None:
        """Show this terminal's open check (restored from the journal); returns what to tell the cashier."""
        self.terminal = terminal
        self.load_catalog()
        restored = terminal.register.restore()
        terminal.register.on_change(self._on_register_changed)
        self.customers.attach(terminal.customers)
        self._shown_phase = None
        self.show_check()
        self._tick.start()
        if self.register.current.phase is Phase.VERIFYING:
            self._start_verifying()
        elif self.register.current.transaction_id:
            self.tasks.run(self._refresh_transaction(), key="refresh-tx")
        return restored.sentence

    def detach(self) -> None:
        self._tick.stop()
        self.tasks.cancel_all()
        self.customers.detach()
        self.terminal = None

    def load_catalog(self) -> None:
        """Show the terminal's catalog (again: the store's may have changed)."""
        from pos_terminal.services.catalog import Catalog, CatalogError

        if self.terminal is None:
            return
        problem = None
        try:
            catalog = self.terminal.catalog()
        except CatalogError as exc:
            # said in the banner, and kept where the products would be: a later message must not hide it
            self.messages.show_error(exc)
            catalog, problem = Catalog(), exc.text()
        self.products.set_catalog(catalog, self.money, problem=problem)
        self._tab_order()

    # --- rendering -----------------------------------------------------------------------------------

    def show_check(self) -> None:
        if self.terminal is None:
            return
        state = self.register.current
        selected = self._selected_row()
        self.lines.set_check(state.check, self.money)
        if selected is not None:
            row = self.lines.row_of(selected)
            if row is not None:
                self.table.selectRow(row)
        elif self.lines.rowCount():
            self.table.selectRow(self.lines.rowCount() - 1)
        self._render_totals(state)
        customer = state.customer
        self.customer_text.setText(
            f"{customer.display_name}" + (f" · member {customer.member_no}" if customer.member_no else "")
            if customer
            else "No customer chosen (F2 to find one)"
        )
        self.customers.show_chosen(customer)
        if state.phase is not self._shown_phase:
            self.messages.resolve(CHECK)  # what was said about the check before it moved on is no longer true
            self._shown_phase = state.phase
            focused = QApplication.focusWidget()
            if focused is not None and self.middle.isAncestorOf(focused):
                self.table.setFocus()  # never on nothing: the keyboard goes on working when the column changes
            self.middle.setCurrentIndex(Page.SALE if state.editable else Page.STATUS)
        self._render_actions(state)
        self._render_status(state)
        editable = state.editable
        for widget in (self.more_button, self.less_button, self.remove_button, self.entry_tabs):
            widget.setEnabled(editable)
        self.changed.emit()

    def _render_totals(self, state: OpenCheck) -> None:
        totals = state.totals
        for key in ("item_total", "discount_total", "total", "tax", "payments"):
            self.figures[key][1].setText(self.money.format(getattr(totals, key)))
        name, value = self.figures["balance"]
        transaction = state.transaction
        loyalty = 0
        if state.phase in (Phase.COMPLETE, Phase.REFUNDED) and transaction is not None:
            # what the customer paid, after what the service took off (a member's loyalty), not what was asked
            loyalty = transaction.modified_amount or 0
            name.setText("Charged" if state.phase is Phase.COMPLETE else "Refunded")
            value.setText(self.money.format(transaction.amount_charged))
        elif totals.change_due:
            name.setText("Change due")
            value.setText(self.money.format(totals.change_due))
        else:
            name.setText("Balance")
            value.setText(self.money.format(totals.left_to_pay if totals.total >= 0 else totals.balance))
        self.figures["loyalty"][1].setText(self.money.format(loyalty))
        for shown in self.figures["loyalty"]:
            shown.setVisible(bool(loyalty))

    def _render_actions(self, state: OpenCheck) -> None:
        """The big button does the next thing: charge (or finish a cash sale), complete or cancel, a new check."""
        if state.phase is Phase.AUTHORIZED:
            self.action_area.setCurrentIndex(Actions.DECIDE)
            busy = state.pending or bool(self._changing)
            self.complete_button.setEnabled(not busy)
            self.cancel_button.setEnabled(not busy)
            self.reason.hide()
            return
        if state.phase in FINISHED:
            self.action_area.setCurrentIndex(Actions.NEXT)
            self.reason.hide()
            return
        from pos_terminal.services.shifts import NoShiftOpen  # loaded with the terminal

        self.action_area.setCurrentIndex(Actions.CHARGE)
        self._offering_shift = False
        if state.phase in LOCKED:
            self.charge_button.setText(PHASE_TEXT[state.phase])
            self.charge_button.setEnabled(False)
            self.reason.hide()
            return
        check = state.check
        blocked = ""  # why the big button cannot do anything yet
        refused = self.terminal.till.charge_refused() if self.terminal is not None else None
        if refused is not None:  # a cash sale as a charge: its cash belongs in a shift's drawer
            blocked = refused.text()
            self._offering_shift = isinstance(refused, NoShiftOpen)
        elif check.items and check.paid_in_full:
            change = state.totals.change_due
            self.charge_button.setText(
                "Finish cash sale\n" + (f"change due {self.money.format(change)}" if change else "no change due")
            )
        elif not check.items:
            blocked = "Add an item to the check."
        elif problems := check.problems():
            blocked = problems[0].sentence
        elif state.customer is None:
            blocked = "Choose the customer to charge (F2 to find them), or take cash for all of it (F6)."
        if self._offering_shift:
            needs = "a sale needs one" if check.items and check.paid_in_full else "a charge needs one"
            self.charge_button.setText(f"Open a shift\n({needs})")
        elif refused is not None or not (check.items and check.paid_in_full):
            amount = self.money.format(max(0, state.totals.charge_amount))
            name = state.customer.display_name if state.customer else ""
            self.charge_button.setText(f"Charge {amount}\nto {self._fit_name(name)}" if name else "Charge")
        reason = blocked
        if not blocked and state.phase in UNCHARGED and state.message:
            reason = f"{PHASE_TEXT[state.phase]}: {state.message}"
        self.reason.setText(reason)
        self.reason.setVisible(bool(reason))
        self.charge_button.setEnabled(not blocked or self._offering_shift)

    def _fit_name(self, name: str) -> str:
        room = max(120, self.charge_button.width() - 40)
        return self.charge_button.fontMetrics().elidedText(name, Qt.TextElideMode.ElideRight, room)

    def _render_status(self, state: OpenCheck) -> None:
        self.phase.setText(self._phase_text(state))
        set_role(self.phase, "reason" if state.phase in UNCHARGED else "phase")
        totals, customer = state.totals, state.customer
        transaction = state.transaction
        if state.phase is Phase.PAID_IN_CASH:
            change = f"Change due {self.money.format(totals.change_due)}" if totals.change_due else "No change due"
            self.summary.setText(f"{self.money.format(totals.total)} paid in cash. {change}.")
        elif state.phase in (Phase.COMPLETE, Phase.REFUNDED) and transaction is not None:
            loyalty = (
                f" (loyalty {self.money.format(transaction.modified_amount)})" if transaction.modified_amount else ""
            )
            who = f" to {customer.display_name}" if customer else ""
            self.summary.setText(f"Charged {self.money.format(transaction.amount_charged)}{who}{loyalty}")
        elif customer is not None:
            self.summary.setText(f"{self.money.format(max(0, totals.charge_amount))} to {customer.display_name}")
        else:
            self.summary.clear()
        if state.transaction_id:
            self.transaction_text.setText(f"Transaction {state.transaction_id}")
        elif state.phase is Phase.VERIFYING:
            self.transaction_text.setText("No second charge will be sent while this one is being verified.")
        else:
            self.transaction_text.setText("")
        self.transaction_text.setVisible(bool(self.transaction_text.text()))
        self.charge_message.setText(state.message or "")
        self.charge_message.setVisible(bool(state.message) and state.phase not in UNCHARGED)
        self.check_now_button.setVisible(state.phase is Phase.VERIFYING)
        self._render_waits()

    def _phase_text(self, state: OpenCheck) -> str:
        if state.phase is Phase.AUTHORIZED and self._changing:
            return "Completing…" if self._changing == "complete" else "Canceling…"
        if state.phase is Phase.AUTHORIZED and state.pending:
            return "Authorized — sending…"
        return PHASE_TEXT[state.phase]

    def _render_waits(self) -> None:
        """What the screen waits for and for how long, the countdown, and what happens next; every second."""
        if self.terminal is None:
            return
        state = self.register.current
        self._render_countdown()
        wait, next_step = "", ""
        since = time.monotonic() - self._waiting_since if self._waiting_since is not None else 0.0
        if state.phase is Phase.CHARGING:
            wait = f"Waiting for the service to authorize the charge ({waited(since)})."
        elif state.phase is Phase.VERIFYING:
            wait, next_step = self._verify_texts()
        elif state.phase is Phase.AUTHORIZED and self._changing:
            wait = f"Waiting for the service to confirm the {self._changing} ({waited(since)})."
        elif state.phase is Phase.AUTHORIZED and state.pending:
            made = self.register.pending_since()
            for_how_long = f" ({waited((datetime.now(UTC) - made).total_seconds())})" if made else ""
            wait = (
                f"The service has not confirmed the {self._pending_target()} yet{for_how_long}; the terminal "
                "sends it again until it does and reads the transaction every few seconds."
            )
        elif state.phase is Phase.AUTHORIZED:
            next_step = "Complete (F9) charges the customer; Cancel (Shift+F9) releases the amount."
        elif state.phase is Phase.PAID_IN_CASH:
            next_step = (
                "Kept on this terminal for the shift's report; nothing was sent to the service and no customer "
                "account was touched. New check (Ctrl+N) starts the next sale."
            )
        elif state.phase in FINISHED:
            next_step = "New check (Ctrl+N) starts the next sale."
        self.wait_text.setText(wait)
        self.wait_text.setVisible(bool(wait))
        self.next_text.setText(next_step)
        self.next_text.setVisible(bool(next_step))

    def _pending_target(self) -> str:
        targets = self.register.pending_targets() if self.terminal is not None else []
        return {"complete": "complete", "canceled": "cancel"}.get(targets[0], "change") if targets else "change"

    def _verify_texts(self) -> tuple[str, str]:
        window = self.register.verify_window()
        now = datetime.now(UTC)
        if window is None:
            return "Verifying the charge with the service.", ""
        sent, gives_up = window
        wait = f"Verifying the charge with the service: sent {waited((now - sent).total_seconds())} ago."
        again = ""
        if self._next_verify_at is not None:
            seconds = max(0, round(self._next_verify_at - time.monotonic()))
            again = f"The terminal asks the service again in {seconds} s (Check now asks at once). "
        if self.register.charge_accepted():
            after = "The service took the charge; the terminal is finding its transaction."
        elif now < gives_up:
            until = gives_up.astimezone().strftime("%H:%M:%S")
            after = (
                f"If the service still has no record of it at {until}, the check can be charged again, and the "
                "terminal cancels this charge should it turn up."
            )
        else:
            after = (
                "If the service has no record of it at the next look, the check can be charged again, and the "
                "terminal cancels this charge should it turn up."
            )
        return wait, f"{again}{after} No second charge is sent meanwhile."

    def _render_countdown(self) -> None:
        if self.terminal is None:
            return
        left = self.register.seconds_left()
        if left is None:
            self.countdown.setText("")
            self.countdown.hide()
            return
        self.countdown.show()
        self.countdown.setText(f"Canceled automatically in {left // 60}:{left % 60:02d} unless completed")

    def on_tick(self) -> None:
        self._ticks += 1
        self._render_waits()
        if self.terminal is None or self.register.current.phase is not Phase.AUTHORIZED:
            return
        every = PENDING_REFRESH_SECONDS if self.register.current.pending else REFRESH_SECONDS
        if self._ticks % every == 0 and not self._changing:
            self.refresh_transaction()

    def refresh_transaction(self) -> None:
        """Read the open check's transaction again (its state may have moved) and show it."""
        if self.terminal is not None:
            self.tasks.run(self._refresh_transaction(), key="refresh-tx", on_error=lambda _: None)

    async def _refresh_transaction(self) -> None:
        await self.register.refresh_transaction()
        self.show_check()

    # --- where the cashier types ----------------------------------------------------------------------

    def entry_refused(self) -> UserError | None:
        """Why the check cannot take an entry now (being charged, or finished); None when it can."""
        if self.terminal is None:
            return NotConnected()
        state = self.register.current
        if state.phase in LOCKED:
            return CheckLocked()
        if state.phase in FINISHED:
            return CheckFinished()
        return None

    def focus_entry(self, field: QWidget) -> None:
        """F3, F4, F6, F7: the field to type in, on its tab; said why not when the check takes no entry now."""
        refused = self.entry_refused()
        if refused is not None:
            self.messages.show_error(refused, topic=CHECK)
            return
        if field is self.products.search:
            self.entry_tabs.setCurrentWidget(self.products)
            self.products.focus_search()
            return
        self.entry_tabs.setCurrentIndex(1)
        field.setFocus()
        if isinstance(field, QLineEdit):
            field.selectAll()

    def on_scanned(self, code: str) -> None:
        """A code the barcode scanner read: its product is added, or the customer whose card it is chosen; an
        unknown code is one sentence (the field typed in was given back what it had)."""
        catalog = self.products.catalog
        if self.terminal is None or catalog is None:
            return
        from pos_terminal.services.catalog import CatalogEntry
        from pos_terminal.services.scanning import resolve_scan

        try:
            found = resolve_scan(code, catalog, self.terminal.customers.checked_in)
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        if isinstance(found, CatalogEntry):
            self.add_catalog_item(found)
        else:
            self.on_customer_chosen(found)

    def on_product_not_found(self, text: str) -> None:
        """Enter on a search that finds no product: the text is an item to type by hand, with its price."""
        self.products.search.setText("")
        self.entry_tabs.setCurrentIndex(1)
        self.item_name.setText(text)
        self.item_price.setFocus()

    # --- editing -------------------------------------------------------------------------------------

    def _edit(
        self,
        change: Callable[[Check], Check],
        *,
        select: str | None = None,
        approval: Approval | None = None,
        done: Callable[[], None] | None = None,
    ) -> bool:
        """Apply ``change`` (then ``done``); one a manager must approve first (a large discount) asks for it."""
        from pos_terminal.domain.check import DiscountTooLarge, TooLarge

        try:
            self.register.edit(change, approval=approval)
        except (DiscountTooLarge, TooLarge) as exc:
            self.messages.show_error(UserError(exc.explained(self.money.format), hint=exc.hint), topic=CHECK)
            return False
        except ApprovalNeeded as exc:
            if approval is None and self.terminal is not None:

                def retry(given: Approval | None) -> None:
                    self._edit(change, select=select, approval=given, done=done)

                # what was said about the check before (a percent refused) is not what the manager is asked
                self.messages.resolve(CHECK)
                question, reason, subject = f"{exc.act.sentence}?", None, None
                if isinstance(exc, DiscountNeedsApproval):
                    subject = f"discount {exc.what(self.money.format)}"
                    question = f"Approve a discount of {exc.what(self.money.format)}?"
                    reason = exc.explained(self.money.format)
                self.prompt = with_approval(
                    self,
                    self.terminal.till,
                    exc.act,
                    question,
                    retry,
                    subject=subject,
                    reason=reason,
                    back_to=self.table,
                )
            else:
                self.messages.show_error(exc, topic=CHECK)
            return False
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return False
        self.messages.resolve(CHECK)
        self.show_check()
        if select is not None and (row := self.lines.row_of(select)) is not None:
            self.table.selectRow(row)
        if done is not None:
            done()
        return True

    def add_catalog_item(self, entry: CatalogEntry) -> None:
        """A product tapped (or found): one more of it when the check has it already, else a new line."""
        if self.terminal is None:
            return
        item = entry.item()
        same = next(
            (
                line
                for line in self.register.current.check.items
                if (line.name, line.unit_price, line.tax_rate_bp, line.tax)
                == (item.name, item.unit_price, item.tax_rate_bp, None)
            ),
            None,
        )
        if same is not None:
            self._edit(lambda check: check.set_quantity(same.id, same.quantity + 1), select=same.id)
        else:
            self._edit(lambda check: check.add_item(item), select=item.id)

    def on_add_item_clicked(self) -> None:
        from pos_terminal.domain.check import Item

        name = self.item_name.text().strip()
        try:
            if not name:
                raise UserError("The item has no name.", hint="Type what is sold, then its price.")
            price = self.money.parse(self.item_price.text())
            tax_text = self.item_tax.text().strip()
            rate = self.money.parse_percent(tax_text) if tax_text not in ("", "0") else None
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        item = Item(name, quantity=self.item_quantity.value(), unit_price=price, tax_rate_bp=rate)
        if self._edit(lambda check: check.add_item(item), select=item.id):
            empty(self.item_name)
            empty(self.item_price)
            self.item_quantity.setValue(1)
            self.item_name.setFocus()

    def on_add_discount_clicked(self) -> None:
        from pos_terminal.domain.check import Discount

        text = self.discount_input.text().strip()
        try:
            if text.endswith("%"):
                percent = self.money.parse_percent(text)
                discount = Discount(f"Discount {text}", percent_bp=percent)
            else:
                amount = self.money.parse(text, allow_negative=True)
                if amount == 0:
                    raise UserError("A discount of nothing is not a discount.", hint="Type an amount or a percent.")
                discount = Discount("Discount", amount=-abs(amount))
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        self._edit(
            lambda check: check.add_discount(discount), select=discount.id, done=lambda: empty(self.discount_input)
        )

    def on_add_cash_clicked(self) -> None:
        from pos_terminal.domain.check import CASH, Payment

        try:
            amount = self.money.parse(self.cash_input.text())
            if amount == 0:
                raise UserError("The cash taken is zero.", hint="Type the amount the customer gave.")
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        payment = Payment(CASH, amount)
        if self._edit(lambda check: check.add_payment(payment), select=payment.id):
            empty(self.cash_input)
            if self.register.current.check.paid_in_full:
                self.charge_button.setFocus()  # Enter finishes the cash sale

    def _selected_row(self) -> str | None:
        index = self.table.currentIndex()
        row = self.lines.row(index.row()) if index.isValid() else None
        return row.line_id if row else None

    def change_quantity(self, delta: int) -> None:
        index = self.table.currentIndex()
        row = self.lines.row(index.row()) if index.isValid() else None
        if row is None or row.kind != "item" or self.terminal is None:
            self.messages.show_error("Select an item of the check first.", topic=CHECK)
            return
        item = next(i for i in self.register.current.check.items if i.id == row.line_id)
        if item.quantity + delta < 1:
            self.remove_line()
            return
        self._edit(lambda check: check.set_quantity(row.line_id, item.quantity + delta), select=row.line_id)

    def remove_line(self) -> None:
        index = self.table.currentIndex()
        row = self.lines.row(index.row()) if index.isValid() else None
        if row is None:
            self.messages.show_error("Select a line of the check first.", topic=CHECK)
            return
        removers: dict[str, Callable[[Check], Check]] = {
            "item": lambda check: check.remove_item(row.line_id),
            "discount": lambda check: check.remove_discount(row.line_id),
            "payment": lambda check: check.remove_payment(row.line_id),
        }
        self._edit(removers[row.kind])

    def on_customer_chosen(self, customer: Customer) -> None:
        try:
            self.register.choose_customer(customer)
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            self.show_check()
            return
        self.messages.resolve(CHECK)
        self.show_check()
        self.entry_tabs.setCurrentWidget(self.products)
        self.products.focus_search()  # the next thing a cashier does: what the customer buys

    def request_new_check(self) -> None:
        """Ctrl+N: a check being built is only thrown away once the cashier says so."""
        if self.terminal is None:
            return
        state = self.register.current
        if not state.unfinished:
            self.new_check()
            return
        lines = len(state.check.items)
        what = f"{counted(lines, 'item')}, {self.money.format(state.totals.total)}"
        who = f" for {state.customer.display_name}" if state.customer else ""
        self.confirmation = confirm(
            self,
            "New check",
            "Start a new check?",
            f"The check being built ({what}{who}) is thrown away. Nobody has been charged for it.",
            self.new_check,
        )

    def new_check(self) -> None:
        try:
            self.register.new_check()
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        empty(self.customers.search)
        empty(self.products.search)  # the last check's filter would hide most products from the next one
        self.show_check()
        self.entry_tabs.setCurrentWidget(self.products)
        self.customers.focus_search()

    # --- charging ------------------------------------------------------------------------------------

    def charge(self) -> None:
        """F8 or the big button: charge the customer the balance, or finish a check the cash pays in full."""
        if self.terminal is None:
            return
        state = self.register.current
        self._render_actions(state)  # a shift opened or closed elsewhere (the command line) changes the offer
        if self._offering_shift:  # a cash sale too: its cash goes into a shift's drawer
            self.open_shift_requested.emit()
            return
        if state.editable and state.check.paid_in_full:
            self.finish_cash_sale()
            return
        if not self.charge_button.isEnabled() or self.action_area.currentIndex() != Actions.CHARGE:
            refused = self.entry_refused()
            if refused is not None and state.phase in LOCKED:
                self.messages.show_error(refused, topic=CHECK)
            elif self.reason.text():
                self.messages.show_error(self.reason.text(), topic=CHECK)
            return
        self.charge_button.setEnabled(False)
        self._waiting_since = time.monotonic()
        self.tasks.run(self._charge(), key="charge", on_error=self._charge_refused)

    def finish_cash_sale(self) -> None:
        try:
            self.register.finish_cash_sale()
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        self.show_check()
        self.new_check_button.setFocus()

    def _charge_refused(self, error: UserError) -> None:
        # The check first, then the sentence: showing a check whose phase moved on clears what was said about the
        # check before, and the refusal said before it was cleared with it, unseen.
        self.show_check()
        self.messages.show_error(error, topic=CHECK)

    def _on_register_changed(self, state: OpenCheck) -> None:
        if state.phase in LOCKED:
            self.show_check()

    async def _charge(self) -> None:
        state = await self.register.charge()
        self.show_check()
        if state.phase is Phase.VERIFYING:
            await self._verify_until_settled()
        elif state.phase is Phase.AUTHORIZED:
            self.complete_button.setFocus()

    def _start_verifying(self) -> None:
        self.tasks.run(self._verify_until_settled(), key="verify")

    def check_now(self) -> None:
        """Ask the service about the charge being verified now rather than at the next look."""
        if self._verify_now is not None:
            self._verify_now.set()

    async def _verify_until_settled(self) -> None:
        import asyncio  # the loop runs by now

        self._verify_now = self._verify_now or asyncio.Event()
        delay = VERIFY_FIRST_DELAY
        verifying = self.terminal is not None and self.register.current.phase is Phase.VERIFYING
        try:
            while verifying:
                self._next_verify_at = None
                try:
                    state = await self.register.verify()
                except UserError as exc:
                    self.charge_message.setText(f"{exc.sentence} Still verifying…")
                    state = self.register.current
                self.show_check()
                verifying = self.terminal is not None and state.phase is Phase.VERIFYING
                if verifying:
                    self._next_verify_at = time.monotonic() + delay
                    self._render_waits()
                    self._verify_now.clear()
                    with contextlib.suppress(TimeoutError):  # "Check now" cuts the pause short
                        await asyncio.wait_for(self._verify_now.wait(), delay)
                delay = min(delay * 2, VERIFY_MAX_DELAY)
        finally:
            self._next_verify_at = None
        if self.terminal is not None and self.register.current.phase is Phase.AUTHORIZED:
            self.complete_button.setFocus()

    def complete(self) -> None:
        if self.terminal is None or self.register.current.phase is not Phase.AUTHORIZED:
            return
        self._change("complete", self._complete())

    def cancel_transaction(self) -> None:
        """Cancel the authorized transaction: the customer was charged, so a cashier needs a manager."""
        terminal = self.terminal
        state = self.register.current if terminal is not None else None
        if terminal is None or state is None or state.phase is not Phase.AUTHORIZED or not state.transaction_id:
            return
        whose = f" to {state.customer.display_name}" if state.customer else ""
        question = f"Cancel the charge of {self.money.format(state.totals.charge_amount)}{whose}?"
        self.prompt = with_approval(
            self,
            terminal.till,
            Guarded.CANCEL_CHARGED,
            question,
            self._start_cancel,
            subject=state.transaction_id,
            back_to=self.table,
        )

    def _start_cancel(self, approval: Approval | None) -> None:
        if self.terminal is None or self.register.current.phase is not Phase.AUTHORIZED:
            return
        self._change("cancel", self._cancel(approval))

    def _change(self, what: str, work: Coroutine[Any, Any, None]) -> None:
        """Complete or cancel: the screen says which it waits for, and for how long, until the answer."""
        self._changing = what
        self._waiting_since = time.monotonic()
        self.complete_button.setEnabled(False)
        self.cancel_button.setEnabled(False)
        self.tasks.run(work, key="state", on_error=self._charge_refused)
        self._render_status(self.register.current)

    async def _complete(self) -> None:
        try:
            await self.register.complete()
        finally:
            self._changing = ""
        self.show_check()
        if self.register.current.phase is Phase.COMPLETE:
            self.new_check_button.setFocus()

    async def _cancel(self, approval: Approval | None = None) -> None:
        try:
            await self.register.cancel(approval=approval)
        finally:
            self._changing = ""
        self.show_check()
