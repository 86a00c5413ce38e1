"""The barcode scanner: a keyboard-wedge scanner types its code fast and ends it with Enter (or Tab).

:class:`ScanFilter` watches the keys pressed anywhere in one window (an event filter on
the application, limited to that window) and tells a scan from a person typing: a scan is
at least ``scanner_min_length`` characters of a code (it begins with a digit or a capital
letter, then digits, capital letters, hyphens), each key within ``scanner_gap_ms`` of the
one before, then the suffix key; with a prefix set, it also starts with the prefix. People
type far slower than that. A Shift pressed or let go between the keys (a wedge presses it
for each capital) is part of the scan, never its end.

The filter sees each key before any shortcut of the window does (the shortcut override the
window system asks first comes through it too), so what the scanner types goes to the scan
whatever has the focus:

- In a text field the keys are typed as they come (typing is never held back); once the
  suffix shows they were a scan, the field gets back the text it had before the first of them.
- Anywhere else (the check's lines, a button, a tile, a list) a key that may begin a scan is
  held, with the keys that follow it at scanner speed, and no shortcut or line key sees them:
  "-" in a member number is not the lines' "one less". A scan swallows them; keys that turn out
  to be typed (a pause of ``scanner_gap_ms``, another key, or a suffix after too short a code)
  are given back, in order, to the widget in focus or the shortcut they were meant for.

The suffix key of a scan is swallowed (no Enter reaches the field) and ``scanned(code)`` is
emitted. Times come from the key events (the window system's clock), or the monotonic clock
when an event carries none.
"""

from __future__ import annotations

import dataclasses
import string
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QKeyCombination, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QWidget

if TYPE_CHECKING:  # the settings come with the terminal, after the first screen is painted (pos_terminal.app)
    from pos_terminal.config import DeviceSettings

CODE_CHARACTERS = frozenset(string.digits + string.ascii_uppercase + "-")
CODE_STARTS = frozenset(string.digits + string.ascii_uppercase)
_SUFFIX_KEYS = {"enter": (Qt.Key.Key_Return, Qt.Key.Key_Enter), "tab": (Qt.Key.Key_Tab,)}
# keys a wedge presses around the characters (Shift for a capital): they neither begin nor end a scan
_MODIFIER_KEYS = frozenset(
    (Qt.Key.Key_Shift, Qt.Key.Key_CapsLock, Qt.Key.Key_AltGr, Qt.Key.Key_Meta, Qt.Key.Key_Super_L, Qt.Key.Key_Super_R)
)


@dataclass(frozen=True)
class _Key:
    key: Qt.Key
    modifiers: Qt.KeyboardModifier
    text: str


@dataclass
class _Burst:
    """Keys typed so far at scanner speed, and the field they went to as it was before the first (or, with no
    field in focus, the keys held back until they are known to be a scan or typing)."""

    text: str
    last_ms: int
    field: QLineEdit | None
    before: str
    cursor: int
    held: list[_Key] = dataclasses.field(default_factory=list)


def _line_edit(widget: QWidget | None) -> QLineEdit | None:
    """The text field a key typed in ``widget`` changes (a spin box's or an editable combo box's own)."""
    if isinstance(widget, QLineEdit):
        return widget
    if isinstance(widget, QAbstractSpinBox | QComboBox):
        return widget.findChild(QLineEdit)
    return None


def _typed(event: QKeyEvent) -> bool:
    """A key that types one character (a capital with its Shift), no Ctrl or Alt: what a scanner sends."""
    text = event.text()
    return (
        len(text) == 1
        and text.isprintable()
        and not (event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier))
    )


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
        self._burst: _Burst | None = None
        self._overridden: _Key | None = None  # a key whose shortcut the filter kept back, before its press
        self._giving_back = False
        self._pause = QTimer(self)  # held keys with no key after them for a scanner's gap: they were typed
        self._pause.setSingleShot(True)
        self._pause.timeout.connect(self._let_go)
        if settings is not None:
            self.configure(settings)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def configure(self, settings: DeviceSettings) -> None:
        self.prefix = settings.scanner_prefix
        self.suffix_keys = _SUFFIX_KEYS[settings.scanner_suffix]
        self.gap_ms = settings.scanner_gap_ms
        self.min_length = settings.scanner_min_length
        self._pause.setInterval(self.gap_ms)
        self.configured = True

    def remove(self) -> None:
        self._pause.stop()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    # --- telling scans from typing ------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride) or not isinstance(event, QKeyEvent):
            return False
        if self._giving_back or not self.configured or not self._first_delivery(watched):
            return False
        if not self.active():
            self._let_go()
            return False
        if kind == QEvent.Type.ShortcutOverride:
            return self._keep_from_shortcuts(event)
        return self.on_key(event)

    def _first_delivery(self, watched: QObject) -> bool:
        """The key as it reaches the field in focus (or the window, when none is): a key a widget ignores is
        offered to its parents too, and each of those is the same key again."""
        if not isinstance(watched, QWidget) or watched.window() is not self.window:
            return False
        focus = QApplication.focusWidget()
        return watched is focus or (focus is None and watched is self.window)

    def _starts(self, text: str) -> bool:
        """Whether a key typing ``text`` may be the first of a scan."""
        return text == self.prefix[0] if self.prefix else text in CODE_STARTS

    def _keep_from_shortcuts(self, event: QKeyEvent) -> bool:
        """The window asks whether a key is a shortcut before the widget in focus gets it: a key that would be
        held (see :meth:`on_key`) is kept from every shortcut, so that its press comes to the filter."""
        if _line_edit(QApplication.focusWidget()) is not None or not _typed(event):
            return False  # a text field's printable keys are its own text, no shortcut's
        burst = self._burst
        if not (burst is not None and burst.field is None) and not self._starts(event.text()):
            return False
        event.accept()
        self._overridden = _Key(Qt.Key(event.key()), event.modifiers(), event.text())
        return True

    def on_key(self, event: QKeyEvent) -> bool:
        """Follow one key; True when it is held or ends a scan (and is swallowed)."""
        if event.key() in _MODIFIER_KEYS:
            return False
        key = _Key(Qt.Key(event.key()), event.modifiers(), event.text())
        overridden, self._overridden = self._overridden == key, None
        now = event.timestamp() or int(time.monotonic() * 1000)
        if self._burst is not None and now - self._burst.last_ms > self.gap_ms:
            self._let_go()  # a pause: whatever came before was typed
        burst = self._burst
        if event.key() in self.suffix_keys:
            code = self._code(burst)
            if burst is None or code is None:
                self._let_go()  # the keys held before it first, then the suffix as a person's key
                return False
            self._pause.stop()
            self._burst = None
            if burst.field is not None:
                burst.field.setText(burst.before)
                burst.field.setCursorPosition(burst.cursor)
            self.scanned.emit(code)
            return True
        if not _typed(event):
            self._let_go()
            return False
        if burst is None:
            if not self._starts(key.text):
                if overridden:  # kept from its shortcut for a burst that had gone by then
                    self._give_back([key])
                    return True
                return False
            field = _line_edit(QApplication.focusWidget())
            before = field.text() if field is not None else ""
            burst = self._burst = _Burst("", now, field, before, field.cursorPosition() if field is not None else 0)
        burst.text += key.text
        burst.last_ms = now
        if burst.field is not None:
            return False  # typed into the field as it comes; given back its text if it was a scan
        burst.held.append(key)
        self._pause.start()
        return True

    def _code(self, burst: _Burst | None) -> str | None:
        if burst is None or not burst.text.startswith(self.prefix):
            return None
        code = burst.text[len(self.prefix) :]
        if len(code) < self.min_length or code[0] not in CODE_STARTS or not set(code) <= CODE_CHARACTERS:
            return None
        return code

    # --- keys that were typed after all ---------------------------------------------------------------------------

    def _let_go(self) -> None:
        """The burst under way was no scan: the keys held back go where they were typed."""
        self._pause.stop()
        burst, self._burst = self._burst, None
        if burst is not None and burst.held:
            self._give_back(burst.held)

    def _give_back(self, keys: list[_Key]) -> None:
        """Each key to the shortcut it makes in the widget in focus (the line keys of the check's lines) or the
        window, else to that widget, as the window would have delivered it."""
        self._giving_back = True
        try:
            for key in keys:
                focus = QApplication.focusWidget() or self.window
                if not self._shortcut(focus, key):
                    QApplication.sendEvent(focus, QKeyEvent(QEvent.Type.KeyPress, key.key, key.modifiers, key.text))
        finally:
            self._giving_back = False

    def _shortcut(self, focus: QWidget, key: _Key) -> bool:
        modifiers = key.modifiers & ~Qt.KeyboardModifier.KeypadModifier
        sequence = QKeySequence(QKeyCombination(modifiers, key.key))
        for shortcut in focus.findChildren(QShortcut, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if shortcut.isEnabled() and shortcut.key() == sequence:
                shortcut.activated.emit()
                return True
        for action in self.window.actions():
            if action.isEnabled() and sequence in action.shortcuts():
                action.trigger()
                return True
        return False
