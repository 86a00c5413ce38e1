"""The api layer against a real sandbox over loopback, and against a scripted loopback service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from pos_terminal.api.auth import StaticCredentials
from pos_terminal.api.client import PosClient, make_http_client
from pos_terminal.api.retry import RetryPolicy
from pos_terminal.sandbox import SandboxServer
from tests.conftest import mint_token
from tests.helpers.http import async_http_client


@dataclass(frozen=True)
class RecordingRetry(RetryPolicy):
    """The client's own policy, noting every wait it asks for; the wait itself is scaled down.

    The client sleeps for whatever ``delay`` returns, so the test checks the figure the policy
    chose (``Retry-After`` honoured, backoff capped) without waiting for it in real time.
    """

    asked: list[tuple[int, float | None, float]] = field(default_factory=list)
    scale: float = 0.01

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        wanted = super().delay(attempt, retry_after)
        self.asked.append((attempt, retry_after, wanted))
        return wanted * self.scale


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """The terminal's own kind of connection pool."""
    async with make_http_client(timeout=5.0) as client:
        yield client


@pytest.fixture
async def control(sandbox: SandboxServer) -> AsyncIterator[httpx.AsyncClient]:
    """The sandbox's root: control surface under /sandbox, auth service at /v1."""
    async with async_http_client(base_url=sandbox.url, timeout=10) as client:
        yield client


@pytest.fixture
def token(client: httpx.Client) -> str:
    """A non-expiring posapi token of the demo merchant."""
    return mint_token(client, expiresIn=0)


@pytest.fixture
def pos_client(sandbox: SandboxServer, http: httpx.AsyncClient, token: str) -> PosClient:
    return PosClient(http, f"{sandbox.url}/v4", StaticCredentials(token), retry=RecordingRetry())


async def arm(control: httpx.AsyncClient, method: str, path: str, mode: str, **extra: Any) -> None:
    response = await control.post("/sandbox/faults", json={"method": method, "path": path, "mode": mode, **extra})
    assert response.status_code == 201, response.text


async def faults_left(control: httpx.AsyncClient) -> list[dict[str, Any]]:
    response = await control.get("/sandbox/faults")
    response.raise_for_status()
    armed: list[dict[str, Any]] = response.json()
    return armed


async def advance(control: httpx.AsyncClient, seconds: float) -> None:
    response = await control.post("/sandbox/clock", json={"advanceSeconds": seconds})
    assert response.status_code == 200, response.text


async def set_sandbox(control: httpx.AsyncClient, **settings: Any) -> dict[str, Any]:
    response = await control.patch("/sandbox/settings", json=settings)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body
