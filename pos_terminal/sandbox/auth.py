"""Authorization service: device flow (RFC 8628), authorization code, refresh, and the browser pages.

One router of four parts, in the order the OpenAPI document lists them: ``token_endpoint`` (metadata,
device authorization, the token endpoint), ``device_page`` (``/device``, where a person enters a user
code), ``authorize`` (``/authorize/merchant`` and ``/authorize/organization``); ``oauth`` holds the wire
they share and ``web_session`` the pages' cookie sessions, CSRF tokens and rate limits.
"""

from __future__ import annotations

from fastapi import APIRouter

from pos_terminal.sandbox import authorize, device_page, token_endpoint

router = APIRouter()
for part in (token_endpoint, device_page, authorize):
    router.include_router(part.router)
