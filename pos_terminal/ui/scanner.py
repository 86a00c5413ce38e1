"""The barcode scanner: a keyboard-wedge scanner types its code fast and ends it with Enter (or Tab).

:class:`ScanFilter` watches the keys pressed anywhere in one window (an event filter on
the application, limited to that window) and tells a scan from a person typing: a scan is
at least ``scanner_min_length`` characters of a code (digits, capital letters, hyphens),
each key within ``scanner_gap_ms`` of the one before, then the suffix key; with a prefix
set, it also starts with the prefix. People type far slower than that.

The keys of a scan reach the field in focus as they come (the filter cannot know yet
that they are a scan); once the suffix shows they were one, the field gets back the text
it had before the first of them, the suffix key is swallowed (no Enter reaches the
field) and ``scanned(code)`` is emitted. Typing stays typing: nothing is held back or
delayed. Times come from the key events (the window system's clock), or the monotonic
clock when an event carries none.
"""

from __future__ import annotations

import string
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QWidget

if TYPE_CHECKING:  # the settings come with the terminal, after the first screen is painted (pos_terminal.app)
    from pos_terminal.config import DeviceSettings

CODE_CHARACTERS = frozenset(string.digits + string.ascii_uppercase + "-")
_SUFFIX_KEYS = {"enter": (Qt.Key.Key_Return, Qt.Key.Key_Enter), "tab": (Qt.Key.Key_Tab,)}


@dataclass
class _Burst:
    """Keys typed so far at scanner speed, and the field they went to as it was before the first."""

    text: str
    last_ms: int
    field: QLineEdit | None
    before: str
    cursor: int


def _line_edit(widget: QWidget | None) -> QLineEdit | None:
    """The text field a key typed in ``widget`` changes (a spin box's or an editable combo box's own)."""
    if isinstance(widget, QLineEdit):
        return widget
    if isinstance(widget, QAbstractSpinBox | QComboBox):
        return widget.findChild(QLineEdit)
    return None


class ScanFilter(QObject):
    """Signals: ``scanned(str)`` the code a scan read (without prefix and suffix).

    ``active()`` says whether scans count now (the cashier's screen is showing); keys elsewhere are
    left alone. Call :meth:`remove` when the window goes. Without settings (the window is painted before they
    are read) no key is taken for a scan until :meth:`configure` gives them.
    """

    scanned = Signal(str)

    def __init__(self, window: QWidget, settings: DeviceSettings | None, active: Callable[[], bool]) -> None:
        super().__init__(window)
        self.window = window
        self.active = active
        self.configured = False
        if settings is not None:
            self.configure(settings)
        self._burst: _Burst | None = None
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def configure(self, settings: DeviceSettings) -> None:
        self.prefix = settings.scanner_prefix
        self.suffix_keys = _SUFFIX_KEYS[settings.scanner_suffix]
        self.gap_ms = settings.scanner_gap_ms
        self.min_length = settings.scanner_min_length
        self.configured = True

    def remove(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    # --- telling scans from typing ------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        if not self.configured or not self._first_delivery(watched):
            return False
        if not self.active():
            self._burst = None
            return False
        return self.on_key(event)

    def _first_delivery(self, watched: QObject) -> bool:
        """The key as it reaches the field in focus (or the window, when none is): a key a widget ignores is
        offered to its parents too, and each of those is the same key again."""
        if not isinstance(watched, QWidget) or watched.window() is not self.window:
            return False
        focus = QApplication.focusWidget()
        return watched is focus or (focus is None and watched is self.window)

    def on_key(self, event: QKeyEvent) -> bool:
        """Follow one key; True when it ends a scan (and is swallowed)."""
        now = event.timestamp() or int(time.monotonic() * 1000)
        burst = self._burst
        if burst is not None and now - burst.last_ms > self.gap_ms:
            burst = self._burst = None  # a pause: whatever came before was typed
        if event.key() in self.suffix_keys:
            self._burst = None
            code = self._code(burst)
            if burst is None or code is None:
                return False
            if burst.field is not None:
                burst.field.setText(burst.before)
                burst.field.setCursorPosition(burst.cursor)
            self.scanned.emit(code)
            return True
        text = event.text()
        typed = (
            len(text) == 1
            and text.isprintable()
            and not (event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier))
        )
        if not typed:
            self._burst = None
            return False
        if burst is None:
            field = _line_edit(QApplication.focusWidget())
            before = field.text() if field is not None else ""
            self._burst = _Burst(text, now, field, before, field.cursorPosition() if field is not None else 0)
        else:
            burst.text += text
            burst.last_ms = now
        return False

    def _code(self, burst: _Burst | None) -> str | None:
        if burst is None or not burst.text.startswith(self.prefix):
            return None
        code = burst.text[len(self.prefix) :]
        if len(code) < self.min_length or not set(code) <= CODE_CHARACTERS:
            return None
        return code
