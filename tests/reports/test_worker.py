"""Reports made in a child process: the same PDF as in-process, one fresh process per report, and a child that
stops (closed mid-report, or killed) never leaves the window waiting."""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType

import pytest
from pypdf import PdfReader

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport
from pos_terminal.reports import end_of_day, raster
from pos_terminal.reports.worker import ReportNotMade, ReportWorker
from tests.helpers.reports import busy_day_report, child_pids

pytestmark = pytest.mark.slow

MONEY = MoneyFormat("en_AU", "AUD")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def big_report() -> EndOfDayReport:
    return busy_day_report()


@pytest.fixture
async def worker() -> AsyncIterator[ReportWorker]:
    made = ReportWorker()
    yield made
    made.close()


async def gone(pid: int, within: float = 5.0) -> bool:
    """Whether process ``pid`` has exited (a zombie not yet reaped has exited too) within ``within`` seconds."""
    for _ in range(int(within / 0.02)):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except (FileNotFoundError, ProcessLookupError):  # reaped: gone before the open, or between it and the read
            return True
        await asyncio.sleep(0.02)
    return False


async def started_child(
    worker: ReportWorker, within: float = 10.0, other_than: frozenset[int] = frozenset()
) -> set[int]:
    """The pids of the worker's child, once it has one (other than ``other_than``)."""
    for _ in range(int(within / 0.01)):
        if (pids := child_pids(worker)) and not pids & other_than:
            return pids
        await asyncio.sleep(0.01)
    raise AssertionError("no child process started")


async def test_a_report_made_in_the_child_is_the_one_made_here(
    worker: ReportWorker, big_report: EndOfDayReport
) -> None:
    rendered = await worker.end_of_day(big_report, "roll", money=MONEY, dpi=72.0, pages=3)
    here = end_of_day.render(big_report, "roll", money=MONEY)
    assert (
        rendered.page_count
        == len(PdfReader(__import__("io").BytesIO(rendered.data)).pages)
        == len(raster.page_sizes(here))
    )
    assert len(rendered.previews) == min(3, rendered.page_count)
    first = next(raster.iter_pages(here, dpi=72.0, count=1))
    assert (rendered.previews[0].width, rendered.previews[0].height) == (first.width, first.height)
    assert rendered.previews[0].data == first.data  # the same pixels: the same PDF, rendered the same way


def objects_in(value: object) -> int:
    """How many objects ``value`` holds, itself included (classes and modules aside)."""
    seen: set[int] = set()
    todo = [value]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type | ModuleType):
            continue
        seen.add(id(obj))
        todo.extend(gc.get_referents(obj))
    return len(seen)


async def test_a_roll_report_reaches_the_window_as_a_few_objects_however_long_the_day(
    worker: ReportWorker, big_report: EndOfDayReport
) -> None:
    """The roll's slip is a line for every refund, cancellation and audit entry of the day. Unpacked in the window
    with every roll report shown, it raised the interpreter's high-water mark with the day, and the soak's arenas
    with it (docs/memory.md); it stays packed until it is printed."""
    rendered = await worker.end_of_day(big_report, "roll", money=MONEY, dpi=50.0, pages=1)
    assert rendered.slip is not None
    slip = rendered.slip.unpacked()
    assert len(slip.blocks) > 1_000, "a long day's slip"
    assert "Audit log" in slip.text
    held = objects_in(rendered)
    assert held < 40, f"the window holds {held:,} objects of a roll report"


async def test_each_report_has_a_process_of_its_own_that_exits_with_it(
    worker: ReportWorker, big_report: EndOfDayReport
) -> None:
    facing = asyncio.ensure_future(worker.face(big_report, money=MONEY))
    first = await started_child(worker)  # one worker: this child makes the first report, its figures then its PDF
    face = await facing
    assert face.generated_at == big_report.generated_at and face.reconciled == big_report.reconciled
    await worker.end_of_day(big_report, "roll", money=MONEY, dpi=50.0, pages=1)
    await started_child(worker, other_than=frozenset(first))  # the next report's, started at once
    assert all([await gone(pid) for pid in first]), "the child that made a report exits with it"
    await worker.end_of_day(big_report, "roll", money=MONEY, dpi=50.0, pages=1)


def stat_of(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command's name: state, parent, ..."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()


@pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods() or not os.path.exists("/proc/self/task"),
    reason="no fork server on this system (each child is spawned there), or no /proc to look at processes",
)
async def test_children_are_forked_from_a_server_of_one_thread_that_has_loaded_the_fonts(
    worker: ReportWorker, big_report: EndOfDayReport
) -> None:
    """Each child comes from the fork server, never from this process (which has threads, as the window's has Qt's),
    and the server forks with a single thread: a thread's locks would be copied held into every child. The child
    starts with what the server loaded: the report modules, and the fonts registered."""
    worker.start()
    child = (await started_child(worker)).pop()
    loaded = "'pos_terminal.reports.warm' in __import__('sys').modules and __import__('pos_terminal.reports.fonts')"
    assert await asyncio.wrap_future(worker._executor().submit(eval, loaded + ".reports.fonts._registered"))  # noqa: S307 - the child evaluates a fixed probe
    server = int(stat_of(child)[1])
    assert server != os.getpid(), "a report child forked from the window's process"
    with open(f"/proc/{server}/cmdline", "rb") as cmdline:
        assert b"forkserver" in cmdline.read()
    assert len(os.listdir(f"/proc/{server}/task")) == 1, "the fork server has threads of its own"
    await worker.end_of_day(big_report, "roll", money=MONEY, dpi=50.0, pages=1)
    following = (await started_child(worker, other_than=frozenset({child}))).pop()
    assert int(stat_of(following)[1]) == server, "the next child comes from the same server"
    assert len(os.listdir(f"/proc/{server}/task")) == 1


async def test_closing_mid_report_ends_the_child_at_once(worker: ReportWorker, big_report: EndOfDayReport) -> None:
    making = asyncio.ensure_future(worker.end_of_day(big_report, "a4", money=MONEY, dpi=100.0, pages=20))
    pids = await started_child(worker)  # warming up or rendering 10,000 transactions: either way, not done
    worker.close()
    # the report ends at once: not made (its child stopped) or canceled (it had not reached the child yet)
    with pytest.raises((ReportNotMade, asyncio.CancelledError)):
        await asyncio.wait_for(making, 5)
    assert all([await gone(pid, within=2.0) for pid in pids])


async def test_a_child_that_is_killed_gives_one_sentence_and_the_next_report_is_made(
    worker: ReportWorker, big_report: EndOfDayReport
) -> None:
    making = asyncio.ensure_future(worker.end_of_day(big_report, "a4", money=MONEY, dpi=100.0, pages=20))
    for pid in await started_child(worker):
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(ReportNotMade, match="the process making it stopped"):
        await asyncio.wait_for(making, 10)
    again = await worker.end_of_day(big_report, "roll", money=MONEY, dpi=50.0, pages=1)
    assert again.page_count >= 1


async def test_a_child_that_died_while_idle_gives_one_sentence_and_the_next_report_is_made(
    worker: ReportWorker, big_report: EndOfDayReport
) -> None:
    """Killed (or out of memory) while waiting for its report: the pool is broken before the report is handed over, and
    says so when it is; that was an unexpected error on the manager's screen."""
    worker.start()
    pids = await started_child(worker)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    assert all([await gone(pid) for pid in pids])
    for _ in range(500):  # the pool's own thread sees the child gone, and marks the pool broken
        if getattr(worker._pool, "_broken", False):
            break
        await asyncio.sleep(0.01)
    assert getattr(worker._pool, "_broken", False), "the pool never saw its child go"
    with pytest.raises(ReportNotMade, match="the process making it stopped"):
        await asyncio.wait_for(worker.face(big_report, money=MONEY), 10)
    again = await worker.end_of_day(big_report, "roll", money=MONEY, dpi=50.0, pages=1)
    assert again.page_count >= 1


KILLED_WINDOW = """
import asyncio
import os
import signal

from pos_terminal.reports.worker import ReportWorker


async def main() -> None:
    worker = ReportWorker()
    await asyncio.wrap_future(worker._executor().submit(eval, "1"))  # the child started, and idle
    child = next(iter(worker._pool._processes.values())).pid
    with open(f"/proc/{child}/stat") as stat:
        print(child, stat.read().rsplit(")", 1)[1].split()[1], flush=True)  # the child, and its parent
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    asyncio.run(main())
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="no /proc to look at processes")
async def test_a_killed_window_leaves_no_report_process_behind(tmp_path: Path) -> None:
    """A window that is killed or crashes tells its report child nothing: the child (and on a fork server, the server)
    waited for a next report for ever, some 80 MB each, one more at every crash of the day."""
    script = tmp_path / "killed_window.py"
    script.write_text(KILLED_WINDOW)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == -signal.SIGKILL, done.stderr
    child, parent = (int(pid) for pid in done.stdout.split())
    assert await gone(child), "the report child outlived the window"
    assert await gone(parent), "the fork server outlived the window"  # where it was spawned: the window, gone too


def test_a_report_goes_to_the_child_without_a_day_of_small_objects_held_at_once(big_report: EndOfDayReport) -> None:
    """Pickled the pool's way, every row's state stays in the pickler's memo until the whole day is written: a
    peak five times the size of what is written (docs/memory.md). Packed, the peak is the output's own buffer."""
    import pickle
    import tracemalloc

    from pos_terminal.domain.packing import packed

    packed(big_report)  # whatever a first call loads
    tracemalloc.start()
    try:
        data = packed(big_report)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pickle.loads(data) == big_report  # noqa: S301 (made just above)
    assert peak < 2.5 * len(data), f"packing {len(data):,} bytes held {peak:,} at its peak"


async def test_an_order_the_child_cannot_read_raises_its_one_sentence_in_the_window(worker: ReportWorker) -> None:
    """The listing is read in the child: an answer that is no listing raises there, and arrives in the window as the
    same error with its sentence and hint once (rebuilt from its text, an error said its hint twice)."""
    from datetime import UTC, datetime, timedelta

    from pos_terminal.api.client import Listing
    from pos_terminal.api.errors import ResponseInvalid
    from pos_terminal.domain.report import ReportScope, TimeRange
    from pos_terminal.services.reports import ReportOrder

    end = datetime(2026, 11, 26, tzinfo=UTC)
    order = ReportOrder(
        terminal_id="LANE-1",
        scope=ReportScope.terminal("LANE-1"),
        region="sandbox",
        production=False,
        period=TimeRange.custom(end - timedelta(days=1), end),
        generated_at=end,
        reported=(),
        listing=Listing(b"<html>Service busy</html>"),
        audit=b"",
        cash_sales=(),
        merchant=None,
        lookback=timedelta(hours=1),
    )
    with pytest.raises(ResponseInvalid) as raised:
        await worker.face(order, money=MONEY)
    here = ResponseInvalid(detail="not JSON: '<html>Service busy</html>'")
    assert raised.value.text() == here.text() and str(raised.value) == str(here)
    assert raised.value.text().count(here.hint or "") == 1
    assert raised.value.detail == here.detail
