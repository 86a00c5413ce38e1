"""The embedded sandbox's control surface, for the terminal's own conveniences (approve as the demo merchant).

Only ever pointed at a loopback sandbox; the callers check the service is not production.
"""

from __future__ import annotations

import httpx

from pos_terminal.api.errors import ServiceUnreachable, error_from_response
from pos_terminal.api.transport import bounded_request


class SandboxControl:
    def __init__(self, http: httpx.AsyncClient, root: str) -> None:
        self.http = http
        self.root = root.rstrip("/")

    async def _post(self, path: str, body: dict[str, str]) -> httpx.Response:
        try:
            response = await bounded_request(self.http, "POST", f"{self.root}/sandbox{path}", json=body)
        except httpx.TransportError as exc:
            raise ServiceUnreachable(detail=type(exc).__name__) from exc
        if not response.is_success:
            raise error_from_response(response.status_code, response.headers, response.text)
        return response

    async def approve_device(self, user_code: str, merchant_id: str) -> None:
        """Approve a pending device sign-in as the signed-in person would."""
        await self._post("/device/approve", {"userCode": user_code, "merchantId": merchant_id})

    async def deny_device(self, user_code: str) -> None:
        await self._post("/device/deny", {"userCode": user_code})
