"""The window's event loop against qasync's own, in the same run: 1,000 task switches (``sleep(0)``) and 1,000
timed callbacks, each on a fresh loop. A task switch is what every awaited answer costs the window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from pos_terminal.ui.loop import EventLoop
from tests.bench.conftest import Bench

import qasync
from PySide6.QtWidgets import QApplication

SWITCHES = 1_000
TARGET = 1.2
CI_BOUND = 3.0

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


@pytest.mark.parametrize("work", [switches, timed_callbacks], ids=["switches", "timed"])
def test_loop(bench: Bench, qapp: QApplication, work: Callable[[], Coroutine[Any, Any, int]]) -> None:
    results: list[int] = []

    def once(kind: str) -> Callable[[], None]:
        def run() -> None:
            with asyncio.Runner(loop_factory=lambda: LOOPS[kind](qapp)) as runner:
                results.append(runner.run(work()))

        return run

    rounds = bench.rounds(measuring=20, smoke=3)
    ours_ms, qasync_ms = bench.interleaved(once("ours"), once("qasync"), rounds=rounds, warm=1)
    bench.hold(
        f"event loop, 1,000 {'task switches' if work is switches else 'timed callbacks'}",
        measured=("ui.loop.EventLoop", ours_ms),
        baseline=("qasync.QEventLoop", qasync_ms),
        target=TARGET,
        ci_bound=CI_BOUND,
        rounds=rounds,
    )
    assert results == [SWITCHES] * len(results) and len(results) == 2 * (rounds + 1)
