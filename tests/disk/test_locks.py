"""The profile lock: one holder at a time, a wait that ends in one sentence, and no lock left behind.

Two :class:`ProfileLock` objects on one file conflict like two processes do (each opens the
file for itself, and ``flock`` locks belong to the open file).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pos_terminal.disk.locks import ProfileBusy, ProfileLock
from tests.locks import needs_proc_locks, wait_for_waiters


@needs_proc_locks
async def test_a_second_holder_waits_for_the_first(tmp_path: Path) -> None:
    path = tmp_path / "sign-in.lock"
    first, second = ProfileLock(path, timeout=30), ProfileLock(path, timeout=30)
    order: list[str] = []
    released, entered = asyncio.Event(), asyncio.Event()

    async def hold_first() -> None:
        async with first.hold():
            order.append("first in")
            entered.set()
            await released.wait()
            order.append("first out")

    async def hold_second() -> None:
        async with second.hold():
            order.append("second in")

    holder = asyncio.create_task(hold_first())
    await entered.wait()
    waiter = asyncio.create_task(hold_second())
    await asyncio.to_thread(wait_for_waiters, path, 1)
    assert order == ["first in"]
    released.set()
    await asyncio.gather(holder, waiter)
    assert order == ["first in", "first out", "second in"]


async def test_waiting_too_long_is_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "sign-in.lock"
    async with ProfileLock(path, timeout=30).hold():
        with pytest.raises(ProfileBusy) as busy:
            async with ProfileLock(path, timeout=0.2).hold():
                pass
    assert "Another pos-terminal" in busy.value.text()
    async with ProfileLock(path, timeout=5).hold():
        pass  # the thread that kept waiting took the lock when it came free, and let it go at once


@needs_proc_locks
async def test_a_cancelled_waiter_leaves_no_lock_behind(tmp_path: Path) -> None:
    path = tmp_path / "sign-in.lock"
    holder = ProfileLock(path, timeout=30)
    async with holder.hold():
        waiter = asyncio.create_task(ProfileLock(path, timeout=30).hold().__aenter__())
        await asyncio.to_thread(wait_for_waiters, path, 1)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
    async with ProfileLock(path, timeout=5).hold():
        pass
