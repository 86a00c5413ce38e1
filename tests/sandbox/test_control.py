"""The sandbox control surface of contract section 8 (everything under /sandbox except faults)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import DEMO_MERCHANT, OTHER_MERCHANT
from tests.sandbox.helpers import Shop, assert_problem, check_body, ledger, parse, running_sandbox

POS_CUSTOMER_KEYS = {
    "customerId", "firstName", "lastName", "gender", "dob", "memberNo", "checkInId", "checkInNumber",
    "checkInDate", "notes",
}  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with running_sandbox(tmp_path_factory.mktemp("control")) as running:
        yield running


@pytest.fixture(scope="module")
def shop(server: SandboxServer) -> Iterator[Shop]:
    with Shop.open(server) as opened:
        yield opened


@pytest.fixture(scope="module")
def control(shop: Shop) -> httpx.Client:
    return shop.control


def new_customer(control: httpx.Client, **fields: Any) -> dict[str, Any]:
    response = control.post("/sandbox/customers", json={"firstName": "Kim", "lastName": "Lee", **fields})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


# --- merchants and customers ---------------------------------------------------------------------


def test_merchants_of_the_demo_organization(control: httpx.Client) -> None:
    response = control.get("/sandbox/merchants")
    assert response.status_code == 200
    merchants = {m["id"]: m for m in response.json()}
    assert set(merchants) == {DEMO_MERCHANT, OTHER_MERCHANT}
    for merchant in merchants.values():
        assert {"id", "name", "organizationId"} <= set(merchant)
        assert merchant["organizationId"] == "org-harbour"
        assert merchant["name"]


def test_create_and_get_a_customer(control: httpx.Client) -> None:
    created = new_customer(control, memberNo="M-9", balance=12_345, card="declined")
    assert created["firstName"] == "Kim"
    assert created["lastName"] == "Lee"
    assert created["memberNo"] == "M-9"
    assert created["balance"] == 12_345
    assert created["card"] == "declined"
    assert created["held"] == 0
    assert created["customerId"]
    fetched = control.get(f"/sandbox/customers/{created['customerId']}")
    assert fetched.status_code == 200
    assert fetched.json() == created


def test_customer_defaults(control: httpx.Client) -> None:
    created = new_customer(control)
    assert created["card"] == "ok"
    assert created["memberNo"] is None
    assert created["balance"] == 100_000
    other = new_customer(control)
    assert other["customerId"] != created["customerId"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"lastName": "Lee"}, "firstName"),
        ({"firstName": "", "lastName": "Lee"}, "firstName"),
        ({"firstName": "Kim", "lastName": "Lee", "card": "stolen"}, "card"),
        ({"firstName": "Kim", "lastName": "Lee", "balance": -1}, "balance"),
        ({"firstName": "Kim", "lastName": "Lee", "balance": "100"}, "balance"),
        ({"firstName": "Kim", "lastName": "Lee", "balance": 2**31}, "balance"),
        ({"firstName": "Kim", "lastName": "Lee", "colour": "blue"}, "colour"),
    ],
)
def test_bad_customer_is_a_bad_request(control: httpx.Client, body: dict[str, Any], field: str) -> None:
    assert_problem(control.post("/sandbox/customers", json=body), 400, "BAD_REQUEST", field=field)


def test_unknown_customer_is_not_found(control: httpx.Client) -> None:
    assert_problem(control.get("/sandbox/customers/cus-nobody"), 404, "NOT_FOUND")
    assert_problem(control.get("/sandbox/customers/cus-nobody/ledger"), 404, "NOT_FOUND")


def test_ledger_records_every_movement_with_the_balance_after(shop: Shop) -> None:
    customer = shop.customer(balance=5_000)
    cid = customer["customerId"]
    assert [(e["kind"], e["amount"], e["balanceAfter"]) for e in ledger(shop.control, cid)] == [("topup", 5_000, 5_000)]
    completed = shop.authorize(customer, 1_000)
    shop.set_state(completed, "complete")
    canceled = shop.authorize(customer, 300)
    shop.set_state(canceled, "canceled")
    shop.set_state(completed, "refunded")
    entries = ledger(shop.control, cid)
    assert [(e["kind"], e["amount"], e["balanceAfter"], e["reference"]) for e in entries] == [
        ("topup", 5_000, 5_000, "sandbox"),
        ("reserve", 1_000, 4_000, completed),
        ("charge", 1_000, 4_000, completed),
        ("reserve", 300, 3_700, canceled),
        ("release", 300, 4_000, canceled),
        ("refund", 1_000, 5_000, completed),
    ]
    times = [parse(e["at"]) for e in entries]
    assert times == sorted(times)


# --- check-ins ----------------------------------------------------------------------------------


def test_check_in_returns_the_pos_customer_and_is_idempotent(shop: Shop) -> None:
    control = shop.control
    customer = new_customer(control, memberNo="M-3", gender="other", notes="window seat")
    now = shop.now()
    response = control.post(
        "/sandbox/checkins", json={"merchantId": DEMO_MERCHANT, "customerId": customer["customerId"]}
    )
    assert response.status_code == 201
    pos_customer = response.json()
    assert set(pos_customer) == POS_CUSTOMER_KEYS
    assert pos_customer["customerId"] == customer["customerId"]
    assert pos_customer["memberNo"] == "M-3"
    assert pos_customer["gender"] == "other"
    assert pos_customer["notes"] == "window seat"
    assert pos_customer["checkInNumber"]
    assert abs(parse(pos_customer["checkInDate"]) - now) < timedelta(seconds=5)

    again = control.post("/sandbox/checkins", json={"merchantId": DEMO_MERCHANT, "customerId": customer["customerId"]})
    assert again.json()["checkInId"] == pos_customer["checkInId"]
    elsewhere = control.post(
        "/sandbox/checkins", json={"merchantId": OTHER_MERCHANT, "customerId": customer["customerId"]}
    ).json()
    assert elsewhere["checkInId"] != pos_customer["checkInId"]
    live = [c for c in shop.pos.get("/customers").json() if c["customerId"] == customer["customerId"]]
    assert [c["checkInId"] for c in live] == [pos_customer["checkInId"]]


def test_check_in_numbers_are_unique_at_a_merchant(shop: Shop) -> None:
    """The cashier picks a customer by number: no two live check-ins at one merchant may share one."""
    fresh = [shop.customer() for _ in range(3)]
    live = shop.pos.get("/customers").json()
    numbers = [c["checkInNumber"] for c in live]
    assert len(numbers) == len(set(numbers)), sorted(numbers)
    assert {c["checkInId"] for c in fresh} <= {c["checkInId"] for c in live}


def test_check_in_errors(control: httpx.Client) -> None:
    customer = new_customer(control)
    cid = customer["customerId"]
    assert_problem(
        control.post("/sandbox/checkins", json={"merchantId": "mer-nowhere", "customerId": cid}), 404, "NOT_FOUND"
    )
    missing = control.post("/sandbox/checkins", json={"merchantId": DEMO_MERCHANT, "customerId": "cus-nobody"})
    assert_problem(missing, 404, "NOT_FOUND")
    assert_problem(
        control.post("/sandbox/checkins", json={"merchantId": DEMO_MERCHANT}), 400, "BAD_REQUEST", field="customerId"
    )


def test_check_out_once(shop: Shop) -> None:
    customer = shop.customer()
    assert shop.control.delete(f"/sandbox/checkins/{customer['checkInId']}").status_code == 204
    assert_problem(shop.control.delete(f"/sandbox/checkins/{customer['checkInId']}"), 404, "NOT_FOUND")
    assert_problem(shop.control.delete("/sandbox/checkins/chk-nowhere"), 404, "NOT_FOUND")


def test_check_out_through_the_method_override(shop: Shop) -> None:
    customer = shop.customer()
    response = shop.control.post(
        f"/sandbox/checkins/{customer['checkInId']}", headers={"X-HTTP-Method-Override": "DELETE"}
    )
    assert response.status_code == 204
    assert customer["checkInId"] not in {c["checkInId"] for c in shop.pos.get("/customers").json()}


def test_check_out_keeps_an_authorized_transaction_alive(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    assert shop.control.delete(f"/sandbox/checkins/{customer['checkInId']}").status_code == 204
    assert shop.set_state(transaction_id, "complete")["state"] == "complete"


# --- tokens -------------------------------------------------------------------------------------


def test_minted_token_response(shop: Shop) -> None:
    control = shop.control
    ttl = shop.settings()["tokenTtl"]
    default = control.post("/sandbox/tokens", json={"merchantId": DEMO_MERCHANT})
    assert default.status_code == 201
    assert default.json().keys() == {"access_token", "token_type", "expires_in", "scope", "resource_owner_type"}
    assert default.json()["token_type"] == "bearer"
    assert default.json()["scope"] == "posapi"
    assert default.json()["resource_owner_type"] == "merchant"
    assert default.json()["expires_in"] == ttl

    forever = control.post("/sandbox/tokens", json={"merchantId": DEMO_MERCHANT, "expiresIn": 0}).json()
    assert "expires_in" not in forever
    short = control.post("/sandbox/tokens", json={"merchantId": DEMO_MERCHANT, "expiresIn": 120}).json()
    assert short["expires_in"] == 120
    with_refresh = control.post("/sandbox/tokens", json={"merchantId": DEMO_MERCHANT, "refresh": True}).json()
    assert with_refresh["refresh_token"]
    assert len({default.json()["access_token"], forever["access_token"], short["access_token"]}) == 3

    scopes = "service-api:transaction.read  service-api:transaction.submit"
    organization = control.post("/sandbox/tokens", json={"organizationId": "org-harbour", "scope": scopes}).json()
    assert organization["scope"] == "service-api:transaction.read service-api:transaction.submit"
    assert organization["resource_owner_type"] == "organization"

    for token in (default.json()["access_token"], forever["access_token"], short["access_token"]):
        answer = shop.pos.get("/customers", headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"merchantId": DEMO_MERCHANT, "organizationId": "org-harbour"}, 400, "BAD_REQUEST"),
        ({}, 400, "BAD_REQUEST"),
        ({"merchantId": DEMO_MERCHANT, "scope": "admin"}, 400, "BAD_REQUEST"),
        ({"merchantId": DEMO_MERCHANT, "scope": "  "}, 400, "BAD_REQUEST"),
        ({"merchantId": DEMO_MERCHANT, "expiresIn": -1}, 400, "BAD_REQUEST"),
        ({"merchantId": DEMO_MERCHANT, "expiresIn": "60"}, 400, "BAD_REQUEST"),
        ({"merchantId": "mer-nowhere"}, 404, "NOT_FOUND"),
        ({"organizationId": "org-nowhere"}, 404, "NOT_FOUND"),
    ],
)
def test_token_minting_errors(control: httpx.Client, body: dict[str, Any], status: int, code: str) -> None:
    assert_problem(control.post("/sandbox/tokens", json=body), status, code)


# --- device codes (approving a real pending code is tested with the device flow) ------------------


@pytest.mark.parametrize("route", ["/sandbox/device/approve", "/sandbox/device/deny"])
def test_device_actions_on_unknown_codes_are_not_found(control: httpx.Client, route: str) -> None:
    assert_problem(control.post(route, json={"userCode": "ABCD-EFGH"}), 404, "NOT_FOUND")
    assert_problem(control.post(route, json={}), 400, "BAD_REQUEST", field="userCode")


def test_device_approve_for_unknown_merchant_is_not_found(control: httpx.Client) -> None:
    response = control.post("/sandbox/device/approve", json={"userCode": "ABCD-EFGH", "merchantId": "mer-nowhere"})
    assert_problem(response, 404, "NOT_FOUND")


# --- clock -----------------------------------------------------------------------------------------


def test_clock_moves_forward_only(shop: Shop) -> None:
    control = shop.control
    before = control.get("/sandbox/clock")
    assert before.status_code == 200
    assert set(before.json()) == {"now", "offsetSeconds"}
    moved = shop.advance(90.5)
    assert moved["offsetSeconds"] == pytest.approx(before.json()["offsetSeconds"] + 90.5)
    gap = parse(moved["now"]) - parse(before.json()["now"])
    assert timedelta(seconds=90.5) <= gap < timedelta(seconds=95)
    assert control.get("/sandbox/clock").json()["offsetSeconds"] == moved["offsetSeconds"]

    assert_problem(
        control.post("/sandbox/clock", json={"advanceSeconds": -1}), 400, "BAD_REQUEST", field="advanceSeconds"
    )
    assert_problem(control.post("/sandbox/clock", json={"advanceSeconds": "x"}), 400, "BAD_REQUEST")
    assert_problem(control.post("/sandbox/clock", json={}), 400, "BAD_REQUEST")
    assert control.get("/sandbox/clock").json()["offsetSeconds"] == moved["offsetSeconds"]


def test_clock_drives_the_times_the_api_writes(shop: Shop) -> None:
    shop.advance(3 * 86_400)
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 100)
    created = parse(shop.get(transaction_id)["created"])
    assert abs(created - shop.now()) < timedelta(seconds=5)
    assert abs(parse(customer["checkInDate"]) - shop.now()) < timedelta(seconds=5)


def test_every_answer_is_dated_by_the_sandbox_clock(shop: Shop) -> None:
    from email.utils import parsedate_to_datetime

    shop.advance(2 * 3600)
    for response in (shop.control.get("/sandbox/clock"), shop.control.get("/v4/customers"), shop.control.get("/x")):
        dated = response.headers.get_list("date")
        assert len(dated) == 1, response.headers
        assert abs(parsedate_to_datetime(dated[0]) - shop.now()) < timedelta(seconds=5), dated


# --- settings ---------------------------------------------------------------------------------------


def test_settings_defaults(make_sandbox: Callable[..., SandboxServer]) -> None:
    with Shop.open(make_sandbox()) as shop:
        assert shop.settings() == {
            "autoCancelSeconds": 300,
            "tokenTtl": 3600,
            "deviceInterval": 5,
            "deviceExpiresIn": 600,
            "location": True,
            "feeBasisPoints": 150,
            "loyaltyPercent": 5,
            "rotateRefreshTokens": False,
        }


def test_settings_patch_applies_at_run_time(make_sandbox: Callable[..., SandboxServer]) -> None:
    with Shop.open(make_sandbox()) as shop:
        patched = shop.control.patch("/sandbox/settings", json={"location": False, "tokenTtl": 120})
        assert patched.status_code == 200
        assert patched.json()["location"] is False
        assert patched.json()["tokenTtl"] == 120
        assert shop.settings() == patched.json()
        assert patched.json()["feeBasisPoints"] == 150  # untouched

        customer = shop.customer()
        created = shop.pos.post("/transactions", json=check_body(customer, 100))
        assert created.status_code == 201
        assert "location" not in created.headers
        minted = shop.control.post("/sandbox/tokens", json={"merchantId": DEMO_MERCHANT}).json()
        assert minted["expires_in"] == 120

        shop.control.patch("/sandbox/settings", json={"location": True})
        created = shop.pos.post("/transactions", json=check_body(customer, 100))
        assert "location" in created.headers


@pytest.mark.parametrize(
    "body",
    [
        {"feeBasisPoints": 10_001},
        {"feeBasisPoints": -1},
        {"autoCancelSeconds": 0},
        {"loyaltyPercent": 101},
        {"tokenTtl": "60"},
        {"dbPath": "/tmp/elsewhere.sqlite3"},
    ],
)
def test_bad_settings_patch_changes_nothing(control: httpx.Client, body: dict[str, Any]) -> None:
    before = control.get("/sandbox/settings").json()
    assert_problem(control.patch("/sandbox/settings", json=body), 400, "BAD_REQUEST")
    assert control.get("/sandbox/settings").json() == before


# --- tips and the any-merchant peek ----------------------------------------------------------------------


def test_tip_rules(shop: Shop) -> None:
    customer = shop.customer(balance=2_000)
    transaction_id = shop.authorize(customer, 1_000)
    assert_problem(shop.tip(transaction_id, 1_001), 402, "PAYMENT_DECLINED")
    assert_problem(
        shop.control.post(f"/sandbox/transactions/{transaction_id}/tip", json={"tipAmount": "5"}), 400, "BAD_REQUEST"
    )
    assert_problem(shop.control.post(f"/sandbox/transactions/{transaction_id}/tip", json={}), 400, "BAD_REQUEST")
    assert shop.funds(customer["customerId"]) == (1_000, 1_000)

    assert shop.tip(transaction_id, 1_000).json()["tipAmount"] == 1_000
    assert shop.tip(transaction_id, 1_000).json()["tipAmount"] == 1_000  # same tip again: nothing more reserved
    assert shop.funds(customer["customerId"]) == (0, 2_000)
    assert shop.tip(transaction_id, 0).json()["tipAmount"] == 0
    assert shop.funds(customer["customerId"]) == (1_000, 1_000)

    shop.set_state(transaction_id, "canceled")
    assert_problem(shop.tip(transaction_id, 10), 409, "INVALID_STATE_TRANSITION")
    assert shop.funds(customer["customerId"]) == (2_000, 0)


def test_peek_reads_any_merchant_transaction(shop: Shop) -> None:
    transaction_id = shop.authorize(shop.customer(), 100)
    peek = shop.control.get(f"/sandbox/transactions/{transaction_id}")
    assert peek.status_code == 200
    assert peek.json() == shop.get(transaction_id)
    assert_problem(shop.control.get("/sandbox/transactions/nope"), 404, "NOT_FOUND")
