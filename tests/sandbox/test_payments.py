"""Payments API v5 over loopback: approval (SDK) → nonce → charge → refund once, and every refusal."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import mint_token
from tests.helpers.http import http_client
from tests.sandbox.helpers import advance, assert_problem

SERVICE_SCOPES = "service-api:transaction.read service-api:transaction.submit"


@pytest.fixture
def payments(sandbox: SandboxServer, client: httpx.Client) -> Iterator[httpx.Client]:
    """Client at ``/v5`` with an organization token carrying both service scopes."""
    token = client.post("/sandbox/tokens", json={"organizationId": "org-harbour", "scope": SERVICE_SCOPES}).json()[
        "access_token"
    ]
    with http_client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {token}"}) as http:
        yield http


def approve(client: httpx.Client, **order: Any) -> dict[str, Any]:
    body = {"orderStoreId": "store-cafe", "customerId": "cus-liam", "total": 2_500, "tax": 227, **order}
    response = client.post("/sandbox/nonces", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def balance(client: httpx.Client, customer_id: str = "cus-liam") -> int:
    return int(client.get(f"/sandbox/customers/{customer_id}").json()["balance"])


def test_nonce_charge_refund_moves_money_once(client: httpx.Client, payments: httpx.Client) -> None:
    before = balance(client)
    approved = approve(client, orderRef="web-1", items=[{"name": "Pizza", "quantity": 1, "amount": 2_500}])
    nonce = approved["nonce"]
    assert balance(client) == before, "approval alone charges nothing"

    read = payments.get(f"/nonces/{nonce}")
    assert read.status_code == 200, read.text
    assert read.json()["transaction"]["merchant"] == {"id": "mer-cafe", "name": "Harbour Café"}
    assert read.json()["transaction"]["completedAt"] is None

    charged = payments.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
    assert charged.status_code == 200, charged.text
    transaction = charged.json()
    assert transaction["completedAt"] is not None
    assert transaction["customer"]["firstName"] == "Liam"
    assert [(i["name"], i["quantity"], i["amount"]) for i in transaction["items"]] == [("Pizza", 1, 2_500)]
    assert balance(client) == before - 2_500

    reused = payments.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
    assert (reused.status_code, reused.json()["code"]) == (409, "NONCE_USED")
    assert balance(client) == before - 2_500

    refunded = payments.post(f"/transaction/{transaction['id']}/refund")
    assert refunded.status_code == 200, refunded.text
    assert refunded.json()["refundedAt"] is not None
    assert balance(client) == before
    again = payments.post(f"/transaction/{transaction['id']}/refund")
    assert (again.status_code, again.json()["code"]) == (400, "ALREADY_REFUNDED")
    assert balance(client) == before


def test_details_that_do_not_match_are_rejected_naming_the_field(client: httpx.Client, payments: httpx.Client) -> None:
    nonce = approve(client)["nonce"]
    wrong = payments.post(
        "/transactions", json={"nonce": nonce, "submit": True, "total": 2_400, "tax": 227, "merchantId": "mer-bistro"}
    )
    assert (wrong.status_code, wrong.json()["code"]) == (422, "TRANSACTION_MISMATCH")
    assert {e["field"] for e in wrong.json()["errors"]} == {"total", "merchantId"}
    ok = payments.post(
        "/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227, "merchantId": "mer-cafe"}
    )
    assert ok.status_code == 200, "a rejected attempt leaves the nonce usable"


def test_submit_false_only_confirms(client: httpx.Client, payments: httpx.Client) -> None:
    before = balance(client)
    nonce = approve(client)["nonce"]
    confirmed = payments.post("/transactions", json={"nonce": nonce, "submit": False, "total": 2_500, "tax": 227})
    assert confirmed.status_code == 200
    assert confirmed.json()["completedAt"] is None
    assert balance(client) == before


def test_nonces_expire_and_unknown_ones_are_404(client: httpx.Client, payments: httpx.Client) -> None:
    nonce = approve(client)["nonce"]
    client.post("/sandbox/clock", json={"advanceSeconds": 121}).raise_for_status()
    expired = payments.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
    assert (expired.status_code, expired.json()["code"]) == (410, "NONCE_EXPIRED")
    assert payments.get(f"/nonces/{nonce}").status_code == 410
    unknown = payments.get("/nonces/nope")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "NOT_FOUND")


def test_customer_refusals_come_back_as_the_sdk_error(client: httpx.Client) -> None:
    for customer_id in ("cus-mia", "cus-owen"):
        refused = client.post(
            "/sandbox/nonces", json={"orderStoreId": "store-cafe", "customerId": customer_id, "total": 100}
        )
        assert (refused.status_code, refused.json()["code"]) == (402, "PAYMENT_DECLINED")
    too_much = client.post(
        "/sandbox/nonces", json={"orderStoreId": "store-cafe", "customerId": "cus-noah", "total": 1_501}
    )
    assert too_much.status_code == 402
    unmapped = client.post("/sandbox/nonces", json={"orderStoreId": "store-nowhere", "total": 100})
    assert unmapped.status_code == 404


def test_scopes_and_merchant_isolation(client: httpx.Client, sandbox: SandboxServer) -> None:
    nonce = approve(client)["nonce"]
    read_only = mint_token(client, scope="service-api:transaction.read")
    with http_client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {read_only}"}) as http:
        assert http.get(f"/nonces/{nonce}").status_code == 200
        refused = http.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
        assert (refused.status_code, refused.json()["code"]) == (403, "INSUFFICIENT_SCOPE")
    pos_only = mint_token(client)
    with http_client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {pos_only}"}) as http:
        assert http.get(f"/nonces/{nonce}").status_code == 403
    other = mint_token(client, "mer-bistro", scope=SERVICE_SCOPES)
    with http_client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {other}"}) as http:
        assert http.get(f"/nonces/{nonce}").status_code == 404
        charged = http.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
        assert charged.status_code == 404
    assert httpx.get(f"{sandbox.url}/v5/nonces/{nonce}").status_code == 401


def test_refund_of_an_uncharged_or_unknown_transaction(client: httpx.Client, payments: httpx.Client) -> None:
    approved = approve(client)
    never_charged = payments.post(f"/transaction/{approved['transaction']['id']}/refund")
    assert (never_charged.status_code, never_charged.json()["code"]) == (409, "INVALID_STATE_TRANSITION")
    assert payments.post("/transaction/nope/refund").status_code == 404


def test_malformed_charge_is_400(payments: httpx.Client) -> None:
    response = payments.post("/transactions", json={"nonce": "x", "submit": "yes", "total": 1.5})
    assert (response.status_code, response.json()["code"]) == (400, "BAD_REQUEST")
    fields = {e["field"] for e in response.json()["errors"]}
    assert {"submit", "total", "tax"} <= fields


CONFIRMATIONS = [
    pytest.param({}, None, id="all-match"),
    pytest.param({"total": 2_501}, "total", id="total"),
    pytest.param({"tax": 226}, "tax", id="tax"),
    pytest.param({"merchantId": "mer-bistro"}, "merchantId", id="merchantId"),
]


@pytest.mark.parametrize(("change", "field"), CONFIRMATIONS)
def test_submit_confirms_total_tax_and_merchant(
    client: httpx.Client, payments: httpx.Client, change: dict[str, Any], field: str | None
) -> None:
    before = balance(client)
    nonce = approve(client)["nonce"]
    body = {"nonce": nonce, "submit": True, "total": 2_500, "tax": 227, "merchantId": "mer-cafe", **change}
    response = payments.post("/transactions", json=body)
    if field is None:
        assert response.status_code == 200, response.text
        assert balance(client) == before - 2_500
        return
    problem = assert_problem(response, 422, "TRANSACTION_MISMATCH", field=field)
    assert [e["field"] for e in problem["errors"]] == [field]
    assert balance(client) == before, "a mismatch charges nothing"


def test_a_nonce_lives_exactly_its_lifetime_on_the_sandbox_clock(client: httpx.Client, payments: httpx.Client) -> None:
    nonce = approve(client)["nonce"]
    ttl = 120
    # The sandbox's clock runs on with real time between the calls: one second short of the lifetime was passed in a
    # clean-clone run whose cores were all busy. Five seconds short, the nonce is alive unless the calls took that long;
    # at the lifetime it is gone however long they took.
    advance(client, ttl - 5)
    assert payments.get(f"/nonces/{nonce}").status_code == 200
    advance(client, 5)
    assert_problem(payments.get(f"/nonces/{nonce}"), 410, "NONCE_EXPIRED")
    charged = payments.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
    assert_problem(charged, 410, "NONCE_EXPIRED")


def test_each_service_scope_guards_its_own_calls(client: httpx.Client, sandbox: SandboxServer) -> None:
    nonce = approve(client)["nonce"]
    submit_only, read_only = (
        client.post("/sandbox/tokens", json={"organizationId": "org-harbour", "scope": scope}).json()["access_token"]
        for scope in SERVICE_SCOPES.split()[::-1]
    )
    with http_client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {submit_only}"}) as http:
        assert_problem(http.get(f"/nonces/{nonce}"), 403, "INSUFFICIENT_SCOPE")
        charged = http.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
        assert charged.status_code == 200, charged.text
    with http_client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {read_only}"}) as http:
        assert_problem(http.post(f"/transaction/{charged.json()['id']}/refund"), 403, "INSUFFICIENT_SCOPE")


def test_merchant_tokens_on_the_payments_api(client: httpx.Client, sandbox: SandboxServer) -> None:
    """A POS token is refused; a merchant token with the service scopes acts for its own merchant only."""
    nonce = approve(client)["nonce"]
    pos_token = mint_token(client)
    with http_client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {pos_token}"}) as http:
        assert_problem(http.post(f"/transaction/{nonce}/refund"), 403, "INSUFFICIENT_SCOPE")
        refused = http.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
        assert_problem(refused, 403, "INSUFFICIENT_SCOPE")
    cafe = mint_token(client, "mer-cafe", scope=SERVICE_SCOPES)
    with http_client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {cafe}"}) as http:
        charged = http.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
        assert charged.status_code == 200, charged.text
        assert charged.json()["merchant"]["id"] == "mer-cafe"


@pytest.mark.parametrize(
    ("card", "detail"),
    [
        ("declined", "The customer's card was declined"),
        ("insufficient_funds", "The customer has insufficient funds for this order"),
        ("expired", "The customer's card has expired"),
    ],
)
def test_the_test_card_chosen_in_the_app_decides(client: httpx.Client, card: str, detail: str) -> None:
    body = {"orderStoreId": "store-cafe", "total": 100, "card": card}
    problem = assert_problem(client.post("/sandbox/nonces", json=body), 402, "PAYMENT_DECLINED")
    assert problem["detail"] == detail
    assert client.post("/sandbox/nonces", json={**body, "card": "ok"}).status_code == 201


def test_order_rules_of_2_2(client: httpx.Client) -> None:
    order = {"orderStoreId": "store-cafe", "total": 1_000, "tax": 90}
    items = [{"name": "Soup", "quantity": 1, "amount": 1_000, "tax": 1_001}]
    assert_problem(client.post("/sandbox/nonces", json={**order, "items": items}), 422, "VALIDATION_FAILED")
    assert_problem(client.post("/sandbox/nonces", json={**order, "tax": 1_001}), 422, "VALIDATION_FAILED", field="tax")
    assert_problem(client.post("/sandbox/nonces", json={**order, "tax": -1}), 400, "BAD_REQUEST", field="tax")
    no_quantity = [{"name": "Soup", "quantity": 0, "amount": 1_000}]
    assert_problem(client.post("/sandbox/nonces", json={**order, "items": no_quantity}), 400, "BAD_REQUEST")
    assert_problem(client.post("/sandbox/nonces", json={"total": 100}), 400, "BAD_REQUEST", field="orderStoreId")


def test_the_store_to_merchant_mapping(client: httpx.Client) -> None:
    stores = client.get("/sandbox/stores").json()
    assert {"storeId": "store-cafe", "merchantId": "mer-cafe"} in stores
    order = {"orderStoreId": "store-17", "total": 100}
    assert_problem(client.post("/sandbox/nonces", json=order), 404, "NOT_FOUND")

    mapped = client.put("/sandbox/stores/store-17", json={"merchantId": "mer-bistro"})
    assert mapped.json() == {"storeId": "store-17", "merchantId": "mer-bistro"}
    assert client.post("/sandbox/nonces", json=order).json()["transaction"]["merchant"]["id"] == "mer-bistro"
    assert_problem(client.post("/sandbox/nonces", json={**order, "orderStoreId": "store-bistro"}), 404, "NOT_FOUND")

    assert client.delete("/sandbox/stores/store-17").status_code == 204
    assert_problem(client.post("/sandbox/nonces", json=order), 404, "NOT_FOUND")
    assert_problem(client.delete("/sandbox/stores/store-17"), 404, "NOT_FOUND")
    assert_problem(client.put("/sandbox/stores/x", json={"merchantId": "mer-nowhere"}), 404, "NOT_FOUND")
