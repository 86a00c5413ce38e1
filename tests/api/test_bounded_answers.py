"""A server that trickles its answer or never ends it cannot hang the terminal or exhaust its memory.

httpx's timeouts apply to each read: one byte every fraction of a second kept a call alive
forever, and a body that never ended grew to gigabytes. Each exchange now has one deadline
for all of it and a cap on its body (``pos_terminal.api.transport``).
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import AsyncIterator

import pytest

from pos_terminal.api.auth import AuthClient, StaticCredentials
from pos_terminal.api.client import PosClient, make_http_client
from pos_terminal.api.errors import OutcomeUnknown, ResponseInvalid, ServiceTooSlow
from pos_terminal.api.models import CreateTransactionRequest
from pos_terminal.api.transport import MAX_ANSWER_BYTES
from tests.api.misbehaving import misbehaving
from tests.conftest import check_body

DEADLINE = 1.0
SLACK = 1.0  # what the issue allows past the deadline: closing the connection, the process's own work


@pytest.fixture
async def http() -> AsyncIterator[object]:
    client = make_http_client(timeout=DEADLINE)
    yield client
    await client.aclose()


async def test_a_trickling_answer_ends_at_the_deadline(http: object) -> None:
    with misbehaving("trickle", interval=0.1) as server:
        client = PosClient(http, f"{server.url}/v4", StaticCredentials("token"))  # type: ignore[arg-type]
        started = time.monotonic()
        with pytest.raises(ServiceTooSlow) as raised:
            await client.list_customers()
        took = time.monotonic() - started
    assert server.bytes_sent > 3, "the server kept the connection busy, one byte at a time"
    assert took < DEADLINE + SLACK, f"{took:.1f} s"
    assert raised.value.text().startswith("The service did not answer in time.")


async def test_a_create_that_trickles_is_an_unknown_outcome_not_a_hang(http: object) -> None:
    with misbehaving("trickle", interval=0.1) as server:
        client = PosClient(http, f"{server.url}/v4", StaticCredentials("token"))  # type: ignore[arg-type]
        body = check_body({"customerId": "c", "checkInId": "k"})
        with pytest.raises(OutcomeUnknown):
            await client.create_transaction(CreateTransactionRequest.model_validate(body))


async def test_the_sign_in_service_trickling_ends_at_the_deadline(http: object) -> None:
    with misbehaving("trickle", interval=0.1) as server:
        auth = AuthClient(http, server.url, "pos-terminal")  # type: ignore[arg-type]
        started = time.monotonic()
        with pytest.raises(ServiceTooSlow):
            await auth.start_device_authorization()
        assert time.monotonic() - started < DEADLINE + SLACK


async def test_an_endless_answer_stops_at_the_cap_in_bounded_memory() -> None:
    http = make_http_client(timeout=30)
    try:
        with misbehaving("endless") as server:
            client = PosClient(http, f"{server.url}/v4", StaticCredentials("token"))
            tracemalloc.start()
            try:
                with pytest.raises(ResponseInvalid) as raised:
                    await client.list_customers()
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
    finally:
        await http.aclose()
    assert peak < 3 * MAX_ANSWER_BYTES, f"peak {peak / 2**20:.0f} MiB"
    assert "passed" in (raised.value.detail or "")
