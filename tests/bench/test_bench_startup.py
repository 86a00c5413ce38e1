"""Start-up against a bare PySide6 window started the same way, alternated in the same run
(tests/bench/bench_startup.py): process start to the cashier screen first painted, and to the screen ready (its
terminal attached: customers loading, the check restored, Charge live). Both within 2.5× is the target.

The same run also starts the libraries' floor (``bench_startup.FLOOR``): a bare window that then loads what a
ready till has loaded (pydantic, httpx, SQLite, keyring, Babel), each used once. It measures about 2.4–2.6× a bare
window on the development machine, so "ready within 2.5×" cannot be met while those libraries load before the
till is ready (docs/startup.md); the third ratio holds what is ours on top of them.
"""

from __future__ import annotations

import statistics

import pytest

from tests.bench.bench_startup import measure
from tests.bench.conftest import Bench

TARGET = 2.5
SHOWN_CI_BOUND = 6.0
READY_CI_BOUND = 14.0  # about 5× today (docs/startup.md): a start-up that stalls, not one not yet fast enough
OVER_FLOOR_TARGET = 1.5  # our window, modules and work: at most half again what the libraries alone take
OVER_FLOOR_CI_BOUND = 4.0


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_start_up_against_a_bare_window(bench: Bench) -> None:
    # an odd count: the median of two starts is their mean, and one start slowed by a neighbour's load (the
    # suite's other worker) counted half; a CI run failed so at 6.16× with the floor itself at 3.6× its quiet time
    runs = bench.rounds(measuring=7, smoke=3)
    figures = measure(runs)
    bare = statistics.median(figures.bare) * 1000
    ready = statistics.median(figures.ready) * 1000
    ratios = [
        bench.record(
            name,
            measured=("python -m pos_terminal", statistics.median(seconds) * 1000),
            baseline=("a bare PySide6 window", bare),
            target=TARGET,
            ci_bound=bound,
            rounds=runs,
        )
        for name, seconds, bound in (
            ("start-up, first paint", figures.shown, SHOWN_CI_BOUND),
            ("start-up, cashier screen ready", figures.ready, READY_CI_BOUND),
        )
    ]
    ratios.append(
        bench.record(
            "start-up, ready over the libraries' floor",
            measured=("python -m pos_terminal, ready", ready),
            baseline=("bare window + its libraries", statistics.median(figures.floor) * 1000),
            target=OVER_FLOOR_TARGET,
            ci_bound=OVER_FLOOR_CI_BOUND,
            rounds=runs,
        )
    )
    bench.enforce(*ratios)
