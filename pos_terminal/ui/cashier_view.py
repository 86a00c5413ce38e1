"""The cashier's screen, laid out for a counter as Square and Odoo lay out theirs: three columns.

- **Customers**: a compact list of the checked-in customers and its search (F2).
- **The sale**: the product grid with its categories and search (F3) and, on a second
  tab, the keypad page (:mod:`pos_terminal.ui.keypad_page`): an item typed by hand (F7), a
  discount (F4), the cash taken (F6), with a numpad for touch screens. While a charge is
  under way, or once the check is finished, this column shows where the charge stands
  instead (:mod:`pos_terminal.ui.charge_status`): what it waits for and for how long, the
  countdown to automatic cancellation, what happens next.
- **The ticket** (:mod:`pos_terminal.ui.ticket`): the customer chosen, the lines, the totals
  with the cash taken and the change due, and one big button that does the next thing
  (Charge, Complete or Cancel, New check), always in the same place at the bottom.

The view holds no figures of its own: it asks the register (services) to change the
check and shows what comes back; what it says about the check and its charge comes from
:mod:`pos_terminal.ui.cashier_presenter`, and the charge itself is driven by
:mod:`pos_terminal.ui.charging`. Amounts the cashier types are read by the terminal's
one money format; a mistake is one sentence and the check stays. Nothing shown or
hidden while the cashier works moves the rest: the reason line, the banner and the
button area keep their room (the reason line grows only for a sentence longer than
its two lines: the whole of why a charge was refused is always shown).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from pos_terminal.domain.people import Approval, ApprovalNeeded, DiscountNeedsApproval
from pos_terminal.domain.sale import FINISHED, LOCKED, CheckFinished, CheckLocked, Phase
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError
from pos_terminal.ui import cashier_presenter as say
from pos_terminal.ui.actions import Act, key
from pos_terminal.ui.approval_dialog import ManagerPrompt, with_approval
from pos_terminal.ui.cashier_presenter import CHECK
from pos_terminal.ui.charge_status import ChargeStatus
from pos_terminal.ui.charging import Charging
from pos_terminal.ui.customers import CustomerPanel
from pos_terminal.ui.keypad_page import KeypadPage
from pos_terminal.ui.products import ProductPanel
from pos_terminal.ui.tasks import ACT, CATALOG, PRINTER, Messages, Tasks
from pos_terminal.ui.ticket import Ticket
from pos_terminal.ui.widgets import confirm, empty, on_enter

# The first screen is painted before asyncio, the service's side, the check's arithmetic and the catalog load
# (pos_terminal.app): what a method needs of them it imports, by then loaded.
if TYPE_CHECKING:
    from pos_terminal.api.models import Customer
    from pos_terminal.domain.check import Check
    from pos_terminal.domain.money import MoneyFormat
    from pos_terminal.services.catalog import CatalogEntry
    from pos_terminal.services.register import OpenCheck, Register
    from pos_terminal.services.terminal import Terminal

from PySide6.QtCore import Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLineEdit, QMessageBox, QStackedWidget, QTabWidget, QWidget


class NotConnected(UserError):
    """A key that needs the terminal, pressed while the first screen waits for it."""

    sentence = "The terminal is not connected yet."
    hint = "It is connecting; try again in a moment."


COLUMN_MINIMUM = (200, 392, 330)  # customers, the sale, the ticket: the window at its least, 960 px, holds all three
COLUMN_STRETCH = (2, 5, 3)


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
        self.entry_tabs.addTab(self.products, f"Products ({key(Act.FIND_PRODUCT)})")
        self.keypad_page = KeypadPage(self.entry_tabs)
        self.entry_tabs.addTab(self.keypad_page, f"Keypad ({key(Act.TYPE_ITEM)})")
        self.charge_status = ChargeStatus(self.middle)
        self.middle.addWidget(self.entry_tabs)
        self.middle.addWidget(self.charge_status)

        self.ticket = Ticket(self)
        columns = QHBoxLayout(self)
        columns.setContentsMargins(5, 8, 5, 8)  # 960 px (the window at its least) holds the three columns' least
        columns.setSpacing(6)
        for column, minimum, stretch in zip(
            (self.customers, self.middle, self.ticket), COLUMN_MINIMUM, COLUMN_STRETCH, strict=True
        ):
            column.setMinimumWidth(minimum)
            columns.addWidget(column, stretch)

        self.charging = Charging(self, self)
        self._connect()
        self._tab_order()

    # --- building the screen ------------------------------------------------------------------------

    def _connect(self) -> None:
        page, ticket = self.keypad_page, self.ticket
        page.item_quantity.refused.connect(lambda sentence: self.messages.show_error(sentence, topic=CHECK))
        page.add_item_button.clicked.connect(self.on_add_item_clicked)
        page.item_price.returnPressed.connect(self.on_add_item_clicked)
        on_enter(page.item_quantity, self.on_add_item_clicked)
        page.item_tax.returnPressed.connect(self.on_add_item_clicked)
        page.add_discount_button.clicked.connect(self.on_add_discount_clicked)
        page.discount_input.returnPressed.connect(self.on_add_discount_clicked)
        page.add_cash_button.clicked.connect(self.on_add_cash_clicked)
        page.cash_input.returnPressed.connect(self.on_add_cash_clicked)
        ticket.more_button.clicked.connect(lambda: self.change_quantity(+1))
        ticket.less_button.clicked.connect(lambda: self.change_quantity(-1))
        ticket.remove_button.clicked.connect(self.remove_line)
        ticket.charge_button.clicked.connect(self.charging.charge)
        ticket.complete_button.clicked.connect(self.charging.complete)
        ticket.cancel_button.clicked.connect(self.charging.cancel_transaction)
        ticket.new_check_button.clicked.connect(self.new_check)
        self.charge_status.check_now_button.clicked.connect(self.charging.check_now)
        self.charging.open_shift_requested.connect(self.open_shift_requested)
        self.entry_tabs.currentChanged.connect(lambda _: page.say_typing_into())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        """The customer's name on Charge is fitted to the button's width when the offer is made: fitted again when
        the window changes size (made at 1920 px, a name ran past the button at 1024)."""
        super().resizeEvent(event)
        if self.terminal is not None:
            self.charging.render_offer(self.register.current)

    def _tab_order(self) -> None:
        """Left to right, top to bottom, as the screen reads."""
        page, ticket = self.keypad_page, self.ticket
        chain: list[QWidget] = [
            self.customers.search,
            self.customers.table,
            self.customers.refresh_button,
            self.entry_tabs.tabBar(),
            self.products.search,
            *self.products.category_group.buttons(),
            page.item_name,  # the item, its price, quantity and tax, then Add: a price typed after Tab is kept
            page.item_price,
            page.item_quantity,
            page.item_tax,
            page.add_item_button,
            page.discount_input,
            page.add_discount_button,
            page.cash_input,
            page.add_cash_button,
            self.charge_status.check_now_button,
            ticket.table,
            ticket.less_button,
            ticket.more_button,
            ticket.remove_button,
            ticket.charge_button,
            ticket.complete_button,
            ticket.cancel_button,
            ticket.new_check_button,
        ]
        for first, second in itertools.pairwise(chain):
            self.setTabOrder(first, second)

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
        self.keypad_page.use_money(terminal.money)
        self.load_catalog()
        restored = terminal.register.restore()
        terminal.register.on_change(self._on_register_changed)
        self.customers.attach(terminal.customers)
        self._shown_phase = None
        self.show_check()
        self.charging.resume()
        return restored.sentence

    def detach(self) -> None:
        self.charging.stop()
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
            self.messages.show_error(exc, topic=CATALOG)
            catalog, problem = Catalog(), exc.text()
        else:
            self.messages.resolve(CATALOG)  # the file mended, or another chosen
        self.products.set_catalog(catalog, self.money, problem=problem)
        self._tab_order()

    # --- rendering -----------------------------------------------------------------------------------

    def show_check(self) -> None:
        if self.terminal is None:
            return
        state = self.register.current
        ticket = self.ticket
        selected = self._selected_row()
        ticket.lines.set_check(state.check, self.money)
        if selected is not None:
            row = ticket.lines.row_of(selected)
            if row is not None:
                ticket.table.selectRow(row)
        elif ticket.lines.rowCount():
            ticket.table.selectRow(ticket.lines.rowCount() - 1)
        ticket.totals.show_totals(state, self.money)
        ticket.customer_text.setText(say.customer_text(state.customer))
        self.customers.show_chosen(state.customer)
        if state.phase is not self._shown_phase:
            self.messages.resolve(CHECK)  # what was said about the check before it moved on is no longer true
            if self._shown_phase in FINISHED and state.phase is Phase.BUILDING:
                # the next sale: a print or another act refused during the last one is behind the cashier
                self.messages.resolve(PRINTER)
                self.messages.resolve(ACT)
            self._shown_phase = state.phase
            focused = QApplication.focusWidget()
            if focused is not None and self.middle.isAncestorOf(focused):
                ticket.table.setFocus()  # never on nothing: the keyboard goes on working when the column changes
            self.middle.setCurrentIndex(say.middle_page(state))
        self.charging.render_offer(state)
        self.charging.render_status(state)
        editable = state.editable
        for widget in (ticket.more_button, ticket.less_button, ticket.remove_button, self.entry_tabs):
            widget.setEnabled(editable)
        self.changed.emit()

    def _on_register_changed(self, state: OpenCheck) -> None:
        if state.phase in LOCKED:
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
        if field in (self.products.search, self.keypad_page.item_name):
            self._next_check_if_finished()
        refused = self.entry_refused()
        if refused is not None:
            self.messages.show_error(refused, topic=CHECK)
            return
        if field is self.products.search:
            self.entry_tabs.setCurrentWidget(self.products)
            self.products.focus_search()
            return
        self.entry_tabs.setCurrentWidget(self.keypad_page)
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
        self.entry_tabs.setCurrentWidget(self.keypad_page)
        self.keypad_page.item_name.setText(text)
        self.keypad_page.item_price.setFocus()

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
                    what = exc.what(self.money.format, self.money.decimal_mark)
                    subject, question = f"discount {what}", f"Approve a discount of {what}?"
                    reason = exc.explained(self.money.format, self.money.decimal_mark)
                self.prompt = with_approval(
                    self,
                    self.terminal.till,
                    exc.act,
                    question,
                    retry,
                    subject=subject,
                    reason=reason,
                    back_to=self.ticket.table,
                )
            else:
                self.messages.show_error(exc, topic=CHECK)
            return False
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return False
        self.messages.resolve(CHECK)
        self.show_check()
        if select is not None and (row := self.ticket.lines.row_of(select)) is not None:
            self.ticket.table.selectRow(row)
        if done is not None:
            done()
        return True

    def _next_check_if_finished(self) -> None:
        """An item for a finished check is the next sale's first: the next check starts, as a customer chosen then
        starts it (Register.choose_customer) and Ctrl+N does without asking. A scanner at a busy counter had each
        code of the next customer refused until Ctrl+N; a discount or cash has no check to go on, and is refused."""
        if self.terminal is not None and self.register.current.phase in FINISHED:
            self._fresh_check()

    def add_catalog_item(self, entry: CatalogEntry) -> None:
        """A product tapped (or found): one more of it when the check has it already, else a new line."""
        if self.terminal is None:
            return
        self._next_check_if_finished()
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
        page = self.keypad_page
        try:
            item = page.typed_item(self.money)
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        self._next_check_if_finished()
        if self._edit(lambda check: check.add_item(item), select=item.id):
            empty(page.item_name)
            empty(page.item_price)
            page.item_quantity.setValue(1)
            page.item_name.setFocus()

    def on_add_discount_clicked(self) -> None:
        field = self.keypad_page.discount_input
        try:
            discount = self.keypad_page.typed_discount(self.money)
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        self._edit(lambda check: check.add_discount(discount), select=discount.id, done=lambda: empty(field))

    def on_add_cash_clicked(self) -> None:
        try:
            payment = self.keypad_page.typed_cash(self.money)
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        if self._edit(lambda check: check.add_payment(payment), select=payment.id):
            empty(self.keypad_page.cash_input)
            if self.register.current.check.paid_in_full:
                self.ticket.charge_button.setFocus()  # Enter finishes the cash sale

    def _selected_row(self) -> str | None:
        index = self.ticket.table.currentIndex()
        row = self.ticket.lines.row(index.row()) if index.isValid() else None
        return row.line_id if row else None

    def change_quantity(self, delta: int) -> None:
        index = self.ticket.table.currentIndex()
        row = self.ticket.lines.row(index.row()) if index.isValid() else None
        if row is None or row.kind != "item" or self.terminal is None:
            self.messages.show_error("Select an item of the check first.", topic=CHECK)
            return
        item = next(i for i in self.register.current.check.items if i.id == row.line_id)
        if item.quantity + delta < 1:
            self.remove_line()
            return
        self._edit(lambda check: check.set_quantity(row.line_id, item.quantity + delta), select=row.line_id)

    def remove_line(self) -> None:
        index = self.ticket.table.currentIndex()
        row = self.ticket.lines.row(index.row()) if index.isValid() else None
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
        what = f"{counted(state.check.item_count, 'item')}, {self.money.format(state.totals.total)}"
        who = f" for {state.customer.display_name}" if state.customer else ""
        self.confirmation = confirm(
            self,
            "New check",
            "Start a new check?",
            f"The check being built ({what}{who}) is thrown away. Nobody has been charged for it.",
            self.new_check,
            answers=("&Throw the check away", "&Keep the check"),
        )

    def new_check(self) -> None:
        try:
            self._fresh_check()
        except UserError as exc:
            self.messages.show_error(exc, topic=CHECK)
            return
        self.entry_tabs.setCurrentWidget(self.products)
        self.customers.focus_search()

    def _fresh_check(self) -> None:
        """The next check on the screen (the entry back where the finished charge was), the last one's filters
        gone: they would hide most customers and products from the next sale."""
        self.register.new_check()
        empty(self.customers.search)
        empty(self.products.search)
        self.show_check()
