"""Data the window hands its report child, packed into one bytes object without the pickler's memo.

A pickler's memo keeps every object it wrote alive until the whole dump is done: for a day's rows that is a passing
peak of small objects several times the size written, in the window's process, that grew with the day and raised
its memory for good (docs/memory.md). What is packed here holds no cycles, so it is written in the pickler's fast
mode, each row let go of once written. Only the window's own data is unpacked, in its own child.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Iterable, Iterator
from typing import Any


def packed(value: object) -> bytes:
    """``value`` pickled without the memo (an object two places share arrives as two equal objects)."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(value)
    return buffer.getvalue()


def packed_rows(rows: Iterable[object]) -> bytes:
    """Each of ``rows`` pickled in turn, as it comes: the rows are never all in memory at once."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    for row in rows:
        pickler.dump(row)
    return buffer.getvalue()


def unpacked(data: bytes) -> Any:
    return pickle.loads(data)  # noqa: S301 (the window's own data, in its own child)


def unpacked_rows(data: bytes) -> Iterator[Any]:
    """The rows :func:`packed_rows` packed, one by one."""
    buffer = io.BytesIO(data)
    unpickler = pickle.Unpickler(buffer)  # noqa: S301 (the window's own data, in its own child)
    while buffer.tell() < len(data):
        yield unpickler.load()
