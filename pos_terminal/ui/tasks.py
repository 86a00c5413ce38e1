"""Running coroutines from widgets: references kept, expected failures shown, bugs to the crash handler.

``Messages`` is the bridge deep code uses to tell the cashier something without
holding a widget: it emits a signal the main window shows in its banner.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from pos_terminal.errors import UserError

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:  # asyncio (with ssl, sockets, subprocesses) loads after the first paint (pos_terminal.app)
    import asyncio

log = logging.getLogger(__name__)

# What a message is about decides what removes it (docs/messages.md lists every message and its condition).
STORE = "store"  # the store database out of reach: goes once the till reaches it again, or leaves the store
PRINTER = "printer"  # nothing printed on the system's printer: goes once the next sale starts (or a print succeeds)
CONNECT = "connect"  # the terminal not opened (its journal, settings or keychain): goes once it is
CATALOG = "catalog"  # the catalog file cannot be read: goes once the catalog loads
ACT = "act"  # any other act refused: goes once the next sale starts
CRASH = "crash"  # the last run ended in a crash: stays until dismissed, it names the report to send


def topic_of(error: UserError | str) -> str:
    """The topic of an error posted without one: what the error says it is about (``UserError.about``)."""
    return (error.about if isinstance(error, UserError) else None) or ACT


class Messages(QObject):
    """Signals: ``error(str)`` one sentence of what went wrong and what to do; ``info(str)`` news;
    ``posted(str, str, str)`` either, as kind ("error" or "info"), text and topic; ``resolved(str)`` a topic
    whose cause is gone.

    A message names its *topic* (what it is about: the open check, the sign-in …); an error posted without one
    gets it from what went wrong (:func:`topic_of`). When the cause is gone, whoever knows it calls
    :meth:`resolve` with the topic, and a message about it still shown goes (the banner's, and a page's own
    sentence that listens to ``resolved``): an error never stays up after it stopped being true.
    """

    error = Signal(str)
    info = Signal(str)
    posted = Signal(str, str, str)
    resolved = Signal(str)

    def show_error(self, error: UserError | str, *, topic: str = "") -> None:
        text = error.text() if isinstance(error, UserError) else error
        log.info("shown to the cashier: %s", text)
        self.error.emit(text)
        self.posted.emit("error", text, topic or topic_of(error))

    def show_info(self, text: str, *, topic: str = "") -> None:
        self.info.emit(text)
        self.posted.emit("info", text, topic)

    def resolve(self, topic: str) -> None:
        """The cause of messages about ``topic`` is gone."""
        self.resolved.emit(topic)


class Tasks(QObject):
    """Background tasks of one view."""

    def __init__(self, messages: Messages, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._anonymous: set[asyncio.Task[Any]] = set()

    @property
    def busy(self) -> bool:
        return any(not t.done() for t in (*self._tasks.values(), *self._anonymous))

    def run(
        self,
        coro: Coroutine[Any, Any, Any],
        *,
        key: str | None = None,
        on_error: Callable[[UserError], None] | None = None,
    ) -> asyncio.Task[Any]:
        """Start ``coro``; a task with the same ``key`` still running is canceled first (a new search wins)."""
        import asyncio  # the loop runs by now

        if key is not None and (previous := self._tasks.get(key)) is not None and not previous.done():
            previous.cancel()
        task = asyncio.ensure_future(self._guard(coro, on_error))
        if key is not None:
            self._tasks[key] = task
        else:
            self._anonymous.add(task)
        task.add_done_callback(self._finished)
        # A task canceled before its first step never runs ``coro``: close it, or Python warns it was never awaited.
        task.add_done_callback(lambda done: coro.close() if done.cancelled() else None)
        return task

    async def _guard(self, coro: Coroutine[Any, Any, Any], on_error: Callable[[UserError], None] | None) -> Any:
        try:
            return await coro
        except UserError as exc:
            if on_error is not None:
                on_error(exc)
            else:
                self.messages.show_error(exc)
        except Exception:
            sys.excepthook(*sys.exc_info())
        return None

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._anonymous.discard(task)
        for key, known in list(self._tasks.items()):
            if known is task:
                del self._tasks[key]

    def is_running(self, key: str) -> bool:
        task = self._tasks.get(key)
        return task is not None and not task.done()

    def running(self) -> list[asyncio.Task[Any]]:
        return [t for t in (*self._tasks.values(), *self._anonymous) if not t.done()]

    def cancel(self, key: str) -> None:
        if (task := self._tasks.get(key)) is not None:
            task.cancel()

    def cancel_all(self) -> None:
        for task in (*self._tasks.values(), *self._anonymous):
            task.cancel()
