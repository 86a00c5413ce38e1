"""Small shared pieces: the message banner, the style sheet (``resources/style.qss``), touch-sized buttons."""

from __future__ import annotations

from collections.abc import Callable

from pos_terminal import assets

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QPushButton, QSizePolicy, QWidget

STYLE = assets.read_text("style.qss")  # resources/style.qss


def set_role(widget: QWidget, role: str) -> None:
    """A style role from the style sheet; re-polished so a change shows at once."""
    widget.setProperty("role", role)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def button(text: str, *, role: str | None = None, name: str | None = None, shortcut: str | None = None) -> QPushButton:
    widget = QPushButton(text)
    if role:
        widget.setProperty("role", role)
    widget.setAccessibleName(name or text.replace("&", ""))
    if shortcut:
        widget.setToolTip(f"{text.replace('&', '')} ({shortcut})")
    widget.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
    return widget


def empty(field: QLineEdit) -> None:
    """Empty a field and forget its undo history.

    ``QLineEdit.clear()`` is an edit that can be undone: every character it removes goes on the
    field's undo stack, which nothing ever trims. On fields emptied after every item of every sale
    that stack grew for the whole day. ``setText`` starts the history afresh.
    """
    field.setText("")


def label(text: str = "", *, role: str | None = None, wrap: bool = False) -> QLabel:
    widget = QLabel(text)
    if role:
        widget.setProperty("role", role)
    widget.setWordWrap(wrap)
    return widget


class Banner(QFrame):
    """One sentence for the cashier at the top of the window; errors stay until dismissed or replaced.

    Signals: ``dismissed()``.
    """

    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAccessibleName("Message")
        close = QPushButton("Dismiss")
        close.setAccessibleName("Dismiss message")
        close.setShortcut(QKeySequence("Ctrl+D"))
        close.clicked.connect(self.clear)
        layout.addWidget(self.text, 1)
        layout.addWidget(close)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clear)
        self.hide()

    @property
    def kind(self) -> str:
        return str(self.property("kind") or "")

    def show_message(self, text: str, kind: str = "error") -> None:
        self.setProperty("kind", kind)
        self.style().unpolish(self)
        self.style().polish(self)
        self.text.setText(text)
        self.show()
        if kind == "info":
            self._timer.start(8000)
        else:
            self._timer.stop()

    def clear(self) -> None:
        self.text.clear()
        self.hide()
        self.dismissed.emit()


def confirm(parent: QWidget, title: str, question: str, detail: str, on_yes: Callable[[], None]) -> QMessageBox:
    """Ask before something that cannot be undone; "No" is the default and Escape. Opened with ``open()``,
    never a nested ``exec()``, so the window's coroutines go on while it is up. Deleted once answered: a day
    of refunds otherwise keeps every box it asked, hidden, as a child of ``parent``."""
    box = QMessageBox(parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(question)
    box.setInformativeText(detail)
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    box.setEscapeButton(QMessageBox.StandardButton.No)
    box.finished.connect(lambda result: on_yes() if result == QMessageBox.StandardButton.Yes.value else None)
    box.open()
    return box
