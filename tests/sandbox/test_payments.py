"""Payments API v5 over loopback: approval (SDK) → nonce → charge → refund once, and every refusal."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import mint_token

SERVICE_SCOPES = "service-api:transaction.read service-api:transaction.submit"


@pytest.fixture
def payments(sandbox: SandboxServer, client: httpx.Client) -> Iterator[httpx.Client]:
    """Client at ``/v5`` with an organization token carrying both service scopes."""
    token = client.post("/sandbox/tokens", json={"organizationId": "org-harbour", "scope": SERVICE_SCOPES}).json()[
        "access_token"
    ]
    with httpx.Client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {token}"}) as http:
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
    with httpx.Client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {read_only}"}) as http:
        assert http.get(f"/nonces/{nonce}").status_code == 200
        refused = http.post("/transactions", json={"nonce": nonce, "submit": True, "total": 2_500, "tax": 227})
        assert (refused.status_code, refused.json()["code"]) == (403, "INSUFFICIENT_SCOPE")
    pos_only = mint_token(client)
    with httpx.Client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {pos_only}"}) as http:
        assert http.get(f"/nonces/{nonce}").status_code == 403
    other = mint_token(client, "mer-bistro", scope=SERVICE_SCOPES)
    with httpx.Client(base_url=f"{sandbox.url}/v5", headers={"Authorization": f"Bearer {other}"}) as http:
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
