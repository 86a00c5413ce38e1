"""RFC 9457 problem details: the one error shape of every sandbox route.

Handlers raise :class:`ProblemError`; the app turns it (and FastAPI's own
request validation errors, and anything unexpected) into
``application/problem+json`` with the status and code of contract section 3.
A 405 lists in ``Allow`` every method of the path, from every route that serves it
(FastAPI makes one route per method, and Starlette would name only the first).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pos_terminal.sandbox.text import NOT_TEXT

PROBLEM_JSON = "application/problem+json"

log = logging.getLogger("pos_terminal.sandbox")


class FieldError(BaseModel):
    field: str
    message: str


class Problem(BaseModel):
    """Problem details (RFC 9457) with the contract's ``code`` and field ``errors``."""

    type: str = "about:blank"
    title: str
    status: int
    code: str
    detail: str | None = None
    errors: list[FieldError] = Field(default_factory=list)


TITLES = {
    "BAD_REQUEST": "Bad request",
    "VALIDATION_FAILED": "Validation failed",
    "CUSTOMER_NOT_CHECKED_IN": "Customer not checked in",
    "PAYMENT_DECLINED": "Payment declined",
    "INVALID_STATE_TRANSITION": "Invalid state transition",
    "NOT_FOUND": "Not found",
    "UNAUTHORIZED": "Unauthorized",
    "INSUFFICIENT_SCOPE": "Insufficient scope",
    "FORBIDDEN": "Forbidden",
    "RATE_LIMITED": "Too many requests",
    "ALREADY_REFUNDED": "Already refunded",
    "NONCE_USED": "Nonce already used",
    "NONCE_EXPIRED": "Nonce expired",
    "TRANSACTION_MISMATCH": "Transaction mismatch",
    "METHOD_NOT_ALLOWED": "Method not allowed",
    "PAYLOAD_TOO_LARGE": "Request body too large",
    "INTERNAL_ERROR": "Internal server error",
}


async def send_problem(
    send: Send, status: int, code: str, detail: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """Problem details sent straight through ASGI, by middleware that answers before (or instead of) the app."""
    body = json.dumps(
        {"type": "about:blank", "title": TITLES[code], "status": status, "code": code, "detail": detail, "errors": []}
    ).encode()
    start = [(b"content-type", b"application/problem+json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": body})


class ProblemError(Exception):
    """An expected failure, answered as problem details."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str | None = None,
        *,
        errors: Sequence[FieldError] = (),
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail or code)
        self.problem = Problem(
            title=TITLES.get(code, code.replace("_", " ").capitalize()),
            status=status,
            code=code,
            detail=detail,
            errors=list(errors),
        )
        self.headers = headers or {}


def validation_failed(errors: Sequence[FieldError]) -> ProblemError:
    detail = "; ".join(f"{e.field}: {e.message}" for e in errors[:3])
    return ProblemError(422, "VALIDATION_FAILED", detail, errors=errors)


def not_found(what: str) -> ProblemError:
    return ProblemError(404, "NOT_FOUND", f"{what} not found")


def problem_response(problem: Problem, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        problem.model_dump(mode="json"),
        status_code=problem.status,
        media_type=PROBLEM_JSON,
        headers=headers,
    )


def _location(loc: Sequence[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    text = ""
    for part in parts:
        text += f"[{part}]" if part.isdigit() else (f".{part}" if text else part)
    return text or "body"


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at the request's path (HEAD comes with GET).

    The routes are those the app listed in ``state.method_routes`` when it was built: FastAPI nests
    included routers in objects of its own, which are no public interface to walk.
    """
    path = request.scope["path"]
    methods: set[str] = set()
    for route in request.app.state.method_routes:
        if isinstance(route, Route) and route.methods and route.path_regex.match(path):
            methods |= route.methods
    return sorted(methods)


def install_handlers(app: FastAPI) -> None:
    @app.exception_handler(ProblemError)
    async def _on_problem(_: Request, exc: ProblemError) -> JSONResponse:
        return problem_response(exc.problem, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _on_invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        found = exc.errors()
        errors = [FieldError(field=_location(e.get("loc", ())), message=str(e.get("msg", "invalid"))) for e in found]
        detail = "; ".join(f"{e.field}: {e.message}" for e in errors[:3]) or "Malformed request"
        if found and all(e.get("type") == NOT_TEXT for e in found):
            return problem_response(
                Problem(
                    title=TITLES["VALIDATION_FAILED"],
                    status=422,
                    code="VALIDATION_FAILED",
                    detail=detail,
                    errors=errors,
                )
            )
        return problem_response(
            Problem(title=TITLES["BAD_REQUEST"], status=400, code="BAD_REQUEST", detail=detail, errors=errors)
        )

    @app.exception_handler(StarletteHTTPException)
    async def _on_http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 401: "UNAUTHORIZED"}.get(exc.status_code, "BAD_REQUEST")
        title = TITLES.get(code, "Error")
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request))
        return problem_response(
            Problem(title=title, status=exc.status_code, code=code, detail=str(exc.detail)), headers
        )

    app.add_middleware(AnswerBugs)


class AnswerBugs:
    """A bug answers 500 problem details and keeps the connection usable.

    An ``Exception`` handler would run in Starlette's outermost middleware, which re-raises after answering, and
    uvicorn then closes the client's connection. Plain ASGI rather than ``@app.middleware("http")``: Starlette's
    ``BaseHTTPMiddleware`` runs each request through a task group and a memory stream, which cost every request
    of the sandbox more than the rest of its middleware together.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception:
            log.exception("sandbox bug on %s %s", scope["method"], scope["path"])
            if started:  # part of an answer is out: nothing whole can follow it on this connection
                raise
            detail = "Unexpected error in the sandbox"
            bug = Problem(title=TITLES["INTERNAL_ERROR"], status=500, code="INTERNAL_ERROR", detail=detail)
            await problem_response(bug)(scope, receive, send)
