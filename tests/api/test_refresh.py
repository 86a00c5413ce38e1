"""Keeping the token fresh: rotation-free refresh answers, 401 → one refresh → one retry, one refresh at a time.

Tokens are minted through ``/sandbox/tokens`` (with a refresh token) and made
stale by moving the sandbox's clock, or the client's injected clock, never by
waiting. Every request the client sends is observed through httpx's own event
hooks on the real connection pool.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from pos_terminal.api.auth import AuthClient, TokenManager, TokenSet
from pos_terminal.api.client import PosClient, make_http_client
from pos_terminal.api.errors import Unauthorized
from pos_terminal.api.models import TokenResponse
from pos_terminal.sandbox import SandboxServer
from pos_terminal.sandbox.db import secret_digest
from tests.api.conftest import advance
from tests.api.fake_service import Answer, FakeService, Seen
from tests.conftest import DEMO_MERCHANT

CLIENT_ID = "pos-terminal"


class Wire:
    """Every answer the client got, as ``"METHOD /path STATUS"``, from httpx's response hook."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    async def __call__(self, response: httpx.Response) -> None:
        self.lines.append(f"{response.request.method} {response.request.url.path} {response.status_code}")

    def count(self, prefix: str) -> int:
        return sum(1 for line in self.lines if line.startswith(prefix))


class Clock:
    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset


@pytest.fixture
def wire() -> Wire:
    return Wire()


@pytest.fixture
async def observed_http(wire: Wire) -> AsyncIterator[httpx.AsyncClient]:
    async with make_http_client(timeout=5.0) as client:
        client.event_hooks = {"request": [], "response": [wire]}
        yield client


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def auth(sandbox: SandboxServer, observed_http: httpx.AsyncClient, clock: Clock) -> AuthClient:
    return AuthClient(observed_http, sandbox.url, CLIENT_ID, now=clock)


def minted(client: httpx.Client, clock: Clock, expires_in: int = 600) -> TokenSet:
    """A token response of the demo merchant with a refresh token, as the terminal keeps it."""
    response = client.post(
        "/sandbox/tokens", json={"merchantId": DEMO_MERCHANT, "expiresIn": expires_in, "refresh": True}
    )
    assert response.status_code == 201, response.text
    return TokenSet.from_response(TokenResponse.model_validate(response.json()), now=clock())


def grant_of(sandbox: SandboxServer, refresh_token: str) -> int:
    """How many access tokens the sandbox issued under the refresh token's grant (the first one included)."""
    with sandbox.sandbox.db.tx() as conn:
        grant = conn.execute(
            "SELECT grant_id FROM refresh_tokens WHERE refresh_token = ?", (secret_digest(refresh_token),)
        ).fetchone()
        return int(conn.execute("SELECT count(*) FROM access_tokens WHERE grant_id = ?", (grant[0],)).fetchone()[0])


async def test_a_refresh_answer_without_refresh_token_keeps_the_old_one(
    sandbox: SandboxServer, client: httpx.Client, auth: AuthClient, clock: Clock
) -> None:
    tokens = minted(client, clock)
    raw = client.post(
        "/v1/token", data={"grant_type": "refresh_token", "refresh_token": tokens.refresh_token, "client_id": CLIENT_ID}
    )
    assert raw.status_code == 200, raw.text
    assert "refresh_token" not in raw.json(), "the service's refresh answer carries no refresh token"

    renewed = await auth.refresh(tokens)

    assert renewed.access_token not in (tokens.access_token, raw.json()["access_token"])
    assert renewed.refresh_token == tokens.refresh_token
    assert renewed.scope == "posapi" and renewed.owner_type == "merchant"
    assert renewed.expires_at is not None and renewed.expires_at > tokens.expires_at  # type: ignore[operator]
    again = await auth.refresh(renewed)
    assert again.refresh_token == tokens.refresh_token, "the kept refresh token goes on working"
    assert grant_of(sandbox, tokens.refresh_token or "") == 4


def test_a_refresh_answer_keeps_what_it_leaves_out() -> None:
    before = TokenSet("old", "refresh-1", None, "posapi", "merchant")
    now = datetime(2026, 11, 22, 9, tzinfo=UTC)
    after = TokenSet.from_response(TokenResponse(access_token="new", expires_in=60), now=now, previous=before)
    assert (after.access_token, after.refresh_token, after.scope, after.owner_type) == (
        "new",
        "refresh-1",
        "posapi",
        "merchant",
    )
    assert after.expires_at == now + timedelta(seconds=60)
    assert "refresh-1" not in repr(after) and "new" not in repr(after), "secrets never show in a repr"


async def test_a_401_refreshes_once_and_retries_once(
    sandbox: SandboxServer,
    client: httpx.Client,
    auth: AuthClient,
    clock: Clock,
    observed_http: httpx.AsyncClient,
    control: httpx.AsyncClient,
    wire: Wire,
) -> None:
    tokens = minted(client, clock)
    saved: list[TokenSet] = []
    manager = TokenManager(auth, tokens, on_change=saved.append)
    pos = PosClient(observed_http, f"{sandbox.url}/v4", manager)
    await advance(control, 700)  # the service sees the token expired; the terminal's clock does not

    customers = await pos.list_customers()

    assert customers
    assert wire.lines == [
        "GET /v4/customers 401",
        "GET /.well-known/oauth-authorization-server 200",  # where to refresh, asked once
        "POST /v1/token 200",
        "GET /v4/customers 200",
    ]
    assert manager.refreshes == 1
    assert saved == [manager.tokens], "the new token set is handed on to be stored"
    assert manager.tokens.access_token != tokens.access_token
    assert manager.tokens.refresh_token == tokens.refresh_token


async def test_a_token_close_to_expiry_is_refreshed_before_the_request(
    sandbox: SandboxServer,
    client: httpx.Client,
    auth: AuthClient,
    clock: Clock,
    observed_http: httpx.AsyncClient,
    wire: Wire,
) -> None:
    manager = TokenManager(auth, minted(client, clock), margin=timedelta(seconds=60))
    pos = PosClient(observed_http, f"{sandbox.url}/v4", manager)
    clock.offset = timedelta(seconds=550)  # 50 s left: inside the margin

    await pos.list_customers()

    assert wire.lines == [
        "GET /.well-known/oauth-authorization-server 200",
        "POST /v1/token 200",
        "GET /v4/customers 200",
    ], "no request was sent with the old token"


async def test_concurrent_401s_share_one_refresh(
    sandbox: SandboxServer,
    client: httpx.Client,
    auth: AuthClient,
    clock: Clock,
    observed_http: httpx.AsyncClient,
    control: httpx.AsyncClient,
    wire: Wire,
) -> None:
    tokens = minted(client, clock)
    manager = TokenManager(auth, tokens)
    pos = PosClient(observed_http, f"{sandbox.url}/v4", manager)
    await advance(control, 700)

    results = await asyncio.gather(*(pos.list_customers() for _ in range(6)))

    assert all(results)
    assert wire.count("GET /v4/customers 401") >= 1
    assert wire.count("POST /v1/token") == 1, wire.lines
    assert wire.count("GET /v4/customers 200") == 6
    assert manager.refreshes == 1
    assert grant_of(sandbox, tokens.refresh_token or "") == 2, "the service issued exactly one new access token"


async def test_concurrent_calls_near_expiry_share_one_refresh(
    sandbox: SandboxServer,
    client: httpx.Client,
    auth: AuthClient,
    clock: Clock,
    observed_http: httpx.AsyncClient,
    wire: Wire,
) -> None:
    tokens = minted(client, clock)
    manager = TokenManager(auth, tokens)
    pos = PosClient(observed_http, f"{sandbox.url}/v4", manager)
    clock.offset = timedelta(seconds=590)

    await asyncio.gather(*(pos.list_customers() for _ in range(6)))

    assert wire.count("POST /v1/token") == 1, wire.lines
    assert wire.count("GET /v4/customers 401") == 0
    assert grant_of(sandbox, tokens.refresh_token or "") == 2


@pytest.fixture
def always_401(fake_service: FakeService) -> FakeService:
    """A service whose POS route refuses every token, while its token endpoint keeps issuing new ones."""
    issued: list[str] = []

    def token(seen: Seen) -> Answer:
        issued.append(f"access-{len(issued) + 1}")
        return Answer.json(200, {"access_token": issued[-1], "token_type": "bearer", "expires_in": 3600})

    problem = {
        "type": "about:blank",
        "title": "Unauthorized",
        "status": 401,
        "code": "UNAUTHORIZED",
        "detail": "Token expired",
    }
    fake_service.routes["POST /v1/token"] = token
    fake_service.routes["GET /v4/customers"] = Answer.json(
        401, problem, "application/problem+json", **{"WWW-Authenticate": 'Bearer error="invalid_token"'}
    )
    return fake_service


async def test_a_second_401_after_the_refresh_is_not_retried_again(
    always_401: FakeService, http: httpx.AsyncClient, clock: Clock
) -> None:
    tokens = TokenSet("access-0", "refresh-0", clock() + timedelta(hours=1), "posapi", "merchant")
    manager = TokenManager(AuthClient(http, always_401.url, CLIENT_ID, now=clock), tokens)
    pos = PosClient(http, f"{always_401.url}/v4", manager)

    with pytest.raises(Unauthorized) as refused:
        await pos.list_customers()

    sent = always_401.requests("GET", "/v4/customers")
    assert [s.headers["authorization"] for s in sent] == ["Bearer access-0", "Bearer access-1"]
    assert len(always_401.requests("POST", "/v1/token")) == 1
    form = dict(pair.split("=") for pair in always_401.requests("POST", "/v1/token")[0].body.decode().split("&"))
    assert form["grant_type"] == "refresh_token" and form["refresh_token"] == "refresh-0"
    assert refused.value.status == 401
    assert refused.value.text() == "The service did not accept this terminal's sign-in. Sign in again."
