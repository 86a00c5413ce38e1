"""Every error of contract section 3 that the POS API produces, as RFC 9457 problem details."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import OTHER_MERCHANT
from tests.helpers.http import http_client
from tests.sandbox.helpers import Shop, assert_problem, check_body, mint_token, running_sandbox

INT32_MAX = 2**31 - 1


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with running_sandbox(tmp_path_factory.mktemp("errors")) as running:
        yield running


@pytest.fixture(scope="module")
def shop(server: SandboxServer) -> Iterator[Shop]:
    with Shop.open(server) as opened:
        yield opened


@pytest.fixture(scope="module")
def bistro(server: SandboxServer) -> Iterator[Shop]:
    with Shop.open(server, OTHER_MERCHANT) as opened:
        yield opened


@pytest.fixture(scope="module")
def customer(shop: Shop) -> dict[str, Any]:
    return shop.customer()


def consistent(
    customer: dict[str, Any],
    items: list[dict[str, Any]],
    discounts: list[dict[str, Any]] | None = None,
    payments: list[dict[str, Any]] | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """A create request whose totals are all computed from its lines; ``overrides`` then break one."""
    item_total = sum(i["amount"] for i in items)
    item_tax = sum(i.get("tax", 0) for i in items)
    discount_total = sum(d["amount"] for d in discounts or [])
    discount_tax = sum(d.get("tax", 0) for d in discounts or [])
    total = item_total + discount_total
    balance = total - sum(p["amount"] for p in payments or [])
    body: dict[str, Any] = {
        "refId": "errors",
        "terminalId": "T1",
        "chargeAmount": balance,
        "itemTotal": item_total,
        "itemTax": item_tax,
        "discountTotal": discount_total,
        "discountTax": discount_tax,
        "total": total,
        "tax": item_tax + discount_tax,
        "balance": balance,
        "customer": {"customerId": customer["customerId"], "checkInId": customer["checkInId"]},
        "items": [{"name": f"item {n}", **item} for n, item in enumerate(items)],
    }
    if discounts is not None:
        body["discounts"] = [{"name": f"discount {n}", **d} for n, d in enumerate(discounts)]
    if payments is not None:
        body["payments"] = [{"method": "cash", **p} for p in payments]
    body.update(overrides)
    return body


def item(amount: int, tax: int = 0, quantity: int = 1) -> dict[str, Any]:
    return {"quantity": quantity, "amount": amount, "tax": tax}


# --- 400 BAD_REQUEST --------------------------------------------------------------------------


def test_body_that_is_not_json_is_a_bad_request(shop: Shop) -> None:
    response = shop.pos.post(
        "/transactions", content=b'{"chargeAmount": 1', headers={"Content-Type": "application/json"}
    )
    assert_problem(response, 400, "BAD_REQUEST")
    response = shop.pos.post("/transactions", content=b"chargeAmount=1", headers={"Content-Type": "text/plain"})
    assert_problem(response, 400, "BAD_REQUEST")
    assert_problem(shop.pos.post("/transactions", json=[1, 2]), 400, "BAD_REQUEST")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"chargeAmount": "1000"}, "chargeAmount"),  # a string for an int
        ({"total": 1000.5}, "total"),
        ({"balance": True}, "balance"),
        ({"items": "coffee"}, "items"),
        ({"refId": 12}, "refId"),
        ({"customer": "cus-ava"}, "customer"),
    ],
)
def test_wrong_types_are_a_bad_request_naming_the_field(
    shop: Shop, customer: dict[str, Any], change: dict[str, Any], field: str
) -> None:
    body = {**check_body(customer), **change}
    assert_problem(shop.pos.post("/transactions", json=body), 400, "BAD_REQUEST", field=field)


def test_integer_inside_a_string_in_an_item_is_a_bad_request(shop: Shop, customer: dict[str, Any]) -> None:
    body = check_body(customer)
    body["items"][0]["quantity"] = "1"
    assert_problem(shop.pos.post("/transactions", json=body), 400, "BAD_REQUEST", field="items[0].quantity")


@pytest.mark.parametrize(
    ("path", "field"),
    [
        (("chargeAmount",), "chargeAmount"),
        (("itemTotal",), "itemTotal"),
        (("total",), "total"),
        (("balance",), "balance"),
        (("items",), "items"),
        (("customer",), "customer"),
        (("customer", "checkInId"), "customer.checkInId"),
        (("customer", "customerId"), "customer.customerId"),
    ],
)
def test_missing_required_field_is_a_bad_request(
    shop: Shop, customer: dict[str, Any], path: tuple[str, ...], field: str
) -> None:
    body = check_body(customer)
    target = body
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    assert_problem(shop.pos.post("/transactions", json=body), 400, "BAD_REQUEST", field=field)


@pytest.mark.parametrize("state", ["authorized", "completed", "cancelled", "COMPLETE", "", None, 1])
def test_state_outside_the_request_enum_is_a_bad_request(shop: Shop, customer: dict[str, Any], state: Any) -> None:
    transaction_id = shop.authorize(customer, 100)
    response = shop.pos.patch(f"/transactions/{transaction_id}", json={"state": state})
    assert_problem(response, 400, "BAD_REQUEST", field="state")
    assert shop.get(transaction_id)["state"] == "authorized"


def test_patch_without_a_json_body_is_a_bad_request(shop: Shop, customer: dict[str, Any]) -> None:
    transaction_id = shop.authorize(customer, 100)
    response = shop.pos.patch(
        f"/transactions/{transaction_id}", content=b"state=complete", headers={"Content-Type": "application/json"}
    )
    assert_problem(response, 400, "BAD_REQUEST")
    assert_problem(shop.pos.patch(f"/transactions/{transaction_id}", json={}), 400, "BAD_REQUEST", field="state")


@pytest.mark.parametrize(
    ("route", "params", "field"),
    [
        ("/transactions", {"to": "2030-01-01T00:00:00Z"}, "from"),
        ("/transactions", {"from": "2020-01-01T00:00:00Z"}, "to"),
        ("/transactions", {}, "from"),
        ("/summary", {"to": "2030-01-01T00:00:00Z"}, "from"),
    ],
)
def test_missing_time_parameters_are_a_bad_request(shop: Shop, route: str, params: dict[str, str], field: str) -> None:
    assert_problem(shop.pos.get(route, params=params), 400, "BAD_REQUEST", field=field)


@pytest.mark.parametrize(
    ("route", "params"),
    [
        ("/transactions", {"from": "yesterday", "to": "2030-01-01T00:00:00Z"}),
        ("/transactions", {"from": "2020-01-01T00:00:00Z", "to": "2030-13-01T00:00:00Z"}),
        ("/summary", {"from": "2020-02-30T00:00:00Z"}),
        ("/summary", {"from": "2020-01-01T00:00:00Z", "to": "soon"}),
        ("/summary", {"from": "2020-01-01T00:00:00Z", "merge": "maybe"}),
    ],
)
def test_bad_time_or_flag_is_a_bad_request(shop: Shop, route: str, params: dict[str, str]) -> None:
    assert_problem(shop.pos.get(route, params=params), 400, "BAD_REQUEST")


@pytest.mark.parametrize(
    "params",
    [
        {"from": "0001-01-01T00:00:00+01:00"},
        {"from": "2020-01-01T00:00:00Z", "to": "9999-12-31T23:59:59-01:00"},
    ],
)
@pytest.mark.parametrize("merge", ["true", "false"])
def test_times_beyond_the_calendar_are_a_bad_request_not_a_crash(
    shop: Shop, params: dict[str, str], merge: str
) -> None:
    """In UTC these instants fall outside the calendar; the summary must not fail writing them back."""
    shop.set_state(shop.authorize(shop.customer(), 100), "complete")
    response = shop.pos.get("/summary", params={**params, "merge": merge})
    assert_problem(response, 400, "BAD_REQUEST")
    listed = shop.pos.get(
        "/transactions", params={"from": "2020-01-01T00:00:00Z", "to": "2030-01-01T00:00:00Z", **params}
    )
    assert_problem(listed, 400, "BAD_REQUEST")


# --- 422 VALIDATION_FAILED: one test per rule of contract section 7 ----------------------------------

RULES: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]], str, bool]] = [
    # id, request builder, field named, whether it is the only error
    (
        "no items",
        lambda c: consistent(c, [], itemTotal=1000, total=1000, balance=1000, chargeAmount=1000),
        "items",
        False,
    ),
    ("quantity below 1", lambda c: consistent(c, [item(500, quantity=0)]), "items[0].quantity", True),
    (
        "quantity above int32",
        lambda c: consistent(c, [item(1000, quantity=2**31)]),
        "items[0].quantity",
        True,
    ),
    ("negative item amount", lambda c: consistent(c, [item(1500), item(-500)]), "items[1].amount", True),
    ("item tax above amount", lambda c: consistent(c, [item(100, tax=101)]), "items[0].tax", True),
    ("negative item tax", lambda c: consistent(c, [item(100, tax=-1)]), "items[0].tax", True),
    ("itemTotal not the sum", lambda c: consistent(c, [item(600), item(400)], itemTotal=1100), "itemTotal", True),
    ("itemTax not the sum", lambda c: consistent(c, [item(600, 60), item(400, 40)], itemTax=90), "itemTax", True),
    ("discount of zero", lambda c: consistent(c, [item(1000)], [{"amount": 0, "tax": 0}]), "discounts[0].amount", True),
    (
        "positive discount",
        lambda c: consistent(c, [item(1000)], [{"amount": 100, "tax": 0}]),
        "discounts[0].amount",
        False,
    ),
    (
        "discount tax below amount",
        lambda c: consistent(c, [item(1000, 100)], [{"amount": -100, "tax": -101}]),
        "discounts[0].tax",
        True,
    ),
    (
        "positive discount tax",
        lambda c: consistent(c, [item(1000, 100)], [{"amount": -100, "tax": 5}]),
        "discounts[0].tax",
        True,
    ),
    (
        "discountTotal not the sum",
        lambda c: consistent(c, [item(1000)], [{"amount": -100}, {"amount": -50}], discountTotal=-100),
        "discountTotal",
        True,
    ),
    (
        "discountTotal absent with discounts",
        lambda c: {k: v for k, v in consistent(c, [item(1000)], [{"amount": -100}]).items() if k != "discountTotal"},
        "discountTotal",
        True,
    ),
    (
        "discountTax not the sum",
        lambda c: consistent(c, [item(1000, 100)], [{"amount": -100, "tax": -10}], discountTax=-9),
        "discountTax",
        True,
    ),
    ("total not itemTotal plus discounts", lambda c: consistent(c, [item(1000)], total=999), "total", True),
    ("negative total", lambda c: consistent(c, [item(100)], [{"amount": -200}]), "total", False),
    ("tax not the sum", lambda c: consistent(c, [item(1000, 90)], [{"amount": -100, "tax": -9}], tax=90), "tax", True),
    ("payment of zero", lambda c: consistent(c, [item(1000)], payments=[{"amount": 0}]), "payments[0].amount", True),
    (
        "negative payment",
        lambda c: consistent(c, [item(1000)], payments=[{"amount": -100}]),
        "payments[0].amount",
        True,
    ),
    ("balance not total", lambda c: consistent(c, [item(1000)], balance=900), "balance", True),
    (
        "balance not total minus payments",
        lambda c: consistent(c, [item(1000)], payments=[{"amount": 300}], balance=1000),
        "balance",
        True,
    ),
    ("chargeAmount not the balance", lambda c: consistent(c, [item(1000)], chargeAmount=900), "chargeAmount", True),
    (
        "check paid in full",
        lambda c: consistent(c, [item(1000)], payments=[{"amount": 1000}]),
        "chargeAmount",
        True,
    ),
    ("pointsEarned above int32", lambda c: consistent(c, [item(1000)], pointsEarned=2**31), "pointsEarned", True),
    (
        "item amount above int32",
        lambda c: consistent(c, [item(2**31)], itemTotal=0, total=0, balance=0, chargeAmount=0),
        "items[0].amount",
        False,
    ),
    ("chargeAmount above int32", lambda c: consistent(c, [item(1000)], chargeAmount=2**31), "chargeAmount", True),
    ("discountTax below int32", lambda c: consistent(c, [item(1000)], discountTax=-(2**31) - 1), "discountTax", False),
    ("refId longer than 64", lambda c: consistent(c, [item(1000)], refId="r" * 65), "refId", True),
    ("terminalId longer than 64", lambda c: consistent(c, [item(1000)], terminalId="t" * 65), "terminalId", True),
]


@pytest.mark.parametrize(("build", "field", "only"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_each_published_rule_is_a_validation_failure_naming_the_field(
    shop: Shop, customer: dict[str, Any], build: Callable[[dict[str, Any]], dict[str, Any]], field: str, only: bool
) -> None:
    funds_before = shop.funds(customer["customerId"])
    response = shop.pos.post("/transactions", json=build(customer))
    problem = assert_problem(response, 422, "VALIDATION_FAILED", field=field)
    if only:
        assert {e["field"] for e in problem["errors"]} == {field}
    assert field in problem["detail"]
    assert shop.funds(customer["customerId"]) == funds_before


def test_the_valid_edges_of_the_rules_are_accepted(shop: Shop, customer: dict[str, Any]) -> None:
    body = consistent(
        customer,
        [item(1000, 1000), item(0), item(500, 0, quantity=5)],
        [{"amount": -100, "tax": -100}, {"amount": -1, "tax": 0}],
        payments=[{"amount": 399}],
        refId="r" * 64,
        terminalId="t" * 64,
        pointsEarned=INT32_MAX,
        unknownField={"ignored": True},
    )
    response = shop.pos.post("/transactions", json=body)
    assert response.status_code == 201, response.text
    record = shop.get(response.headers["location"].rsplit("/", 1)[-1])
    assert record["chargeAmount"] == 1000
    assert record["refId"] == "r" * 64
    assert "unknownField" not in record


def test_several_broken_rules_are_all_named(shop: Shop, customer: dict[str, Any]) -> None:
    body = consistent(customer, [item(1000, 100)], itemTotal=1001, itemTax=101, refId="x" * 65)
    problem = assert_problem(shop.pos.post("/transactions", json=body), 422, "VALIDATION_FAILED")
    assert {e["field"] for e in problem["errors"]} == {"itemTotal", "itemTax", "refId"}
    assert all(e["message"] for e in problem["errors"])


# --- 409 CUSTOMER_NOT_CHECKED_IN -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("customer_id", "check_in_id"),
    [
        ("cus-ethan", "chk-ethan-cafe"),  # never checked in
        ("cus-sofia", "chk-sofia-bistro"),  # checked in at the other merchant
        ("cus-liam", "chk-liam-bistro"),  # checked in here too, but this is the other merchant's check-in
        ("cus-liam", "chk-ava-cafe"),  # somebody else's check-in
        ("cus-nobody", "chk-liam-cafe"),  # no such customer
    ],
)
def test_customer_without_a_live_check_in_here_is_refused(shop: Shop, customer_id: str, check_in_id: str) -> None:
    body = check_body({"customerId": customer_id, "checkInId": check_in_id}, 100, refId="not-checked-in")
    assert_problem(shop.pos.post("/transactions", json=body), 409, "CUSTOMER_NOT_CHECKED_IN")
    assert [r for r in shop.listed() if r["refId"] == "not-checked-in"] == []


def test_checked_out_customer_is_refused(shop: Shop) -> None:
    customer = shop.customer()
    assert shop.control.delete(f"/sandbox/checkins/{customer['checkInId']}").status_code == 204
    assert_problem(shop.pos.post("/transactions", json=check_body(customer, 100)), 409, "CUSTOMER_NOT_CHECKED_IN")
    assert shop.funds(customer["customerId"]) == (100_000, 0)
    again = shop.control.post(
        "/sandbox/checkins", json={"merchantId": "mer-cafe", "customerId": customer["customerId"]}
    ).json()
    assert again["checkInId"] != customer["checkInId"]
    assert_problem(shop.pos.post("/transactions", json=check_body(customer, 100)), 409, "CUSTOMER_NOT_CHECKED_IN")
    assert shop.authorize(again, 100)


# --- 402 PAYMENT_DECLINED -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("customer_id", "check_in_id", "amount", "reason"),
    [
        ("cus-mia", "chk-mia-cafe", 100, "declined"),
        ("cus-owen", "chk-owen-cafe", 100, "insufficient funds"),
        ("cus-noah", "chk-noah-cafe", 1_501, "insufficient funds"),
    ],
)
def test_seeded_customers_who_cannot_pay_are_declined(
    shop: Shop, customer_id: str, check_in_id: str, amount: int, reason: str
) -> None:
    funds_before = shop.funds(customer_id)
    body = check_body({"customerId": customer_id, "checkInId": check_in_id}, amount)
    problem = assert_problem(shop.pos.post("/transactions", json=body), 402, "PAYMENT_DECLINED")
    assert reason in problem["detail"]
    assert shop.funds(customer_id) == funds_before


@pytest.mark.parametrize(("card", "reason"), [("declined", "declined"), ("insufficient_funds", "insufficient funds")])
def test_test_cards_decline_every_charge(shop: Shop, card: str, reason: str) -> None:
    customer = shop.customer(card=card, balance=1_000_000)
    response = shop.pos.post("/transactions", json=check_body(customer, 1, refId=f"card-{card}"))
    problem = assert_problem(response, 402, "PAYMENT_DECLINED")
    assert reason in problem["detail"]
    assert shop.funds(customer["customerId"]) == (1_000_000, 0)
    assert [r for r in shop.listed() if r["refId"] == f"card-{card}"] == []


# --- 404 NOT_FOUND and merchant isolation ---------------------------------------------------------


def test_unknown_transaction_is_not_found(shop: Shop) -> None:
    assert_problem(shop.pos.get("/transactions/00000000-0000-0000-0000-000000000000"), 404, "NOT_FOUND")
    assert_problem(shop.patch("no-such-id", "complete"), 404, "NOT_FOUND")


def test_another_merchant_transaction_is_not_found(shop: Shop, bistro: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 100, refId="cafe-only")
    assert_problem(bistro.pos.get(f"/transactions/{transaction_id}"), 404, "NOT_FOUND")
    for state in ("complete", "canceled", "refunded"):
        assert_problem(bistro.patch(transaction_id, state), 404, "NOT_FOUND")
    assert transaction_id not in {r["transactionId"] for r in bistro.listed()}
    assert shop.get(transaction_id)["state"] == "authorized"
    assert shop.funds(customer["customerId"]) == (99_900, 100)


# --- 401 UNAUTHORIZED -------------------------------------------------------------------------------


def test_no_credential_is_unauthorized(server: SandboxServer) -> None:
    with http_client(base_url=f"{server.url}/v4", timeout=10) as anonymous:
        for response in (
            anonymous.get("/customers"),
            anonymous.get("/transactions", params={"from": "2020-01-01T00:00:00Z", "to": "2030-01-01T00:00:00Z"}),
            anonymous.post("/transactions", json={}),
            anonymous.patch("/transactions/x", json={"state": "complete"}),
            anonymous.get("/summary", params={"from": "2020-01-01T00:00:00Z"}),
            anonymous.get("/customers", headers={"Authorization": "Basic ZGVtbzpkZW1v"}),
        ):
            assert_problem(response, 401, "UNAUTHORIZED")
            assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("header", ["Authorization", "X-Api-Token"])
def test_unknown_token_is_unauthorized(server: SandboxServer, header: str) -> None:
    value = "Bearer not-a-token" if header == "Authorization" else "not-a-token"
    with http_client(base_url=f"{server.url}/v4", headers={header: value}, timeout=10) as bad:
        response = bad.get("/customers")
    assert_problem(response, 401, "UNAUTHORIZED")
    assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'


def test_token_expires_when_the_clock_passes_its_lifetime(make_sandbox: Callable[..., SandboxServer]) -> None:
    with Shop.open(make_sandbox()) as shop:
        ttl = shop.settings()["tokenTtl"]
        minted = shop.control.post("/sandbox/tokens", json={"merchantId": "mer-cafe"}).json()
        assert minted["expires_in"] == ttl
        short = mint_token(shop.control, expiresIn=60)
        with http_client(base_url=f"{shop.server.url}/v4", timeout=10) as http:

            def status(token: str) -> int:
                return http.get("/customers", headers={"Authorization": f"Bearer {token}"}).status_code

            assert status(minted["access_token"]) == 200
            shop.advance(45)
            assert status(short) == 200
            shop.advance(16)
            response = http.get("/customers", headers={"Authorization": f"Bearer {short}"})
            assert_problem(response, 401, "UNAUTHORIZED")
            assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
            assert status(minted["access_token"]) == 200

            shop.advance(ttl)
            response = http.get("/customers", headers={"Authorization": f"Bearer {minted['access_token']}"})
            assert_problem(response, 401, "UNAUTHORIZED")
            assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
            assert shop.pos.get("/customers").status_code == 200  # minted with expiresIn 0: never expires


# --- 403 INSUFFICIENT_SCOPE --------------------------------------------------------------------------


def test_merchant_token_without_posapi_scope_is_refused(shop: Shop, customer: dict[str, Any]) -> None:
    token = mint_token(shop.control, scope="service-api:transaction.read")
    with http_client(
        base_url=f"{shop.server.url}/v4", headers={"Authorization": f"Bearer {token}"}, timeout=10
    ) as reader:
        assert_problem(reader.get("/customers"), 403, "INSUFFICIENT_SCOPE")
        response = reader.post("/transactions", json=check_body(customer, 100, refId="wrong-scope"))
        assert_problem(response, 403, "INSUFFICIENT_SCOPE")
    assert [r for r in shop.listed() if r["refId"] == "wrong-scope"] == []


def test_organization_token_is_refused_by_the_pos_api(shop: Shop) -> None:
    minted = shop.control.post("/sandbox/tokens", json={"organizationId": "org-harbour", "scope": "posapi"})
    assert minted.status_code == 201
    assert minted.json()["resource_owner_type"] == "organization"
    headers = {"Authorization": f"Bearer {minted.json()['access_token']}"}
    with http_client(base_url=f"{shop.server.url}/v4", headers=headers, timeout=10) as organization:
        assert_problem(organization.get("/customers"), 403, "INSUFFICIENT_SCOPE")
        assert_problem(organization.get("/summary", params={"from": "2020-01-01T00:00:00Z"}), 403, "INSUFFICIENT_SCOPE")


# --- 429 RATE_LIMITED ----------------------------------------------------------------------------------


def test_rate_limited_answer_carries_retry_after(shop: Shop) -> None:
    armed = shop.control.post("/sandbox/faults", json={"method": "GET", "path": "/v4/customers", "mode": "rate_limit"})
    assert armed.status_code == 201
    response = shop.pos.get("/customers")
    assert_problem(response, 429, "RATE_LIMITED")
    assert response.headers["retry-after"] == "1"
    assert shop.pos.get("/customers").status_code == 200


@pytest.mark.parametrize(("text", "says"), [("Tart \ud800", "lone surrogate"), ("Bell\x07", "control character")])
def test_text_that_is_not_text_is_refused_naming_the_field(
    shop: Shop, customer: dict[str, Any], text: str, says: str
) -> None:
    """A lone surrogate was stored with 201, and every later list that included it answered 500."""
    body = check_body(customer)
    body["items"][0]["name"] = text
    raw = json.dumps(body).encode()  # "\ud800" travels as its JSON escape, as any client may send it
    refused = shop.pos.post("/transactions", content=raw, headers={"Content-Type": "application/json"})
    problem = assert_problem(refused, 422, "VALIDATION_FAILED", field="items[0].name")
    assert says in problem["detail"]
    listed = shop.pos.get("/transactions", params={"from": "2000-01-01T00:00:00Z", "to": "2100-01-01T00:00:00Z"})
    assert listed.status_code == 200
