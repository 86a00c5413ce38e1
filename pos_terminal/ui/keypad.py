"""A numpad for touch screens: it types into the amount field last touched, as the keyboard would.

The keys never take the focus, so the field keeps its cursor; each key is sent to
the field as the key press a keyboard would send (digits, the decimal point, %,
Backspace, Enter), so the field's own rules apply and Enter adds what was typed,
exactly as on a keyboard. ``C`` empties the field.
"""

from __future__ import annotations

from pos_terminal.ui.widgets import button

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QGridLayout, QLineEdit, QPushButton, QSizePolicy, QWidget

KEY_HEIGHT = 46  # a fingertip's width and more

# (label, key, text, accessible name), row by row
KEYS: tuple[tuple[tuple[str, Qt.Key, str, str], ...], ...] = (
    (
        ("7", Qt.Key.Key_7, "7", "7"),
        ("8", Qt.Key.Key_8, "8", "8"),
        ("9", Qt.Key.Key_9, "9", "9"),
        ("⌫", Qt.Key.Key_Backspace, "", "Backspace"),
    ),
    (
        ("4", Qt.Key.Key_4, "4", "4"),
        ("5", Qt.Key.Key_5, "5", "5"),
        ("6", Qt.Key.Key_6, "6", "6"),
        ("%", Qt.Key.Key_Percent, "%", "Percent"),
    ),
    (
        ("1", Qt.Key.Key_1, "1", "1"),
        ("2", Qt.Key.Key_2, "2", "2"),
        ("3", Qt.Key.Key_3, "3", "3"),
        ("C", Qt.Key.Key_Clear, "", "Clear the field"),
    ),
    (
        ("0", Qt.Key.Key_0, "0", "0"),
        ("00", Qt.Key.Key_0, "00", "Double zero"),
        (".", Qt.Key.Key_Period, ".", "Decimal point"),
        ("Enter", Qt.Key.Key_Return, "\r", "Enter"),
    ),
)


class Keypad(QWidget):
    """Keys for the fields given to :meth:`serve`; the one focused last receives them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Numpad")
        self.fields: list[QWidget] = []
        self.target: QWidget | None = None
        self.keys: dict[str, QPushButton] = {}
        self.decimal_mark = "."
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(6)
        for row, keys in enumerate(KEYS):
            for column, (text, key, typed, name) in enumerate(keys):
                pad = button(text, role="key", name=name)
                pad.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the field keeps the focus and its cursor
                pad.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
                pad.setFixedHeight(KEY_HEIGHT)
                pad.clicked.connect(lambda _=False, k=key, t=typed: self.press(k, t))
                grid.addWidget(pad, row, column)
                self.keys[text] = pad
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self.on_focus_changed)

    def use_decimal_mark(self, mark: str) -> None:
        """The decimal key says and types the locale's mark ("," in de_DE), as a keyboard's numeric keypad does."""
        self.decimal_mark = mark
        self.keys["."].setText(mark)

    def serve(self, *fields: QWidget) -> None:
        """The fields the keys type into (line edits and spin boxes)."""
        self.fields = list(fields)
        if self.target is None and fields:
            self.target = fields[0]

    def on_focus_changed(self, _: QWidget | None, now: QWidget | None) -> None:
        for field in self.fields:
            if now is field or (isinstance(field, QAbstractSpinBox) and now is field.findChild(QLineEdit)):
                self.target = field
                return

    def press(self, key: Qt.Key, text: str) -> None:
        """Send one key to the field, as a keyboard would; ``C`` empties it."""
        target = self.target
        if target is None or not target.isEnabled():
            return
        target.setFocus()
        if key == Qt.Key.Key_Clear:
            if isinstance(target, QLineEdit):
                target.setText("")
            elif isinstance(target, QAbstractSpinBox):
                target.clear()
            return
        if key == Qt.Key.Key_Period:
            key, text = (Qt.Key.Key_Comma if self.decimal_mark == "," else key), self.decimal_mark
        for _ in range(2 if text == "00" else 1):
            for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                QCoreApplication.sendEvent(target, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text[:1]))
