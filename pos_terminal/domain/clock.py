"""The terminal's one clock: what time it is, as a function that can be passed in.

Everything that needs the time takes a :data:`Clock` (defaulting to :func:`utcnow`), so a test
moves time by passing its own instead of sleeping or patching. The sandbox keeps a clock of its
own (:mod:`pos_terminal.sandbox.clock`): it imports nothing from the terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]
"""What time it is now, timezone-aware."""


def utcnow() -> datetime:
    """Now, in UTC."""
    return datetime.now(UTC)
