"""Retries only where safe, against the sandbox's fault injection; method override and the routes table.

Faults are armed for more requests than the client should send (``times=2``),
so the fault left over proves how many requests reached the sandbox; the
sandbox's transactions and ledger prove what was done. The client's waits go
through :class:`RecordingRetry`, which notes what the policy chose and scales
the real wait down.
"""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from pos_terminal.api.auth import StaticCredentials
from pos_terminal.api.client import PosClient
from pos_terminal.api.errors import NotFound, OutcomeUnknown, ServerError, ServiceUnreachable
from pos_terminal.api.models import CreateTransactionRequest
from pos_terminal.api.retry import RetryPolicy
from pos_terminal.api.routes import Routes
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.errors import ConfigError
from pos_terminal.sandbox import SandboxServer
from tests.api.conftest import RecordingRetry, arm, faults_left
from tests.api.fake_service import Answer, FakeService
from tests.conftest import check_body, new_checked_in_customer
from tests.helpers.http import async_http_client

NOW = datetime.now(UTC)


def request_for(customer: dict[str, Any], ref_id: str) -> CreateTransactionRequest:
    return CreateTransactionRequest.model_validate(check_body(customer, refId=ref_id, terminalId="LANE-R"))


def with_ref(client: httpx.Client, ref_id: str) -> list[dict[str, Any]]:
    """Every transaction of the demo merchant carrying ``ref_id``, read with a token of its own."""
    token = client.post("/sandbox/tokens", json={"merchantId": "mer-cafe", "expiresIn": 0}).json()["access_token"]
    listed = client.get(
        "/v4/transactions",
        params={"from": "2000-01-01T00:00:00Z", "to": "2999-01-01T00:00:00Z"},
        headers={"Authorization": f"Bearer {token}"},
    )
    listed.raise_for_status()
    return [t for t in listed.json() if t["refId"] == ref_id]


def reserves(client: httpx.Client, customer_id: str) -> list[dict[str, Any]]:
    ledger = client.get(f"/sandbox/customers/{customer_id}/ledger").json()
    return [e for e in ledger if e["kind"] == "reserve"]


# --- 429 ----------------------------------------------------------------------------------------------------


async def test_429_waits_retry_after_then_succeeds(pos_client: PosClient, control: httpx.AsyncClient) -> None:
    await arm(control, "GET", "/v4/customers", "rate_limit")
    retry = pos_client.retry
    assert isinstance(retry, RecordingRetry)

    assert await pos_client.list_customers()

    assert retry.asked == [(1, 1.0, 1.0)], "the wait is the service's Retry-After, not the backoff"
    assert await faults_left(control) == []


async def test_429_on_create_is_retried_because_nothing_was_done(
    pos_client: PosClient, control: httpx.AsyncClient, client: httpx.Client
) -> None:
    customer = new_checked_in_customer(client)
    await arm(control, "POST", "/v4/transactions", "rate_limit")

    created = await pos_client.create_transaction(request_for(customer, "rate-limited"))

    assert created.transaction_id
    assert [t["transactionId"] for t in with_ref(client, "rate-limited")] == [created.transaction_id]
    assert len(reserves(client, customer["customerId"])) == 1


def test_retry_after_is_capped_and_backoff_grows_with_jitter_under_a_ceiling() -> None:
    policy = RetryPolicy(attempts=5, base_delay=0.25, max_delay=4.0, max_retry_after=10.0)
    assert policy.delay(1, 3.0) == 3.0
    assert policy.delay(1, 3600.0) == 10.0, "a huge Retry-After does not freeze the till"
    for attempt, ceiling in ((1, 0.25), (2, 0.5), (3, 1.0), (6, 4.0), (12, 4.0)):
        waits = [policy.delay(attempt) for _ in range(200)]
        assert all(ceiling / 2 <= w <= ceiling for w in waits), (attempt, min(waits), max(waits))
        assert len(set(waits)) > 1, "jitter: clients that failed together do not retry together"
    assert [policy.may_retry(n) for n in range(1, 7)] == [True, True, True, True, False, False]


# --- 5xx on idempotent calls ----------------------------------------------------------------------------------


async def test_a_5xx_on_a_read_is_retried_until_it_succeeds(pos_client: PosClient, control: httpx.AsyncClient) -> None:
    await arm(control, "GET", "/v4/customers", "error_before", times=2)

    assert await pos_client.list_customers()

    assert await faults_left(control) == []
    assert isinstance(pos_client.retry, RecordingRetry)
    assert [attempt for attempt, _, _ in pos_client.retry.asked] == [1, 2]


async def test_a_read_gives_up_after_the_policys_attempts(pos_client: PosClient, control: httpx.AsyncClient) -> None:
    await arm(control, "GET", "/v4/customers", "error_before", times=5)

    with pytest.raises(ServerError) as failed:
        await pos_client.list_customers()

    left = await faults_left(control)
    assert [f["times"] for f in left] == [2], "exactly three requests reached the sandbox"
    assert failed.value.text() == "The service had a problem answering. Try again in a moment."


async def test_a_dropped_read_is_retried(pos_client: PosClient, control: httpx.AsyncClient) -> None:
    await arm(control, "GET", "/v4/customers", "drop_before")
    assert await pos_client.list_customers()
    assert await faults_left(control) == []


async def test_a_state_change_committed_before_a_5xx_is_retried_and_charges_once(
    pos_client: PosClient, control: httpx.AsyncClient, client: httpx.Client
) -> None:
    customer = new_checked_in_customer(client)
    created = await pos_client.create_transaction(request_for(customer, "complete-after-error"))
    assert created.transaction_id
    await arm(control, "PATCH", "/v4/transactions/*", "error_after")

    done = await pos_client.set_state(created.transaction_id, TxState.COMPLETE)

    assert done.state is TxState.COMPLETE
    ledger = client.get(f"/sandbox/customers/{customer['customerId']}/ledger").json()
    assert [e["kind"] for e in ledger if e["reference"] == created.transaction_id].count("charge") == 1


# --- create is never blindly re-sent --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "landed"), [("error_before", 0), ("drop_before", 0), ("error_after", 1), ("drop_after", 1)]
)
async def test_a_create_without_a_clear_answer_is_sent_once_and_its_outcome_is_unknown(
    mode: str, landed: int, pos_client: PosClient, control: httpx.AsyncClient, client: httpx.Client
) -> None:
    customer = new_checked_in_customer(client)
    await arm(control, "POST", "/v4/transactions", mode, times=2)

    with pytest.raises(OutcomeUnknown) as unknown:
        await pos_client.create_transaction(request_for(customer, f"create-{mode}"))

    assert [f["times"] for f in await faults_left(control)] == [1], "exactly one create reached the sandbox"
    assert len(with_ref(client, f"create-{mode}")) == landed
    assert len(reserves(client, customer["customerId"])) == landed
    assert isinstance(pos_client.retry, RecordingRetry) and pos_client.retry.asked == [], "no wait: no second try"
    assert "do not repeat" in unknown.value.text()


async def test_a_create_that_never_connected_is_retried_then_said_unreachable(
    client: httpx.Client, http: httpx.AsyncClient
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    retry = RecordingRetry()
    pos = PosClient(http, f"http://127.0.0.1:{port}/v4", StaticCredentials("t"), retry=retry)
    customer = {"customerId": "cus-1", "checkInId": "chk-1"}

    with pytest.raises(ServiceUnreachable):
        await pos.create_transaction(request_for(customer, "never-connected"))

    assert [attempt for attempt, _, _ in retry.asked] == [1, 2], "nothing left the terminal, so trying again is safe"


# --- method override and routes --------------------------------------------------------------------------------


async def test_method_override_sends_post_with_the_header_and_the_sandbox_applies_it(
    sandbox: SandboxServer, token: str, client: httpx.Client
) -> None:
    sent: list[tuple[str, str | None]] = []

    async def note(request: httpx.Request) -> None:
        sent.append((request.method, request.headers.get("x-http-method-override")))

    async with async_http_client(event_hooks={"request": [note]}) as http:
        pos = PosClient(http, f"{sandbox.url}/v4", StaticCredentials(token), method_override=True)
        customer = new_checked_in_customer(client)
        created = await pos.create_transaction(request_for(customer, "override"))
        assert created.transaction_id
        done = await pos.set_state(created.transaction_id, TxState.COMPLETE)

    assert done.state is TxState.COMPLETE
    assert sent == [("POST", None), ("POST", "PATCH")]
    assert with_ref(client, "override")[0]["state"] == "complete"


ROOT_ROUTES = {
    "customers": "/v4/customers",
    "transactions": "/v4/transactions",
    "transaction": "/v4/transactions/{transaction_id}",
    "summary": "/v4/summary",
}


async def test_the_routes_table_can_be_overridden(
    sandbox: SandboxServer, token: str, http: httpx.AsyncClient, client: httpx.Client
) -> None:
    """Base address at the root and every path carrying /v4: the same service, reached through the table."""
    plain = PosClient(http, sandbox.url, StaticCredentials(token))
    with pytest.raises(NotFound):
        await plain.get_transaction("anything")

    pos = PosClient(http, sandbox.url, StaticCredentials(token), routes=Routes().with_overrides(ROOT_ROUTES))
    customer = new_checked_in_customer(client)
    assert customer["customerId"] in {c.customer_id for c in await pos.list_customers()}
    created = await pos.create_transaction(request_for(customer, "routed"))
    assert created.transaction_id, "the id is still read from Location under the overridden route"
    assert (await pos.get_transaction(created.transaction_id)).ref_id == "routed"
    assert (await pos.set_state(created.transaction_id, TxState.COMPLETE)).state is TxState.COMPLETE
    listed = await pos.list_transactions(NOW - timedelta(hours=1), datetime.now(UTC) + timedelta(hours=1), "LANE-R")
    assert [t.ref_id for t in listed] == ["routed"]
    merged = await pos.summary(NOW - timedelta(hours=1), merge=True)
    assert not isinstance(merged, list) and merged.count >= 1


async def test_overridden_routes_are_the_paths_requested(fake_service: FakeService, http: httpx.AsyncClient) -> None:
    routes = Routes().with_overrides({"customers": "/pos/checked-in", "transaction": "/pos/tx/{transaction_id}/record"})
    fake_service.routes["GET /api/pos/checked-in"] = Answer.json(200, {"items": [{"customerId": "cus-1"}]})
    fake_service.routes["GET /api/pos/tx/a%2Fb/record"] = Answer.json(
        200, {"transactionId": "a/b", "state": "cancelled"}
    )
    pos = PosClient(http, f"{fake_service.url}/api", StaticCredentials("t"), routes=routes)

    assert [c.customer_id for c in await pos.list_customers()] == ["cus-1"]
    assert (await pos.get_transaction("a/b")).state is TxState.CANCELED
    assert [s.path for s in fake_service.seen] == ["/api/pos/checked-in", "/api/pos/tx/a%2Fb/record"]


@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        ({"refunds": "/refunds"}, "unknown routes: refunds"),
        ({"summary": "reports/summary"}, "must start with a slash"),
        ({"transaction": "/transactions/current"}, "must contain {transaction_id}"),
    ],
)
def test_a_bad_routes_override_is_one_sentence(overrides: dict[str, str], says: str) -> None:
    with pytest.raises(ConfigError) as bad:
        Routes().with_overrides(overrides)
    assert says in bad.value.text()
    assert "\n" not in bad.value.text()
