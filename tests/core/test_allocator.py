"""The window's process keeps large blocks out of glibc's heap, so they go back to the system when freed.

Each case runs in a fresh interpreter: the threshold is process-wide state, and the point is what glibc
does from its starting state after the first large block is freed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PROBE = textwrap.dedent(
    """
    import ctypes, ctypes.util, sys
    from pos_terminal.allocator import keep_large_blocks_out_of_the_heap

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in
                    ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                     "keepcost")]

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.mallinfo2.restype = MallInfo2
    if sys.argv[1] == "tuned":
        assert keep_large_blocks_out_of_the_heap()
    preview = bytearray(8 * 1024 * 1024)  # a report's page images, freed: glibc raises its threshold to 8 MiB
    del preview
    before = libc.mallinfo2().hblkhd
    page = bytearray(1024 * 1024)  # the next page image
    print(libc.mallinfo2().hblkhd - before >= len(page))
    """
)


def mapped_after_a_large_free(mode: str) -> bool:
    run = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, timeout=60, check=True)
    return run.stdout.strip() == "True"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's threshold only moves on Linux")
def test_a_large_block_gets_its_own_mapping_even_after_a_larger_one_was_freed() -> None:
    assert not mapped_after_a_large_free("untuned"), "glibc no longer moves its threshold: the tuning can go"
    assert mapped_after_a_large_free("tuned")
