"""Counted nouns as a cashier reads them: "1 item", "3 items", never "3 item(s)"."""

from __future__ import annotations


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun in the number it takes (``nouns``, else ``noun`` + "s")."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"
