"""The window's event loop against qasync's own: 1,000 task switches (``sleep(0)``) and 1,000 timed
callbacks, each on a fresh loop. A task switch is what every awaited answer costs the window.

Run for real with ``pytest tests/bench --benchmark-enable``; by default each runs once as a smoke test.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from pos_terminal.ui.loop import EventLoop

import qasync
from PySide6.QtWidgets import QApplication

SWITCHES = 1_000

LOOPS: dict[str, Callable[[QApplication], asyncio.AbstractEventLoop]] = {
    "ours": EventLoop,
    "qasync": qasync.QEventLoop,
}


async def switches() -> int:
    for _ in range(SWITCHES):
        await asyncio.sleep(0)
    return SWITCHES


async def timed_callbacks() -> int:
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    fired: list[int] = []

    def fire(n: int) -> None:
        fired.append(n)
        if len(fired) == SWITCHES:
            done.set_result(None)

    for n in range(SWITCHES):
        loop.call_later(0.001 * (n % 5), fire, n)
    await done
    return len(fired)


@pytest.mark.parametrize("kind", LOOPS)
@pytest.mark.parametrize("work", [switches, timed_callbacks], ids=["switches", "timed"])
def test_loop(benchmark: Any, qapp: QApplication, kind: str, work: Callable[[], Coroutine[Any, Any, int]]) -> None:
    def once() -> int:
        with asyncio.Runner(loop_factory=lambda: LOOPS[kind](qapp)) as runner:
            return runner.run(work())

    assert benchmark(once) == SWITCHES
