"""A whole shift, compressed: thousands of charges through the real window, and nothing leaks or drifts.

``POS_SOAK_CHARGES`` sets the length of the day (60 by default, the short version ``make test``
runs; ``make soak`` sets 2000 or more), ``POS_SOAK_SEED`` its mix, and ``POS_SOAK_REPORT`` a
file the figures are written to as JSON. The figures are printed as well (``pytest -s``).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.ui.main_window import MainWindow
from tests.helpers.sandbox_process import SandboxProcess
from tests.soak.shift import (
    Control,
    Ledger,
    Shift,
    audit_books,
    catalog_buttons,
    describe,
    elapsed,
    live_tasks,
    make_customers,
    plan_shift,
    render,
    stability,
    time_limit,
)
from tests.ui.conftest import TERMINAL_ID, finish, signed_in_window

pytestmark = pytest.mark.slow

CHARGES = int(os.environ.get("POS_SOAK_CHARGES", "60"))
SEED = int(os.environ.get("POS_SOAK_SEED", "20250611"))
REPORT = os.environ.get("POS_SOAK_REPORT")
OPENING_FLOAT = 20_000  # the float signed_in_window opens the shift with (200.00)


def publish(figures: dict[str, Any]) -> None:
    """Print the figures (flushed, so a captured run shows them too) and write them where asked."""
    samples = figures.pop("samples_table", "")
    print(f"\n--- soak: {figures['charges']} charges, seed {figures['seed']}, {figures['elapsed']} ---", flush=True)
    print(samples, flush=True)
    print(json.dumps(figures, indent=1, sort_keys=True, default=str), flush=True)
    if REPORT:
        Path(REPORT).write_text(json.dumps(figures, indent=1, sort_keys=True, default=str) + "\n")


TRACE = bool(os.environ.get("POS_SOAK_TRACEMALLOC"))  # where memory grows, at about four times the time


@pytest.mark.timeout(time_limit(CHARGES) * (4 if TRACE else 1))
async def test_a_whole_shift_compressed(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    pos: httpx.Client,
    sandbox: SandboxProcess,
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    if TRACE:
        tracemalloc.start()
    control = Control(client, pos)
    customers = make_customers(control)
    # What the process holds before the window (pytest, the modules of every test this worker ran) is set aside from
    # collections, as the terminal sets aside what it loaded before its loop (pos_terminal.app): each sample's four
    # full collections then walk the window and its day, not the whole test session (0.15-0.4 s each alone, more
    # in a worker under a full run's load).
    gc.collect()
    gc.freeze()
    window = await signed_in_window(host, make_window, client, listing=customers[-1])
    shift = Shift(
        window,
        control,
        customers,
        plan_shift(CHARGES, SEED, catalog_size=len(catalog_buttons(window))),
        ledger=Ledger(tmp_path / "ledger.sqlite3"),
        sandbox_pid=sandbox.pid,
    )
    figures: dict[str, Any] = {"charges": CHARGES, "seed": SEED}
    failures: list[str] = []
    assert host.terminal is not None
    journal_file = host.terminal.journal_path
    finished = False
    try:
        await shift.run()
        figures["z_report"] = await shift.close_shift(OPENING_FLOAT)
        left, figures["long_lived_tasks"] = await shift.wind_down()
        if left:
            failures.append(f"tasks alive with the window idle: {left}")
        await finish(window, host)
        finished = True
        if closed := [describe(t) for t in live_tasks()]:
            failures.append(f"tasks alive after the window and the terminal closed: {closed}")
        books, problems = audit_books(shift.records, customers, control, journal_file, TERMINAL_ID)
        failures += problems
        figures["books"] = books
        trend, unstable = stability(shift.samples)
        failures += unstable
        figures["stability"] = trend
        figures["widgets_added_since_warm_up"] = shift.widgets_added()
        figures["widgets_over_warm_up"] = shift.widgets_over_warm_up()
        figures["objects_added_since_warm_up"] = shift.objects_added()
        figures["allocations_added_since_warm_up"] = shift.allocations_added()
        figures["cyclic_garbage"] = shift.lingering
        if shift.figures.unfired:
            failures.append(f"faults armed and never met: {shift.figures.unfired}")
        if shift.figures.reverted:
            failures.append(f"finished charges shown authorized again: {shift.figures.reverted}")
    finally:
        gc.unfreeze()
        if not finished:
            with contextlib.suppress(Exception):  # the failure that stopped the day is the one to read
                await finish(window, host, wait=False)
        figures.update(
            elapsed=elapsed(started),
            elapsed_s=round(time.monotonic() - started, 1),
            done=len(shift.records),
            timings=shift.timings(),
            counts=shift.figures.as_json(),
            samples=[asdict(s) for s in shift.samples],
            samples_table=render(shift.samples),
            failures=failures,
        )
        tracemalloc.stop()
        shift.records.close()
        shift.cycles.close()
        publish(figures)
    assert not failures, "\n".join(failures)
