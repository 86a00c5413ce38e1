"""The window's process keeps large blocks out of glibc's heap, so they go back to the system when freed.

Each case runs in a fresh interpreter: the threshold is process-wide state, and the point is what glibc
does from its starting state after the first large block is freed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]  # the probes import tests.helpers

PROBE = textwrap.dedent(
    """
    import sys
    from pos_terminal.allocator import hand_memory_back
    from tests.helpers.memory import mapped_blocks

    if sys.argv[1] == "tuned":
        assert hand_memory_back()
    preview = bytearray(8 * 1024 * 1024)  # a report's page images, freed: glibc raises its threshold to 8 MiB
    del preview
    before = mapped_blocks()
    page = bytearray(1024 * 1024)  # the next page image
    print(mapped_blocks() - before >= len(page))
    """
)


def mapped_after_a_large_free(mode: str) -> bool:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, timeout=60, check=True, cwd=ROOT
    )
    return run.stdout.strip() == "True"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's threshold only moves on Linux")
def test_a_large_block_gets_its_own_mapping_even_after_a_larger_one_was_freed() -> None:
    assert not mapped_after_a_large_free("untuned"), "glibc no longer moves its threshold: the tuning can go"
    assert mapped_after_a_large_free("tuned")


HEAPS_PROBE = textwrap.dedent(
    """
    import ctypes, os, re, sys, tempfile, threading
    from pos_terminal.allocator import hand_memory_back

    if sys.argv[1] == "tuned":
        assert hand_memory_back()
    libc = ctypes.CDLL(None)
    libc.fdopen.restype = ctypes.c_void_p
    libc.fdopen.argtypes = (ctypes.c_int, ctypes.c_char_p)
    libc.fclose.argtypes = (ctypes.c_void_p,)
    libc.malloc_info.argtypes = (ctypes.c_int, ctypes.c_void_p)
    busy = threading.Barrier(6)

    def work():
        kept = [bytearray(2000) for _ in range(200)]  # C heap blocks, allocated on this thread's heap
        busy.wait()  # all at once: a thread never finds its neighbour's heap free
        del kept

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with tempfile.TemporaryFile() as out:
        stream = libc.fdopen(os.dup(out.fileno()), b"w")
        libc.malloc_info(0, stream)
        libc.fclose(stream)
        out.seek(0)
        print(len(re.findall(rb'<heap nr="', out.read())))
    """
)


def heaps_after_six_threads(mode: str) -> int:
    run = subprocess.run(
        [sys.executable, "-c", HEAPS_PROBE, mode], capture_output=True, text=True, timeout=60, check=True
    )
    return int(run.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's heaps per thread are Linux's")
def test_every_thread_allocates_from_the_one_heap() -> None:
    """Threads that come and go all day each left a heap of their own a little larger (docs/memory.md)."""
    assert heaps_after_six_threads("untuned") > 1, "glibc no longer gives threads heaps of their own"
    assert heaps_after_six_threads("tuned") == 1
