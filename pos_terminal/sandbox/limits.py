"""What a hostile client can make the sandbox hold: body bytes, connections, time and log lines.

Found with 20,000 idle and slow-header connections: uvicorn times out a connection only
*between* requests, so a client that never finishes its request line holds a file
descriptor for good; when they ran out, every normal request timed out too, and each
failure logged a traceback (128 MB in 25 s). Here:

- :class:`BodyLimit` refuses a body over ``max_body_bytes`` with 413, announced or streamed,
  and never reads more than that into memory;
- :class:`GuardedH11Protocol` gives each request ``request_seconds`` to arrive whole (request
  line, headers and body) after the connection opens or the previous answer ends, and keeps at
  most ``max_connections`` open: at the limit it closes the connection that has waited longest
  without a request in progress, so idle clients make room for a real one;
- :class:`Conditions` logs one line when a condition starts (and counts what follows),
  not one line per occurrence; the same goes for uvicorn's and asyncio's own warnings.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections import OrderedDict
from typing import Any, ClassVar

import h11
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from pos_terminal.sandbox.problems import send_problem

log = logging.getLogger("pos_terminal.sandbox")

QUIET_SECONDS = 60.0  # a condition unseen this long is over; the next occurrence starts a new one
FD_RESERVE = 64  # descriptors kept for the database, the log and the listening socket


class Conditions:
    """One log line per condition: the first occurrence is logged, later ones are counted."""

    def __init__(self, logger: logging.Logger = log, quiet_seconds: float = QUIET_SECONDS) -> None:
        self.logger = logger
        self.quiet_seconds = quiet_seconds
        self.counts: dict[str, int] = {}
        self._last: dict[str, float] = {}

    def starts(self, key: str) -> bool:
        """Count one occurrence of ``key``; True when it opens a new episode (and should be logged)."""
        now = time.monotonic()
        last = self._last.get(key)
        self._last[key] = now
        self.counts[key] = self.counts.get(key, 0) + 1
        return last is None or now - last > self.quiet_seconds

    def note(self, key: str, message: str) -> None:
        if self.starts(key):
            self.logger.warning("%s (further cases are counted, not logged)", message)


class _OncePerCondition(logging.Filter):
    """Lets a repeated warning of uvicorn or asyncio through once per episode, keyed by its message."""

    def __init__(self, conditions: Conditions) -> None:
        super().__init__()
        self.conditions = conditions

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        key = str(record.msg)
        if record.name == "asyncio" and not key.startswith("socket.accept() out of system resource"):
            return True
        return self.conditions.starts(f"{record.name}:{key}")


_FILTERS_INSTALLED = False


def quiet_repeated_warnings() -> None:
    """Install the once-per-condition filter on uvicorn's and asyncio's loggers (once per process)."""
    global _FILTERS_INSTALLED
    if _FILTERS_INSTALLED:
        return
    conditions = Conditions()
    for name in ("uvicorn.error", "asyncio"):
        logging.getLogger(name).addFilter(_OncePerCondition(conditions))
    _FILTERS_INSTALLED = True


def usable_connections(wanted: int) -> int:
    """``wanted``, or fewer when the process may not open that many files (with a reserve kept)."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ValueError, OSError):
        return wanted
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - FD_RESERVE))


# --- bodies ---------------------------------------------------------------------------------------------------


class BodyLimit:
    """Answers 413 problem details to a body over ``max_bytes``; the app sees the body whole, never more."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.strip().isdigit() and int(value) > self.max_bytes:
                await self._too_large(send)
                return
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                await self._too_large(send)
                return
            if not message.get("more_body"):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        # the rest of the body is never read: the connection closes after the answer
        detail = f"The body is larger than {self.max_bytes} bytes"
        await send_problem(send, 413, "PAYLOAD_TOO_LARGE", detail, [(b"connection", b"close")])


# --- connections ----------------------------------------------------------------------------------------------


class ConnectionGuard:
    """The open connections of one server, oldest first, and its limits."""

    def __init__(self, *, max_connections: int, request_seconds: float, conditions: Conditions | None = None) -> None:
        self.max_connections = usable_connections(max_connections)
        self.request_seconds = request_seconds
        self.conditions = conditions or Conditions()
        self.open: OrderedDict[GuardedH11Protocol, None] = OrderedDict()

    def admit(self, newcomer: GuardedH11Protocol) -> bool:
        """Make room for ``newcomer`` if the server is full; False when every connection is busy."""
        if len(self.open) >= self.max_connections:
            waiting = next((c for c in self.open if c.waiting_for_request()), None)
            if waiting is None:
                self.conditions.note(
                    "connections-busy",
                    f"{self.max_connections} connections are all being answered; refusing new ones",
                )
                return False
            self.conditions.note(
                "connections-full",
                f"{self.max_connections} connections are open; closing those that wait longest without a request",
            )
            self.open.pop(waiting)
            waiting.close()
        self.open[newcomer] = None
        return True


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request and a place among the guard's connections."""

    guard: ClassVar[ConnectionGuard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._admitted = False

    @classmethod
    def guarded_by(cls, guard: ConnectionGuard) -> type[GuardedH11Protocol]:
        """This protocol bound to one server's guard (uvicorn builds protocols from a class)."""
        bound: type[GuardedH11Protocol] = type("SandboxHTTP", (cls,), {"guard": guard})
        return bound

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if not self.guard.admit(self):
            transport.abort()
            return
        self._admitted = True
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._admitted:
            return
        self._disarm()
        self.guard.open.pop(self, None)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._admitted:
            super().data_received(data)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def waiting_for_request(self) -> bool:
        """The client has not finished sending a request (or has not begun one)."""
        return self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing()

    def close(self) -> None:
        if not self.transport.is_closing():
            self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.guard.request_seconds, self._on_deadline)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _on_deadline(self) -> None:
        self._deadline = None
        if self.waiting_for_request():
            self.guard.conditions.note(
                "slow-requests",
                f"closing connections whose request did not arrive within {self.guard.request_seconds:g} s",
            )
            self.close()
