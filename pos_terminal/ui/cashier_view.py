"""The cashier's screen: customers, the check being built, its totals, and the charge as it goes.

The view holds no figures of its own: it asks the register (services) to change
the check and shows what comes back. Amounts the cashier types are read by the
terminal's one money format; a mistake is one sentence and the check stays.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pos_terminal.api.models import Customer
from pos_terminal.domain.check import Check, Discount, Item, Payment
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.people import Approval, ApprovalNeeded, Guarded
from pos_terminal.errors import UserError
from pos_terminal.services.catalog import CatalogEntry, CatalogError, load_catalog
from pos_terminal.services.register import FINISHED, LOCKED, OpenCheck, Phase, Register
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.approval_dialog import ManagerPrompt, with_approval
from pos_terminal.ui.check_model import CheckModel
from pos_terminal.ui.customers import CustomerPanel
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import button, empty, label, set_role

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
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
    Phase.FAILED: "Not charged",
}

VERIFY_FIRST_DELAY = 1.0
CATALOG_COLUMNS = 3
VERIFY_MAX_DELAY = 10.0


class CashierView(QWidget):
    """Signals: ``changed()`` after any change of the open check (the status bar re-reads the outbox)."""

    changed = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self.tasks = Tasks(messages, self)
        self.terminal: Terminal | None = None
        self.money = MoneyFormat("en_AU", "AUD")
        self.prompt: ManagerPrompt | None = None  # a manager's approval being asked for

        self.customers = CustomerPanel(messages)
        self.customers.chosen.connect(self.on_customer_chosen)

        # --- the check ---
        self.catalog_box = QWidget()
        self.catalog_grid = QGridLayout(self.catalog_box)
        self.catalog_grid.setContentsMargins(0, 0, 0, 0)
        catalog_scroll = QScrollArea()
        catalog_scroll.setWidget(self.catalog_box)
        catalog_scroll.setWidgetResizable(True)
        catalog_scroll.setFrameShape(QFrame.Shape.NoFrame)
        catalog_scroll.setMinimumHeight(130)
        catalog_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        catalog_scroll.setMaximumHeight(200)

        self.item_name = QLineEdit()
        self.item_name.setPlaceholderText("Item (F3)")
        self.item_name.setAccessibleName("Item name")
        self.item_price = QLineEdit()
        self.item_price.setPlaceholderText("Price")
        self.item_price.setAccessibleName("Item price")
        self.item_quantity = QSpinBox()
        self.item_quantity.setRange(1, 9999)
        self.item_quantity.setAccessibleName("Item quantity")
        self.item_quantity.setPrefix("× ")
        self.item_tax = QLineEdit("10")
        self.item_tax.setAccessibleName("Item tax rate in percent")
        self.item_tax.setToolTip("Tax rate in percent, included in the price (leave empty for no tax)")
        self.item_tax.setMaximumWidth(70)
        self.add_item_button = button("Add", name="Add item")
        entry = QHBoxLayout()
        entry.addWidget(self.item_name, 3)
        entry.addWidget(self.item_price, 1)
        entry.addWidget(self.item_quantity)
        entry.addWidget(label("Tax %"))
        entry.addWidget(self.item_tax)
        entry.addWidget(self.add_item_button)

        self.lines = CheckModel(self.money, self)
        self.table = QTableView()
        self.table.setModel(self.lines)
        self.table.setAccessibleName("Lines of the check")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(38)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            self.table.horizontalHeader().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)

        self.less_button = button("−1", name="One less", shortcut="-")
        self.more_button = button("+1", name="One more", shortcut="+")
        self.remove_button = button("Remove line", name="Remove line", shortcut="Del")
        line_buttons = QHBoxLayout()
        for widget in (self.less_button, self.more_button, self.remove_button):
            line_buttons.addWidget(widget)
        line_buttons.addStretch(1)

        self.discount_input = QLineEdit()
        self.discount_input.setPlaceholderText("Discount: amount or percent, e.g. 5.00 or 10% (F4)")
        self.discount_input.setAccessibleName("Discount")
        self.add_discount_button = button("Add discount", name="Add discount")
        self.cash_input = QLineEdit()
        self.cash_input.setPlaceholderText("Cash already paid (F6)")
        self.cash_input.setAccessibleName("Cash paid")
        self.add_cash_button = button("Add cash", name="Add cash paid")
        extras = QHBoxLayout()
        extras.addWidget(self.discount_input, 2)
        extras.addWidget(self.add_discount_button)
        extras.addWidget(self.cash_input, 2)
        extras.addWidget(self.add_cash_button)

        check_box = QWidget()
        check_layout = QVBoxLayout(check_box)
        check_layout.setContentsMargins(0, 0, 0, 0)
        check_layout.addWidget(label("Check", role="heading"))
        check_layout.addWidget(catalog_scroll)
        check_layout.addLayout(entry)
        check_layout.addWidget(self.table, 1)
        check_layout.addLayout(line_buttons)
        check_layout.addLayout(extras)

        # --- totals and charge ---
        totals = QFrame()
        totals.setObjectName("totals")
        grid = QGridLayout(totals)
        self.figures: dict[str, tuple[object, object]] = {}
        for row, (key, text) in enumerate(
            (
                ("item_total", "Items"),
                ("discount_total", "Discounts"),
                ("total", "Total"),
                ("tax", "Tax included"),
                ("payments", "Paid"),
                ("balance", "Balance"),
            )
        ):
            name, value = label(text), label()
            value.setAlignment(Qt.AlignmentFlag.AlignRight)
            value.setAccessibleName(text)
            if key in ("total", "balance"):
                name.setProperty("role", "heading")
                value.setProperty("role", "heading")
            grid.addWidget(name, row, 0)
            grid.addWidget(value, row, 1)
            self.figures[key] = (name, value)
        self.charge_button = button("Charge", role="primary", name="Charge", shortcut="F8")
        self.reason = label(role="reason", wrap=True)
        self.reason.setAccessibleName("Why the check cannot be charged")

        self.charge_box = charge_box = QFrame()
        charge_box.setObjectName("charge")
        charge_layout = QVBoxLayout(charge_box)
        self.phase = label(role="phase")
        self.phase.setAccessibleName("Charge status")
        self.transaction_text = label(role="hint", wrap=True)
        self.transaction_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.countdown = label(role="reason", wrap=True)
        self.countdown.setAccessibleName("Time before automatic cancellation")
        self.charge_message = label(wrap=True)
        self.complete_button = button("Complete", role="primary", name="Complete", shortcut="F9")
        self.cancel_button = button("Cancel transaction", role="danger", name="Cancel transaction", shortcut="Shift+F9")
        self.new_check_button = button("New check", name="New check", shortcut="Ctrl+N")
        for shown in (self.phase, self.transaction_text, self.countdown, self.charge_message):
            charge_layout.addWidget(shown)
        state_buttons = QHBoxLayout()
        state_buttons.addWidget(self.complete_button, 2)
        state_buttons.addWidget(self.cancel_button, 1)
        charge_layout.addLayout(state_buttons)
        charge_layout.addWidget(self.new_check_button)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        self.customer_text = label("No customer chosen", role="heading", wrap=True)
        self.customer_text.setAccessibleName("Customer of the check")
        right_layout.addWidget(self.customer_text)
        right_layout.addWidget(totals)
        right_layout.addWidget(self.charge_button)
        right_layout.addWidget(self.reason)
        right_layout.addWidget(charge_box)
        right_layout.addStretch(1)

        splitter = QSplitter()
        splitter.addWidget(self.customers)
        splitter.addWidget(check_box)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 5)
        splitter.setStretchFactor(2, 3)
        splitter.setSizes([340, 560, 380])
        right.setMinimumWidth(340)
        self.customers.setMinimumWidth(300)
        splitter.setChildrenCollapsible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(splitter)

        self.add_item_button.clicked.connect(self.on_add_item_clicked)
        self.item_price.returnPressed.connect(self.on_add_item_clicked)
        self.item_name.returnPressed.connect(self.item_price.setFocus)
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

        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.on_tick)
        self._ticks = 0
        self.setTabOrder(self.customers.search, self.item_name)
        self.setTabOrder(self.item_name, self.item_price)
        self.setTabOrder(self.item_price, self.item_quantity)
        self.setTabOrder(self.item_quantity, self.item_tax)
        self.setTabOrder(self.item_tax, self.add_item_button)
        self.setTabOrder(self.add_item_button, self.table)
        self.setTabOrder(self.table, self.discount_input)
        self.setTabOrder(self.discount_input, self.cash_input)
        self.setTabOrder(self.cash_input, self.charge_button)
        self.setTabOrder(self.charge_button, self.complete_button)

    # --- attaching -------------------------------------------------------------------------------

    @property
    def register(self) -> Register:
        if self.terminal is None:
            raise UserError("The terminal is not connected yet.")
        return self.terminal.register

    def attach(self, terminal: Terminal) -> str | None:
        """Show this terminal's open check (restored from the journal); returns what to tell the cashier."""
        self.terminal = terminal
        self.money = terminal.money
        self.lines.money = terminal.money
        self.load_catalog(terminal.settings.catalog_file)
        restored = terminal.register.restore()
        terminal.register.on_change(self._on_register_changed)
        self.customers.attach(terminal.customers)
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

    def load_catalog(self, path: str | None) -> None:
        while self.catalog_grid.count():
            item = self.catalog_grid.takeAt(0)
            old = item.widget() if item is not None else None
            if old is not None:
                old.deleteLater()
        try:
            entries = load_catalog(path)
        except CatalogError as exc:
            # said in the banner, and kept where the buttons would be: a later message must not hide it
            self.messages.show_error(exc)
            problem = label(exc.text(), role="hint", wrap=True)
            problem.setAccessibleName("Catalog problem")
            self.catalog_grid.addWidget(problem, 0, 0, 1, CATALOG_COLUMNS)
            entries = ()
        for index, entry in enumerate(entries):
            quick = button(f"{entry.name}\n{self.money.format(entry.price)}", role="catalog", name=f"Add {entry.name}")
            quick.clicked.connect(lambda _=False, e=entry: self.add_catalog_item(e))
            self.catalog_grid.addWidget(quick, index // CATALOG_COLUMNS, index % CATALOG_COLUMNS)

    # --- rendering -------------------------------------------------------------------------------

    def show_check(self) -> None:
        if self.terminal is None:
            return
        state = self.register.current
        selected = self._selected_row()
        self.lines.set_check(state.check)
        if selected is not None:
            row = self.lines.row_of(selected)
            if row is not None:
                self.table.selectRow(row)
        elif self.lines.rowCount():
            self.table.selectRow(self.lines.rowCount() - 1)
        totals = state.totals
        for key, (_, value) in self.figures.items():
            value.setText(self.money.format(getattr(totals, key)))  # type: ignore[attr-defined]
        customer = state.customer
        self.customer_text.setText(
            f"{customer.display_name}" + (f" · member {customer.member_no}" if customer.member_no else "")
            if customer
            else "No customer chosen"
        )
        self.customers.show_chosen(customer)
        self._render_charge_button(state)
        self._render_phase(state)
        editable = state.editable or state.phase in FINISHED
        for widget in (
            self.add_item_button,
            self.add_discount_button,
            self.add_cash_button,
            self.more_button,
            self.less_button,
            self.remove_button,
            self.catalog_box,
        ):
            widget.setEnabled(editable)
        self.changed.emit()

    def _render_charge_button(self, state: OpenCheck) -> None:
        """Shown while the check is being built; once charged, the charge panel says where it stands."""
        self.charge_button.setVisible(state.editable)
        amount = self.money.format(max(0, state.totals.charge_amount))
        self.charge_button.setText(f"Charge {amount}\nto {state.customer.display_name}" if state.customer else "Charge")
        reason = ""
        if not state.editable:
            reason = ""
        elif not state.check.items:
            reason = "Add an item to the check."
        elif problems := state.check.problems():
            reason = problems[0].sentence
        elif state.customer is None:
            reason = "Choose the customer to charge (F2 to find them)."
        self.reason.setText(reason)
        self.reason.setVisible(bool(reason))
        self.charge_button.setEnabled(state.editable and not reason)

    def _render_phase(self, state: OpenCheck) -> None:
        self.phase.setText(PHASE_TEXT[state.phase] + (" — sending…" if state.pending else ""))
        set_role(self.phase, "reason" if state.phase is Phase.FAILED else "phase")
        transaction = state.transaction
        if state.transaction_id:
            charged = ""
            if transaction is not None and state.phase in (Phase.COMPLETE, Phase.REFUNDED):
                charged = f" · charged {self.money.format(transaction.amount_charged)}"
                if transaction.modified_amount:
                    charged += f" (loyalty {self.money.format(transaction.modified_amount)})"
            self.transaction_text.setText(f"Transaction {state.transaction_id}{charged}")
        elif state.phase is Phase.VERIFYING:
            self.transaction_text.setText("No second charge will be sent while this one is being verified.")
        else:
            self.transaction_text.clear()
        self.charge_message.setText(state.message or "")
        self.charge_message.setVisible(bool(state.message))
        authorized = state.phase is Phase.AUTHORIZED
        self.complete_button.setVisible(authorized)
        self.cancel_button.setVisible(authorized)
        self.complete_button.setEnabled(authorized and not state.pending)
        self.cancel_button.setEnabled(authorized and not state.pending)
        self.new_check_button.setVisible(state.phase in FINISHED or state.phase is Phase.FAILED)
        self._render_countdown()
        self.charge_box.setVisible(state.phase is not Phase.BUILDING)

    def _render_countdown(self) -> None:
        if self.terminal is None:
            return
        left = self.register.seconds_left()
        if left is None:
            self.countdown.clear()
            self.countdown.hide()
            return
        self.countdown.show()
        self.countdown.setText(f"Canceled automatically in {left // 60}:{left % 60:02d} unless completed")

    def on_tick(self) -> None:
        self._render_countdown()
        self._ticks += 1
        if self.terminal is not None and self.register.current.phase is Phase.AUTHORIZED and self._ticks % 15 == 0:
            self.refresh_transaction()

    def refresh_transaction(self) -> None:
        """Read the open check's transaction again (its state may have moved) and show it."""
        if self.terminal is not None:
            self.tasks.run(self._refresh_transaction(), key="refresh-tx", on_error=lambda _: None)

    async def _refresh_transaction(self) -> None:
        await self.register.refresh_transaction()
        self.show_check()

    # --- editing ----------------------------------------------------------------------------------

    def _edit(
        self,
        change: Callable[[Check], Check],
        *,
        select: str | None = None,
        approval: Approval | None = None,
        done: Callable[[], None] | None = None,
    ) -> bool:
        """Apply ``change`` (then ``done``); one a manager must approve first (a large discount) asks for it."""
        try:
            self.register.edit(change, approval=approval)
        except ApprovalNeeded as exc:
            if approval is None and self.terminal is not None:

                def retry(given: Approval | None) -> None:
                    self._edit(change, select=select, approval=given, done=done)

                self.prompt = with_approval(self, self.terminal.till, exc.act, f"{exc.act.sentence}?", retry)
            else:
                self.messages.show_error(exc)
            return False
        except UserError as exc:
            self.messages.show_error(exc)
            return False
        self.show_check()
        if select is not None and (row := self.lines.row_of(select)) is not None:
            self.table.selectRow(row)
        if done is not None:
            done()
        return True

    def add_catalog_item(self, entry: CatalogEntry) -> None:
        item = entry.item()
        self._edit(lambda check: check.add_item(item), select=item.id)

    def on_add_item_clicked(self) -> None:
        name = self.item_name.text().strip()
        try:
            if not name:
                raise UserError("The item has no name.", hint="Type what is sold, then its price.")
            price = self.money.parse(self.item_price.text())
            tax_text = self.item_tax.text().strip()
            rate = self.money.parse_percent(tax_text) if tax_text not in ("", "0") else None
        except UserError as exc:
            self.messages.show_error(exc)
            return
        item = Item(name, quantity=self.item_quantity.value(), unit_price=price, tax_rate_bp=rate)
        if self._edit(lambda check: check.add_item(item), select=item.id):
            empty(self.item_name)
            empty(self.item_price)
            self.item_quantity.setValue(1)
            self.item_name.setFocus()

    def on_add_discount_clicked(self) -> None:
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
            self.messages.show_error(exc)
            return
        self._edit(
            lambda check: check.add_discount(discount), select=discount.id, done=lambda: empty(self.discount_input)
        )

    def on_add_cash_clicked(self) -> None:
        try:
            amount = self.money.parse(self.cash_input.text())
            if amount == 0:
                raise UserError("The cash paid is zero.", hint="Type the amount the customer gave.")
        except UserError as exc:
            self.messages.show_error(exc)
            return
        payment = Payment("cash", amount)
        if self._edit(lambda check: check.add_payment(payment), select=payment.id):
            empty(self.cash_input)

    def _selected_row(self) -> str | None:
        index = self.table.currentIndex()
        row = self.lines.row(index.row()) if index.isValid() else None
        return row.line_id if row else None

    def change_quantity(self, delta: int) -> None:
        index = self.table.currentIndex()
        row = self.lines.row(index.row()) if index.isValid() else None
        if row is None or row.kind != "item" or self.terminal is None:
            self.messages.show_error("Select an item of the check first.")
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
            self.messages.show_error("Select a line of the check first.")
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
            self.messages.show_error(exc)
            self.show_check()
            return
        self.show_check()

    def new_check(self) -> None:
        try:
            self.register.new_check()
        except UserError as exc:
            self.messages.show_error(exc)
            return
        empty(self.customers.search)
        self.show_check()
        self.customers.focus_search()

    # --- charging ---------------------------------------------------------------------------------

    def charge(self) -> None:
        if self.terminal is None or not self.charge_button.isEnabled():
            if self.reason.text():
                self.messages.show_error(self.reason.text())
            return
        self.charge_button.setEnabled(False)
        self.tasks.run(self._charge(), key="charge", on_error=self._charge_refused)

    def _charge_refused(self, error: UserError) -> None:
        self.messages.show_error(error)
        self.show_check()

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

    async def _verify_until_settled(self) -> None:
        delay = VERIFY_FIRST_DELAY
        verifying = self.terminal is not None and self.register.current.phase is Phase.VERIFYING
        while verifying:
            try:
                state = await self.register.verify()
            except UserError as exc:
                self.charge_message.setText(f"{exc.sentence} Still verifying…")
                state = self.register.current
            self.show_check()
            verifying = self.terminal is not None and state.phase is Phase.VERIFYING
            if verifying:
                await asyncio.sleep(delay)
            delay = min(delay * 2, VERIFY_MAX_DELAY)

    def complete(self) -> None:
        if self.terminal is None or self.register.current.phase is not Phase.AUTHORIZED:
            return
        self.complete_button.setEnabled(False)
        self.cancel_button.setEnabled(False)
        self.tasks.run(self._complete(), key="state", on_error=self._charge_refused)

    async def _complete(self) -> None:
        await self.register.complete()
        self.show_check()
        if self.register.current.phase is Phase.COMPLETE:
            self.new_check_button.setFocus()

    def cancel_transaction(self) -> None:
        """Cancel the authorized transaction: the customer was charged, so a cashier needs a manager."""
        terminal = self.terminal
        state = self.register.current if terminal is not None else None
        if terminal is None or state is None or state.phase is not Phase.AUTHORIZED or not state.transaction_id:
            return
        whose = f" to {state.customer.display_name}" if state.customer else ""
        question = f"Cancel the charge of {self.money.format(state.totals.charge_amount)}{whose}?"
        self.prompt = with_approval(
            self, terminal.till, Guarded.CANCEL_CHARGED, question, self._start_cancel, subject=state.transaction_id
        )

    def _start_cancel(self, approval: Approval | None) -> None:
        if self.terminal is None or self.register.current.phase is not Phase.AUTHORIZED:
            return
        self.complete_button.setEnabled(False)
        self.cancel_button.setEnabled(False)
        self.tasks.run(self._cancel(approval), key="state", on_error=self._charge_refused)

    async def _cancel(self, approval: Approval | None = None) -> None:
        await self.register.cancel(approval=approval)
        self.show_check()
