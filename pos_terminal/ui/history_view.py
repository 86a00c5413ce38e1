"""History: transactions by range and terminal, their detail, and what each state allows.

The list is read again each time the tab is opened, so the sale just made is there. It holds each
transaction as a row (:class:`~pos_terminal.api.models.TransactionRow`, what the table shows); the
whole record of the one chosen is read when it is chosen, for its detail.
Refund asks for a confirmation first (a dialog opened with ``open()``, never a
nested ``exec()`` inside a coroutine). A cashier's refund or cancel asks for a
manager's PIN instead, at the same place (:func:`~pos_terminal.ui.approval_dialog.with_approval`);
after a refund, the cash paid on the check is given back and the banner says how much.

This till's cash sales are listed beside the service's transactions, in time order, marked "cash sale"
(:mod:`pos_terminal.ui.history_receipts`): the service never sees one, so "Another terminal" lists none of this
till's (that till's History lists its own). Print receipt prints a copy of a sale's receipt, charge or cash sale;
Save PDF… saves it as a PDF file.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from html import escape
from pathlib import Path
from typing import Any

from pos_terminal.api.models import Transaction, TransactionRow
from pos_terminal.domain.lifecycle import Action, TxState, allowed_actions
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.people import Approval, Guarded
from pos_terminal.domain.report import RangeKind, local_midnight
from pos_terminal.domain.shift import cash_paid
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError
from pos_terminal.services.checkout import ChangeStatus
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.approval_dialog import ANSWERS, ManagerPrompt, with_approval
from pos_terminal.ui.history_receipts import (
    CASH_SALE,
    CashSaleListed,
    cash_sale_html,
    receipt_file_name,
    save_cash_receipt,
    save_receipt,
    send_cash_receipt,
    send_receipt,
)
from pos_terminal.ui.range_picker import RangePicker, other_terminal
from pos_terminal.ui.table_model import ReadOnlyTableModel
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import BIG_BUTTON, Waiting, button, confirm, file_dialog, label, wheel_when_focused

from PySide6.QtCore import (
    QEvent,
    QObject,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

log = logging.getLogger(__name__)

# "Amount": what the service charged for a transaction (once completed), the total paid in cash for a cash sale
HEADERS = ("Created", "State", "Customer", "Amount", "Terminal", "Transaction")
ID_COLUMN = HEADERS.index("Transaction")
Sale = Transaction | TransactionRow  # a row as listed, or the whole record once it was read
Listed = Sale | CashSaleListed


class TransactionModel(ReadOnlyTableModel[Listed]):
    headers = HEADERS
    right_aligned = frozenset({3})

    def __init__(self, money: MoneyFormat, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.money = money

    def set_transactions(self, transactions: list[Listed]) -> None:
        self.replace_rows(
            sorted(transactions, key=lambda t: t.created or datetime.min.replace(tzinfo=UTC), reverse=True)
        )  # newest first, cash sales among the transactions by their time

    def replace(self, transaction: Sale) -> int | None:
        for row, known in enumerate(self.rows):
            if known.transaction_id == transaction.transaction_id:
                self.rows[row] = transaction
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(HEADERS) - 1))
                return row
        return None

    def transaction(self, row: int) -> Listed | None:
        return self.row(row)

    def find(self, transaction_id: str) -> Sale | None:
        """The entry shown for ``transaction_id`` (a row as listed, or its whole record once read)."""
        return next(
            (t for t in self.rows if not isinstance(t, CashSaleListed) and t.transaction_id == transaction_id), None
        )

    def cell(self, t: Listed, column: int) -> Any:
        if isinstance(t, CashSaleListed):
            sale = t.sale
            at = sale.at.astimezone().strftime("%d %b %H:%M:%S")
            return (at, CASH_SALE, sale.customer or "", self.money.format(sale.total), sale.terminal_id or "—", "—")[
                column
            ]
        charged = charged_amount(t)
        return (
            t.created.astimezone().strftime("%d %b %H:%M:%S") if t.created else "",
            t.state.value,
            t.customer.display_name if t.customer else "",
            "—" if charged is None else self.money.format(charged),
            t.terminal_id or "—",
            t.transaction_id,
        )[column]

    def style(self, t: Listed, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and isinstance(t, CashSaleListed):
            return "Cash sale: paid in full in cash at this till; the service never saw it"
        if role == Qt.ItemDataRole.ToolTipRole:  # the id, also where its column is left out for room
            return f"Transaction {t.transaction_id}"
        return None


CHARGED_STATES = (TxState.COMPLETE, TxState.REFUNDED)


def charged_amount(t: Sale) -> int | None:
    """What the customer paid through the service; ``None`` while authorized or once canceled: the funds were
    only reserved, and a cancel releases them, whatever ``chargedAmount`` the record carries."""
    return t.amount_charged if t.state in CHARGED_STATES else None


def said_done(t: Transaction, money: MoneyFormat) -> str:
    """A change that went through, in the cashier's words: what it did for whom (the id is in the list)."""
    who = t.customer.display_name if t.customer else "the customer"
    if t.state is TxState.REFUNDED:
        return f"Refunded: {money.format(t.amount_charged)} goes back to {who}."
    if t.state is TxState.COMPLETE:
        return f"Completed: {who} is charged {money.format(t.amount_charged)}."
    if t.state is TxState.CANCELED:
        return f"Canceled: nothing is charged to {who}, and the amount held is released."
    return f"Transaction {t.transaction_id} is {t.state.value}."


_WITH_A_RECEIPT = (TxState.COMPLETE, TxState.REFUNDED)


def detail_html(t: Transaction, money: MoneyFormat) -> str:
    """The transaction as the cashier reads it (escaped: names come from the service; ids never wrap)."""

    def when(moment: datetime | None) -> str:
        return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S") if moment else "—"

    # an id under its name, across both columns: beside it, it left the names a sliver and broke them in two
    # ("Transactio/n") at 1024 px; a name never wraps, a value wraps between words
    ids = [("Transaction", t.transaction_id), ("Reference", t.ref_id or "—")]
    rows = [
        ("State", t.state.value),
        ("Customer", t.customer.display_name if t.customer else "—"),
        ("Terminal", t.terminal_id or "—"),
        ("Created", when(t.created)),
        ("Completed", when(t.completed)),
    ]
    lines = [f"<tr><td colspan='2'><b>{escape(k)}</b><br>{escape(v)}</td></tr>" for k, v in ids]
    lines += [f"<tr><td style='white-space: nowrap'><b>{escape(k)}</b></td><td>{escape(v)}</td></tr>" for k, v in rows]
    for item in t.items:
        lines.append(
            f"<tr><td>{item.quantity} × {escape(item.name or '')}</td>"
            f"<td align='right'>{escape(money.format(item.amount))}</td></tr>"
        )
    for discount in t.discounts:
        lines.append(
            f"<tr><td>{escape(discount.name or 'Discount')}</td>"
            f"<td align='right'>{escape(money.format(discount.amount))}</td></tr>"
        )
    for payment in t.payments:
        lines.append(
            f"<tr><td>Paid: {escape(payment.method or '')}</td>"
            f"<td align='right'>{escape(money.format(-payment.amount))}</td></tr>"
        )
    figures: list[tuple[str, str]] = [
        ("Total", money.format(t.total)),
        ("Tax included", money.format(t.tax or 0)),
        ("Due", money.format(t.charge_amount)),
    ]
    if t.state in CHARGED_STATES:
        figures += [(modifier.name or "Member's benefit", money.format(modifier.amount)) for modifier in t.modifiers]
        figures += [
            ("Charged", money.format(t.amount_charged)),
            ("Tip", money.format(t.tip_amount)),
            ("Fee", money.format(t.fee_amount)),
        ]
    elif t.state is TxState.CANCELED:
        figures.append(("Charged", "nothing: the amount reserved was released"))
    else:
        figures.append(("Charged", "nothing yet: the amount is reserved until it is completed"))
    for name, shown in figures:
        lines.append(
            f"<tr><td style='white-space: nowrap'><b>{escape(name)}</b></td><td align='right'>{escape(shown)}</td></tr>"
        )
    return "<table cellspacing='4'>" + "".join(lines) + "</table>"


def listed_words(transactions: int, cash_sales: int, *, elsewhere: bool) -> str:
    """The list's count: "3 transactions and 1 cash sale."; for another terminal, where this till's cash sales are
    not (each till lists its own)."""
    if not transactions and not cash_sales:
        said = "No transactions in range."
    elif not cash_sales:
        said = f"{counted(transactions, 'transaction')}."
    else:
        said = f"{counted(transactions, 'transaction')} and {counted(cash_sales, 'cash sale')}."
    return f"{said} Cash sales are listed at the till that took them." if elsewhere else said


class HistoryView(QWidget):
    """Signals: ``changed()`` after a state change (the status bar re-reads the outbox)."""

    changed = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self.tasks = Tasks(messages, self)
        self.terminal: Terminal | None = None
        self.model = TransactionModel(MoneyFormat("en_AU", "AUD"), self)
        self.confirm: QMessageBox | None = None
        self.prompt: ManagerPrompt | None = None  # a manager's approval being asked for
        self.save_dialog: QFileDialog | None = None  # where a receipt's PDF is saved, being asked

        self.range = RangePicker("History")
        self.scope = QComboBox()
        self.scope.setAccessibleName("Terminal")
        self.scope.addItem("This terminal", "this")
        self.scope.addItem("All terminals", "all")
        self.scope.addItem("Another terminal…", "other")
        self.other = QLineEdit()
        self.other.setPlaceholderText("Terminal id")
        self.other.setAccessibleName("Other terminal id")
        self.load_button = button("Show", name="Show transactions")
        bar = QHBoxLayout()
        for widget in (self.range, self.scope, self.other):
            bar.addWidget(widget)
        bar.addWidget(self.load_button)
        bar.addStretch(1)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Transactions")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(36)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.viewport().installEventFilter(self)
        self.model.modelReset.connect(self._fit_columns)
        self.detail = QTextBrowser()
        self.detail.setAccessibleName("Transaction detail")
        self.complete_button = button("Complete", name="Complete selected transaction")
        self.cancel_button = button("Cancel", role="danger", name="Cancel selected transaction")
        self.refund_button = button("Refund…", role="danger", name="Refund selected transaction")
        self.receipt_button = button("Print &receipt", name="Print the selected sale's receipt")
        self.save_pdf_button = button("Save &PDF…", name="Save the selected sale's receipt as a PDF file")
        self.status = label(role="hint", wrap=True)
        self.status.setAccessibleName("History status")
        self.waiting = Waiting(self.status.setText, self)
        actions = QHBoxLayout()
        for action_button in (self.complete_button, self.cancel_button, self.refund_button):
            action_button.setMinimumHeight(BIG_BUTTON)  # side by side, one height
            actions.addWidget(action_button)
        detail_box = QWidget()
        detail_layout = QVBoxLayout(detail_box)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.detail, 1)
        detail_layout.addLayout(actions)
        self.extra_actions = QHBoxLayout()
        for receipt_button in (self.receipt_button, self.save_pdf_button):
            receipt_button.setMinimumHeight(BIG_BUTTON)
            self.extra_actions.addWidget(receipt_button)
        self.extra_actions.addStretch(1)
        detail_layout.addLayout(self.extra_actions)
        splitter = QSplitter()
        splitter.addWidget(self.table)
        splitter.addWidget(detail_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(label("History", role="heading"))
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)

        self.scope.currentIndexChanged.connect(self.on_scope_changed)
        self.load_button.clicked.connect(self.load)
        self.other.returnPressed.connect(self.load)
        self.table.selectionModel().currentRowChanged.connect(lambda current, _: self.show_row(current.row()))
        self.complete_button.clicked.connect(lambda: self.act(Action.COMPLETE))
        self.cancel_button.clicked.connect(lambda: self.act(Action.CANCEL))
        self.refund_button.clicked.connect(self.ask_refund)
        self.receipt_button.clicked.connect(self.print_receipt)
        self.save_pdf_button.clicked.connect(self.ask_save_receipt)
        self.other.hide()
        self.show_row(-1)
        wheel_when_focused(self)  # a wheel on its way to the list changes neither the range nor the terminals

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return False

    def _fit_columns(self) -> None:
        """The transaction id, the longest column, is left out of the list where it would make the list scroll
        sideways (at 1024 px): the detail beside the list shows it whole, and so does the row's tool tip."""
        room = self.table.viewport().width()
        needed = sum(
            max(self.table.sizeHintForColumn(c), self.table.horizontalHeader().sectionSizeHint(c))
            for c in range(len(HEADERS))
        )
        self.table.setColumnHidden(ID_COLUMN, needed > room)

    def attach(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.model.money = terminal.money
        self.load()

    def detach(self) -> None:
        self.tasks.cancel_all()
        self.terminal = None
        self.model.set_transactions([])

    # --- range -----------------------------------------------------------------------------------

    def on_scope_changed(self, _: int) -> None:
        """Another terminal's id is asked for where it is chosen, and typed at once (as on Reports)."""
        self.other.setVisible(self.scope.currentData() == "other")
        if self.other.isVisible():
            self.other.setFocus()

    def selected_terminal(self) -> str | None:
        assert self.terminal is not None
        choice = self.scope.currentData()
        if choice == "this":
            return self.terminal.settings.terminal_id
        if choice == "other":
            return other_terminal(self.other.text())
        return None

    # --- loading and showing ---------------------------------------------------------------------

    def load(self) -> None:
        if self.terminal is not None:
            self.tasks.run(self._load(self.terminal), key="load", on_error=self._load_failed)

    def on_shown(self) -> None:
        """The tab was opened: read the list again, so the sales made since the last look are in it."""
        if not self.tasks.is_running("load"):
            self.load()

    def listing_range(self, now: datetime) -> tuple[datetime, datetime]:
        """The range to list. Today and this shift run to the end of the day rather than the terminal's now:
        a list has no reason to stop at this terminal's clock, and a sale the service stamped a moment
        later (its clock ahead of this one's) still belongs to today."""
        period = self.range.selected(now)
        if period.kind in (RangeKind.TODAY, RangeKind.SHIFT):
            tomorrow = now.astimezone().date() + timedelta(days=1)
            return period.start, max(period.end, local_midnight(tomorrow))
        return period.start, period.end

    async def _load(self, terminal: Terminal) -> None:
        start, end = self.listing_range(terminal.journal.now())
        self.waiting.start("Loading the transactions…")
        try:
            listing = await terminal.history.listing(start, end, self.selected_terminal())
        finally:
            self.waiting.stop()
        # The rows on screen go before the new ones are read, in the same turn of the loop, so the table is never
        # painted empty: with both at once, each visit's peak grew with the day and raised the window's memory for
        # good (docs/memory.md).
        self.model.set_transactions([])
        chosen = self.selected_terminal()
        cash = terminal.history.cash_sales(start, end, chosen, terminal.settings.terminal_id)
        transactions: list[Listed] = [*terminal.history.rows_of(listing), *(CashSaleListed(sale) for sale in cash)]
        self.model.set_transactions(transactions)
        self.status.setText(
            listed_words(
                len(transactions) - len(cash), len(cash), elsewhere=chosen not in (None, terminal.settings.terminal_id)
            )
        )
        if transactions:
            self.table.selectRow(0)
        else:
            self.show_row(-1)

    def _load_failed(self, error: UserError) -> None:
        # what to do is the error's own advice where it has some (a range ending before it starts is not a retry)
        self.status.setText(f"The transactions cannot be listed: {error.sentence} {error.hint or 'Press Show again.'}")
        self.messages.show_error(error)

    def current(self) -> Listed | None:
        index = self.table.currentIndex()
        return self.model.transaction(index.row()) if index.isValid() else None

    def _enable_actions(self, transaction: Listed | None) -> None:
        """What the transaction's state allows, less what this terminal already asked for and waits to be sent (a
        refund kept in the outbox is not offered again: the cash would be handed back twice). A cash sale has its
        receipt, and nothing to complete, cancel or refund at the service."""
        if isinstance(transaction, CashSaleListed):
            for widget in (self.complete_button, self.cancel_button, self.refund_button):
                widget.setEnabled(False)
            self.receipt_button.setEnabled(True)
            self.save_pdf_button.setEnabled(True)
            return
        allowed = set(allowed_actions(transaction.state)) if transaction else set()
        if transaction is not None and self.terminal is not None:
            waiting = {
                e.target_state
                for e in self.terminal.journal.outbox.pending()
                if e.transaction_id == transaction.transaction_id
            }
            allowed = {action for action in allowed if str(action.target) not in waiting}
        self.complete_button.setEnabled(Action.COMPLETE in allowed)
        self.cancel_button.setEnabled(Action.CANCEL in allowed)
        self.refund_button.setEnabled(Action.REFUND in allowed)
        self.receipt_button.setEnabled(transaction is not None and transaction.state in _WITH_A_RECEIPT)
        self.save_pdf_button.setEnabled(self.receipt_button.isEnabled())

    def show_row(self, row: int) -> None:
        transaction = self.model.transaction(row)
        self._enable_actions(transaction)
        if transaction is None:
            self.tasks.cancel("detail")
            self.detail.setHtml("<p>Choose a transaction to see its detail.</p>")
        elif isinstance(transaction, CashSaleListed):
            self.tasks.cancel("detail")
            self.detail.setHtml(self._cash_sale_detail(transaction))
        elif isinstance(transaction, Transaction):
            self.detail.setHtml(detail_html(transaction, self.model.money))
        elif self.terminal is not None:
            self.detail.setHtml(f"<p>Reading transaction {escape(transaction.transaction_id)}…</p>")
            self.tasks.run(
                self._detail(self.terminal, transaction.transaction_id),
                key="detail",
                on_error=lambda error: self.detail.setHtml(f"<p>{escape(error.text())}</p>"),
            )

    async def _detail(self, terminal: Terminal, transaction_id: str) -> Transaction | None:
        """Read the whole record of the transaction chosen; shown, and returned, if it is still the one chosen.

        A record read while something newer replaced the row (a refund made meanwhile) is dropped: it would
        put the older state back on screen.
        """
        listed = self.model.find(transaction_id)
        record = await terminal.history.get(transaction_id)
        if listed is None or self.model.find(transaction_id) is not listed:
            return None
        row = self.model.replace(record)
        chosen = self.current()
        if row is None or chosen is None or chosen.transaction_id != transaction_id:
            return None
        self.show_row(row)
        return record

    def _cash_sale_detail(self, listed: CashSaleListed) -> str:
        """The cash sale's receipt as the detail shows it; one sentence when its check cannot be read."""
        assert self.terminal is not None
        try:
            receipt = self.terminal.reports(actor=self.terminal.at_the_till).receipt_of_cash_sale(listed.sale)
        except UserError as exc:
            return f"<p>{escape(exc.text())}</p>"
        return cash_sale_html(listed.sale, receipt, self.model.money)

    # --- actions ---------------------------------------------------------------------------------

    def print_receipt(self) -> None:
        """The chosen sale's receipt again (a customer asks for a copy), as the service has the sale now; a cash
        sale's from the check this till kept of it."""
        chosen = self.current()
        if chosen is None or self.terminal is None:
            return
        if isinstance(chosen, CashSaleListed):
            try:
                self.messages.show_info(send_cash_receipt(self.terminal, chosen.sale))
            except UserError as exc:
                self.messages.show_error(exc)
            return
        if chosen.state not in _WITH_A_RECEIPT:
            return
        self.tasks.run(self._print_receipt(self.terminal, chosen.transaction_id), key="receipt")

    async def _print_receipt(self, terminal: Terminal, transaction_id: str) -> None:
        record = await terminal.history.get(transaction_id)
        self.messages.show_info(send_receipt(terminal, record))

    def ask_save_receipt(self) -> None:
        """Ask where to save the chosen sale's receipt as a PDF (the dialog is opened, never exec()'d)."""
        chosen = self.current()
        if chosen is None or self.terminal is None:
            return
        if not isinstance(chosen, CashSaleListed) and chosen.state not in _WITH_A_RECEIPT:
            return
        folder = Path.home() / "Documents"
        name = receipt_file_name(chosen if isinstance(chosen, CashSaleListed) else chosen.transaction_id)
        self.save_dialog = file_dialog(
            self,
            "Save receipt as PDF",
            "PDF files (*.pdf)",
            lambda path: self.save_receipt(chosen, path),
            lambda: setattr(self, "save_dialog", None),
            save_as=(folder if folder.is_dir() else Path.home()) / name,
        )

    def save_receipt(self, chosen: Listed, path: Path) -> None:
        """Save ``chosen``'s receipt as a PDF at ``path``; the banner says where, or why not."""
        terminal = self.terminal
        if terminal is None:
            return
        if isinstance(chosen, CashSaleListed):
            try:
                saved = save_cash_receipt(terminal, chosen.sale, path)
            except UserError as exc:
                self.messages.show_error(exc)
                return
            self.messages.show_info(f"The receipt is saved to {saved}.")
            return
        self.tasks.run(self._save_receipt(terminal, chosen.transaction_id, path), key="receipt")

    async def _save_receipt(self, terminal: Terminal, transaction_id: str, path: Path) -> None:
        record = await terminal.history.get(transaction_id)
        self.messages.show_info(f"The receipt is saved to {save_receipt(terminal, record, path)}.")

    def ask_refund(self) -> None:
        """Ask before refunding the chosen sale; its whole record first, for the cash that goes back with it."""
        chosen = self.current()
        if chosen is None or self.terminal is None or isinstance(chosen, CashSaleListed):
            return
        self.confirm = None  # the question asked before was answered, and is gone
        if isinstance(chosen, Transaction):
            self._ask_refund(self.terminal, chosen)
        else:
            self.tasks.run(self._read_then_ask_refund(self.terminal, chosen.transaction_id), key="detail")

    async def _read_then_ask_refund(self, terminal: Terminal, transaction_id: str) -> None:
        record = await self._detail(terminal, transaction_id)
        if record is not None and Action.REFUND in allowed_actions(record.state):
            self._ask_refund(terminal, record)

    def _ask_refund(self, terminal: Terminal, transaction: Transaction) -> None:
        name = transaction.customer.display_name if transaction.customer else "the customer"
        amount = terminal.money.format(charged_amount(transaction) or 0)
        cash = cash_paid(p.model_dump() for p in transaction.payments)
        back = f" and give back {terminal.money.format(cash)} in cash" if cash else ""
        transaction_id = transaction.transaction_id
        question = f"Refund {amount} to {name}{back}?"
        if not terminal.till.may(Guarded.REFUND):  # the manager's PIN is the confirmation
            self.prompt = with_approval(
                self,
                terminal.till,
                Guarded.REFUND,
                question,
                lambda approval: self._run_action(transaction_id, Action.REFUND, approval),
                subject=transaction_id,
            )
            return
        self.confirm = confirm(
            self,
            "Refund",
            question,
            f"Transaction <span style='white-space: nowrap'>{escape(transaction_id)}</span>. "
            "A refund cannot be undone.",  # the id never breaks at one of its hyphens
            lambda: self._run_action(transaction_id, Action.REFUND),
            answers=ANSWERS[Guarded.REFUND],
        )

    def act(self, action: Action) -> None:
        transaction = self.current()
        if transaction is None or self.terminal is None or isinstance(transaction, CashSaleListed):
            return
        transaction_id = transaction.transaction_id
        if action is not Action.CANCEL:
            self._run_action(transaction_id, action)
            return
        whose = (
            f" to {transaction.customer.display_name}" if transaction.customer else ""
        )  # as the cashier's screen asks
        self.prompt = with_approval(
            self,
            self.terminal.till,
            Guarded.CANCEL_CHARGED,
            f"Cancel the charge of {self.terminal.money.format(transaction.charge_amount)}{whose}?",
            lambda approval: self._run_action(transaction_id, action, approval),
            subject=transaction_id,
        )

    def _run_action(self, transaction_id: str, action: Action, approval: Approval | None = None) -> None:
        self.tasks.cancel("detail")  # what the action answers is newer than any read still out
        for widget in (self.complete_button, self.cancel_button, self.refund_button):
            widget.setEnabled(False)
        self.tasks.run(self._act(transaction_id, action, approval), key=f"act-{transaction_id}")

    async def _act(self, transaction_id: str, action: Action, approval: Approval | None = None) -> None:
        assert self.terminal is not None
        outcome = await self.terminal.checkout.change_state(transaction_id, action, approval=approval)
        transaction = outcome.transaction
        if transaction is None:
            # the change was kept, or refused: the list shows the transaction as it is now, if it can be read; a
            # read that fails says nothing of the change (it is kept in the outbox and sent again)
            try:
                transaction = await self.terminal.history.get(transaction_id)
            except UserError as exc:
                log.info("could not read %s after its %s: %s", transaction_id, action, exc.sentence)
        if transaction is not None and (row := self.model.replace(transaction)) is not None:
            self.show_row(row)
        elif transaction is None:
            self._enable_actions(self.current())  # as the list last showed it
        if outcome.status is ChangeStatus.DONE and transaction is not None:
            self._done(transaction, approved_by=approval.manager if approval is not None else None)
        else:
            self.messages.show_error(outcome.message or f"The {action.value} was not confirmed.")
        self.changed.emit()

    def _done(self, transaction: Transaction, *, approved_by: str | None = None) -> None:
        """Say that a change went through; a refund says how much cash goes back, once, and opens the drawer for
        it (the refund's approval is the drawer's: no second one, no F10)."""
        assert self.terminal is not None
        cash = cash_paid(p.model_dump() for p in transaction.payments) if transaction.state is TxState.REFUNDED else 0
        back = f" Give back {self.terminal.money.format(cash)} in cash." if cash else ""
        self.messages.show_info(f"{said_done(transaction, self.terminal.money)}{back}")
        counter = self.terminal.counter
        if transaction.state is TxState.REFUNDED:
            counter.refunded(transaction)
        if cash and counter.cash_drawer:
            self.tasks.run(
                counter.open_drawer("refund", approved_by=approved_by), key=f"drawer-{transaction.transaction_id}"
            )

    def confirmed_later(self, transaction: Transaction) -> None:
        """A change kept in the outbox went through when it was sent again: the list shows the transaction as it is
        now, and the change is announced (a refund's cash back with it) as it would have been at once."""
        if (row := self.model.replace(transaction)) is not None:
            chosen = self.current()
            if chosen is not None and chosen.transaction_id == transaction.transaction_id:
                self.show_row(row)
        self._done(transaction)
        self.changed.emit()
