"""The product grid: touch-sized tiles from the catalog, a tab per category, and a search as you type.

Every product can be reached: the grid flows into as many columns as the width
allows and scrolls when there are more rows than fit. The search folds case and
accents as the customer search does, on the product's name and category. Enter in
the search adds the one product it finds; Down moves into the grid, where the
arrow keys move between tiles and Enter or Space adds the one in focus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_terminal.domain.text import fold
from pos_terminal.ui import actions
from pos_terminal.ui.widgets import MAX_TYPED_NAME, button, clearable, label, quoted

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:  # the catalog and the money format come with the terminal, after the first paint
    from pos_terminal.domain.money import MoneyFormat
    from pos_terminal.services.catalog import Catalog, CatalogEntry

TILE_WIDTH = 132  # the narrowest a tile gets: two lines of a name at the tile's font fit in it
TILE_HEIGHT = 72
TILE_MAX_HEIGHT = 112  # on a tall screen tiles grow up to this
TILE_ROWS_SHOWN = 6  # ... so that about this many rows fill the grid's height
TILE_FONT = 15  # px: the window's type, on a tile of a grid under SCALE_FROM px high
TILE_FONT_MOST = 20  # px: a name read at arm's length; the tiles grow with their type, up to this
SCALE_FROM = 540  # px of the grid's height at which tiles start to grow (a 1024×768 window's grid is less)
ALL = "All"


def wrap(text: str, metrics: QFontMetrics, width: int, lines: int = 2) -> str:
    """``text`` broken at spaces into at most ``lines`` lines of ``width`` pixels; the last one elided."""
    words = text.split()
    out: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}".strip()
        if metrics.horizontalAdvance(candidate) <= width or not current:
            current = candidate
            continue
        out.append(current)
        current = word
    out.append(current)
    if len(out) > lines:
        out = [*out[: lines - 1], " ".join(out[lines - 1 :])]
    return "\n".join(metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in out)


class ProductTile(QPushButton):
    """A product's button: its name (up to three lines) and price, as tall as the tallest tile of the grid."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.rows_height = TILE_HEIGHT
        self.least_width = TILE_WIDTH

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().sizeHint()
        return QSize(max(hint.width(), self.least_width), max(hint.height(), self.rows_height))


class _GridKeys(QObject):
    """Arrow keys move between the tiles shown, by row and column; Up from the first row goes to the search."""

    def __init__(self, panel: ProductPanel) -> None:
        super().__init__(panel)
        self.panel = panel

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        panel = self.panel
        if watched is panel.search:
            if event.key() == Qt.Key.Key_Down and panel.shown:
                panel.shown[0].setFocus()
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                panel.choose_from_search()
                return True
            return False
        if not isinstance(watched, QPushButton) or watched not in panel.shown:
            return False
        index, columns = panel.shown.index(watched), panel.columns
        moves = ((Qt.Key.Key_Left, -1), (Qt.Key.Key_Right, 1), (Qt.Key.Key_Up, -columns), (Qt.Key.Key_Down, columns))
        for key, step in moves:
            if event.key() != key:
                continue
            target = index + step
            if 0 <= target < len(panel.shown):
                panel.shown[target].setFocus()
                panel.grid_scroll.ensureWidgetVisible(panel.shown[target])
            elif key == Qt.Key.Key_Up:
                panel.search.setFocus()
            return True
        return False


class ProductPanel(QWidget):
    """The catalog as tiles. Signals: ``chosen(object)`` a :class:`CatalogEntry` to add; ``not_found(str)``
    the search text when Enter finds no product (the cashier means an item to type by hand)."""

    chosen = Signal(object)
    not_found = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog: Catalog | None = None  # the terminal's, given when it attaches
        self._money: MoneyFormat | None = None
        self.tiles: list[ProductTile] = []
        self.entries: dict[QPushButton, CatalogEntry] = {}
        self._keys: dict[QPushButton, str] = {}
        self.shown: list[ProductTile] = []
        self.columns = 3
        self.category: str | None = None
        self._text_height = TILE_HEIGHT
        self._font = TILE_FONT  # px: the tiles' type, larger on a larger grid

        self.search = QLineEdit()
        self.search.setPlaceholderText(f"Find a product ({actions.key(actions.Act.FIND_PRODUCT)})")
        self.search.setAccessibleName("Find product")
        self.search.setMaxLength(MAX_TYPED_NAME)
        clearable(self.search, "Clear the product search")
        self.search.textChanged.connect(self.refilter)
        keys = _GridKeys(self)
        self.search.installEventFilter(keys)
        self._grid_keys = keys

        self.category_box = QWidget()
        self.category_box.setAccessibleName("Product categories")
        self.category_lines = QVBoxLayout(self.category_box)
        self.category_lines.setContentsMargins(0, 0, 0, 0)
        self.category_lines.setSpacing(6)
        self.category_group = QButtonGroup(self)
        self.category_group.setExclusive(True)
        self.category_group.buttonClicked.connect(self.on_category_clicked)
        self.category_names: dict[QAbstractButton, str] = {}
        self._category_flow: list[list[int]] = []

        self.catalog_box = QWidget()
        self.catalog_box.setAccessibleName("Products")
        self.grid = QGridLayout(self.catalog_box)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(6)
        self.grid.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.grid_scroll = QScrollArea()
        self.grid_scroll.setWidget(self.catalog_box)
        self.grid_scroll.setWidgetResizable(True)
        self.grid_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.grid_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # shown only when some product lies below; the columns are counted as if it were (_room), so it coming
        # or going never reflows the tiles
        self.grid_scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.none_found = label(role="hint", wrap=True)
        self.none_found.setAccessibleName("No product found")
        self.none_found.setParent(self.catalog_box)  # never a window of its own, even for a moment
        self.none_found.hide()

        self.problem = label(role="hint", wrap=True)  # why there are no products: the catalog file's sentence
        self.problem.setAccessibleName("Catalog problem")
        self.problem.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addWidget(self.problem)
        layout.addWidget(self.category_box)
        layout.addWidget(self.grid_scroll, 1)

    # --- the catalog ---------------------------------------------------------------------------------

    def set_catalog(self, catalog: Catalog, money: MoneyFormat, *, problem: str | None = None) -> None:
        """Show ``catalog``'s products; ``problem`` says why there are none (a catalog file that cannot be read).

        The category chosen stays chosen while the catalog still has it (the store's catalog changes under a
        cashier's hands); the same catalog again changes nothing."""
        if problem is None and catalog == self.catalog and money is self._money and not self.problem.text():
            return
        chosen = self.category
        self._money = money
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        for tile in self.tiles:
            self.grid.removeWidget(tile)
            tile.deleteLater()
        for old in self.category_group.buttons():
            self.category_group.removeButton(old)
            old.hide()
            old.deleteLater()
        self._category_flow = []
        self.catalog = catalog
        self.tiles, self.entries, self._keys = [], {}, {}
        for entry in catalog:
            price = money.format(entry.price)
            tile = ProductTile(entry.name)
            tile.setProperty("role", "tile")
            tile.setAccessibleName(f"Add {entry.name}, {price}")
            tile.setToolTip(f"{entry.name}, {price}")
            tile.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            tile.setAutoDefault(True)  # Enter on the tile in focus adds it
            tile.installEventFilter(self._grid_keys)
            tile.clicked.connect(lambda _=False, e=entry: self.chosen.emit(e))
            self.tiles.append(tile)
            self.entries[tile] = entry
            self._keys[tile] = fold(f"{entry.name} {entry.category or ''}")
        self.category_names = {}
        self._letter_tiles()
        for name in (ALL, *catalog.categories):
            tab = button(name.replace("&", "&&"), role="category", name=f"Category {name}")
            tab.setCheckable(True)
            tab.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            self.category_group.addButton(tab)
            self.category_names[tab] = name
        self.category_box.setVisible(bool(catalog.categories))
        first = self.category_group.buttons()
        if first:
            first[0].setChecked(True)
        self.category = None
        self._flow_categories()
        if chosen in catalog.categories:
            self.choose_category(chosen)
        else:
            self.refilter()

    def _flow_categories(self) -> None:
        """The category buttons in as many rows as the width needs: every one in sight, none clipped."""
        tabs = self.category_group.buttons()
        room = self.width() or self.sizeHint().width()
        spacing = self.category_lines.spacing()
        flow: list[list[int]] = [[]]
        used = 0
        for index, tab in enumerate(tabs):
            width = tab.sizeHint().width()
            if flow[-1] and used + spacing + width > room:
                flow.append([])
                used = 0
            used += (spacing if flow[-1] else 0) + width
            flow[-1].append(index)
        if flow == self._category_flow:
            return
        self._category_flow = flow
        while (item := self.category_lines.takeAt(0)) is not None:
            line = item.layout()
            if line is not None:
                while line.takeAt(0) is not None:
                    pass
                line.deleteLater()
        for indexes in flow:
            line = QHBoxLayout()
            line.setSpacing(spacing)
            for index in indexes:
                line.addWidget(tabs[index])
            line.addStretch(1)
            self.category_lines.addLayout(line)

    def on_category_clicked(self, chosen: QAbstractButton) -> None:
        name = self.category_names.get(chosen, ALL)
        self.category = None if name == ALL else name
        self.refilter()

    def choose_category(self, name: str | None) -> None:
        for tab, shown in self.category_names.items():
            if shown == (name or ALL):
                tab.setChecked(True)
                self.on_category_clicked(tab)

    # --- filtering and flowing ----------------------------------------------------------------------

    def refilter(self) -> None:
        """Show the tiles of the category chosen that hold every word typed, in the catalog's order."""
        words = fold(self.search.text()).split()
        category = self.category if not words else None  # a search looks through every category
        self.shown = [
            tile
            for tile in self.tiles
            if (category is None or self.entries[tile].category == category)
            and all(word in self._keys[tile] for word in words)
        ]
        self._flow()

    def _room(self) -> int:
        """The grid's width with the scroll bar's room kept, whether it shows or not."""
        bar = self.grid_scroll.verticalScrollBar()
        extent = self.grid_scroll.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, bar)
        return self.grid_scroll.viewport().width() - (0 if bar.isVisible() else extent)

    def _flow(self) -> None:
        room = self._room() if self.grid_scroll.viewport().width() else self.width()
        self.columns = max(2, (room + self.grid.spacing()) // (self.tile_width + self.grid.spacing()))
        for tile in self.tiles:
            self.grid.removeWidget(tile)
            tile.hide()
        self.grid.removeWidget(self.none_found)
        for index, tile in enumerate(self.shown):
            self.grid.addWidget(tile, index // self.columns, index % self.columns)
            tile.show()
        typed = self.search.text().strip()
        if typed and not self.shown:
            self.none_found.setText(
                f"No product matches {quoted(typed)}. Press Enter to type it as an item with its price."
            )
            self.grid.addWidget(self.none_found, 0, 0, 1, self.columns)
        self.none_found.setVisible(bool(typed) and not self.shown)
        for column in range(self.grid.columnCount()):
            self.grid.setColumnStretch(column, 1 if column < self.columns else 0)

    @property
    def tile_width(self) -> int:
        """The narrowest a tile gets, grown with its type."""
        return TILE_WIDTH * self._font // TILE_FONT

    def _letter_tiles(self) -> None:
        """Each tile's name wrapped at the tiles' type and width, and the tiles as tall as the longest name needs."""
        for tile in self.tiles:
            entry = self.entries[tile]
            tile.setStyleSheet(f"font-size: {self._font}px;" if self._font != TILE_FONT else "")
            tile.ensurePolished()  # the style sheet's font, which the name is wrapped in
            tile.least_width = self.tile_width
            name = wrap(entry.name, tile.fontMetrics(), self.tile_width - 24, lines=3)
            price = self._money.format(entry.price) if self._money is not None else ""
            tile.setText(f"{name}\n{price}".replace("&", "&&"))  # a name's "&" is not a mnemonic
        self._text_height = max([TILE_HEIGHT, *(tile.sizeHint().height() for tile in self.tiles)])
        self._size_tiles()

    def _grow_tiles(self) -> bool:
        """On a taller grid the tiles' type grows, up to what an eye at arm's length reads; True when it changed."""
        font = max(TILE_FONT, min(TILE_FONT_MOST, TILE_FONT * self.grid_scroll.viewport().height() // SCALE_FROM))
        if font == self._font:
            return False
        self._font = font
        self._letter_tiles()
        return True

    def _size_tiles(self) -> None:
        """One height for every tile (the grid reads as rows): what the longest name needs, and taller on a
        tall screen, so the grid fills it with larger targets rather than leaving it empty."""
        screenful = self.grid_scroll.viewport().height() // TILE_ROWS_SHOWN
        height = max(self._text_height, min(TILE_MAX_HEIGHT * self._font // TILE_FONT, screenful))
        for tile in self.tiles:
            if tile.rows_height != height:
                tile.rows_height = height
                tile.setMinimumHeight(height)
                tile.updateGeometry()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._flow_categories()
        grown = self._grow_tiles()
        self._size_tiles()
        room = self._room()
        if grown or max(2, (room + self.grid.spacing()) // (self.tile_width + self.grid.spacing())) != self.columns:
            self._flow()

    # --- choosing -------------------------------------------------------------------------------------

    def visible_entries(self) -> list[CatalogEntry]:
        return [self.entries[tile] for tile in self.shown]

    def choose_from_search(self) -> None:
        """Enter in the search: the one product found is added, or among several the one named exactly as typed
        ("latte" among Latte, Chai latte and Iced latte); none found, the text is an item to type."""
        text = self.search.text().strip()
        exact = [tile for tile in self.shown if fold(self.entries[tile].name) == fold(text)]
        if text and (len(self.shown) == 1 or len(exact) == 1):
            self.chosen.emit(self.entries[self.shown[0] if len(self.shown) == 1 else exact[0]])
            self.search.setText("")
        elif not self.shown and text:
            self.not_found.emit(text)
        elif self.shown and text:
            self.shown[0].setFocus()

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()
