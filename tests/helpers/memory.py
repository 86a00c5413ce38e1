"""What the C library's allocator has handed out, for tests of memory that Python's own counts cannot see."""

from __future__ import annotations

import ctypes


class MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def mallinfo2() -> MallInfo2:
    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = MallInfo2
    info: MallInfo2 = libc.mallinfo2()
    return info


def c_heap_in_use() -> int:
    """Bytes glibc has handed out and not had back, from its heaps and as blocks mapped on their own."""
    info = mallinfo2()
    return int(info.uordblks + info.hblkhd)


def mapped_blocks() -> int:
    """Bytes glibc has handed out as blocks mapped on their own (outside its heaps)."""
    return int(mallinfo2().hblkhd)
