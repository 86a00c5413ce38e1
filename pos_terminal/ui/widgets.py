"""Small shared pieces: the message banner, touch-sized buttons, labels, waits that say how long they last.

The colours and sizes are the style sheet of :mod:`pos_terminal.ui.theme`.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from pathlib import Path

from pos_terminal.ui.actions import DISMISS_MESSAGE
from pos_terminal.ui.cashier_presenter import waited

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QDialog,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QWidget,
)
from shiboken6 import isValid

BUTTON = 40  # touch-sized: a fingertip
LABEL_SLACK = 6  # pixels a form label gets beyond its text: the last glyph's overhang is not in its advance
FRAME = 1  # the banner's frame (the style sheet draws it 1 px wide for every kind of message)
BIG_BUTTON = 52  # the accent buttons (Charge, Complete, Save, Disconnect): one height, side by side


def set_role(widget: QWidget, role: str) -> None:
    """A style role from the style sheet; re-polished so a change shows at once."""
    widget.setProperty("role", role)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def button(text: str, *, role: str | None = None, name: str | None = None, shortcut: str | None = None) -> QPushButton:
    """A push button with an accessible name (``name``, else its text) and its shortcut in the tool tip.

    Return or Enter on the button in focus presses it, as Space does: outside a dialog Qt's buttons took only Space,
    and a form's main button, reached by Tab from its last field, did nothing and said nothing on Return."""
    widget = QPushButton(text)
    widget.setAutoDefault(True)
    if role:
        widget.setProperty("role", role)
    widget.setMinimumHeight(BIG_BUTTON if role in ("primary", "danger") else BUTTON)
    widget.setAccessibleName(name or text.replace("&", "").replace("\n", " "))
    if shortcut:
        widget.setToolTip(f"{(name or text).replace('&', '')} ({shortcut})")
        widget.setAccessibleDescription(f"Shortcut: {shortcut}")
    widget.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
    return widget


class Waiting(QObject):
    """A wait that says what it waits for and for how long: ``"Loading… (3 s)"``, every second while it lasts.

    ``show`` receives the text each second (a label's ``setText``). The timer runs only while waiting.
    """

    def __init__(self, show: Callable[[str], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._show = show
        self._what = ""
        self._since = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._tick)

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    def seconds(self) -> float:
        return time.monotonic() - self._since if self.active else 0.0

    def start(self, what: str) -> None:
        self._what = what
        self._since = time.monotonic()
        self._timer.start()
        self._tick()

    def stop(self) -> None:
        self._timer.stop()

    def text(self) -> str:
        return f"{self._what} ({waited(self.seconds())})"

    def _tick(self) -> None:
        self._show(self.text())


class _OnEnter(QObject):
    def __init__(self, watched: QWidget, then: Callable[[], None]) -> None:
        super().__init__(watched)
        self.then = then

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        ):
            self.then()
            return True
        return False


def on_enter(widget: QWidget, then: Callable[[], None]) -> None:
    """Call ``then`` when Enter is pressed in ``widget`` (a spin box has no ``returnPressed`` of its own)."""
    widget.installEventFilter(_OnEnter(widget, then))


class _FirstPaint(QObject):
    def __init__(self, watched: QWidget, then: Callable[[], None]) -> None:
        super().__init__(watched)
        self.then: Callable[[], None] | None = then

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint and self.then is not None:
            then, self.then = self.then, None
            watched.removeEventFilter(self)
            self.deleteLater()
            then()
        return False


def on_first_paint(widget: QWidget, then: Callable[[], None]) -> None:
    """Call ``then`` once, when ``widget`` is first painted (it is on the screen, as the person sees it)."""
    widget.installEventFilter(_FirstPaint(widget, then))


class _WheelWhenFocused(QObject):
    def __init__(self, box: QWidget) -> None:
        super().__init__(box)
        self.box = box

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QEvent.Type.Wheel:
            return False
        if self.box.hasFocus():
            if watched is self.box:
                return False
            QApplication.sendEvent(self.box, event)  # a wheel on the box's text field turns the box
            return True
        page = self.box.parentWidget()
        while page is not None and not isinstance(page, QAbstractScrollArea):
            page = page.parentWidget()
        if page is not None:  # the page the box is on scrolls, as it would under any other part of it
            QApplication.sendEvent(page.viewport(), event)
        event.accept()
        return True


def wheel_when_focused(root: QWidget) -> None:
    """Every combo box and spin box in ``root`` turns with the wheel only once it has the keyboard focus (a click or
    Tab gives it); a wheel over one that has not scrolls the page it is on. A manager scrolling the settings had
    changed the printer profile and the discount a cashier may give, without seeing it.

    The box's own parts are watched too: over a spin box or an editable choice the pointer is on its text field,
    which gets the wheel first, and a wheel that field was sent stopped there (the page stalled under it)."""
    from PySide6.QtWidgets import QComboBox  # the forms that have them load after the first paint

    for box in (*root.findChildren(QComboBox), *root.findChildren(QAbstractSpinBox)):
        box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a wheel no longer takes the focus either
        watch = _WheelWhenFocused(box)
        for part in (box, *box.findChildren(QLineEdit)):
            part.installEventFilter(watch)


def stepped(box: QAbstractSpinBox, name: str) -> QWidget:
    """``box`` between a "−" and a "+" button a finger can hit (its own arrows were half a field high and 14 px
    wide); ``name`` says what they step ("the discount a cashier may give"). The buttons leave the keyboard where
    it is: Tab goes from field to field."""
    row = QWidget()
    line = QHBoxLayout(row)
    line.setContentsMargins(0, 0, 0, 0)
    line.setSpacing(4)
    box.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
    line.addWidget(box, 1)
    for text, by, said in (("−", -1, "Less"), ("+", +1, "More")):
        step = button(text, name=f"{said}: {name}")
        step.setFixedSize(BUTTON, BUTTON)
        step.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        step.setAutoRepeat(True)
        step.clicked.connect(lambda _=False, b=by: box.stepBy(b))
        line.addWidget(step)
    return row


def empty(field: QLineEdit) -> None:
    """Empty a field and forget its undo history.

    ``QLineEdit.clear()`` is an edit that can be undone: every character it removes goes on the
    field's undo stack, which nothing ever trims. On fields emptied after every item of every sale
    that stack grew for the whole day. ``setText`` starts the history afresh.
    """
    field.setText("")


def clearable(field: QLineEdit, name: str) -> None:
    """Give ``field`` its ⊗ clear button, named: Qt's own has neither text nor name, and a screen reader said only
    "button". ``name`` says what it empties ("Clear the customer search")."""
    field.setClearButtonEnabled(True)
    for part in field.findChildren(QToolButton):  # the clear button, the field's only one
        part.setAccessibleName(name)
        part.setToolTip(name)


def form() -> QFormLayout:
    """A form whose labels sit level with their fields (Qt's own places them a few pixels high next to
    touch-sized fields)."""
    layout = QFormLayout()
    layout.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    return layout


def level_labels(layout: QFormLayout) -> None:
    """Once the rows are in: each label fills its row's height with its text centred on the field beside it,
    and is as wide as the widest label (a label sized to its own text lost the last letter of some)."""
    for row in range(layout.rowCount()):
        shown = layout.itemAt(row, QFormLayout.ItemRole.LabelRole)
        widget = shown.widget() if shown is not None else None
        if isinstance(widget, QLabel):
            widget.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            widget.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
            roomy(widget)


def roomy(widget: QLabel) -> int:
    """Make ``widget`` at least as wide as its letters as drawn (in the style sheet's font), with a little
    slack: a label sized to its text's advance lost the overhang of its last letter. Returns that width."""
    widget.ensurePolished()
    shown = widget.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    width = widget.fontMetrics().boundingRect(shown).width() + LABEL_SLACK
    widget.setMinimumWidth(width)
    return width


def least_room(widget: QLabel, lines: int) -> None:
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


MAX_TYPED_NAME = 80  # a name typed or searched for on the cashier's screen: a paste of pages is cut here
QUOTED = 32  # what a sentence quotes of a typed text
_BREAK_EVERY = 10  # characters of a word between the points where a line may break (a word never widens a column)


def quoted(text: str, most: int = QUOTED) -> str:
    """``“text”`` for a sentence, shortened with "…" past ``most`` characters, and with a zero-width space (a
    place to break the line, not shown) every few characters of a long word: a word that cannot wrap would widen
    its label past its column."""
    text = " ".join(text.split())
    if len(text) > most:
        text = text[: most - 1] + "…"
    words = (
        "\u200b".join(word[i : i + _BREAK_EVERY] for i in range(0, len(word), _BREAK_EVERY)) for word in text.split(" ")
    )
    return f"“{' '.join(words)}”"


def label(text: str = "", *, role: str | None = None, wrap: bool = False, rich: bool = False) -> QLabel:
    """A label of plain text: what a person typed ("<b>Mia</b> &amp; Co", a store's name) shows as typed, never read
    as markup by Qt's guess; ``rich`` for one whose own words are markup (a link), every typed part escaped."""
    widget = QLabel(text)
    widget.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    if role:
        widget.setProperty("role", role)
    widget.setWordWrap(wrap)
    return widget


class ElidedLabel(QLabel):
    """One line that never wraps nor widens the layout: drawn shortened with "…" when it has too little room
    (in the middle for an id, at the end for a name); ``text()``, the tool tip and the accessible description keep it
    whole. :meth:`set_texts` gives shorter wordings to show, in order, before any "…"."""

    def __init__(
        self,
        text: str = "",
        *,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
        keep: int = 0,
        yields: bool = False,
    ) -> None:
        super().__init__(text)
        self.mode = mode
        self.yields = yields  # asks only for its shortest wording's room: its neighbours keep theirs first
        self.keep = keep  # the letters it keeps however short of room the layout is (an everyday name whole)
        self.shorter: tuple[str, ...] = ()
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setToolTip(text)
        self.setAccessibleDescription(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        self.shorter = ()
        super().setText(text)
        self.updateGeometry()
        self.setToolTip(text)
        self.setAccessibleDescription(text)

    def set_texts(self, whole: str, *shorter: str) -> None:
        """``whole`` where it fits, else the first of ``shorter`` that does, else the last shortened with "…"."""
        self.setText(whole)
        self.shorter = shorter
        self.updateGeometry()  # its least room is its shortest wording's
        self.update()

    def shown_text(self) -> str:
        """The text as drawn in the room it has."""
        room = self.contentsRect().width()
        metrics = self.fontMetrics()
        wordings = (self.text(), *self.shorter)
        for wording in wordings:
            if metrics.horizontalAdvance(wording) <= room:
                return wording
        return metrics.elidedText(wordings[-1], self.mode, room)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return self.minimumSizeHint() if self.yields else super().sizeHint()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """Room for its shortest wording (a part that can say less is never cut), else for its first ``keep``
        letters, and at least for a few."""
        margins = self.contentsMargins().left() + self.contentsMargins().right()
        metrics = self.fontMetrics()
        if self.shorter:
            least = metrics.horizontalAdvance(self.shorter[-1])
        else:
            kept = self.text() if len(self.text()) <= self.keep else self.text()[: self.keep] + "…"
            least = metrics.horizontalAdvance(kept) if self.keep else 0
        width = max(least, metrics.horizontalAdvance("…") * 4) + margins
        return QSize(width, super().minimumSizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        alignment = int(self.alignment() | Qt.AlignmentFlag.AlignVCenter)
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            alignment,
            self.palette(),
            self.isEnabled(),
            self.shown_text(),
            self.foregroundRole(),
        )


class MiddleElided(QStyledItemDelegate):
    """A column of codes: shortened in the middle ("4001234…0017"), where codes differ, never at the end."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class Banner(QFrame):
    """One message for the cashier at the top of the window, in a space of its own that never changes size:
    showing, replacing or hiding a message moves nothing else (a click meant for a button lands on it).

    Errors stay until dismissed, replaced, or their cause is gone (:meth:`resolve` with their topic); news
    goes after 8 s. Two lines of text fit; a longer message shows whole in the tool tip.

    Signals: ``dismissed()``; ``showing(bool)`` whether a message is up.
    """

    dismissed = Signal()
    showing = Signal(bool)
    LINES = 2
    INFO_MS = 8000

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setAccessibleName("Messages")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 4, 6, 4)
        self.text = QLabel()
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # a message may quote what was typed: shown as typed
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAccessibleName("Message")
        self.close_button = QPushButton("Dismiss")
        self.close_button.setAccessibleName("Dismiss message")
        self.close_button.setToolTip(f"Dismiss the message ({DISMISS_MESSAGE})")
        self.close_button.setShortcut(QKeySequence(DISMISS_MESSAGE))
        self.close_button.setMinimumSize(2 * BUTTON, BUTTON)  # a fingertip's, as every button
        self.close_button.clicked.connect(self.clear)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.close_button)
        self.topic = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clear)
        policy = self.sizePolicy()
        policy.setVerticalPolicy(QSizePolicy.Policy.Fixed)
        policy.setRetainSizeWhenHidden(True)  # hidden, it keeps its place: nothing below moves
        self.setSizePolicy(policy)
        self.hide()
        self.setFixedHeight(self.room())

    def room(self) -> int:
        """As tall as two lines of text (or the Dismiss button) and a frame, whatever is shown or not."""
        self.ensurePolished()
        self.text.ensurePolished()
        self.close_button.ensurePolished()
        layout = self.layout()
        padding = layout.contentsMargins().top() + layout.contentsMargins().bottom() if layout is not None else 0
        lines = self.LINES * self.text.fontMetrics().lineSpacing()
        button = max(self.close_button.sizeHint().height(), self.close_button.minimumHeight())
        return max(lines, button) + padding + 2 * FRAME

    @property
    def kind(self) -> str:
        return str(self.property("kind") or "")

    def show_message(self, text: str, kind: str = "error", topic: str = "") -> None:
        self.setProperty("kind", kind)
        self.style().unpolish(self)
        self.style().polish(self)
        self.text.setText(text)
        self.text.setToolTip(text)
        self.topic = topic
        self.show()
        self.showing.emit(True)
        if kind == "info":
            self._timer.start(self.INFO_MS)
        else:
            self._timer.stop()

    def resolve(self, topic: str) -> None:
        """The cause of ``topic`` is gone: its message goes, any other stays."""
        if topic and self.isVisible() and self.topic == topic:
            self.clear()

    def clear(self) -> None:
        self._timer.stop()
        self.text.clear()
        self.text.setToolTip("")
        self.topic = ""
        self.hide()
        self.showing.emit(False)
        self.dismissed.emit()


_warning_sign: QPixmap | None = None


def warning_sign(box: QMessageBox) -> QPixmap:
    """The style's warning sign at a message box's size, made once for the whole day.

    ``QMessageBox.setIcon`` loads the sign anew for every box, and the icon engine files each new copy in the
    application's ``QPixmapCache`` under that copy's own key: a day of confirmations filled the cache towards
    its 10 MB with the same sign. One pixmap has one key, so the cache holds it once."""
    global _warning_sign
    if _warning_sign is None:
        style = box.style()
        side = style.pixelMetric(QStyle.PixelMetric.PM_MessageBoxIconSize, None, box)
        icon = style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning, None, box)
        _warning_sign = icon.pixmap(QSize(side, side), box.devicePixelRatio())
    return _warning_sign


class _KeyboardBack(QObject):
    def __init__(self, dialog: QDialog, back_to: QWidget | None) -> None:
        super().__init__(dialog)
        # weakly: a widget kept here could be the last hold on a window the dialog belongs to, which then went
        # with the dialog's own deletion (and the dialog a second time with it)
        earlier = (QApplication.focusWidget(), back_to, dialog.parentWidget())
        self.earlier = [weakref.ref(widget) for widget in earlier if widget is not None]
        dialog.finished.connect(self.give_back)

    def give_back(self, result: int) -> None:
        opened = QApplication.activeModalWidget()
        if opened is not None and opened is not self.parent():
            # a dialog its answer opened (the drawer's count after a manager approved closing the shift) has the
            # keyboard, and stays on top: raising the window put it over that dialog, which no window manager keeps
            # above it on a kiosk, and the till looked frozen behind a dialog nobody could see
            opened.activateWindow()
            opened.raise_()
            return
        for ref in self.earlier:
            widget = ref()
            if widget is not None and isValid(widget) and widget.isVisible() and widget.isEnabled():
                window = widget.window()
                window.activateWindow()
                window.raise_()
                widget.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
                return


def keyboard_back(dialog: QDialog, back_to: QWidget | None = None) -> None:
    """When ``dialog`` closes, the keyboard goes back where it was when it opened: that window active again, the
    focus on the widget that had it (else ``back_to``, else the dialog's parent). A window manager does so for a
    dialog that closes; a counter's kiosk session runs none, and after a question was answered the cashier's
    shortcuts (F1, F3, F8 …) did nothing until the screen was touched."""
    _KeyboardBack(dialog, back_to)


def confirm(
    parent: QWidget,
    title: str,
    question: str,
    detail: str,
    on_yes: Callable[[], None],
    *,
    answers: tuple[str, str] | None = None,
) -> QMessageBox:
    """Ask before something that cannot be undone; "No" is the default and Escape. ``answers`` are what the two
    buttons say instead of Yes and No, the act done and the act not done ("Refund", "Do not refund"), where the
    act is on money. Opened with ``open()``, never a nested ``exec()``, so the window's coroutines go on while it
    is up. Deleted once answered: a day of refunds otherwise keeps every box it asked, hidden, as a child of
    ``parent``."""
    box = QMessageBox(parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setIconPixmap(warning_sign(box))
    box.setWindowTitle(title)
    box.setText(question)
    box.setInformativeText(detail)
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    box.setEscapeButton(QMessageBox.StandardButton.No)
    if answers is not None:
        yes, no = answers
        box.button(QMessageBox.StandardButton.Yes).setText(yes)
        box.button(QMessageBox.StandardButton.No).setText(no)
    for answer in box.buttons():  # the stock buttons were about 70×22 px: too small for a finger
        answer.setMinimumSize(120, BUTTON)
    box.finished.connect(lambda result: on_yes() if result == QMessageBox.StandardButton.Yes.value else None)
    keyboard_back(box)
    box.open()
    return box


class _SpreadColumns(QObject):
    def __init__(self, table: QTableView) -> None:
        super().__init__(table)
        self.table = table
        header = table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        table.viewport().installEventFilter(self)
        model = table.model()
        for changed in (model.modelReset, model.layoutChanged, model.rowsInserted, model.dataChanged):
            changed.connect(self.spread)
        self.spread()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize:
            self.spread()
        return False

    def spread(self) -> None:
        table, header = self.table, self.table.horizontalHeader()
        columns = [c for c in range(header.count()) if not table.isColumnHidden(c)]
        if not columns:
            return
        needed = {c: max(table.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in columns}
        spare = max(0, table.viewport().width() - sum(needed.values()))
        share, rest = divmod(spare, len(columns))
        for n, c in enumerate(columns):
            header.resizeSection(c, needed[c] + share + (rest if n == len(columns) - 1 else 0))


def spread_columns(table: QTableView) -> None:
    """Each column as wide as its widest cell, and the room left over shared evenly: no column is cut, and on a
    wide screen no single column (the last, stretched) takes most of the table."""
    _SpreadColumns(table)


def file_dialog(
    parent: QWidget,
    title: str,
    name_filter: str,
    chosen: Callable[[Path], object],
    closed: Callable[[], None],
    *,
    save_as: Path | None = None,
) -> QFileDialog:
    """A file dialog, opened with ``open()`` (the window goes on; never ``exec()`` in a coroutine): an existing file
    to read, or with ``save_as`` a file to write, suggested by that name and given its suffix. ``chosen`` gets the
    path; ``closed`` runs however it closes (the caller lets go of it: it deletes itself)."""
    dialog = QFileDialog(parent, title, str(save_as if save_as is not None else Path.home()), name_filter)
    if save_as is None:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    else:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix(save_as.suffix.lstrip("."))
        dialog.selectFile(str(save_as))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.fileSelected.connect(lambda path: chosen(Path(path)))
    dialog.finished.connect(lambda _: closed())
    keyboard_back(dialog)
    dialog.open()
    return dialog
