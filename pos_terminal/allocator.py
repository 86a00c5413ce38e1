"""How the window's process asks the C allocator to hand memory back over a twelve-hour shift.

glibc serves a large block (128 KiB and up) with its own mapping, returned to the system the
moment it is freed. But each time such a block is freed, glibc raises that limit to the block's
size (up to 32 MiB): after the first report preview or day-long listing, every later page image,
answer body and PDF of that size comes from the ordinary heap instead. There, the small
long-lived allocations made in between keep the heap's pages resident long after the large
blocks are gone, and the resident memory rises with each report of the day (the soak measured
+26 % over 800 charges with the moving limit, +7 % with a fixed one).

Setting the limit once fixes it where it stands, which also turns glibc's moving trim limit off:
large blocks always get their own mapping and always go back. Other platforms' allocators
have no such limit to move; there, and without glibc, this does nothing.

glibc also gives threads heaps of their own (up to eight per core), and a heap's free blocks
serve only the threads that come to it. The window starts short-lived threads all day (each
report's child is reached through two of its own, and ``asyncio.to_thread`` work), and each
new one landed on another heap and left it a little larger: the soak found fifteen of them, each
grown from 132 KiB to as much as 370 KiB over a day. One heap for every thread reuses what any
of them freed; the window's threads allocate little, so they hardly ever wait for each other.
"""

from __future__ import annotations

import ctypes
import sys

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameters (malloc.h)
M_ARENA_MAX = -8
LARGE_BLOCK = 128 * 1024  # glibc's own starting value
HEAPS = 1  # every thread allocates from the main heap


def hand_memory_back() -> bool:
    """Fix glibc's mmap threshold at :data:`LARGE_BLOCK` and its heaps at :data:`HEAPS`; True when both were set
    (glibc on Linux). Called before the window starts its threads."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        # the process's own symbols, the C library's among them (ctypes.util.find_library would load shutil,
        # subprocess and tempfile, and may run ldconfig, before the first screen)
        libc = ctypes.CDLL(None)
    except OSError:
        return False
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK)) & bool(mallopt(M_ARENA_MAX, HEAPS))
