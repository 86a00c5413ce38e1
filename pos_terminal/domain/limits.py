"""Bounds the cashier's screen applies as it is built, before the check's arithmetic loads (after the first paint)."""

from __future__ import annotations

MAX_QUANTITY = 9999  # of one line, as the cashier types or adds it (a check file may hold more, up to int32)
