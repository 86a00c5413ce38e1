"""F1: every shortcut, drawn over the window; F1 or Escape closes it."""

from __future__ import annotations

from html import escape

from pos_terminal.ui.actions import ACTIONS

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget


class HelpOverlay(QFrame):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.host = parent
        self.setObjectName("help")
        self.setStyleSheet(
            "QFrame#help { background: rgba(20, 30, 40, 225); border-radius: 10px; }"
            "QLabel { color: white; font-size: 16px; }"
        )
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Keyboard shortcuts")
        rows = "".join(
            f"<tr><td style='padding:4px 18px 4px 0'><b>{escape(spec.shortcut)}</b></td>"
            f"<td style='padding:4px 18px 4px 0'>{escape(spec.text)}</td><td>{escape(spec.help)}</td></tr>"
            for spec in ACTIONS
        )
        text = QLabel(
            "<h2>Keyboard shortcuts</h2><table>"
            + rows
            + "</table><p>Tab and Shift+Tab move between fields; Enter adds what you typed; "
            "in a list, the arrows move and Enter chooses. Press F1 or Esc to close.</p>"
        )
        text.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 24, 32, 24)
        layout.addWidget(text)
        self.hide()

    def toggle(self) -> None:
        if self.isVisible():
            self.hide()
            return
        parent = self.host
        self.resize(min(parent.width() - 80, 900), min(parent.height() - 80, 720))
        self.move((parent.width() - self.width()) // 2, (parent.height() - self.height()) // 2)
        self.show()
        self.raise_()
        self.setFocus()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_F1):
            self.hide()
            return
        super().keyPressEvent(event)
