"""Counted nouns as a cashier reads them: "1 item", "3 items", never "3 item(s)"."""

from __future__ import annotations


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun in the number it takes (``nouns``, else ``noun`` + "s")."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def duration(seconds: int) -> str:
    """A wait as a person says it: "45 seconds", "1 minute", "2 minutes 30 seconds", "10 minutes"."""
    seconds = max(0, seconds)
    if seconds < 60:
        return counted(seconds, "second")
    minutes, rest = divmod(seconds, 60)
    if rest and minutes < 10:
        return f"{counted(minutes, 'minute')} {counted(rest, 'second')}"
    return counted(minutes + (rest >= 30 and minutes >= 10), "minute")
