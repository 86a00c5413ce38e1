"""The application's event loop (pos_terminal/ui/loop.py): no callback is ever lost or run inside another,
nothing is scheduled from another thread, and a closed loop leaves no Qt timer for another thread to free."""

from __future__ import annotations

import asyncio
import gc
import threading

import pytest

from pos_terminal.ui.loop import EventLoop, run

import shiboken6
from PySide6.QtCore import QAbstractEventDispatcher
from PySide6.QtWidgets import QApplication


def test_a_nested_qt_loop_inside_a_task_loses_no_wake_up(qapp: QApplication) -> None:
    """qasync ran the waiter's wake-up inside the nested loop, asyncio refused it, and the waiter hung."""

    async def main() -> str:
        event = asyncio.Event()

        async def waiter() -> str:
            await event.wait()
            return "woken"

        task = asyncio.ensure_future(waiter())
        await asyncio.sleep(0.01)
        event.set()  # the waiter's wake-up is now due
        qapp.processEvents()  # a nested Qt loop inside this task's step, as exec() or a clipboard read runs one
        return await asyncio.wait_for(task, 5)

    assert run(main(), qapp) == "woken"


def test_callbacks_run_in_order_and_on_time(qapp: QApplication) -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        seen: list[str] = []
        done = loop.create_future()
        loop.call_later(0.05, seen.append, "later")
        loop.call_later(0.02, seen.append, "sooner")
        loop.call_soon(seen.append, "now")
        loop.call_later(0.08, done.set_result, None)
        started = loop.time()
        await done
        assert 0.07 <= loop.time() - started < 1.0
        return seen

    assert run(main(), qapp) == ["now", "sooner", "later"]


def test_a_cancelled_timed_callback_leaves_the_heap_at_once(qapp: QApplication) -> None:
    """Each request's deadlines are cancelled when it is answered; they used to stay until they fell due, and then
    until a hundred had piled up, outliving the charges around them (docs/memory.md)."""

    async def main() -> tuple[list[int], list[str], bool]:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, EventLoop)
        seen: list[str] = []
        waiting: list[int] = []
        kept = loop.call_later(0.02, seen.append, "due")
        for n in range(50):
            handle = loop.call_later(60 + n, seen.append, "cancelled")
            deadline = loop.call_at(loop.time() + 30, seen.append, "cancelled too")
            handle.cancel()
            deadline.cancel()
            waiting.append(len(loop._timer._timed))
        handle.cancel()  # twice: nothing more happens
        later = loop.call_later(0.04, seen.append, "later")
        await asyncio.sleep(0.08)
        return waiting, seen, isinstance(kept, asyncio.TimerHandle) and later.when() > kept.when()

    waiting, seen, timed = run(main(), qapp)
    assert waiting == [1] * 50, "the heap held only the callback still to come"
    assert seen == ["due", "later"]
    assert timed, "timed callbacks are asyncio's TimerHandle, with their time"


def test_scheduling_from_another_thread_is_refused_and_the_thread_safe_call_works(qapp: QApplication) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        errors: list[BaseException] = []
        arrived = loop.create_future()

        def elsewhere() -> None:
            try:
                loop.call_soon(lambda: None)
            except RuntimeError as exc:
                errors.append(exc)
            loop.call_soon_threadsafe(arrived.set_result, threading.get_ident())

        thread = threading.Thread(target=elsewhere)
        thread.start()
        assert await asyncio.wait_for(arrived, 5) != threading.get_ident()
        thread.join()
        assert errors and "another thread" in str(errors[0])

    run(main(), qapp)


def test_a_closed_loop_leaves_no_timer_and_the_collector_runs_on_its_thread(qapp: QApplication) -> None:
    """Qt timers freed on another thread stay registered and fire on freed memory (a segfault in
    QTimerInfoList::activateTimers). The loop stops them on close, and while it runs the garbage
    collector runs on its own thread only."""
    was_enabled = gc.isenabled()
    loop = EventLoop(qapp)
    scheduler = loop._timer
    loop.call_later(60, lambda: None)
    dispatcher = QAbstractEventDispatcher.instance()
    assert dispatcher is not None
    assert dispatcher.registeredTimers(scheduler._timer), "the callback in 60 s is armed"
    assert not gc.isenabled(), "no collection on another thread while the loop is open"
    loop.close()
    assert not shiboken6.isValid(scheduler), "deleted on the loop's thread, with its timer"
    assert gc.isenabled() is was_enabled
    del loop, scheduler
    collector = threading.Thread(target=gc.collect)
    collector.start()
    collector.join()
    qapp.processEvents()


def test_callbacks_after_close_are_refused(qapp: QApplication) -> None:
    loop = EventLoop(qapp)
    loop.close()
    with pytest.raises(RuntimeError):
        loop.call_soon(lambda: None)
