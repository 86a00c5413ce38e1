"""The sandbox's clock: real UTC time plus an offset that tests move forward.

The offset lives in the database so that a restarted sandbox keeps the time it
was moved to. Everything time-driven (auto-cancel, token and code expiry,
device polling intervals) reads this clock, never ``datetime.now`` directly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta


class Clock:
    """Current sandbox time in UTC milliseconds; ``advance`` moves it forward."""

    def __init__(self, offset_ms: int = 0, *, source: Callable[[], datetime] | None = None) -> None:
        self._offset_ms = offset_ms
        self._source = source or (lambda: datetime.now(UTC))
        self._lock = threading.Lock()

    @property
    def offset_ms(self) -> int:
        return self._offset_ms

    def now_ms(self) -> int:
        real = self._source()
        with self._lock:
            return to_ms(real) + self._offset_ms

    def now(self) -> datetime:
        return from_ms(self.now_ms())

    def advance(self, seconds: float) -> int:
        """Move the clock forward by ``seconds``; returns the new offset in ms."""
        if seconds < 0:
            raise ValueError("the sandbox clock only moves forward")
        with self._lock:
            self._offset_ms += round(seconds * 1000)
            return self._offset_ms


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_ms(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def from_ms(ms: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=ms)


def iso(ms: int | None) -> str | None:
    """ISO 8601 UTC with millisecond precision and a ``Z``, as the service sends it."""
    if ms is None:
        return None
    moment = from_ms(ms)
    # strftime's %Y does not pad years before 1000 on every platform ("56-11-13"), which is not ISO 8601
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def parse_iso_ms(text: str) -> int:
    """Parse an ISO 8601 time (any RFC 3339 ``date-time`` too); a time without offset is taken as UTC.

    RFC 3339 allows a lower-case ``t`` and ``z`` and a leap second (``23:59:60``), which Python's
    parser does not: the letters are read as upper case, and a leap second as the second after :59.
    """
    value = text.strip().upper()
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    leap = len(value) >= 19 and value[10] == "T" and value[16:19] == ":60"
    if leap:
        value = value[:17] + "59" + value[19:]
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return to_ms(parsed) + (1000 if leap else 0)
