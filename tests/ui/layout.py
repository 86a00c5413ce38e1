"""What a person would call clipped: a control outside the window, or too small for its own text.

Used by the layout tests at the screen sizes counters have. A control inside a scroll area counts as
reachable when it lies within the area's content (the cashier scrolls to it); the area itself must lie
within the window.
"""

from __future__ import annotations

import re

from pos_terminal.ui.widgets import ElidedLabel

from PySide6.QtCore import QModelIndex, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QHeaderView,
    QLabel,
    QLayout,
    QLineEdit,
    QScrollArea,
    QScrollBar,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionSpinBox,
    QStyleOptionViewItem,
    QTabBar,
    QTableView,
    QTextEdit,
    QWidget,
)
from shiboken6 import isValid

CONTROLS = (QAbstractButton, QLabel, QLineEdit, QAbstractSpinBox, QComboBox, QTableView)


def _scroll_area(widget: QWidget, top: QWidget) -> QScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        if isinstance(parent, QScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


def _rect_in(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, QPoint(0, 0)), widget.size())


def _text_problem(widget: QWidget) -> str | None:
    """Why ``widget`` cannot show its text whole in the size it has, or None."""
    size = widget.size()
    if isinstance(widget, ElidedLabel):
        return None  # shortened with "…" by design, whole in its tool tip
    if isinstance(widget, QLabel):
        if not widget.text() or (widget.pixmap() is not None and not widget.pixmap().isNull()):
            return None
        if widget.wordWrap():
            needed = widget.heightForWidth(size.width())
            return f"needs {needed} px of height, has {size.height()}" if needed > size.height() else None
        hint = widget.sizeHint()
        if hint.width() > size.width() or hint.height() > size.height():
            return f"needs {hint.width()}x{hint.height()}, has {size.width()}x{size.height()}"
        if widget.textFormat() != Qt.TextFormat.RichText and "<" not in widget.text():
            plain = widget.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
            ink = max(widget.fontMetrics().boundingRect(line).width() for line in plain.split("\n"))
            room = widget.width() - widget.contentsMargins().left() - 2 * widget.margin()  # drawn up to its edge
            if ink > room:
                return f"its letters need {ink} px, it has {room} (the last one is cut)"
        return None
    if isinstance(widget, QAbstractButton):
        hint = widget.sizeHint()
        if hint.width() > size.width() or hint.height() > size.height():
            return f"needs {hint.width()}x{hint.height()}, has {size.width()}x{size.height()}"
        return None
    if isinstance(widget, QLineEdit):
        shown = widget.text() or widget.placeholderText()
        room = widget.width() - 16 - (24 if widget.isClearButtonEnabled() else 0)
        needed = widget.fontMetrics().horizontalAdvance(shown)
        return f"its text needs {needed} px, has {room}" if needed > room else None
    if isinstance(widget, QAbstractSpinBox | QComboBox):
        hint = widget.minimumSizeHint()
        if hint.width() > size.width() or hint.height() > size.height():
            return f"needs {hint.width()}x{hint.height()}, has {size.width()}x{size.height()}"
    return None


def _unscrolled(widget: QWidget, area: QScrollArea) -> str | None:
    """A direction the area does not scroll in must show the widget whole."""
    viewport = area.viewport()
    shown = _rect_in(widget, viewport)
    off = Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    if area.horizontalScrollBarPolicy() == off and (shown.left() < 0 or shown.right() > viewport.width()):
        return f"{shown.left()}..{shown.right()} across a viewport {viewport.width()} wide that does not scroll"
    if area.verticalScrollBarPolicy() == off and (shown.top() < 0 or shown.bottom() > viewport.height()):
        return f"{shown.top()}..{shown.bottom()} down a viewport {viewport.height()} high that does not scroll"
    return None


def _cut_by_container(widget: QWidget, window: QWidget) -> str | None:
    """The container (up to ``window``) that cuts ``widget``: a layout squeezed below what its widgets need lets
    them run past its edge, under the next column ("Pric" beside the price field, "Add" under the ticket)."""
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        if isinstance(parent, QScrollArea) or isinstance(parent.parentWidget(), QScrollArea):
            return None  # a scroll area's content is larger than what it shows, by design
        if not parent.rect().contains(_rect_in(widget, parent)):
            name = parent.accessibleName() or parent.objectName() or type(parent).__name__
            return f"runs past the edge of {name}: {_rect_in(widget, parent)} in {parent.rect()}"
        parent = parent.parentWidget()
    return None


def _in_layout(layout: QLayout, widget: QWidget) -> bool:
    for n in range(layout.count()):
        item = layout.itemAt(n)
        if item.widget() is widget or (item.layout() is not None and _in_layout(item.layout(), widget)):
            return True
    return False


def _laid_out(widget: QWidget) -> bool:
    """A visible widget its container's layout places (an overlay or a field's own parts are placed by hand)."""
    if not isValid(widget):
        return False  # deleted while the walk went on (a tool tip's frame)
    parent = widget.parentWidget()
    if not widget.isVisible() or widget.isWindow() or parent is None or parent.layout() is None:
        return False
    return _in_layout(parent.layout(), widget)


def _overlapping(widgets: list[QWidget]) -> list[str]:
    """Controls side by side in one container that lie on top of each other."""
    found = []
    for n, a in enumerate(widgets):
        for b in widgets[n + 1 :]:
            if a.parentWidget() is b.parentWidget() and a.geometry().intersects(b.geometry()):
                names = [w.accessibleName() or w.objectName() or type(w).__name__ for w in (a, b)]
                found.append(f"{names[0]} and {names[1]} overlap: {a.geometry()} and {b.geometry()}")
    return found


def clipped(window: QWidget, *parts: QWidget) -> list[str]:
    """Every visible control of ``parts`` (the whole window when none) that lies outside ``window``, or whose
    text does not fit it."""
    QApplication.processEvents()
    parts = parts or (window,)
    bounds = window.rect()
    problems: list[str] = []
    for part in parts:
        for widget in [part, *part.findChildren(QWidget)]:
            if not isinstance(widget, CONTROLS) or not widget.isVisible():
                continue
            if isinstance(widget.parentWidget(), QLineEdit | QAbstractSpinBox):
                continue  # a field's own parts (its clear button, a spin box's editor) are drawn by the field
            name = widget.accessibleName() or widget.objectName() or type(widget).__name__
            text = getattr(widget, "text", lambda: "")()
            where = f"{name} ({type(widget).__name__} {text!r:.40})"
            area = _scroll_area(widget, window)
            if area is not None:
                content = area.widget()
                if content is not None and not content.rect().contains(_rect_in(widget, content)):
                    problems.append(f"{where} lies outside the content it scrolls in")
                if (problem := _unscrolled(widget, area)) is not None:
                    problems.append(f"{where} is cut by {area.accessibleName() or 'a scroll area'}: {problem}")
            elif not bounds.contains(_rect_in(widget, window)):
                problems.append(f"{where} lies outside the window: {_rect_in(widget, window)} in {bounds}")
            elif (problem := _cut_by_container(widget, window)) is not None:
                problems.append(f"{where} {problem}")
            if (problem := _text_problem(widget)) is not None:
                problems.append(f"{where} is clipped: {problem}")
        problems += _overlapping([w for w in [part, *part.findChildren(QWidget)] if _laid_out(w)])
    return problems


def _broken_words(widget: QLabel | QTextEdit) -> list[str]:
    """Lines that end inside a word: a word too long for its room, broken between two letters."""
    if isinstance(widget, QTextEdit):
        document = widget.document()
    else:
        document = QTextDocument()
        document.setDefaultFont(widget.font())
        if widget.textFormat() == Qt.TextFormat.RichText or "<" in widget.text():
            document.setHtml(widget.text())
        else:
            document.setPlainText(widget.text())
        document.setDocumentMargin(0)
        document.setTextWidth(widget.contentsRect().width() - 2 * widget.margin())
    broken = []
    block = document.begin()
    while block.isValid():
        layout, text = block.layout(), block.text()
        if layout is not None:
            for n in range(layout.lineCount() - 1):
                line = layout.lineAt(n)
                end = line.textStart() + line.textLength()
                if 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
                    broken.append(f"{text[line.textStart() : end]}/{text[end:].split()[0]}")
        block = block.next()
    return broken


def _cut_cells(table: QTableView) -> list[str]:
    """Cells and headings drawn shortened with "…": their column is narrower than their text."""
    header, model = table.horizontalHeader(), table.model()
    margins = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    cut = []
    for column in range(model.columnCount()):
        if table.isColumnHidden(column):
            continue
        width = table.columnWidth(column)
        heading = model.headerData(column, Qt.Orientation.Horizontal)
        needs = header.sectionSizeHint(column) if table.wordWrap() else table.sizeHintForColumn(column)
        needs = max(needs, header.sectionSizeHint(column))
        if needs > width:
            cut.append(f"column {heading!r} needs {needs} px, has {width}")
        if not table.wordWrap():
            continue
        room = width - margins
        for row in range(model.rowCount()):
            text = str(model.index(row, column).data() or "")
            font = model.index(row, column).data(Qt.ItemDataRole.FontRole)
            metrics = QFontMetrics(font if isinstance(font, QFont) else table.font())
            widest = max((metrics.horizontalAdvance(word) for word in text.split()), default=0)
            high = metrics.boundingRect(QRect(0, 0, room, 100_000), Qt.TextFlag.TextWordWrap, text).height()
            if widest > room or high > table.rowHeight(row):
                cut.append(f"{text!r} needs {widest}x{high} px, has {room}x{table.rowHeight(row)}")
    return cut


CODE = re.compile(r"^[\w-]*\d[\w-]*$")  # a barcode, a member number, an id: no spaces, some digits


def _elide_mode(table: QTableView, index: QModelIndex) -> Qt.TextElideMode:
    """How the cell at ``index`` is shortened, as its delegate paints it."""
    option = QStyleOptionViewItem()
    option.textElideMode = table.textElideMode()
    delegate = table.itemDelegateForIndex(index)
    if isinstance(delegate, QStyledItemDelegate):
        delegate.initStyleOption(option, index)
    return option.textElideMode


def _painted_width(table: QTableView, index: QModelIndex) -> int:
    """The width the table's painter needs for the cell whole, its margins and all (as the style measures it)."""
    option = QStyleOptionViewItem()
    table.initViewItemOption(option)
    delegate = table.itemDelegateForIndex(index)
    if isinstance(delegate, QStyledItemDelegate):
        delegate.initStyleOption(option, index)
    grid = 1 if table.showGrid() else 0  # the cell is drawn inside the grid's line
    return table.style().sizeFromContents(QStyle.ContentsType.CT_ItemViewItem, option, QSize(), table).width() + grid


def _spare(table: QTableView, margins: int) -> int:
    """The room the stretching columns have beyond their widest text: room another column could have."""
    header, model = table.horizontalHeader(), table.model()
    spare = 0
    for column in range(model.columnCount()):
        if table.isColumnHidden(column) or header.sectionResizeMode(column) != QHeaderView.ResizeMode.Stretch:
            continue
        texts = [str(model.index(row, column).data() or "") for row in range(model.rowCount())]
        widest = max((table.fontMetrics().horizontalAdvance(text) for text in texts), default=0)
        spare += max(0, table.columnWidth(column) - margins - max(widest, header.sectionSizeHint(column) - margins))
    return spare


def _shortened_cells(table: QTableView) -> list[str]:
    """Cells of a table that may shorten, shortened where they should not be: a column sized for its contents
    (only the column that stretches gives way, and a column of codes that elides in the middle); a cell without its
    whole text in its tool tip and accessible text; a code shortened anywhere but in the middle, where codes
    differ."""
    header, model = table.horizontalHeader(), table.model()
    margins = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    cut = []
    for column in range(model.columnCount()):
        if table.isColumnHidden(column):
            continue
        heading = model.headerData(column, Qt.Orientation.Horizontal)
        room = table.columnWidth(column) - margins
        for row in range(model.rowCount()):
            index = model.index(row, column)
            text = str(index.data() or "")
            font = index.data(Qt.ItemDataRole.FontRole)
            metrics = QFontMetrics(font if isinstance(font, QFont) else table.font())
            if not text or _painted_width(table, index) <= table.columnWidth(column):
                continue
            where = f"{heading!r} shows {metrics.elidedText(text, _elide_mode(table, index), room)!r} of {text!r}"
            codes = all(CODE.match(word) for word in text.split())
            middle = _elide_mode(table, index) == Qt.TextElideMode.ElideMiddle
            stretches = header.sectionResizeMode(column) == QHeaderView.ResizeMode.Stretch
            if not stretches and not (codes and middle):
                cut.append(f"{where}: its column is sized for its contents")
            elif not stretches and _spare(table, margins) >= metrics.horizontalAdvance(text) - room:
                cut.append(f"{where}, while the column that gives way has room to spare")
            if text not in str(index.data(Qt.ItemDataRole.ToolTipRole) or "").replace("\n", " "):
                cut.append(f"{where}, and its tool tip does not say it whole")
            if index.data(Qt.ItemDataRole.AccessibleTextRole) != text:
                cut.append(f"{where}, and a screen reader does not read it whole")
            if codes and not middle:
                cut.append(f"{where}: a code shortened at its end hides the digits that differ")
    return cut


def cut_text(window: QWidget, *parts: QWidget, shortened: tuple[QTableView, ...] = ()) -> list[str]:
    """What :func:`clipped` finds, and besides: a label shortened with "…", a word broken in two, a table
    whose cells are shortened or that scrolls sideways. What a person reads must be whole; only the tables of
    ``shortened`` may shorten a cell (they say so in their own module, and show it whole elsewhere), in the column
    that gives way, with the whole text in its tool tip and accessible text, and a code in its middle."""
    problems = clipped(window, *parts)
    for part in parts or (window,):
        for widget in [part, *part.findChildren(QWidget)]:
            if not widget.isVisible():
                continue
            name = widget.accessibleName() or widget.objectName() or type(widget).__name__
            if isinstance(widget, ElidedLabel) and widget.shown_text() != widget.text():
                problems.append(f"{name} is shortened to {widget.shown_text()!r}")
            if isinstance(widget, QLabel | QTextEdit) and (words := _broken_words(widget)):
                problems.append(f"{name} breaks words in two: {words}")
            if isinstance(widget, QTableView):
                if widget.horizontalScrollBar().isVisible():
                    problems.append(f"{name} scrolls sideways")
                if widget not in shortened:
                    problems += [f"{name}: {cell}" for cell in _cut_cells(widget)]
                else:
                    problems += [f"{name}: {cell}" for cell in _shortened_cells(widget)]
    return problems


def painted_lines_missing(table: QTableView) -> list[str]:
    """The cells whose wrapped text needs more lines than their row shows, measured where the style paints the text
    (the cell less its text margins), not where Qt's size hint measures it (the whole cell)."""
    missing = []
    style = table.style()
    for row in range(table.model().rowCount()):
        for column in range(table.model().columnCount()):
            index = table.model().index(row, column)
            text = index.data(Qt.ItemDataRole.DisplayRole)
            if not text:
                continue
            option = QStyleOptionViewItem()
            option.initFrom(table)
            option.rect = table.visualRect(index)
            option.text = str(text)
            option.features |= QStyleOptionViewItem.ViewItemFeature.WrapText | (
                QStyleOptionViewItem.ViewItemFeature.HasDisplay
            )
            area = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, table)
            needed = option.fontMetrics.boundingRect(
                QRect(0, 0, area.width(), 10_000), int(Qt.TextFlag.TextWordWrap), str(text)
            )
            if needed.height() > area.height():
                missing.append(
                    f"row {row}, column {column}: {str(text)!r} needs {needed.height()} px, has {area.height()}"
                )
    return missing


FINGER = 40  # the smallest side of a control a finger uses (issue 51)


def _spin_arrows(box: QAbstractSpinBox) -> list[tuple[str, QRect]]:
    if box.buttonSymbols() == QAbstractSpinBox.ButtonSymbols.NoButtons:
        return []
    option = QStyleOptionSpinBox()
    box.initStyleOption(option)
    style = box.style()
    return [
        (part, style.subControlRect(QStyle.ComplexControl.CC_SpinBox, option, control, box))
        for part, control in (
            ("up arrow", QStyle.SubControl.SC_SpinBoxUp),
            ("down arrow", QStyle.SubControl.SC_SpinBoxDown),
        )
    ]


def too_small(*parts: QWidget) -> list[str]:
    """Every visible control of ``parts`` a finger uses (a button, a tab, a choice, a field, a spin box's arrows, a
    check box) whose smaller side is under :data:`FINGER` px."""
    QApplication.processEvents()
    found: list[str] = []

    def check(what: str, width: int, height: int) -> None:
        if min(width, height) < FINGER:
            found.append(f"{what} is {width}x{height} px")

    for part in parts:
        for widget in [part, *part.findChildren(QWidget)]:
            if not widget.isVisible() or not widget.isEnabled():
                continue
            if isinstance(widget.parentWidget(), QLineEdit | QAbstractSpinBox | QComboBox | QTabBar):
                continue  # a field's own parts, a tab bar's scroll buttons: drawn with the field
            if isinstance(widget, QAbstractScrollArea | QScrollBar):
                continue
            name = widget.accessibleName() or widget.objectName() or type(widget).__name__
            text = widget.text() if isinstance(widget, QAbstractButton | QLineEdit) else ""
            where = f"{name} ({type(widget).__name__} {text!r:.30})"
            if isinstance(widget, QTabBar):
                for index in range(widget.count()):
                    tab = widget.tabRect(index)
                    check(f"the tab {widget.tabText(index)!r}", tab.width(), tab.height())
            elif isinstance(widget, QAbstractButton | QComboBox | QLineEdit | QAbstractSpinBox):
                check(where, widget.width(), widget.height())
            if isinstance(widget, QAbstractSpinBox):
                for arrow, rect in _spin_arrows(widget):
                    check(f"{where}'s {arrow}", rect.width(), rect.height())
    return found
