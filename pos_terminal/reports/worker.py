"""Reports made in a child process, so neither the day's rows nor the peak of rendering them land in the till's memory.

A day's report builds a great many small Python objects: the day's listing read as rows, the audit entries, the
reconciliation, then reportlab's story, tables and strings and pdfium's page wrappers. Made in the window's process,
the few long-lived objects the window allocates meanwhile (the loop's callbacks, the journal's rows, the banner's text)
land in the allocator's arenas of that peak, and each one keeps its arena from ever going back to the system: over a
shift the resident memory rose with every report, while the objects alive stayed flat (docs/memory.md). A child process
takes the whole peak and exits with it.

The window hands the child an order (what the report is made of, as read: the listing's bytes, the audit entries
packed as they were read), or a report already made. The child makes the report, sends back first what the screen
shows of it (:class:`~pos_terminal.domain.report_document.ReportFace`, the figures without the rows), then, asked
again, its PDF and preview pages; it keeps the report between the two (a child asked for a report it has not made
makes it). Once the PDF is made, the child is let go and the next one started: each report's peak goes with its
child.

The child is never forked from the window's process, which has Qt's threads. Where the system has one, children come
from multiprocessing's fork server: a process of one thread, spawned once, that loads reportlab, pdfium and the fonts
(:mod:`pos_terminal.reports.warm`) and forks a child for each report that starts with all of them. A spawned child
loaded them again for every report: about 0.9 s of processor time each, beside the window on a counter PC. Elsewhere
each child is spawned. Either way a child is started before it is needed (when the manager opens Reports, when a
report is asked for, when the last child is let go); its initializer loads what is not loaded yet, the modules an
order names among them, while nobody waits, so a report waits for no imports.
:meth:`ReportWorker.close` ends the child at once, even mid-report, so closing the window is never held up by a long
report.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any, Protocol, TypeVar

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.packing import packed, unpacked
from pos_terminal.domain.report import EndOfDayReport, Layout
from pos_terminal.domain.report_document import ReportFace
from pos_terminal.domain.slip import PackedSlip, report_slip
from pos_terminal.errors import UserError
from pos_terminal.reports.raster import PageImage

Result = TypeVar("Result")


class ReportNotMade(UserError):
    hint = "Show the report again."


class Order(Protocol):
    """What a report is made of, made into one in the child (``Reports.order``); it must pickle."""

    def made(self) -> EndOfDayReport: ...


Source = EndOfDayReport | Order


@dataclass(frozen=True, slots=True)
class Rendered:
    """A report made in the child: the PDF, how many pages it has, the first pages as images, and for the 80 mm roll
    the receipt printer's slip of it, packed (the window unpacks it only to print it)."""

    data: bytes
    page_count: int
    previews: tuple[PageImage, ...]
    slip: PackedSlip | None = None


def _started() -> None:
    """A first task that does nothing: the pool starts its child on the first task given it."""


def _warm(modules: tuple[str, ...]) -> None:
    """In each new child, before any report: everything a report needs, loaded while nobody waits; and the child leaves
    with the window."""
    _leave_with_the_window()
    for module in ("pos_terminal.reports.warm", *modules):  # loaded already in a child of the fork server
        importlib.import_module(module)


def _leave_with_the_window() -> None:
    """Exit when the window's process is gone. The pool tells its child nothing when the window is killed or crashes: an
    idle child would wait for its next report for ever (and a fork server, for its children), one more at each crash.
    The end of the pipe the window keeps open to the child says it, on a thread of the child's own."""
    window = multiprocessing.parent_process()
    if window is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([window.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="leaves with the window", daemon=True).start()


# In the child: the last report made, under its source's digest, kept for the second task (its PDF).
_made: tuple[bytes, EndOfDayReport] | None = None


def _report(source: bytes) -> EndOfDayReport:
    global _made
    digest = hashlib.blake2b(source, digest_size=16).digest()
    if _made is None or _made[0] != digest:
        _made = None  # the last one goes before the next is made
        value = unpacked(source)
        _made = (digest, value if isinstance(value, EndOfDayReport) else value.made())
    return _made[1]


def _face(source: bytes, money: MoneyFormat) -> ReportFace:
    """Runs in the child: what the screen shows of the report."""
    return ReportFace.of(_report(source), money.format)


def _end_of_day(
    source: bytes, layout: Layout, money: MoneyFormat, dpi: float, pages: int, tz: tzinfo | None
) -> Rendered:
    """Runs in the child: the PDF of the report, its first ``pages`` pages at ``dpi``, and on the roll its slip."""
    from pos_terminal.reports import end_of_day, raster

    report = _report(source)
    data = end_of_day.render(report, layout, money=money)
    count = len(raster.page_sizes(data))
    slip = PackedSlip.of(report_slip(report, money.format, tz)) if layout == "roll" else None
    return Rendered(data, count, tuple(raster.iter_pages(data, dpi=dpi, count=pages)), slip)


def _context(preload: tuple[str, ...]) -> multiprocessing.context.BaseContext:
    """The fork server's context where the system has one (its preload set before it starts), else spawn's."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # Read when the server starts (the first child of the process), ignored once it runs: the server is one per process.
    context.set_forkserver_preload(["pos_terminal.reports.warm", *preload])
    return context


class ReportWorker:
    """One child process at a time, started before it is needed (:meth:`start`) and let go after each report's PDF;
    :meth:`close` when the window closes."""

    def __init__(self, *, preload: tuple[str, ...] = ()) -> None:
        """``preload``: the modules the orders it is handed come from, imported in each child before it is needed."""
        self._pool: ProcessPoolExecutor | None = None
        self._preload = preload

    def start(self) -> None:
        """Have a child ready: started now, if none is, to load what a report needs before one is asked for."""
        self._executor()

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=_context(self._preload),
                initializer=_warm,
                initargs=(self._preload,),
            )
            self._pool.submit(_started)
        return self._pool

    async def face(self, source: Source, *, money: MoneyFormat) -> ReportFace:
        """What the screen shows of the report ``source`` makes, made in the child process."""
        return await self._run(_face, await asyncio.to_thread(packed, source), money)

    async def end_of_day(
        self, source: Source, layout: Layout, *, money: MoneyFormat, dpi: float, pages: int, tz: tzinfo | None = None
    ) -> Rendered:
        """The report's PDF and its first ``pages`` preview pages (and on the roll, its slip in ``tz``), made in the
        child process."""
        payload = await asyncio.to_thread(packed, source)
        rendered = await self._run(_end_of_day, payload, layout, money, dpi, pages, tz)
        self._next_child()
        return rendered

    async def _run(self, task: Callable[..., Result], *args: Any) -> Result:
        try:
            # a child that died while idle breaks the pool at once: submit says so
            future: Future[Result] = self._executor().submit(task, *args)
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            self._discard()  # a child that died (killed, out of memory) leaves the pool unusable: start anew
            raise ReportNotMade("The report could not be made: the process making it stopped.") from None

    def close(self) -> None:
        """End the child now, mid-report or idle; the worker can start again on the next report."""
        self._discard()

    def _next_child(self) -> None:
        """Let the child that made a report go (it is idle, and exits) and start the next one."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)
        self.start()

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
