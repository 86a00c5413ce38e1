"""Concurrent state changes on one transaction: each effect happens exactly once.

Every request runs on its own thread with its own ``httpx.Client`` (its own
connection), and all are released together by a barrier.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.helpers.http import http_client
from tests.sandbox.helpers import Shop, running_sandbox

START = 100_000
AMOUNT = 2_500


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with running_sandbox(tmp_path_factory.mktemp("race")) as running:
        yield running


@pytest.fixture(scope="module")
def shop(server: SandboxServer) -> Iterator[Shop]:
    with Shop.open(server) as opened:
        yield opened


def fire_together(shop: Shop, transaction_id: str, states: list[str]) -> list[httpx.Response]:
    """PATCH ``transaction_id`` to each of ``states`` at once; the answers in the same order."""
    barrier = threading.Barrier(len(states), timeout=10)
    answers: list[httpx.Response | BaseException | None] = [None] * len(states)
    headers = dict(shop.pos.headers)

    def one(index: int, state: str) -> None:
        try:
            with http_client(base_url=str(shop.pos.base_url), headers=headers, timeout=20) as http:
                http.get("/customers").raise_for_status()  # connection open before the start
                barrier.wait()
                answers[index] = http.patch(f"/transactions/{transaction_id}", json={"state": state})
        except BaseException as error:
            barrier.abort()
            answers[index] = error

    threads = [threading.Thread(target=one, args=(i, s)) for i, s in enumerate(states)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    responses: list[httpx.Response] = []
    for answer in answers:
        assert isinstance(answer, httpx.Response), repr(answer)
        responses.append(answer)
    return responses


def kinds(shop: Shop, customer_id: str, transaction_id: str) -> Counter[str]:
    return Counter(kind for kind, _ in shop.ledger_for(customer_id, transaction_id))


def test_twenty_completes_then_twenty_refunds_charge_and_refund_once(shop: Shop) -> None:
    customer = shop.customer()
    cid = customer["customerId"]
    transaction_id = shop.authorize(customer, AMOUNT)

    completes = fire_together(shop, transaction_id, ["complete"] * 20)
    assert [r.status_code for r in completes] == [200] * 20
    assert {r.json()["state"] for r in completes} == {"complete"}
    assert len({r.json()["completed"] for r in completes}) == 1  # completed once, at one moment
    assert kinds(shop, cid, transaction_id) == Counter({"reserve": 1, "charge": 1})
    assert shop.funds(cid) == (START - AMOUNT, 0)

    refunds = fire_together(shop, transaction_id, ["refunded"] * 20)
    assert [r.status_code for r in refunds] == [200] * 20
    assert {r.json()["state"] for r in refunds} == {"refunded"}
    assert kinds(shop, cid, transaction_id) == Counter({"reserve": 1, "charge": 1, "refund": 1})
    assert shop.funds(cid) == (START, 0)


def test_mixed_completes_and_refunds_stay_consistent(shop: Shop) -> None:
    customer = shop.customer()
    cid = customer["customerId"]
    transaction_id = shop.authorize(customer, AMOUNT)

    states = ["complete", "refunded"] * 10
    responses = fire_together(shop, transaction_id, states)

    for response in responses:
        # complete: from authorized, a repeat, or refused after a refund;
        # refund: of a complete, a repeat, or refused before the complete landed
        assert response.status_code in (200, 409), response.text
        if response.status_code == 409:
            assert response.json()["code"] == "INVALID_STATE_TRANSITION"
        else:
            assert response.json()["state"] in ("complete", "refunded")
    assert any(r.status_code == 200 for s, r in zip(states, responses, strict=True) if s == "complete")

    counted = kinds(shop, cid, transaction_id)
    assert counted["charge"] == 1  # at least one complete succeeded, so exactly one charge
    assert counted["refund"] <= 1
    final = shop.get(transaction_id)["state"]
    refund_succeeded = any(r.status_code == 200 for s, r in zip(states, responses, strict=True) if s == "refunded")
    if final == "refunded":
        assert refund_succeeded
        assert counted["refund"] == 1
        assert shop.funds(cid) == (START, 0)
    else:
        assert final == "complete"
        assert not refund_succeeded
        assert counted["refund"] == 0
        assert shop.funds(cid) == (START - AMOUNT, 0)


def test_completes_racing_cancels_have_one_winner(shop: Shop) -> None:
    customer = shop.customer()
    cid = customer["customerId"]
    transaction_id = shop.authorize(customer, AMOUNT)

    states = ["complete", "canceled"] * 10
    responses = fire_together(shop, transaction_id, states)

    final = shop.get(transaction_id)["state"]
    assert final in ("complete", "canceled")
    for state, response in zip(states, responses, strict=True):
        expected = 200 if state == final else 409
        assert response.status_code == expected, (state, final, response.text)
    counted = kinds(shop, cid, transaction_id)
    assert counted["charge"] + counted["release"] == 1
    assert shop.funds(cid) == ((START - AMOUNT, 0) if final == "complete" else (START, 0))


def test_concurrent_creates_each_reserve_their_own_funds(shop: Shop) -> None:
    customer = shop.customer(balance=10 * AMOUNT + 1)
    body_for = [
        {
            "refId": f"race-{n}",
            "terminalId": "T-race",
            "chargeAmount": AMOUNT,
            "itemTotal": AMOUNT,
            "total": AMOUNT,
            "balance": AMOUNT,
            "customer": {"customerId": customer["customerId"], "checkInId": customer["checkInId"]},
            "items": [{"name": "Item", "quantity": 1, "amount": AMOUNT}],
        }
        for n in range(12)
    ]
    barrier = threading.Barrier(len(body_for), timeout=10)
    statuses: list[int] = [0] * len(body_for)
    headers = dict(shop.pos.headers)

    def one(index: int) -> None:
        with http_client(base_url=str(shop.pos.base_url), headers=headers, timeout=20) as http:
            http.get("/customers")
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                return
            statuses[index] = http.post("/transactions", json=body_for[index]).status_code

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(body_for))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(statuses) == [201] * 10 + [402] * 2  # the balance covers ten, never more
    assert shop.funds(customer["customerId"]) == (1, 10 * AMOUNT)
    assert len(shop.listed(terminalId="T-race")) == 10
