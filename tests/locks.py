"""How many processes or threads wait for a file lock: read from /proc/locks (Linux), to wait on a condition.

Blocked ``flock`` waiters are listed with "->" before the lock type, on the file's inode.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

needs_proc_locks = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not Path("/proc/locks").exists(),
    reason="counting lock waiters reads /proc/locks, which only Linux has",
)


def lock_waiters(path: Path) -> int:
    inode = os.stat(path).st_ino
    count = 0
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields and any(f.endswith(f":{inode}") for f in fields):
            count += 1
    return count


def wait_for_waiters(path: Path, count: int, timeout: float = 60.0) -> None:
    """Until ``count`` waiters are blocked on ``path`` (a condition, checked every 10 ms)."""
    deadline = time.monotonic() + timeout
    while lock_waiters(path) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"{lock_waiters(path)} of {count} waiters reached the lock on {path}")
        time.sleep(0.01)
