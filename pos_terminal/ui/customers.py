"""Checked-in customers: a small table model with a fast filter, and the panel that shows it.

Filtering is done by the model over keys computed once per refresh (name, member
number, check-in number, folded: case and accents do not matter), so a keystroke over thousands of
customers is a list comprehension and one model reset, not a Python call per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pos_terminal.domain.text import fold
from pos_terminal.errors import UserError
from pos_terminal.ui.actions import Act, key
from pos_terminal.ui.table_model import ReadOnlyTableModel
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import MAX_TYPED_NAME, MiddleElided, Waiting, button, clearable, label, quoted

if TYPE_CHECKING:  # the service's side loads after the screen is painted (pos_terminal.app)
    from pos_terminal.api.models import Customer
    from pos_terminal.services.directory import Customers

from PySide6.QtCore import (
    QEvent,
    QObject,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QStyle,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

HEADERS = ("Name", "Check-in", "Member", "Since")
WIDE = 360  # narrower than this, the list shows name and check-in number only (a compact list)


def search_key(customer: Customer) -> str:
    """First and last name, member and check-in number, folded as people type them (:func:`fold`)."""
    parts = (customer.first_name, customer.last_name, customer.member_no, customer.check_in_number)
    return fold(" ".join(p for p in parts if p))


class CustomerModel(ReadOnlyTableModel["Customer"]):
    """All checked-in customers; ``rows`` are the ones the filter lets through."""

    headers = HEADERS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._all: list[Customer] = []
        self._keys: list[str] = []
        self._matching: list[int] = []  # indices into _all of the rows shown
        self._filter = ""

    def set_customers(self, customers: Sequence[Customer]) -> None:
        self._all = list(customers)
        self._keys = [search_key(c) for c in self._all]
        self.set_filter(self._filter, force=True)

    def set_filter(self, text: str, *, force: bool = False) -> None:
        """Keep the customers whose key holds every word typed. Typing on narrows what is shown already
        (a longer filter can only match fewer), so each keystroke searches fewer keys."""
        words = fold(text).split()
        wanted = " ".join(words)
        if not force and wanted == self._filter:
            return
        narrowing = bool(self._filter) and wanted.startswith(self._filter) and not force
        candidates = self._matching if narrowing else range(len(self._all))
        keys = self._keys
        if len(words) == 1:
            word = words[0]
            self._matching = [i for i in candidates if word in keys[i]]
        elif words:
            self._matching = [i for i in candidates if all(w in keys[i] for w in words)]
        else:
            self._matching = list(candidates)
        self._filter = wanted
        everyone = self._all
        self.replace_rows([everyone[i] for i in self._matching])

    @property
    def total(self) -> int:
        return len(self._all)

    def texts(self, column: int) -> list[str]:
        """What ``column`` shows for every customer checked in, shown by the search or not."""
        return [str(self.cell(customer, column)) for customer in self._all]

    def customer(self, row: int) -> Customer | None:
        return self.row(row)

    def row_of(self, customer_id: str) -> int | None:
        for row, customer in enumerate(self.rows):
            if customer.customer_id == customer_id:
                return row
        return None

    def cell(self, customer: Customer, column: int) -> Any:
        if column == 0:
            return customer.display_name
        if column == 1:
            return f"#{customer.check_in_number}" if customer.check_in_number else "—"
        if column == 2:
            return customer.member_no or "—"
        if column == 3 and customer.check_in_date is not None:
            return customer.check_in_date.astimezone().strftime("%H:%M")
        return ""

    def style(self, customer: Customer, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole:
            member = f" · member {customer.member_no}" if customer.member_no else ""
            notes = f"\n{customer.notes}" if customer.notes else ""
            return f"{customer.display_name}{member}{notes}"
        return None


class _SearchKeys(QObject):
    """Down/Enter in the search box move into the list and choose, so the mouse is never needed."""

    def __init__(self, panel: CustomerPanel) -> None:
        super().__init__(panel)
        self.panel = panel

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if event.key() == Qt.Key.Key_Down:
                self.panel.table.setFocus()
                if self.panel.model.rowCount() and not self.panel.table.currentIndex().isValid():
                    self.panel.table.selectRow(0)
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.panel.model.rowCount() == 1:
                self.panel.choose_row(0)
                return True
        return False


class CustomerPanel(QWidget):
    """A compact list of the checked-in customers: search as you type, refresh on its own and on demand.
    Names never wrap (a long one ends in "…", whole in its tool tip); narrow, it shows name and check-in
    number only. Signals: ``chosen(object)`` a Customer; ``refreshed(int)`` how many are checked in."""

    chosen = Signal(object)
    refreshed = Signal(int)

    REFRESH_MS = 30_000

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tasks = Tasks(messages, self)
        self.customers: Customers | None = None
        self.model = CustomerModel(self)
        self.search = QLineEdit()
        self.search.setPlaceholderText(
            f"Find a customer ({key(Act.FIND_CUSTOMER)})"
        )  # the tool tip says by what; it fits at 1024 px
        self.search.setToolTip(f"Find a customer by name, member number or check-in number ({key(Act.FIND_CUSTOMER)})")
        self.search.setAccessibleName("Find customer")
        self.search.setMaxLength(MAX_TYPED_NAME)
        clearable(self.search, "Clear the customer search")
        self.search.textChanged.connect(self.on_search_changed)
        self.search.installEventFilter(_SearchKeys(self))
        self.refresh_button = button("Refresh", name="Refresh customers", shortcut=key(Act.REFRESH_CUSTOMERS))
        self.refresh_button.clicked.connect(self.refresh)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Checked-in customers")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(38)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setItemDelegateForColumn(2, MiddleElided(self.table))  # a member number, if ever short of room
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Sized once per refresh, not per keystroke: ResizeToContents re-measured every row on each filter.
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            self.table.horizontalHeader().setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
        self.table.activated.connect(lambda index: self.choose_row(index.row()))
        self.table.clicked.connect(lambda index: self.choose_row(index.row()))
        self.status = label(role="hint", wrap=True)
        self.status.setAccessibleName("Customer list status")
        self.waiting = Waiting(self.status.setText, self)

        top = QHBoxLayout()
        top.addWidget(label("Customers", role="heading"), 1)
        top.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.search)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        self._timer = QTimer(self)
        self._timer.setInterval(self.REFRESH_MS)
        self._timer.timeout.connect(self.refresh)

    def attach(self, customers: Customers) -> None:
        self.customers = customers
        self._timer.start()
        self.refresh()

    def detach(self) -> None:
        self._timer.stop()
        self.tasks.cancel_all()
        self.customers = None
        self.model.set_customers([])

    def refresh(self) -> None:
        """Fetch the list again; a refresh already under way is left to finish rather than cut off."""
        if self.customers is not None and not self.tasks.is_running("refresh"):
            self.tasks.run(self._refresh(self.customers), key="refresh", on_error=self._refresh_failed)

    async def _refresh(self, customers: Customers) -> None:
        self.waiting.start("Fetching the checked-in customers…")
        try:
            fetched = await customers.refresh()
        finally:
            self.waiting.stop()
        self.model.set_customers(fetched)
        self._size_columns()
        self._fit_columns()
        self._say_count()
        self.refreshed.emit(len(fetched))

    def _size_columns(self) -> None:
        """The check-in number, the member number and the time as wide as the widest of every customer checked
        in, not of the rows a search lets through now (the list refreshes while the cashier searches)."""
        header, style = self.table.horizontalHeader(), self.table.style()
        option = QStyleOptionViewItem()
        self.table.initViewItemOption(option)
        option.features |= QStyleOptionViewItem.ViewItemFeature.HasDisplay
        for column in (1, 2, 3):
            widest = 0
            for text in self.model.texts(column):  # as the table's painter measures a cell, margins and all
                option.text = text
                size = style.sizeFromContents(QStyle.ContentsType.CT_ItemViewItem, option, QSize(), self.table)
                widest = max(widest, size.width())
            grid = 1 if self.table.showGrid() else 0  # a cell is drawn inside the grid's line
            header.resizeSection(column, max(header.sectionSizeHint(column), widest + grid))

    def _fit_columns(self) -> None:
        """Compact when narrow: the member number and the time of check-in only when there is room."""
        wide = self.width() >= WIDE
        hidden = self.table.isColumnHidden(2)
        for column in (2, 3):
            self.table.setColumnHidden(column, not wide)
        if hidden and wide:
            self._size_columns()  # sized while hidden, they came back as narrow as they were hidden ("M-1…234")

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_columns()

    def _refresh_failed(self, error: UserError) -> None:
        kept = " The list shown is the last one fetched." if self.model.total else ""
        self.status.setText(
            f"The customer list cannot be fetched: {error.sentence}{kept} "
            f"Press {key(Act.REFRESH_CUSTOMERS)} to try again."
        )

    def _say_count(self) -> None:
        total, shown = self.model.total, self.model.rowCount()
        if total == 0:
            self.status.setText("Nobody is checked in at the moment. The list refreshes on its own.")
        elif shown == 0:
            self.status.setText(f"No checked-in customer matches {quoted(self.search.text())}.")
        elif shown < total:
            self.status.setText(f"{shown} of {total} checked-in customers match.")
        else:
            self.status.setText(f"{total} customers checked in.")

    def on_search_changed(self, text: str) -> None:
        self.model.set_filter(text)
        if self.model.total:
            self._say_count()

    def choose_row(self, row: int) -> None:
        customer = self.model.customer(row)
        if customer is not None:
            self.table.selectRow(row)
            self.chosen.emit(customer)

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def show_chosen(self, customer: Customer | None) -> None:
        """Keep the selection in step with the check (a restored check has its customer chosen)."""
        if customer is None:
            self.table.clearSelection()
            return
        row = self.model.row_of(customer.customer_id)
        if row is not None:
            self.table.selectRow(row)
