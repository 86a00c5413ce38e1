"""The asyncio event loop the window runs on: qasync's Qt loop with its scheduler replaced.

qasync 0.28 runs every ``call_soon`` and ``call_later`` as a Qt timer of its own
(``_SimpleTimer``), which fails in two ways that stopped a whole shift
(``docs/event-loop.md`` tells the story):

* **Lost wake-ups.** A nested Qt event loop inside a running callback (``processEvents``,
  a dialog's ``exec()``, Qt's own clipboard or drag loops) fires the timers of other
  callbacks re-entrantly. Waking a second task while one is running raises
  ``RuntimeError: Cannot enter into task``, which asyncio logs and drops: that task
  waits forever on a future that is already done.
* **Segfaults.** When a loop is closed its pending timers stay registered. If the
  cyclic garbage collector then destroys the timer object on another thread (the
  embedded sandbox's, an executor's), Qt cannot unregister them from there and the
  next one fires on freed memory.

:class:`EventLoop` keeps qasync's socket notifiers and thread-safe calls and brings
its own :class:`_Scheduler`: one Qt timer for the whole loop, a ready queue and a heap
of timed callbacks as in asyncio's own loop, never a callback run inside another,
calls from other threads refused, and everything stopped on the loop's thread when
it closes. While the loop runs, the garbage collector runs on the loop's thread only
(:class:`_Collector`), so no Qt object is ever destroyed by a collection elsewhere.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import heapq
import itertools
import logging
import threading
import time
from collections import deque
from typing import Any

import qasync
import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication

log = logging.getLogger(__name__)

COLLECT_EVERY_MS = 100


class _Scheduler(QObject):
    """The callbacks of one loop: ready now, or due at a time; run in order, one at a time.

    Takes the place of qasync's ``_SimpleTimer`` (same ``add_callback``, ``stop`` and
    ``set_debug``). One single-shot Qt timer is armed for the next due callback.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._loop = loop
        self._thread = threading.get_ident()
        self._ready: deque[asyncio.Handle] = deque()
        self._timed: list[tuple[float, int, asyncio.Handle]] = []
        self._order = itertools.count()
        self._running = False
        self._stopped = False
        self._debug = False
        self._armed_for: float | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._run_due)

    def add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        if threading.get_ident() != self._thread:
            raise RuntimeError("A callback was scheduled from another thread; use call_soon_threadsafe.")
        if self._stopped:
            return handle
        if delay <= 0:
            self._ready.append(handle)
        else:
            when = handle.when() if isinstance(handle, asyncio.TimerHandle) else self._loop.time() + delay
            heapq.heappush(self._timed, (when, next(self._order), handle))
        self._arm()
        return handle

    def drop(self, handle: asyncio.TimerHandle) -> None:
        """Take a cancelled timed callback out of the heap now. Every request's deadlines are cancelled when it is
        answered; left in the heap until they fell due (or until asyncio's way, a hundred of them, dropped them),
        they and their contexts outlived the charges around them, spread over the interpreter's arenas, which
        kept those from going back. The heap holds a few dozen at most, so a search is cheap."""
        for index, entry in enumerate(self._timed):
            if entry[2] is handle:
                last = self._timed.pop()
                if index < len(self._timed):
                    self._timed[index] = last
                    heapq.heapify(self._timed)
                return

    def _arm(self) -> None:
        """Arm the timer for the next due callback; while one runs, its end re-arms."""
        if self._running or self._stopped:
            return
        if self._ready:
            due = 0.0
        elif self._timed:
            due = self._timed[0][0]
        else:
            self._timer.stop()
            self._armed_for = None
            return
        if self._timer.isActive() and self._armed_for is not None and self._armed_for <= due:
            return
        self._armed_for = due
        wait_ms = 0 if due == 0.0 else max(0, int((due - self._loop.time()) * 1000 + 0.999))
        self._timer.start(wait_ms)

    def _run_due(self) -> None:
        if self._running:
            # A nested Qt event loop inside a running callback: the others wait for it to return.
            return
        self._armed_for = None
        self._running = True
        try:
            now = self._loop.time()
            while self._timed and self._timed[0][0] <= now:
                self._ready.append(heapq.heappop(self._timed)[2])
            for _ in range(len(self._ready)):  # those ready now; the ones they add run on the next turn
                if self._stopped:
                    break
                handle = self._ready.popleft()
                if not handle._cancelled:
                    self._run(handle)
        finally:
            self._running = False
            self._arm()

    def _run(self, handle: asyncio.Handle) -> None:
        if not self._debug:
            handle._run()
            return
        started = time.monotonic()
        handle._run()
        took = time.monotonic() - started
        if took >= self._loop.slow_callback_duration:
            log.warning("Executing %s took %.3f seconds", handle, took)

    def stop(self) -> None:
        """Drop every callback and stop the timer, on the loop's thread."""
        self._stopped = True
        self._ready.clear()
        self._timed.clear()
        self._timer.stop()

    def set_debug(self, enabled: bool) -> None:
        self._debug = enabled


class _Collector(QObject):
    """Runs Python's cyclic garbage collector on this thread only, while it is installed.

    A collection triggered by an allocation on another thread would destroy Qt objects
    caught in reference cycles there, which Qt does not allow for objects with timers or
    socket notifiers. The thresholds stay Python's own; only the thread changes.
    """

    def __init__(self) -> None:
        super().__init__()
        self._was_enabled = gc.isenabled()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect)
        gc.disable()
        self._timer.start(COLLECT_EVERY_MS)

    @staticmethod
    def collect() -> None:
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] < thresholds[0]:
            return
        generation = 2 if counts[2] >= thresholds[2] else 1 if counts[1] >= thresholds[1] else 0
        gc.collect(generation)

    def uninstall(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()


class EventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """qasync's loop with :class:`_Scheduler` in place of its timers; see the module's docstring."""

    _timer: _Scheduler

    def __init__(self, app: QApplication | None = None) -> None:
        super().__init__(app)
        replaced = self._timer
        self._timer = _Scheduler(self)
        shiboken6.delete(replaced)  # never armed; deleted here, on the loop's thread
        self._collector = _Collector()

    def _add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        self._check_closed()  # as asyncio's own loops: nothing is scheduled on a closed loop
        return self._timer.add_callback(handle, delay)

    def call_soon(self, callback: Any, *args: Any, context: contextvars.Context | None = None) -> asyncio.Handle:
        return self._schedule(0.0, callback, args, context)

    def call_later(
        self, delay: float, callback: Any, *args: Any, context: contextvars.Context | None = None
    ) -> asyncio.Handle:
        return self._schedule(delay, callback, args, context)

    def _schedule(
        self, delay: float, callback: Any, args: tuple[Any, ...], context: contextvars.Context | None
    ) -> asyncio.Handle:
        """As qasync's ``call_later`` (which its ``call_soon`` and ``call_at`` go through), but a timed callback is
        asyncio's :class:`~asyncio.TimerHandle`, which says when it is cancelled (:meth:`_timer_handle_cancelled`),
        so the heap drops it at once."""
        if asyncio.iscoroutinefunction(callback):
            raise TypeError("coroutines cannot be used with call_later")
        if not callable(callback):
            raise TypeError(f"callback must be callable: {type(callback).__name__}")
        if delay <= 0:
            return self._add_callback(asyncio.Handle(callback, args, self, context))
        return self._add_callback(asyncio.TimerHandle(self.time() + delay, callback, args, self, context), delay)

    def _timer_handle_cancelled(self, handle: asyncio.TimerHandle) -> None:
        self._timer.drop(handle)

    def close(self) -> None:
        if self.is_closed():
            return
        super().close()
        self._collector.uninstall()
        for obj in (self._timer, self._collector, getattr(self, "_QEventLoop__call_soon_signaller", None)):
            if isinstance(obj, QObject) and shiboken6.isValid(obj):
                shiboken6.delete(obj)


def run(main: Any, app: QApplication) -> Any:
    """Run the coroutine ``main`` to completion on an :class:`EventLoop` over ``app``, then close the loop."""
    with asyncio.Runner(loop_factory=lambda: EventLoop(app)) as runner:
        return runner.run(main)
