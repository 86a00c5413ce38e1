"""For any valid check the builder builds, the sandbox accepts the request it makes (over loopback HTTP)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import count
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings

from pos_terminal.domain.check import Check
from tests.helpers.checks import valid_checks
from tests.sandbox.helpers import Shop, running_sandbox

REF = count()


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shop]:
    with running_sandbox(tmp_path_factory.mktemp("builder")) as server, Shop.open(server) as opened:
        yield opened


@pytest.fixture(scope="module")
def customer(shop: Shop) -> dict[str, Any]:
    return shop.customer(balance=2_000_000_000)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(check=valid_checks())
def test_the_sandbox_accepts_every_check_the_builder_calls_valid(
    shop: Shop, customer: dict[str, Any], check: Check
) -> None:
    assert check.is_valid, check.problems()
    body = check.charge_request(
        customer={"customerId": customer["customerId"], "checkInId": customer["checkInId"]},
        ref_id=f"builder-{next(REF)}",
        terminal_id="LANE-1",
    )
    response: httpx.Response = shop.pos.post("/transactions", json=body)
    assert response.status_code == 201, (response.text, body)
    transaction_id = response.headers["location"].rsplit("/", 1)[-1]
    record = shop.set_state(transaction_id, "canceled")
    assert record["chargeAmount"] == check.totals().charge_amount
    assert record["total"] == check.totals().total
