"""Every benchmark is a ratio: what the terminal does, against a baseline doing the least the same work needs,
measured in the same run on the same machine (a bare window, plain uvicorn, a bare httpx POST, reportlab's own
floor, the json module...). A ratio holds on a busy machine where a time in milliseconds does not.

Each benchmark holds two bounds on its ratio. The **target** is what we aim for; it is held in a measuring run
(``make bench``, that is ``pytest tests/bench --measure``: more rounds, a quiet machine). The **CI bound** is
looser and is held in every run, the ordinary suite included, so a regression of the kind a stall or a
quadratic loop brings (the sandbox's 44 ms per request was one) fails CI. The figures of the run are printed
as one table at the end (``tests/helpers/bench.py``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import pytest

from tests.helpers.bench import RATIO_PROPERTY, Ratio


class Bench:
    """What a benchmark test uses: the run's kind, timing helpers, and :meth:`hold` to record and check a ratio."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.measuring = bool(request.config.getoption("measure"))
        self._request = request

    def rounds(self, measuring: int, smoke: int = 3) -> int:
        """How many rounds: ``measuring`` in a measuring run, ``smoke`` in the ordinary suite."""
        return measuring if self.measuring else smoke

    @staticmethod
    def ms(call: Callable[[], object]) -> float:
        start = time.perf_counter()
        call()
        return (time.perf_counter() - start) * 1000

    def interleaved(
        self, measured: Callable[[], object], baseline: Callable[[], object], *, rounds: int, warm: int = 2
    ) -> tuple[float, float]:
        """Medians in ms of both calls, alternated round by round so both meet the same machine."""
        for _ in range(warm):
            baseline()
            measured()
        measured_ms, baseline_ms = [], []
        for _ in range(rounds):
            baseline_ms.append(self.ms(baseline))
            measured_ms.append(self.ms(measured))
        return statistics.median(measured_ms), statistics.median(baseline_ms)

    def hold(self, name: str, **figures: Any) -> Ratio:
        """Records the ratio for the run's table (:meth:`record`'s arguments), then holds the CI bound always and
        the target in a measuring run."""
        ratio = self.record(name, **figures)
        self.enforce(ratio)
        return ratio

    def record(
        self,
        name: str,
        *,
        measured: tuple[str, float],
        baseline: tuple[str, float],
        target: float,
        ci_bound: float,
        rounds: int,
        unit: str = "ms",
    ) -> Ratio:
        """Only records the ratio: for a test measuring several in one run, each in the table before any is held."""
        assert target <= ci_bound
        ratio = Ratio(name, measured[0], measured[1], baseline[0], baseline[1], unit, target, ci_bound, rounds)
        # the run's table reads it from the test's report, which a worker process sends back too (tests/conftest.py)
        self._request.node.user_properties.append((RATIO_PROPERTY, asdict(ratio)))
        return ratio

    def enforce(self, *ratios: Ratio) -> None:
        """Holds each ratio's CI bound, and its target in a measuring run; says every one that fails."""
        failed = [
            f"{r.name}: {r.measured} {r.measured_value:.3g} {r.unit} against {r.baseline} {r.baseline_value:.3g}"
            f" {r.unit} is {r.ratio:.2f}×, beyond the CI bound of {r.ci_bound:g}×"
            for r in ratios
            if r.ratio >= r.ci_bound
        ]
        if self.measuring:
            failed += [
                f"{r.name}: {r.ratio:.2f}×, the target is under {r.target:g}×"
                for r in ratios
                if r.ci_bound > r.ratio >= r.target
            ]
        assert not failed, "; ".join(failed)


@pytest.fixture
def bench(request: pytest.FixtureRequest) -> Bench:
    return Bench(request)
