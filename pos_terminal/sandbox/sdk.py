"""The browser SDK and the sandbox script, served as the service serves them ({sdk_url}, 4.3 and 9).

Each release is a folder ``static/sdk/vX.Y.Z/`` holding ``web-payments.js``, its
minified build ``web-payments.min.js`` and ``sandbox.js``, the script that emulates
the mobile app. ``/sdk/current/<file>`` is the newest release and is cached
briefly; ``/sdk/vX.Y.Z/<file>`` is pinned and cached for good. Scripts are
served to any origin (an integrator's page is never on the sandbox's origin).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from pos_terminal.sandbox.pages import STATIC
from pos_terminal.sandbox.pos import problems
from pos_terminal.sandbox.problems import not_found

router = APIRouter(prefix="/sdk", tags=["Browser SDK"])

SDK_DIR = STATIC / "sdk"
FILES = ("web-payments.js", "web-payments.min.js", "sandbox.js")
CURRENT = "current"
RELEASE = re.compile(r"v(\d+)\.(\d+)\.(\d+)")
CURRENT_CACHE = "public, max-age=300"
PINNED_CACHE = "public, max-age=31536000, immutable"
ANY_ORIGIN = {"Access-Control-Allow-Origin": "*", "X-Content-Type-Options": "nosniff"}


@cache
def releases() -> tuple[str, ...]:
    """Published releases, oldest first."""
    found = [(tuple(int(n) for n in m.groups()), d.name) for d in SDK_DIR.iterdir() if (m := RELEASE.fullmatch(d.name))]
    return tuple(name for _, name in sorted(found))


@cache
def _read(release: str, name: str) -> bytes:
    return (SDK_DIR / release / name).read_bytes()


@router.get("/environment", responses={200: {"description": "What this SDK host is"}})
def environment() -> JSONResponse:
    """Tells the sandbox script that it is talking to a sandbox, and which releases exist."""
    body: dict[str, Any] = {"environment": "sandbox", "current": releases()[-1], "releases": list(releases())}
    return JSONResponse(body, headers={**ANY_ORIGIN, "Cache-Control": "no-store"})


@router.get(
    "/{version}/{name}",
    response_class=Response,
    responses={200: {"description": "The script", "content": {"text/javascript": {}}}, **problems(404)},
)
def sdk_file(version: str, name: str) -> Response:
    """One file of a release: ``version`` is ``current`` or a pinned ``vX.Y.Z``."""
    release = releases()[-1] if version == CURRENT else version
    if release not in releases() or name not in FILES:
        raise not_found(f"SDK file {version}/{name}")
    cache_control = CURRENT_CACHE if version == CURRENT else PINNED_CACHE
    return Response(
        _read(release, name),
        media_type="text/javascript; charset=utf-8",
        headers={**ANY_ORIGIN, "Cache-Control": cache_control},
    )
