"""Every exchange with the service ends in time and in bounded memory, whatever the server does.

httpx's timeouts apply to each network operation: a server that sends one byte every
few seconds never trips them, and a body that never ends is read until memory runs
out. :func:`bounded_request` gives each request one deadline for all of it (connect,
send, status, headers, every byte of the body) and a cap on the body's size. Past
either, it fails with an httpx transport error, which the callers already treat as
"no answer": safe calls are retried, a create is reconciled.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from pos_terminal.api.errors import ApiError, ResponseInvalid, ServiceTooSlow, ServiceUnreachable

MAX_ANSWER_BYTES = 64 * 1024 * 1024  # a busy merchant's week of transactions is a few MB


class AnswerTooSlow(httpx.ReadTimeout):
    """The whole answer did not arrive within the request's deadline."""


class AnswerTooLarge(httpx.ReadError):
    """The answer's body passed the size cap."""


def unanswered(exc: httpx.TransportError) -> ApiError:
    """The sentence for a request that got no usable answer and is certainly safe to repeat."""
    if isinstance(exc, AnswerTooSlow):
        return ServiceTooSlow(detail=str(exc))
    if isinstance(exc, AnswerTooLarge):
        return ResponseInvalid(detail=str(exc))
    return ServiceUnreachable(detail=type(exc).__name__)


def deadline_of(http: httpx.AsyncClient) -> float:
    """The whole exchange's deadline: the client's timeout for one read, which is the setting a person gave."""
    timeout = http.timeout.read
    return 15.0 if timeout is None else timeout


async def bounded_request(
    http: httpx.AsyncClient, method: str, url: str, *, max_bytes: int = MAX_ANSWER_BYTES, **options: Any
) -> httpx.Response:
    """``http.request(method, url, **options)`` within :func:`deadline_of` seconds and ``max_bytes`` of body."""
    deadline = deadline_of(http)
    request = http.build_request(method, url, **options)
    try:
        async with asyncio.timeout(deadline):
            response = await http.send(request, stream=True)
            try:
                length = response.headers.get("content-length", "")
                if length.isdigit() and int(length) > max_bytes:
                    raise AnswerTooLarge(f"the answer announces {int(length)} bytes", request=request)
                body = bytearray()
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > max_bytes:
                        raise AnswerTooLarge(f"the answer passed {max_bytes} bytes", request=request)
            finally:
                await response.aclose()
                # httpx binds the answer and its stream to each other: a reference cycle that would keep the whole
                # exchange (some forty objects: request, URLs, headers, pool request, events) until a full collection
                response.stream = httpx.ByteStream(b"")
    except TimeoutError:
        raise AnswerTooSlow(f"the whole answer did not arrive within {deadline:g} s", request=request) from None
    return httpx.Response(
        response.status_code,
        headers=[(k, v) for k, v in response.headers.multi_items() if k.lower() != "content-encoding"],
        content=bytes(body),
        request=request,
        extensions=response.extensions,
    )
