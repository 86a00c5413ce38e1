"""Reports made in a child process, so the peak of making one never lands in the till's own memory.

A day's report builds a great many small Python objects (reportlab's story, tables and
strings, pdfium's page wrappers). Made on a thread of the window's process, the few
long-lived objects the window allocates meanwhile (the loop's callbacks, the journal's
rows, the banner's text) land in the allocator's arenas of that peak, and each one keeps
its arena from ever going back to the system: over a shift the resident memory rose with
every report, while the objects alive stayed flat (the soak counted 21 of 29 new arenas in
the rendering). A child process takes the whole peak and exits with it.

The child is spawned, never forked (the window's process has Qt's threads), renders one
report with its preview pages, and exits (``max_tasks_per_child=1``); the pool starts the
next child at once, and its initializer loads reportlab, pdfium and the fonts while
nobody waits, so a report waits for no imports. :meth:`ReportWorker.close` ends the child
at once, even mid-report, so closing the window is never held up by a long report.
"""

from __future__ import annotations

import asyncio
import io
import multiprocessing
import pickle
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport, Layout
from pos_terminal.errors import UserError
from pos_terminal.reports.raster import PageImage


class ReportNotMade(UserError):
    hint = "Show the report again."


@dataclass(frozen=True, slots=True)
class Rendered:
    """A report made in the child: the PDF, how many pages it has, and the first pages as images."""

    data: bytes
    page_count: int
    previews: tuple[PageImage, ...]


def _warm() -> None:
    """In each new child, before any report: everything a report needs, loaded while nobody waits."""
    from pos_terminal.reports import end_of_day, fonts, raster  # noqa: F401

    fonts.register()


def packed(report: EndOfDayReport) -> bytes:
    """``report`` as the child receives it: pickled without the pickler's memo.

    The pool pickles what it sends with the memo, which keeps every row's state (a dict and a tuple for each
    transaction and audit entry) until the whole report is written: a passing peak of small objects in the
    window's process at every report, 1.1 MB at 600 sales, that grew with the day and raised the window's
    memory for good (docs/memory.md). A report holds no cycles, so it is written without a memo (the pickler's
    fast mode), each row's state dropped once written; a row two lists share arrives as two equal rows."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(report)
    return buffer.getvalue()


def _end_of_day(report: bytes, layout: Layout, money: MoneyFormat, dpi: float, pages: int) -> Rendered:
    """Runs in the child: the PDF of the report :func:`packed` packed, and its first ``pages`` pages at ``dpi``."""
    from pos_terminal.reports import end_of_day, raster

    data = end_of_day.render(pickle.loads(report), layout, money=money)  # noqa: S301 (the window's own report)
    count = len(raster.page_sizes(data))
    return Rendered(data, count, tuple(raster.iter_pages(data, dpi=dpi, count=pages)))


class ReportWorker:
    """One child process at a time, started on the first report; :meth:`close` when the window closes."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_warm,
                max_tasks_per_child=1,
            )
        return self._pool

    async def end_of_day(
        self, report: EndOfDayReport, layout: Layout, *, money: MoneyFormat, dpi: float, pages: int
    ) -> Rendered:
        """The report's PDF and its first ``pages`` preview pages, made in the child process."""
        payload = await asyncio.to_thread(packed, report)
        future: Future[Rendered] = self._executor().submit(_end_of_day, payload, layout, money, dpi, pages)
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            self._discard()  # a child that died (killed, out of memory) leaves the pool unusable: start anew
            raise ReportNotMade("The report could not be made: the process making it stopped.") from None

    def close(self) -> None:
        """End the child now, mid-report or idle; the worker can start again on the next report."""
        self._discard()

    def _discard(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes: dict[Any, Any] = dict(getattr(pool, "_processes", None) or {})
        pool.shutdown(wait=False, cancel_futures=True)
        # A report in progress would hold the interpreter's exit until it is done (concurrent.futures joins
        # its workers at exit); ProcessPoolExecutor has no public way to stop them before Python 3.14.
        terminate = getattr(pool, "terminate_workers", None)
        if callable(terminate):
            terminate()
            return
        for process in processes.values():
            if process.is_alive():
                process.terminate()
