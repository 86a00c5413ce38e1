"""F1: every shortcut, drawn over the window; F1 or Escape closes it.

It takes the room its table needs, up to the window less a margin; when the window is
smaller than that, the list scrolls, so its last line is always within reach.
"""

from __future__ import annotations

from html import escape

from pos_terminal.ui.actions import ACTIONS, Act, key

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

MARGIN = 40  # around the overlay, inside the window


class HelpOverlay(QFrame):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.host = parent
        self.setObjectName("help")
        self.setStyleSheet(
            "QFrame#help { background: rgba(20, 30, 40, 235); border-radius: 10px; }"
            "QFrame#help QLabel { color: white; font-size: 15px; background: transparent; }"
            "QFrame#help QScrollArea, QFrame#help QScrollArea > QWidget > QWidget { background: transparent; }"
        )
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Keyboard shortcuts")
        rows = "".join(
            f"<tr><td style='padding:1px 16px 1px 0'><b>{escape(spec.shortcut)}</b></td>"
            f"<td style='padding:1px 16px 1px 0'>{escape(spec.text)}</td><td>{escape(spec.help)}</td></tr>"
            for spec in ACTIONS
        )
        table = QLabel("<h2>Keyboard shortcuts</h2><table>" + rows + "</table>")
        table.setTextFormat(Qt.TextFormat.RichText)
        table.setWordWrap(True)
        self.last_line = QLabel(
            "Tab and Shift+Tab move between fields; Enter adds what you typed; in a list, the arrows move and "
            "Enter chooses. On the product grid the arrows move between products. "
            f"Press {key(Act.HELP)} or Esc to close."
        )
        self.last_line.setWordWrap(True)
        content = QWidget()
        self.column = column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(table)
        column.addWidget(self.last_line)
        column.addStretch(1)
        self.pane = QScrollArea()
        self.pane.setWidget(content)
        self.pane.setWidgetResizable(True)
        self.pane.setFrameShape(QFrame.Shape.NoFrame)
        self.pane.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.content = content
        self.frame = layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 20, 28, 20)
        layout.addWidget(self.pane)
        self.hide()

    def toggle(self) -> None:
        if self.isVisible():
            self.hide()
            return
        parent = self.host
        width = min(parent.width() - 2 * MARGIN, 960)
        margins = self.frame.contentsMargins()
        needed = self.column.heightForWidth(width - margins.left() - margins.right())
        tall = max(needed, 0) + margins.top() + margins.bottom() + 4
        self.resize(width, min(parent.height() - 2 * MARGIN, tall))
        self.move((parent.width() - self.width()) // 2, (parent.height() - self.height()) // 2)
        self.show()
        self.raise_()
        self.setFocus()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_F1):
            self.hide()
            return
        super().keyPressEvent(event)
