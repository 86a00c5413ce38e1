"""Reading 5,000 customers the way :class:`PosClient` does (JSON bytes, then one model per entry, each entry
checked on its own so an unreadable one is skipped), against the json module's reading of the same bytes.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from pos_terminal.api.client import PosClient
from pos_terminal.api.models import Customer
from tests.bench.conftest import Bench

COUNT = 5_000
TARGET = 3.0
CI_BOUND = 8.0


def customer(n: int) -> dict[str, Any]:
    """A POS customer (2.5) in camelCase; every third has fields this terminal does not know."""
    record: dict[str, Any] = {
        "customerId": f"cus-{n:05d}",
        "firstName": f"First{n}",
        "lastName": "Ångström" if n % 7 == 0 else f"Last{n}",
        "gender": ("female", "male", None)[n % 3],
        "dob": "1990-04-12T00:00:00.000Z" if n % 2 else None,
        "memberNo": f"M-{100_000 + n}" if n % 2 else None,
        "checkInId": f"chk-{n:05d}-cafe",
        "checkInNumber": str(100 + n),
        "checkInDate": "2026-11-22T09:15:00.000Z",
        "notes": "Prefers oat milk" if n % 5 == 0 else None,
    }
    if n % 3 == 0:
        record.update(loyaltyTier="gold", photo="https://example.test/p.png", tags=["vip", "regular"])
    return record


@pytest.fixture(scope="module")
def customers_response() -> httpx.Response:
    body = json.dumps([customer(n) for n in range(COUNT)]).encode()
    return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})


@pytest.fixture(scope="module")
def client() -> PosClient:
    """Only ``_list`` is used: no request is ever sent."""
    return PosClient(httpx.AsyncClient(), "http://127.0.0.1:1/v4", credentials=None)  # type: ignore[arg-type]


def test_parse_5000_customers(bench: Bench, client: PosClient, customers_response: httpx.Response) -> None:
    parsed: list[list[Customer]] = []
    rounds = bench.rounds(measuring=20, smoke=3)
    parse_ms, json_ms = bench.interleaved(
        lambda: parsed.append(client._list(customers_response, Customer, "customers")),
        lambda: json.loads(customers_response.content),
        rounds=rounds,
    )
    bench.hold(
        "5,000 customers read",
        measured=("PosClient, models", parse_ms),
        baseline=("json.loads", json_ms),
        target=TARGET,
        ci_bound=CI_BOUND,
        rounds=rounds,
    )
    customers = parsed[-1]
    assert len(customers) == COUNT
    assert customers[0].customer_id == "cus-00000"
    assert customers[3].check_in_date is not None and customers[3].check_in_date.utcoffset() is not None


def test_parse_keeps_the_readable_entries(client: PosClient) -> None:
    """Not a benchmark: an unreadable entry is skipped, the others stay (the behaviour the fast path must keep)."""
    body = [customer(0), {"firstName": "no id"}, customer(2)]
    response = httpx.Response(200, content=json.dumps(body).encode())
    assert [c.customer_id for c in client._list(response, Customer, "customers")] == ["cus-00000", "cus-00002"]
