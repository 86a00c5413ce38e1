"""The idle lock's clock: every key and click in the application counts as someone at the till; once a second
the window is asked whether the till has been left long enough to lock itself."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer

# what counts as someone at the till, for the idle lock
_INPUT = frozenset(
    {
        QEvent.Type.KeyPress,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.Wheel,
        QEvent.Type.TouchBegin,
    }
)
IDLE_CHECK_MS = 1000


class IdleLock(QObject):
    """Installed as the application's event filter; ``check(seconds)`` is called with the seconds since the last
    input, every second while started."""

    def __init__(self, check: Callable[[float], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._check = check
        self.last_input = time.monotonic()
        self._timer = QTimer(self)
        self._timer.setInterval(IDLE_CHECK_MS)
        self._timer.timeout.connect(lambda: self._check(time.monotonic() - self.last_input))

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def touched(self) -> None:
        """Someone is at the till now (signed in, say), whatever the last input was."""
        self.last_input = time.monotonic()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() in _INPUT:
            self.last_input = time.monotonic()
        return False
