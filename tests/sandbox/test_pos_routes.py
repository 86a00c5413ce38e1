"""POS API v4 routes of contract section 1, over loopback HTTP against a real sandbox."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import OTHER_MERCHANT
from tests.helpers.http import http_client
from tests.sandbox.helpers import MS, Shop, check_body, iso, mint_token, parse, running_sandbox

RECORD_KEYS = {
    "transactionId", "state", "created", "updated", "completed", "refId", "terminalId", "chargeAmount",
    "itemTotal", "itemTax", "discountTotal", "discountTax", "total", "tax", "balance", "customer", "items",
    "discounts", "payments", "tipAmount", "modifiedAmount", "chargedAmount", "feeAmount", "modifiers",
}  # fmt: skip
CUSTOMER_KEYS = {
    "customerId", "firstName", "lastName", "gender", "dob", "memberNo", "checkInId", "checkInNumber",
    "checkInDate", "notes",
}  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with running_sandbox(tmp_path_factory.mktemp("routes")) as running:
        yield running


@pytest.fixture(scope="module")
def shop(server: SandboxServer) -> Iterator[Shop]:
    with Shop.open(server) as opened:
        yield opened


@pytest.fixture(scope="module")
def bistro(server: SandboxServer) -> Iterator[Shop]:
    with Shop.open(server, OTHER_MERCHANT) as opened:
        yield opened


# --- GET /customers -----------------------------------------------------------------------


def test_customers_are_the_live_check_ins_of_the_token_merchant(shop: Shop, bistro: Shop) -> None:
    cafe = shop.pos.get("/customers")
    assert cafe.status_code == 200
    assert cafe.headers["content-type"].startswith("application/json")
    cafe_ids = {c["customerId"] for c in cafe.json()}
    assert {"cus-ava", "cus-liam", "cus-zoe", "cus-li", "cus-noah", "cus-mia", "cus-owen"} <= cafe_ids
    assert "cus-sofia" not in cafe_ids  # checked in at the bistro only
    assert "cus-ethan" not in cafe_ids  # not checked in anywhere
    for customer in cafe.json():
        assert set(customer) == CUSTOMER_KEYS
        assert customer["checkInId"]

    bistro_customers = bistro.pos.get("/customers").json()
    assert "cus-sofia" in {c["customerId"] for c in bistro_customers}
    assert "cus-ava" not in {c["customerId"] for c in bistro_customers}
    liam = {c["customerId"]: c for c in bistro_customers}["cus-liam"]
    assert liam["checkInId"] == "chk-liam-bistro"  # the bistro's own check-in, not the café's


def test_a_new_check_in_appears_and_a_check_out_makes_it_disappear(shop: Shop) -> None:
    customer = shop.customer(firstName="Ivy", memberNo="M-1")
    listed = {c["checkInId"]: c for c in shop.pos.get("/customers").json()}
    assert customer["checkInId"] in listed
    assert listed[customer["checkInId"]]["firstName"] == "Ivy"
    assert listed[customer["checkInId"]]["memberNo"] == "M-1"

    assert shop.control.delete(f"/sandbox/checkins/{customer['checkInId']}").status_code == 204
    ids = {c["checkInId"] for c in shop.pos.get("/customers").json()}
    assert customer["checkInId"] not in ids


# --- POST /transactions, GET /transactions/{id} ----------------------------------------------


def test_create_answers_201_state_only_and_a_location_that_can_be_read(shop: Shop) -> None:
    customer = shop.customer()
    body = check_body(customer, 1_250, refId="routes-create", terminalId="LANE-7")
    response = shop.pos.post("/transactions", json=body)

    assert response.status_code == 201
    assert response.json() == {"state": "authorized"}
    location = response.headers["location"]
    assert location.startswith(f"{shop.server.url}/v4/transactions/")
    transaction_id = location.rsplit("/", 1)[-1]

    fetched = shop.pos.get(location)
    assert fetched.status_code == 200
    record = fetched.json()
    assert set(record) == RECORD_KEYS
    assert record["transactionId"] == transaction_id
    assert record["state"] == "authorized"
    assert record["refId"] == "routes-create"
    assert record["terminalId"] == "LANE-7"
    for field in ("chargeAmount", "itemTotal", "itemTax", "total", "tax", "balance", "items"):
        assert record[field] == body[field], field
    assert record["customer"]["customerId"] == customer["customerId"]
    assert record["customer"]["checkInId"] == customer["checkInId"]
    assert record["created"] == record["updated"]
    assert record["completed"] is None
    assert record["tipAmount"] == 0
    assert record["chargedAmount"] == 1_250  # not a member: no loyalty benefit
    assert record["modifiedAmount"] == 0
    assert record["modifiers"] == []
    assert "pointsEarned" not in record


def test_create_without_location_can_be_found_by_ref_id(make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(location=False)
    with Shop.open(server) as shop:
        customer = shop.customer()
        response = shop.pos.post("/transactions", json=check_body(customer, 900, refId="no-location-1"))
        assert response.status_code == 201
        assert response.json() == {"state": "authorized"}
        assert "location" not in response.headers
        found = [r for r in shop.listed() if r["refId"] == "no-location-1"]
        assert len(found) == 1
        assert found[0]["state"] == "authorized"
        assert shop.get(found[0]["transactionId"])["chargeAmount"] == 900


def test_get_unknown_path_is_a_not_found_problem(shop: Shop) -> None:
    response = shop.pos.get("/no-such-route")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "NOT_FOUND"


# --- PATCH /transactions/{id} and the method override -----------------------------------------


def test_patch_answers_the_full_record_in_its_new_state(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 700)
    response = shop.pos.patch(f"/transactions/{transaction_id}", json={"state": "complete"})
    assert response.status_code == 200
    record = response.json()
    assert set(record) == RECORD_KEYS
    assert record["transactionId"] == transaction_id
    assert record["state"] == "complete"
    assert record["completed"] is not None
    assert record["completed"] == record["updated"]
    assert shop.get(transaction_id)["state"] == "complete"


@pytest.mark.parametrize("spelling", ["PATCH", "patch"])
def test_post_with_method_override_patch_is_a_patch(shop: Shop, spelling: str) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 800)
    response = shop.pos.post(
        f"/transactions/{transaction_id}", json={"state": "canceled"}, headers={"X-HTTP-Method-Override": spelling}
    )
    assert response.status_code == 200, response.text
    assert response.json()["state"] == "canceled"
    assert shop.get(transaction_id)["state"] == "canceled"
    assert shop.funds(customer["customerId"]) == (100_000, 0)


def test_post_to_a_transaction_without_override_is_not_allowed(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 800)
    response = shop.pos.post(f"/transactions/{transaction_id}", json={"state": "complete"})
    assert response.status_code == 405
    assert response.json()["code"] == "METHOD_NOT_ALLOWED"
    assert shop.get(transaction_id)["state"] == "authorized"


# --- GET /transactions?from&to&terminalId ------------------------------------------------------


def test_list_filters_on_created_from_inclusive_to_exclusive_and_by_terminal(
    make_sandbox: Callable[..., SandboxServer],
) -> None:
    server = make_sandbox()
    with Shop.open(server) as shop:
        customer = shop.customer()
        first = shop.authorize(customer, 100, terminalId="T1", refId="first")
        shop.advance(60)
        second = shop.authorize(customer, 200, terminalId="T2", refId="second")
        shop.advance(60)
        shop.set_state(first, "complete")  # completed after both were created: lists ignore `completed`
        created_1 = parse(shop.get(first)["created"])
        created_2 = parse(shop.get(second)["created"])
        completed_1 = parse(shop.get(first)["completed"])
        assert created_2 - created_1 >= timedelta(seconds=60)

        def ids(start: datetime | str, end: datetime | str, **params: str) -> list[str]:
            start_text = start if isinstance(start, str) else iso(start)
            end_text = end if isinstance(end, str) else iso(end)
            return [r["transactionId"] for r in shop.listed(start_text, end_text, **params)]

        assert ids(created_1, created_2) == [first]  # from inclusive, to exclusive
        assert ids(created_2, created_2 + MS) == [second]
        assert ids(created_1 + MS, created_2) == []
        assert ids(created_1 - MS, created_1) == []
        assert ids(created_1, created_2 + MS) == [first, second]  # oldest first
        assert ids(completed_1, completed_1 + timedelta(hours=1)) == []  # filter on created, not completed
        assert ids(created_1, created_2 + MS, terminalId="T2") == [second]
        assert ids(created_1, created_2 + MS, terminalId="T1") == [first]
        assert ids(created_1, created_2 + MS, terminalId="T9") == []
        # the same instants written with an offset instead of Z
        with_offset = (created_1 + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+02:00"
        assert ids(with_offset, created_2) == [first]

        records = {r["transactionId"]: r for r in shop.listed()}
        assert records[first]["state"] == "complete"
        assert records[second]["state"] == "authorized"
        assert set(records[first]) == RECORD_KEYS


def test_list_shows_only_the_token_merchant_transactions(shop: Shop, bistro: Shop) -> None:
    customer = shop.customer()
    mine = shop.authorize(customer, 300, refId="isolation")
    theirs = {r["transactionId"] for r in bistro.listed()}
    assert mine not in theirs
    assert mine in {r["transactionId"] for r in shop.listed()}


def test_legacy_x_api_token_header_is_accepted(shop: Shop) -> None:
    token = mint_token(shop.control)
    with http_client(base_url=f"{shop.server.url}/v4", headers={"X-Api-Token": token}, timeout=10) as legacy:
        customers = legacy.get("/customers")
        assert customers.status_code == 200
        assert "cus-ava" in {c["customerId"] for c in customers.json()}
        customer = shop.customer()
        created = legacy.post("/transactions", json=check_body(customer, 450))
        assert created.status_code == 201
        transaction_id = created.headers["location"].rsplit("/", 1)[-1]
        assert legacy.patch(f"/transactions/{transaction_id}", json={"state": "complete"}).json()["state"] == "complete"


def test_summary_route_answers_an_array_by_default_and_an_object_when_merged(shop: Shop) -> None:
    start = iso(shop.now() - timedelta(days=1))
    per_terminal = shop.pos.get("/summary", params={"from": start})
    assert per_terminal.status_code == 200
    assert isinstance(per_terminal.json(), list)
    merged = shop.pos.get("/summary", params={"from": start, "merge": "true"})
    assert merged.status_code == 200
    assert isinstance(merged.json(), dict)
    assert set(merged.json()) == {"terminalId", "total", "fees", "payout", "tips", "count", "from", "to"}
