"""The sandbox's ASGI application: routers, problem handlers, method override, body limit, dates, faults."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from email.utils import format_datetime

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pos_terminal.sandbox import admin, approval, auth, pages, payments, pos, sdk
from pos_terminal.sandbox.clock import Clock
from pos_terminal.sandbox.examples import ordering
from pos_terminal.sandbox.faults import FaultMiddleware
from pos_terminal.sandbox.limits import BodyLimit
from pos_terminal.sandbox.openapi import build_openapi
from pos_terminal.sandbox.problems import install_handlers
from pos_terminal.sandbox.seed import seed_demo_data
from pos_terminal.sandbox.state import Sandbox

OVERRIDABLE = {"PATCH", "DELETE", "PUT"}
SWEEP_SECONDS = 1.0


class MethodOverride:
    """``POST`` with ``X-HTTP-Method-Override: PATCH`` (or DELETE, PUT) is that method, on every route."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            for name, value in scope.get("headers", []):
                if name == b"x-http-method-override":
                    wanted = value.decode("latin-1").strip().upper()
                    if wanted in OVERRIDABLE:
                        scope = {**scope, "method": wanted}
                    break
        await self.app(scope, receive, send)


class ServiceDate:
    """Every answer's ``Date`` (RFC 9110 §6.6.1) is the sandbox's clock, as a real service's would be its own:
    moved forward by ``/sandbox/clock``, it is how a client sees a service whose clock runs ahead."""

    def __init__(self, app: ASGIApp, clock: Clock) -> None:
        self.app = app
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_dated(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"date"]
                headers.append((b"date", format_datetime(self.clock.now(), usegmt=True).encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_dated)


def create_app(sandbox: Sandbox) -> FaultMiddleware:
    """The whole service for one :class:`Sandbox`; demo data is created on first start."""
    with sandbox.db.tx() as conn:
        seed_demo_data(conn, sandbox.clock.now_ms())
    own = OneSandbox(service(), sandbox)
    # the faults outermost: a dropped connection needs uvicorn's own send, and a faulted answer has no Date
    dated = ServiceDate(BodyLimit(MethodOverride(own), sandbox.settings.max_body_bytes), sandbox.clock)
    return FaultMiddleware(dated, sandbox.faults)


@functools.cache
def service() -> FastAPI:
    """The service's routes, problem handlers, pages and document: made once in a process and shared by every
    sandbox in it, whose own state each request finds in ``request.state`` (:class:`OneSandbox`).

    FastAPI (0.137 and later) includes a router lazily: a new application's first request builds the fields of
    every included route again, 55 ms on the development machine against 4 ms for the next request. An
    application made per sandbox paid that at each start, and the test suite starts a sandbox for most tests.
    """
    api = FastAPI(
        title="Payments and POS service (sandbox)",
        version="1.0.0",
        description=(
            "Emulation of the authorization service, POS API v4 and payments API v5, "
            "with the sandbox control surface under /sandbox."
        ),
    )
    install_handlers(api)
    routers = (
        auth.router, pos.router, payments.router, admin.router, payments.control_router,
        sdk.router, approval.router, ordering.router,
    )  # fmt: skip
    for router in routers:
        api.include_router(router)
    api.mount(pages.ASSETS_PATH, pages.assets(), name="assets")
    # what a 405 lists in Allow (problems.allowed_methods): every route, the documentation's included
    api.state.method_routes = [*api.routes, *(route for router in routers for route in router.routes)]
    api.openapi = lambda: build_openapi(api)  # type: ignore[method-assign]
    return api


class OneSandbox:
    """One sandbox in front of the shared :func:`service`: its state (the :class:`Sandbox`, the approvals pending
    in the browser, the example's shop) goes in each request's ``request.state``, and its sweeper runs from its
    server's start to its end (the ASGI lifespan, answered here: the shared application has none of its own)."""

    def __init__(self, app: ASGIApp, sandbox: Sandbox) -> None:
        self.app = app
        self.sandbox = sandbox
        self.state = {"sandbox": sandbox, "approvals": approval.PendingApprovals(), "ordering": ordering.Shop()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        scope["state"] = {**scope.get("state", {}), **self.state}
        await self.app(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        sweeper: asyncio.Task[None] | None = None
        try:
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    sweeper = asyncio.create_task(_sweep(self.sandbox))
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    break
        finally:
            if sweeper is not None:
                sweeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeper
        await send({"type": "lifespan.shutdown.complete"})


async def _sweep(sandbox: Sandbox) -> None:
    """Cancel overdue authorized transactions even when no request comes in."""
    while True:
        await asyncio.sleep(SWEEP_SECONDS)
        await asyncio.to_thread(_sweep_once, sandbox)


def _sweep_once(sandbox: Sandbox) -> None:
    with sandbox.db.tx() as conn:
        pos.expire_authorized(conn, sandbox)
