"""Small shared pieces: the message banner, the style sheet, touch-sized buttons."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QPushButton, QSizePolicy, QWidget

STYLE = """
QWidget { font-size: 15px; }
QPushButton { min-height: 40px; padding: 4px 14px; border-radius: 6px; border: 1px solid #9aa5b1;
              background: #f5f7fa; }
QPushButton:hover { background: #e4e7eb; }
QPushButton:focus { border: 2px solid #2680c2; }
QPushButton:disabled { color: #9aa5b1; background: #eef0f3; border-color: #d9dde2; }
QPushButton[role="primary"] { background: #1f7a4d; color: white; border: none; font-size: 19px;
                              font-weight: 600; min-height: 64px; }
QPushButton[role="primary"]:hover { background: #19663f; }
QPushButton[role="primary"]:disabled { background: #c3cdc7; color: #f5f7fa; }
QPushButton[role="danger"] { background: #b3261e; color: white; border: none; }
QPushButton[role="danger"]:disabled { background: #e6c2bf; }
QPushButton[role="catalog"] { min-height: 56px; min-width: 100px; font-size: 14px; text-align: center; }
QLineEdit, QComboBox, QSpinBox, QDateTimeEdit { min-height: 36px; padding: 2px 6px; }
QTableView, QListView { font-size: 15px; }
QLabel[role="heading"] { font-size: 18px; font-weight: 600; }
QLabel[role="hint"] { color: #52606d; }
QLabel[role="reason"] { color: #8a4b00; font-weight: 600; }
QLabel[role="usercode"] { font-size: 44px; font-weight: 700; letter-spacing: 4px; font-family: monospace; }
QLabel[role="phase"] { font-size: 20px; font-weight: 700; }
QLabel[role="badge"] { background: #b3261e; color: white; font-weight: 700; padding: 2px 8px; border-radius: 4px; }
QFrame#banner[kind="error"] { background: #fde8e7; border: 1px solid #b3261e; border-radius: 6px; }
QFrame#banner[kind="info"] { background: #e3f0fb; border: 1px solid #2680c2; border-radius: 6px; }
QFrame#totals { background: #f5f7fa; border: 1px solid #d9dde2; border-radius: 8px; }
QFrame#charge { border: 1px solid #d9dde2; border-radius: 8px; }
"""


def set_role(widget: QWidget, role: str) -> None:
    """A style role from the sheet above; re-polished so a change shows at once."""
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
