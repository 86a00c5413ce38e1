"""A product's form on the back office's catalog page: its fields, the grid colours to tap, Save and Revert.

The form shows a product and reads back what was typed as the catalog editor takes it; a value that is not one
is one sentence beside the form, naming the field. Saving, and asking a manager first, is the page's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pos_terminal.errors import UserError
from pos_terminal.ui.catalog_lists import SWATCH, Swatch, percent
from pos_terminal.ui.widgets import (
    BIG_BUTTON,
    button,
    clearable,
    form,
    label,
    least_room,
    level_labels,
    wheel_when_focused,
)

if TYPE_CHECKING:  # the services load after the first paint (pos_terminal.app)
    from pos_terminal.domain.money import MoneyFormat
    from pos_terminal.journal.catalog import CategoryRow, ProductRow
    from pos_terminal.services.catalog_editor import ProductEdit

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

SWATCHES = ("#6f4e37", "#c0392b", "#d68910", "#1e8449", "#1f618d", "#7d3c98")
MAX_PRICE_TEXT = 16
MAX_RATE_TEXT = 8
MAX_BARCODES_TEXT = 160  # ten codes of up to 14 digits, spaced


class ProductForm(QScrollArea):
    """Signals: ``swatch_chosen(str)`` a grid colour tapped (its ``#rrggbb``)."""

    swatch_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from pos_terminal.services.catalog_editor import MAX_PRODUCT_NAME

        self.form_title = label("New product", role="heading")
        self.form_title.setAccessibleName("Product being edited")
        self.name = QLineEdit()
        self.name.setAccessibleName("Product name")
        self.name.setMaxLength(MAX_PRODUCT_NAME)
        self.price = QLineEdit()
        self.price.setAccessibleName("Price")
        self.price.setMaxLength(MAX_PRICE_TEXT)
        self.price.setInputMethodHints(Qt.InputMethodHint.ImhFormattedNumbersOnly)
        self.tax = QLineEdit()
        self.tax.setAccessibleName("Tax rate in percent")
        self.tax.setPlaceholderText("none")
        self.tax.setMaxLength(MAX_RATE_TEXT)
        self.tax.setInputMethodHints(Qt.InputMethodHint.ImhFormattedNumbersOnly)
        self.category = QComboBox()
        self.category.setAccessibleName("Category")
        self.barcodes = QLineEdit()
        self.barcodes.setAccessibleName("Barcodes")
        self.barcodes.setPlaceholderText("codes, separated by spaces")
        self.barcodes.setMaxLength(MAX_BARCODES_TEXT)
        self.colour = QLineEdit()
        self.colour.setAccessibleName("Grid colour")
        self.colour.setPlaceholderText("#rrggbb, or none")
        clearable(self.colour, "Clear the grid colour")  # no colour: the grid's own
        self.colour.setMaxLength(7)
        self.swatches: list[QPushButton] = []
        self.swatch_box = QWidget()
        self.swatch_box.setAccessibleName("Grid colours")
        swatch_row = QHBoxLayout(self.swatch_box)
        swatch_row.setContentsMargins(0, 0, 0, 0)
        swatch_row.setSpacing(6)
        for colour in SWATCHES:
            swatch = Swatch()
            swatch.setAccessibleName(f"Colour {colour}")
            swatch.setToolTip(colour)
            swatch.setMinimumSize(SWATCH, SWATCH)
            swatch.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            swatch.setStyleSheet(f"QPushButton {{ background: {colour}; border: 1px solid #52606d; }}")
            swatch.clicked.connect(lambda _=False, c=colour: self.swatch_chosen.emit(c))
            self.swatches.append(swatch)
            swatch_row.addWidget(swatch)
        self.active = QCheckBox("On sale (shown in the product grid)")
        self.active.setAccessibleName("Active")
        self.active.setChecked(True)
        self.save_button = button("&Save product", role="primary", name="Save the product")
        self.revert_button = button("Revert", name="Show the product as saved")
        self.revert_button.setMinimumHeight(BIG_BUTTON)  # beside Save, one height
        self.problem = label(role="reason", wrap=True)  # the service's sentence, naming the field
        self.problem.setAccessibleName("Why the product was not saved")
        least_room(self.problem, 2)  # the service's sentence coming or going never moves Save
        self.problem.hide()

        fields = form()
        fields.addRow("Na&me", self.name)
        fields.addRow("P&rice", self.price)
        fields.addRow("&Tax rate (%)", self.tax)
        fields.addRow("Cate&gory", self.category)
        fields.addRow("&Barcodes", self.barcodes)
        fields.addRow("Co&lour", self.colour)
        fields.addRow("", self.swatch_box)
        fields.addRow("", self.active)
        level_labels(fields)

        editor = QWidget()
        editor.setAccessibleName("Product")
        editor_layout = QVBoxLayout(editor)
        editor_layout.setContentsMargins(0, 0, 8, 0)
        editor_layout.addWidget(self.form_title)
        editor_layout.addLayout(fields)
        editor_layout.addWidget(self.problem)
        save_row = QHBoxLayout()
        save_row.addWidget(self.save_button, 2)
        save_row.addWidget(self.revert_button, 1)
        editor_layout.addLayout(save_row)
        editor_layout.addStretch(1)
        self.setWidget(editor)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # the form whole beside the scroll bar a short window or a page's message above gives it: the bar took its
        # width from the fields (at 960×640 it covered the Revert button's edge)
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self.verticalScrollBar())
        self.setMinimumWidth(max(400, editor.minimumSizeHint().width()) + bar)
        wheel_when_focused(self)  # scrolling the form never moves a product to another category

    def show_product(self, row: ProductRow | None, price: Callable[[int], str] | None) -> None:
        """Show ``row`` in the fields (None: empty fields for a new product); ``price`` formats its price."""
        self.form_title.setText(f"“{row.name}”".replace("&", "&&") if row is not None else "New product")
        self.name.setText(row.name if row else "")
        self.price.setText(price(row.price) if row and price else "")
        self.tax.setText(percent(row.tax_rate_bp) if row and row.tax_rate_bp is not None else "")
        self.category.setCurrentIndex(max(0, self.category.findData(row.category_uid if row else None)))
        self.barcodes.setText(" ".join(row.barcodes) if row else "")
        self.colour.setText(row.colour or "" if row else "")
        self.active.setChecked(row.active if row else True)

    def fill_categories(self, categories: Sequence[CategoryRow]) -> None:
        chosen = self.category.currentData()
        self.category.clear()
        self.category.addItem("No category", None)
        for row in categories:
            self.category.addItem(row.name if row.active else f"{row.name} (taken off)", row.uid)
        self.category.setCurrentIndex(max(0, self.category.findData(chosen)))

    def show_problem(self, error: UserError | None) -> None:
        self.problem.setText(error.text() if error is not None else "")
        self.problem.setVisible(error is not None)

    def edit(self, money: MoneyFormat) -> ProductEdit:
        """What the form holds, as the editor takes it; CatalogEditError naming the field when a value is not one."""
        from pos_terminal.domain.money import AmountInputError
        from pos_terminal.services.catalog_editor import CatalogEditError, ProductEdit, parse_rate

        typed = self.price.text().strip()
        if not typed:
            raise CatalogEditError("The price is empty.")
        try:
            price = money.parse(typed)
        except AmountInputError as exc:
            raise CatalogEditError(f"The price: {exc.sentence[0].lower()}{exc.sentence[1:]}") from None
        try:
            rate = parse_rate(self.tax.text().replace(",", "."))
        except CatalogEditError as exc:
            raise CatalogEditError(f"{exc.sentence[0].upper()}{exc.sentence[1:]}.") from None
        codes = tuple(self.barcodes.text().replace(",", " ").split())
        return ProductEdit(
            name=self.name.text(),
            price=price,
            tax_rate_bp=rate,
            category_uid=self.category.currentData(),
            barcodes=codes,
            colour=self.colour.text().strip() or None,
            active=self.active.isChecked(),
        )
