"""The back office's catalog page: the products and categories, a product's form, their order, CSV in and out, undo.

Everything here is a manager's act: the manager at the till does it at once, anyone else is asked for a manager's
PIN first (:func:`~pos_terminal.ui.approval_dialog.with_approval`), and the editor writes who, what and old → new
to the audit log. A product's form keeps what was typed: a bad value is one sentence beside the form, naming the
field, and a refresh (the page shown again, another till's change) never overwrites a form being edited.

Products and categories are reordered by dragging a row, by Alt+Up / Alt+Down in a list, or by the Move buttons;
in a list narrowed by the search, a product moves past the products shown next to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pos_terminal.domain.people import Approval, Guarded
from pos_terminal.domain.text import fold
from pos_terminal.errors import UserError
from pos_terminal.ui.approval_dialog import ManagerPrompt, with_approval
from pos_terminal.ui.catalog_lists import (
    BARCODES,
    ROW_HEIGHT,
    CategoryModel,
    ProductModel,
    RowsModel,
    place,
    rows_table,
)
from pos_terminal.ui.product_form import ProductForm
from pos_terminal.ui.tasks import Messages
from pos_terminal.ui.widgets import MiddleElided, button, clearable, confirm, file_dialog, label, least_room

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:  # the services load after the first paint (pos_terminal.app)
    from pos_terminal.journal.catalog import CategoryRow, ProductRow
    from pos_terminal.services.catalog_editor import ProductEdit
    from pos_terminal.services.terminal import Terminal

MAX_SEARCH = 80


class CatalogPage(QWidget):
    """Signals: ``changed()`` after a change was saved (the product grid follows)."""

    changed = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self.terminal: Terminal | None = None
        self.prompt: ManagerPrompt | None = None  # the manager's prompt, while one is up
        self.file_dialog: QFileDialog | None = None
        self.confirmation: QMessageBox | None = None  # undoing an import, while it asks
        self.all_products: list[ProductRow] = []
        self.all_categories: list[CategoryRow] = []
        self.editing: str | None = None  # the product in the form; None: a new one
        self.dirty = False  # the form holds what someone typed and has not saved
        self._loading = False

        # --- the bar: search, CSV, undo ---
        self.search = QLineEdit()
        self.search.setPlaceholderText("Find a product: name, category or barcode")
        self.search.setAccessibleName("Find a product in the catalog")
        clearable(self.search, "Clear the catalog search")
        self.search.setMaxLength(MAX_SEARCH)
        self.search.textChanged.connect(self.on_search_changed)
        self.import_button = button("&Import CSV…", name="Import a catalog from a CSV file")
        self.export_button = button("E&xport CSV…", name="Export the catalog to a CSV file")
        self.undo_button = button("Undo", name="Undo the last change")
        self.undo_button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.undo_button.setMinimumWidth(160)
        self.notice = label(role="reason", wrap=True)  # what went wrong with an import, a move, a category
        self.notice.setAccessibleName("Catalog problem")
        least_room(self.notice, 2)  # an import's refusal coming or going had pushed the table and the form down
        self.notice.hide()

        # --- the products ---
        self.products = ProductModel(self)
        self.product_table = rows_table(self.products, "Products")
        header = self.product_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 5):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.resizeSection(3, 110)
        self.product_table.setItemDelegateForColumn(BARCODES, MiddleElided(self.product_table))
        self.product_table.selectionModel().currentRowChanged.connect(self.on_product_current)
        self.products.dropped.connect(lambda uid, row: self.move_product(uid, row))
        self.new_button = button("&New product", name="Add a new product")
        self.up_button = button("Move up", name="Move the product up (Alt+Up)", shortcut="Alt+Up")
        self.down_button = button("Move down", name="Move the product down (Alt+Down)", shortcut="Alt+Down")
        self.count = label(role="hint")
        self.count.setAccessibleName("Products shown")

        # --- the categories ---
        self.categories = CategoryModel(self)
        self.category_table = rows_table(self.categories, "Categories")
        self.category_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.category_table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.category_table.setMinimumHeight(3 * ROW_HEIGHT + 30)
        self.category_table.selectionModel().currentRowChanged.connect(self.on_category_current)
        self.categories.dropped.connect(lambda uid, row: self.move_category(uid, row))
        self.category_name = QLineEdit()
        self.category_name.setAccessibleName("Category name")
        self.category_name.setPlaceholderText("Category name")
        self.category_name.ensurePolished()  # its placeholder whole, however narrow the window (16: the frame's)
        self.category_name.setMinimumWidth(self.category_name.fontMetrics().horizontalAdvance("Category name") + 16)
        from pos_terminal.services.catalog_editor import MAX_CATEGORY_NAME

        self.category_name.setMaxLength(MAX_CATEGORY_NAME)
        self.add_category_button = button("Add", name="Add a category")
        self.rename_category_button = button("Rename", name="Rename the category")
        self.active_category_button = button("Take off", name="Take the category off")
        self.category_up_button = button("Up", name="Move the category up (Alt+Up)")
        self.category_down_button = button("Down", name="Move the category down (Alt+Down)")

        # --- the product's form ---
        self.form = ProductForm()
        self.form.swatch_chosen.connect(self.on_swatch_clicked)

        # --- layout ---
        bar = QHBoxLayout()
        bar.addWidget(self.search, 3)
        bar.addWidget(self.import_button)
        bar.addWidget(self.export_button)
        bar.addWidget(self.undo_button, 2)

        product_buttons = QHBoxLayout()
        product_buttons.addWidget(self.new_button)
        product_buttons.addWidget(self.up_button)
        product_buttons.addWidget(self.down_button)
        product_buttons.addWidget(self.count, 1)

        category_buttons = QHBoxLayout()
        category_buttons.addWidget(self.category_name, 1)
        category_buttons.addWidget(self.add_category_button)
        category_buttons.addWidget(self.rename_category_button)
        category_buttons.addWidget(self.active_category_button)
        category_buttons.addWidget(self.category_up_button)
        category_buttons.addWidget(self.category_down_button)

        lists = QVBoxLayout()
        lists.addWidget(self.product_table, 3)
        lists.addLayout(product_buttons)
        lists.addWidget(self.category_table, 1)
        lists.addLayout(category_buttons)

        body = QHBoxLayout()
        body.addLayout(lists, 3)
        body.addWidget(self.form, 2)

        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.notice)
        layout.addLayout(body, 1)

        self._connect_signals()

    def _connect_signals(self) -> None:
        self.import_button.clicked.connect(self.on_import_clicked)
        self.export_button.clicked.connect(self.on_export_clicked)
        self.undo_button.clicked.connect(self.on_undo_clicked)
        self.new_button.clicked.connect(self.on_new_clicked)
        self.up_button.clicked.connect(lambda: self.step_product(-1))
        self.down_button.clicked.connect(lambda: self.step_product(1))
        self.form.save_button.clicked.connect(self.on_save_clicked)
        self.form.revert_button.clicked.connect(self.on_revert_clicked)
        for field in (self.form.name, self.form.price, self.form.tax, self.form.barcodes, self.form.colour):
            field.textEdited.connect(self.on_form_edited)
            field.returnPressed.connect(self.on_save_clicked)
        self.form.category.activated.connect(self.on_form_edited)
        self.form.active.clicked.connect(self.on_form_edited)
        self.add_category_button.clicked.connect(self.on_add_category_clicked)
        self.rename_category_button.clicked.connect(self.on_rename_category_clicked)
        self.active_category_button.clicked.connect(self.on_category_active_clicked)
        self.category_up_button.clicked.connect(lambda: self.step_category(-1))
        self.category_down_button.clicked.connect(lambda: self.step_category(1))
        self.category_name.returnPressed.connect(self.on_add_category_clicked)
        # Alt+Up / Alt+Down move the category chosen while its list has the focus, else the product chosen
        for keys, by in (("Alt+Up", -1), ("Alt+Down", 1)):
            page_shortcut = QShortcut(QKeySequence(keys), self)
            page_shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            page_shortcut.activated.connect(lambda b=by: self._step_focused(b))

    # --- the terminal ---------------------------------------------------------------------------------------------

    def attach(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.products.price = terminal.money.format
        self.refresh()

    def detach(self) -> None:
        self.terminal = None
        self.dirty = False
        self.editing = None
        if self.prompt is not None:
            self.prompt.reject()

    def refresh(self) -> None:
        """Show the terminal's catalog as it is now; a product being edited stays as typed."""
        if self.terminal is None:
            return
        editor = self.terminal.catalog_editor
        try:
            products, categories = editor.products(), editor.categories()
        except UserError as exc:
            self._notice(exc)
            return
        self.all_products, self.all_categories = products, categories
        self.products.category_names = {row.uid: row.name for row in categories}
        selected_category = self._current(self.category_table, self.categories)
        self.form.fill_categories(categories)
        self.categories.replace_rows(categories)
        self._select(self.category_table, self.categories, selected_category.uid if selected_category else None)
        self._show_products()
        if not self.dirty:
            row = self._product(self.editing)
            self._load(row)
        self._update_buttons()

    def _show_products(self) -> None:
        words = fold(self.search.text()).split()
        names = self.products.category_names
        shown = [
            row
            for row in self.all_products
            if all(
                word in fold(f"{row.name} {names.get(row.category_uid or '', '')} {' '.join(row.barcodes)}")
                for word in words
            )
        ]
        self.products.replace_rows(shown)
        self._fit_barcodes()
        self._select(self.product_table, self.products, self.editing)
        total = len(self.all_products)
        self.count.setText(f"{len(shown)} of {total} products" if words else f"{total} products")

    def _update_buttons(self) -> None:
        last = self.terminal.catalog_editor.last_change() if self.terminal is not None else None
        text = f"Undo {last}" if last else "Undo"
        self.undo_button.setText(text.replace("&", "&&"))
        self.undo_button.setToolTip(f"Take back the last change: {last}" if last else "Nothing to undo")
        self.undo_button.setEnabled(last is not None)
        self.form.revert_button.setEnabled(self.dirty)
        category = self._current(self.category_table, self.categories)
        self.rename_category_button.setEnabled(category is not None)
        self.active_category_button.setEnabled(category is not None)
        self.active_category_button.setText("Put back" if category is not None and not category.active else "Take off")
        self.category_up_button.setEnabled(category is not None)
        self.category_down_button.setEnabled(category is not None)
        product = self._current(self.product_table, self.products)
        self.up_button.setEnabled(product is not None)
        self.down_button.setEnabled(product is not None)

    # --- the product's form -------------------------------------------------------------------------------------

    def _product(self, uid: str | None) -> ProductRow | None:
        return next((row for row in self.all_products if row.uid == uid), None) if uid else None

    def _load(self, row: ProductRow | None) -> None:
        """Show ``row`` in the form (None: an empty form for a new product)."""
        self._loading = True
        self.editing = row.uid if row is not None else None
        self.form.show_product(row, self.terminal.money.format if self.terminal is not None else None)
        self.dirty = False
        self.form.show_problem(None)
        self._loading = False
        self._update_buttons()

    def on_form_edited(self, *_: object) -> None:
        if not self._loading:
            self.dirty = True
            self.form.revert_button.setEnabled(True)

    def on_swatch_clicked(self, colour: str) -> None:
        self.form.colour.setText(colour)
        self.on_form_edited()

    def on_product_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        row = self.products.row(current.row()) if current.isValid() else None
        if row is not None and row.uid != self.editing:
            self._load(row)  # choosing a product is choosing to edit it (what was typed for another goes)
        self._update_buttons()

    def on_new_clicked(self) -> None:
        self.product_table.clearSelection()
        self.product_table.setCurrentIndex(QModelIndex())
        self._load(None)
        self.form.name.setFocus()

    def on_revert_clicked(self) -> None:
        self._load(self._product(self.editing))

    def on_save_clicked(self) -> None:
        if self.terminal is None:
            return
        try:
            edit = self.form.edit(self.terminal.money)
        except UserError as exc:
            self.form.show_problem(exc)
            return
        self.form.show_problem(None)  # the next try: what was refused before is not what is asked now
        uid = self.editing
        name = " ".join(edit.name.split())
        question = f"Save the changes to “{name}”?" if uid else f"Add “{name}” to the catalog?"
        self._approved(question, lambda by: self._save(uid, edit, by), self.form.show_problem)

    def _save(self, uid: str | None, edit: ProductEdit, by: str | None) -> None:
        assert self.terminal is not None
        row = self.terminal.catalog_editor.save_product(uid, edit, by=by)
        self.dirty = False
        self.editing = row.uid
        self._after_change(self._saved(f"“{row.name}”"), product=row.uid)

    # --- order ------------------------------------------------------------------------------------------------------

    def _step_focused(self, by: int) -> None:
        if self.category_table.hasFocus():
            self.step_category(by)
        else:
            self.step_product(by)

    def step_product(self, by: int) -> None:
        """The product chosen, one place up (``by`` -1) or down (1) among those shown."""
        row = self._current(self.product_table, self.products)
        if row is not None:
            index = self.products.rows.index(row)
            self.move_product(row.uid, index + (by if by < 0 else 2))

    def step_category(self, by: int) -> None:
        row = self._current(self.category_table, self.categories)
        if row is not None:
            index = self.categories.rows.index(row)
            self.move_category(row.uid, index + (by if by < 0 else 2))

    def move_product(self, uid: str, row: int) -> None:
        """Move a product before row ``row`` of those shown (a drop, or a step)."""
        order = [p.uid for p in self.all_products]
        to = place(order, [self.products.uid(p) for p in self.products.rows], uid, row)
        self._move("product", uid, to)

    def move_category(self, uid: str, row: int) -> None:
        order = [c.uid for c in self.all_categories]
        to = place(order, order, uid, row)
        self._move("category", uid, to)

    def _move(self, kind: str, uid: str, to: int | None) -> None:
        if self.terminal is None or to is None:
            return
        rows: Sequence[Any] = self.all_products if kind == "product" else self.all_categories
        name = next((row.name for row in rows if row.uid == uid), "")

        def move(by: str | None) -> None:
            assert self.terminal is not None
            self.terminal.catalog_editor.move(kind, uid, to, by=by)
            if kind == "category":
                self._after_change(None, category=uid)
            else:
                self._after_change(None, product=uid)

        self._approved(f"Move “{name}” to place {to + 1}?", move, self._notice)

    # --- categories -------------------------------------------------------------------------------------------------

    def on_category_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        row = self.categories.row(current.row()) if current.isValid() else None
        if row is not None:
            self.category_name.setText(row.name)
        self._update_buttons()

    def on_add_category_clicked(self) -> None:
        name = " ".join(self.category_name.text().split())
        self._category(None, name, True, f"Add the category “{name}”?")

    def on_rename_category_clicked(self) -> None:
        row = self._current(self.category_table, self.categories)
        if row is not None:
            name = " ".join(self.category_name.text().split())
            self._category(row.uid, name, row.active, f"Rename the category “{row.name}” to “{name}”?")

    def on_category_active_clicked(self) -> None:
        row = self._current(self.category_table, self.categories)
        if row is not None:
            verb = "Put back" if not row.active else "Take off"
            self._category(row.uid, row.name, not row.active, f"{verb} the category “{row.name}”?")

    def _category(self, uid: str | None, name: str, active: bool, question: str) -> None:
        def save(by: str | None) -> None:
            assert self.terminal is not None
            row = self.terminal.catalog_editor.save_category(uid, name, active=active, by=by)
            self._after_change(self._saved(f"The category “{row.name}”"), category=row.uid)

        self._approved(question, save, self._notice)

    # --- CSV and undo -----------------------------------------------------------------------------------------------

    def on_import_clicked(self) -> None:
        self.file_dialog = file_dialog(
            self, "Import a catalog (CSV)", "CSV files (*.csv);;All files (*)", self.import_file, self._dialog_closed
        )

    def import_file(self, path: Path) -> None:
        """Check the whole file, then (a manager approving) make it the catalog; nothing changes when any row is
        bad, and the bad rows are named by line number in one message."""
        from pos_terminal.services.catalog_editor import parse_csv, read_csv

        if self.terminal is None:
            return
        try:
            data = read_csv(path)
            parse_csv(data, path.name)  # checked before anyone is asked to approve it
        except UserError as exc:
            self._notice(exc)
            return
        self._notice(None)  # the next try: another file's rows are not this one's

        def publish(by: str | None) -> None:
            assert self.terminal is not None
            published = self.terminal.catalog_editor.import_csv(data, source=path.name, by=by)
            if not published.any:
                self._after_change(f"The catalog is already {path.name}: nothing changed.")
                return
            counts = (
                f"{len(published.added)} added, {len(published.changed)} changed, {len(published.retired)} taken off"
            )
            if self._store_away():
                self._after_change(
                    f"{path.name} is imported on this till ({counts}); the other tills get it once the store is "
                    "back online."
                )
            else:
                self._after_change(f"{path.name} is imported: {counts}.")

        self._approved(f"Make {path.name} the catalog?", publish, self._notice)

    def on_export_clicked(self) -> None:
        suggested = Path.home() / "catalog.csv"
        self.file_dialog = file_dialog(
            self,
            "Export the catalog (CSV)",
            "CSV files (*.csv)",
            self.export_file,
            self._dialog_closed,
            save_as=suggested,
        )

    def _dialog_closed(self) -> None:
        self.file_dialog = None

    def export_file(self, path: Path) -> None:
        from pos_terminal.services.catalog import write_text

        if self.terminal is None:
            return
        try:
            write_text(path, self.terminal.catalog_editor.export_csv())
        except UserError as exc:
            self._notice(exc)
            return
        self._notice(None)
        self.messages.show_info(f"The catalog is exported to {path}.")

    def on_undo_clicked(self) -> None:
        if self.terminal is None or (last := self.terminal.catalog_editor.last_change()) is None:
            return

        def undo(by: str | None) -> None:
            assert self.terminal is not None
            what = self.terminal.catalog_editor.undo(by=by)
            self.dirty = False  # the form shows the product as the undo left it
            self._after_change(f"Undone: {what}." if what else "There was nothing to undo.")

        if last != "import":
            self._approved(f"Undo {last}?", undo, self._notice)
            return
        # the whole catalog, at every till of a store, and no undo of the undo: asked first, as one click beside
        # "Export CSV…" did it
        self.confirmation = confirm(
            self,
            "Undo the import",
            "Undo the import?",
            "Every product and category goes back to what it was before the import, on every till that shares "
            "this catalog. This cannot be undone in its turn.",
            lambda: self._approved(f"Undo {last}?", undo, self._notice),
        )

    # --- plumbing ---------------------------------------------------------------------------------------------------

    def _approved(self, question: str, act: Callable[[str | None], None], failed: Callable[[UserError], None]) -> None:
        """``act(by)`` once a manager is at the till or approved (``by``: the name for the audit log); an
        expected failure goes to ``failed``."""
        if self.terminal is None:
            return
        till = self.terminal.till

        def then(approval: Approval | None) -> None:
            self.prompt = None
            try:
                act(till.catalog_manager(approval))
            except UserError as exc:
                failed(exc)

        self.prompt = with_approval(self, till, Guarded.MANAGE_CATALOG, question, then)
        if self.prompt is not None:
            self.prompt.rejected.connect(lambda: setattr(self, "prompt", None))

    def _fit_barcodes(self) -> None:
        """The barcodes whole where the table has room once the names have theirs (or a third of it), else
        shortened in the middle, where codes differ; never narrower than their heading."""
        table, header = self.product_table, self.product_table.horizontalHeader()
        others = sum(table.columnWidth(column) for column in (1, 2, 3, 5))
        room = table.viewport().width() - others
        wanted = max(header.sectionSizeHint(BARCODES), table.sizeHintForColumn(BARCODES))
        names = table.sizeHintForColumn(0)
        table.setColumnWidth(BARCODES, min(wanted, max(header.sectionSizeHint(BARCODES), room - names, room // 3)))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_barcodes()

    def _store_away(self) -> bool:
        """This till belongs to a store it cannot reach now: what it saves reaches the other tills later."""
        if self.terminal is None:
            return False
        status = self.terminal.store.status()
        return status.linked and status.offline_since is not None

    def _saved(self, what: str) -> str:
        """What is saved, and who has it: an edit made while the store is away stays on this till until it is back."""
        if self._store_away():
            return f"{what} is saved on this till; the other tills get it once the store is back online."
        return f"{what} is saved."

    def _after_change(self, news: str | None, *, product: str | None = None, category: str | None = None) -> None:
        self._notice(None)
        self.refresh()
        if product is not None:
            self._select(self.product_table, self.products, product)
        if category is not None:
            self._select(self.category_table, self.categories, category)
        self._update_buttons()
        if news:
            self.messages.show_info(news)
        self.changed.emit()

    def _notice(self, error: UserError | None) -> None:
        self.notice.setText(error.text() if error is not None else "")
        self.notice.setVisible(error is not None)

    def on_search_changed(self, _text: str) -> None:
        self._show_products()
        self._update_buttons()

    @staticmethod
    def _current(table: QTableView, model: RowsModel[Any]) -> Any:
        index = table.currentIndex()
        return model.row(index.row()) if index.isValid() else None

    def _select(self, table: QTableView, model: RowsModel[Any], uid: str | None) -> None:
        row = model.row_of(uid) if uid else None
        if row is None:
            return
        index = model.index(row, 0)
        table.selectionModel().setCurrentIndex(
            index, table.selectionModel().SelectionFlag.ClearAndSelect | table.selectionModel().SelectionFlag.Rows
        )
        table.scrollTo(index)
