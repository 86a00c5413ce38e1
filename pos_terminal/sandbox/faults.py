"""Fault injection on any route (contract section 8), as the outermost ASGI layer.

A fault is armed for the next ``times`` requests whose method and path match
(``path`` may use ``*`` wildcards, e.g. ``/v4/transactions/*``). Modes:

- ``drop_before``: the connection is closed and the request is never handled;
- ``drop_after``: the request is handled and committed, then the connection is closed;
- ``error_before``: 500 problem details, nothing done;
- ``error_after``: handled and committed, then 500 instead of the real answer;
- ``delay``: sleep ``delayMs`` (without blocking other requests), then answer; a sandbox that stops
  ends the sleep at once (:meth:`FaultRegistry.stop_waiting`): stopping never waits on a delay nor
  cancels a request mid-way (which uvicorn reports with a traceback);
- ``rate_limit``: 429 ``RATE_LIMITED`` with ``Retry-After: 1``, nothing done.

Dropping needs the socket: uvicorn's ``send`` is a bound method of the request
cycle that owns the transport, which is only reachable from the outermost layer.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import threading
from dataclasses import asdict, dataclass
from typing import Any, Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pos_terminal.sandbox.problems import send_problem

FaultMode = Literal["drop_before", "drop_after", "error_before", "error_after", "delay", "rate_limit"]
MODES: tuple[str, ...] = ("drop_before", "drop_after", "error_before", "error_after", "delay", "rate_limit")
# the methods app.MethodOverride honours; any other override leaves a POST a POST, for faults too
OVERRIDABLE = frozenset({"PATCH", "DELETE", "PUT"})


@dataclass
class Fault:
    method: str
    path: str
    mode: str
    times: int = 1
    delay_ms: int = 0

    def matches(self, method: str, path: str) -> bool:
        return (self.method == "*" or self.method == method) and fnmatch.fnmatchcase(path, self.path)

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["delayMs"] = data.pop("delay_ms")
        return data


class FaultRegistry:
    """Armed faults; ``take`` consumes one firing of the first that matches."""

    def __init__(self) -> None:
        self._faults: list[Fault] = []
        self._lock = threading.Lock()
        self._stopping = False
        self._sleepers: set[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = set()

    async def pause(self, seconds: float) -> None:
        """Sleep ``seconds`` for a delay fault, or less: until :meth:`stop_waiting` (from any thread)."""
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[None] = loop.create_future()
        sleeper = (loop, woken)
        with self._lock:
            if self._stopping:
                return
            self._sleepers.add(sleeper)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken, seconds)
        finally:
            with self._lock:
                self._sleepers.discard(sleeper)

    def stop_waiting(self) -> None:
        """The server stops: every delay ends now, and none starts; the delayed requests are answered."""
        with self._lock:
            self._stopping = True
            sleepers = list(self._sleepers)
        for loop, woken in sleepers:
            loop.call_soon_threadsafe(_wake, woken)

    def arm(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()

    def list(self) -> list[Fault]:
        with self._lock:
            return [Fault(**asdict(f)) for f in self._faults]

    def armed(self, method: str, path: str) -> bool:
        """Whether a fault waits for such a request (without taking it)."""
        with self._lock:
            return any(fault.matches(method, path) for fault in self._faults)

    def take(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.matches(method, path):
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                    return Fault(**{**asdict(fault), "times": 1})
        return None


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)


async def _drop(send: Send) -> None:
    """Close the client's connection without an answer."""
    cycle = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if transport is None:
        raise RuntimeError("drop faults need the sandbox's own uvicorn server")
    cycle.disconnected = True  # type: ignore[union-attr]  # tell uvicorn not to answer 500 after us
    transport.abort()
    await asyncio.sleep(0)


class FaultMiddleware:
    """Applies armed faults; must wrap the whole app so ``send`` is uvicorn's own."""

    def __init__(self, app: ASGIApp, registry: FaultRegistry) -> None:
        self.app = app
        self.registry = registry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/sandbox/"):
            await self.app(scope, receive, send)
            return
        method = scope["method"].upper()
        if method == "POST":
            for name, value in scope.get("headers", []):
                if name == b"x-http-method-override":
                    wanted = value.decode("latin-1").strip().upper()
                    method = wanted if wanted in OVERRIDABLE else method
                    break
        if not self.registry.armed(method, scope["path"]):
            await self.app(scope, receive, send)  # the usual case: no body read ahead
            return
        # a fault is taken by a request that has fully arrived (the one the faults list no longer shows): a client
        # that goes away while sending is no request at all, and leaves the fault armed
        receive, arrived = await _buffered(receive)
        fault = self.registry.take(method, scope["path"]) if arrived else None
        if fault is None:
            await self.app(scope, receive, send)
            return
        if fault.mode == "drop_before":
            await _drop(send)
        elif fault.mode == "error_before":
            await send_problem(send, 500, "INTERNAL_ERROR", "Injected fault: error_before")
        elif fault.mode == "rate_limit":
            await send_problem(send, 429, "RATE_LIMITED", "Injected fault: rate_limit", [(b"retry-after", b"1")])
        elif fault.mode == "delay":
            # the request has fully arrived before the wait, as on a slow server: a client that gives up
            # meanwhile does not stop the work from landing
            await self.registry.pause(fault.delay_ms / 1000)
            await self.app(scope, receive, send)
        else:
            await self.app(scope, receive, _discard)
            if fault.mode == "drop_after":
                await _drop(send)
            else:
                await send_problem(send, 500, "INTERNAL_ERROR", "Injected fault: error_after")


async def _buffered(receive: Receive) -> tuple[Receive, bool]:
    """Read the whole request body now: a ``receive`` that hands it out again, then defers to the real one, and
    whether the request arrived whole (not cut off by the client going away)."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body"):
            break

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return replay, messages[-1]["type"] == "http.request"


async def _discard(message: Message) -> None:
    """A ``send`` that swallows the real answer of a request whose answer is replaced."""
