"""The POS transaction state table (3.1 and contract section 2) and the money it moves.

Every allowed transition, every repeat (no effect on balance or ledger), every
refused one; automatic cancellation driven by the sandbox clock; loyalty,
fees and tips (contract section 6).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from pos_terminal.sandbox import SandboxServer
from tests.sandbox.helpers import Shop, assert_problem, check_body, parse, running_sandbox

START = 100_000  # balance of every fresh test customer

# how to bring a fresh authorized transaction into each state
PATHS: dict[str, list[str]] = {
    "authorized": [],
    "complete": ["complete"],
    "canceled": ["canceled"],
    "refunded": ["complete", "refunded"],
}
REFUSED = [
    ("authorized", "refunded"),
    ("complete", "canceled"),
    ("canceled", "complete"),
    ("canceled", "refunded"),
    ("refunded", "complete"),
    ("refunded", "canceled"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with running_sandbox(tmp_path_factory.mktemp("states")) as running:
        yield running


@pytest.fixture(scope="module")
def shop(server: SandboxServer) -> Iterator[Shop]:
    with Shop.open(server) as opened:
        yield opened


def half_up(value: Decimal) -> int:
    return int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def expected_fee(shop: Shop, charged: int) -> int:
    return half_up(Decimal(charged) * shop.settings()["feeBasisPoints"] / 10_000)


# --- allowed transitions and the money ---------------------------------------------------------


def test_create_reserves_the_funds(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    assert shop.funds(customer["customerId"]) == (START - 1_000, 1_000)
    assert shop.ledger_for(customer["customerId"], transaction_id) == [("reserve", 1_000)]


def test_complete_charges_the_reserved_funds(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    created = shop.get(transaction_id)
    shop.advance(5)
    record = shop.set_state(transaction_id, "complete")
    assert record["completed"] is not None
    assert parse(record["completed"]) - parse(created["created"]) >= timedelta(seconds=5)
    assert record["updated"] == record["completed"]
    assert shop.funds(customer["customerId"]) == (START - 1_000, 0)
    assert shop.ledger_for(customer["customerId"], transaction_id) == [("reserve", 1_000), ("charge", 1_000)]


def test_cancel_returns_the_reserved_funds(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    record = shop.set_state(transaction_id, "canceled")
    assert record["completed"] is None
    assert shop.funds(customer["customerId"]) == (START, 0)
    assert shop.ledger_for(customer["customerId"], transaction_id) == [("reserve", 1_000), ("release", 1_000)]


def test_refund_returns_the_charge_and_keeps_completed(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    completed = shop.set_state(transaction_id, "complete")["completed"]
    shop.advance(1)
    record = shop.set_state(transaction_id, "refunded")
    assert record["completed"] == completed
    assert parse(record["updated"]) > parse(completed)
    assert shop.funds(customer["customerId"]) == (START, 0)
    assert shop.ledger_for(customer["customerId"], transaction_id) == [
        ("reserve", 1_000),
        ("charge", 1_000),
        ("refund", 1_000),
    ]


# --- repeats: success, no effect -----------------------------------------------------------------


@pytest.mark.parametrize("state", ["complete", "canceled", "refunded"])
def test_repeating_the_current_state_succeeds_with_no_effect(shop: Shop, state: str) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    for step in PATHS[state]:
        shop.set_state(transaction_id, step)
    before = shop.get(transaction_id)
    funds_before = shop.funds(customer["customerId"])
    ledger_before = shop.ledger_for(customer["customerId"], transaction_id)
    shop.advance(1)

    for _ in range(2):
        repeated = shop.set_state(transaction_id, state)
        assert repeated == before  # nothing changed, not even `updated`

    assert shop.funds(customer["customerId"]) == funds_before
    assert shop.ledger_for(customer["customerId"], transaction_id) == ledger_before
    kind = {"complete": "charge", "canceled": "release", "refunded": "refund"}[state]
    assert [k for k, _ in ledger_before].count(kind) == 1


# --- refused transitions ------------------------------------------------------------------------


@pytest.mark.parametrize(("current", "wanted"), REFUSED)
def test_transitions_outside_the_table_are_refused(shop: Shop, current: str, wanted: str) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    for step in PATHS[current]:
        shop.set_state(transaction_id, step)
    before = shop.get(transaction_id)
    funds_before = shop.funds(customer["customerId"])
    ledger_before = shop.ledger_for(customer["customerId"], transaction_id)

    problem = assert_problem(shop.patch(transaction_id, wanted), 409, "INVALID_STATE_TRANSITION")
    assert current in problem["detail"]
    assert wanted in problem["detail"]

    assert shop.get(transaction_id) == before
    assert shop.funds(customer["customerId"]) == funds_before
    assert shop.ledger_for(customer["customerId"], transaction_id) == ledger_before


# --- automatic cancellation ---------------------------------------------------------------------


def test_authorized_is_canceled_automatically_when_the_clock_passes_the_interval(shop: Shop) -> None:
    seconds = shop.settings()["autoCancelSeconds"]
    assert seconds == 300  # the contract's sandbox default
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    done = shop.authorize(shop.customer(), 500)
    shop.set_state(done, "complete")
    created = parse(shop.get(transaction_id)["created"])

    shop.advance(seconds - 15)
    assert shop.get(transaction_id)["state"] == "authorized"
    assert shop.funds(customer["customerId"]) == (START - 1_000, 1_000)

    shop.advance(16)
    record = shop.get(transaction_id)
    assert record["state"] == "canceled"
    assert parse(record["updated"]) == created + timedelta(seconds=seconds)
    assert shop.funds(customer["customerId"]) == (START, 0)
    assert shop.ledger_for(customer["customerId"], transaction_id) == [("reserve", 1_000), ("release", 1_000)]
    assert shop.get(done)["state"] == "complete"  # only authorized ones are canceled

    assert_problem(shop.patch(transaction_id, "complete"), 409, "INVALID_STATE_TRANSITION")
    assert shop.set_state(transaction_id, "canceled") == record
    assert shop.funds(customer["customerId"]) == (START, 0)


def test_auto_cancel_interval_set_at_start(make_sandbox: Callable[..., SandboxServer]) -> None:
    with Shop.open(make_sandbox(auto_cancel_seconds=30)) as shop:
        assert shop.settings()["autoCancelSeconds"] == 30
        customer = shop.customer()
        transaction_id = shop.authorize(customer, 2_000)
        shop.advance(20)
        assert shop.get(transaction_id)["state"] == "authorized"
        shop.advance(11)
        assert shop.get(transaction_id)["state"] == "canceled"
        assert shop.funds(customer["customerId"]) == (START, 0)


def test_auto_cancel_interval_changed_at_run_time(make_sandbox: Callable[..., SandboxServer]) -> None:
    with Shop.open(make_sandbox()) as shop:
        patched = shop.control.patch("/sandbox/settings", json={"autoCancelSeconds": 10})
        assert patched.status_code == 200
        customer = shop.customer()
        transaction_id = shop.authorize(customer, 2_000)
        listed_before = shop.listed()
        assert [r["state"] for r in listed_before] == ["authorized"]
        shop.advance(11)
        assert [r["state"] for r in shop.listed()] == ["canceled"]
        assert shop.funds(customer["customerId"]) == (START, 0)
        assert shop.ledger_for(customer["customerId"], transaction_id)[-1] == ("release", 2_000)


def test_auto_cancel_returns_a_tip_too(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    assert shop.tip(transaction_id, 150).status_code == 200
    assert shop.funds(customer["customerId"]) == (START - 1_150, 1_150)
    shop.advance(shop.settings()["autoCancelSeconds"] + 1)
    assert shop.get(transaction_id)["state"] == "canceled"
    assert shop.funds(customer["customerId"]) == (START, 0)


# --- loyalty and fees ------------------------------------------------------------------------------


@pytest.mark.parametrize("amount", [2_000, 1_999, 1_010])
def test_members_get_the_loyalty_benefit(shop: Shop, amount: int) -> None:
    percent = shop.settings()["loyaltyPercent"]
    assert percent > 0
    customer = shop.customer(memberNo="M-42")
    transaction_id = shop.authorize(customer, amount)
    record = shop.get(transaction_id)

    benefit = half_up(Decimal(amount) * percent / 100)
    assert record["chargeAmount"] == amount
    assert record["chargedAmount"] == amount - benefit
    assert record["modifiedAmount"] == record["chargedAmount"] - record["chargeAmount"] == -benefit
    assert sum(m["amount"] for m in record["modifiers"]) == -benefit
    for modifier in record["modifiers"]:
        assert set(modifier) == {"name", "amount", "tax"}
        assert modifier["amount"] <= modifier["tax"] <= 0  # tax included in the (negative) amount
    assert record["feeAmount"] == expected_fee(shop, record["chargedAmount"])

    charged = record["chargedAmount"]
    assert shop.funds(customer["customerId"]) == (START - charged, charged)
    shop.set_state(transaction_id, "complete")
    assert shop.funds(customer["customerId"]) == (START - charged, 0)
    assert shop.ledger_for(customer["customerId"], transaction_id) == [("reserve", charged), ("charge", charged)]


def member_check(customer: dict[str, Any], *, item_tax: int, discount_tax: int, send_tax: bool) -> dict[str, Any]:
    """A member's 10.00 item with a 5.00 discount; ``tax`` sent or left out."""
    body = check_body(
        customer,
        500,
        itemTotal=1_000,
        itemTax=item_tax,
        discountTotal=-500,
        discountTax=discount_tax,
        total=500,
        tax=item_tax + discount_tax,
        items=[{"name": "Platter", "quantity": 1, "amount": 1_000, "tax": item_tax}],
        discounts=[{"name": "Half off", "amount": -500, "tax": discount_tax}],
    )
    if not send_tax:
        del body["tax"]
    return body


def test_loyalty_tax_share_is_the_same_whether_tax_is_sent_or_not(shop: Shop) -> None:
    """Without ``tax`` the check's tax is itemTax + discountTax (contract section 7), not the item tax alone."""
    customer = shop.customer(memberNo="M-21")
    sent = shop.get(shop.create(member_check(customer, item_tax=100, discount_tax=-50, send_tax=True)))
    left_out = shop.get(shop.create(member_check(customer, item_tax=100, discount_tax=-50, send_tax=False)))
    assert sent["modifiers"] == left_out["modifiers"]
    assert sent["modifiers"][0]["amount"] == -25
    assert sent["modifiers"][0]["tax"] == -3  # 25 x 50 / 500 = 2.5, rounded half up


@pytest.mark.parametrize("send_tax", [True, False])
def test_loyalty_tax_share_never_exceeds_the_benefit(shop: Shop, send_tax: bool) -> None:
    """A check whose tax exceeds its total (an untaxed discount on a fully taxed item) is valid."""
    customer = shop.customer(memberNo="M-22")
    body = member_check(customer, item_tax=1_000, discount_tax=0, send_tax=send_tax)
    record = shop.get(shop.create(body))
    [modifier] = record["modifiers"]
    assert modifier["amount"] == -25
    assert modifier["amount"] <= modifier["tax"] <= 0


def test_non_members_get_no_benefit(shop: Shop) -> None:
    record = shop.get(shop.authorize(shop.customer(), 2_000))
    assert record["modifiers"] == []
    assert record["chargedAmount"] == record["chargeAmount"] == 2_000
    assert record["modifiedAmount"] == 0


@pytest.mark.parametrize("amount", [1_000, 1_033, 1_034, 99])
def test_fee_follows_the_published_rate(shop: Shop, amount: int) -> None:
    record = shop.get(shop.authorize(shop.customer(), amount))
    assert record["feeAmount"] == expected_fee(shop, amount)
    assert shop.settings()["feeBasisPoints"] > 0
    assert amount < 100 or record["feeAmount"] > 0


def test_settings_change_the_fee_rate_and_the_loyalty_benefit(make_sandbox: Callable[..., SandboxServer]) -> None:
    with Shop.open(make_sandbox()) as shop:
        patched = shop.control.patch("/sandbox/settings", json={"feeBasisPoints": 275, "loyaltyPercent": 0})
        assert patched.json()["feeBasisPoints"] == 275
        record = shop.get(shop.authorize(shop.customer(memberNo="M-7"), 4_000))
        assert record["feeAmount"] == 110  # 2.75 % of 40.00
        assert record["modifiers"] == []
        assert record["chargedAmount"] == 4_000


# --- tips ----------------------------------------------------------------------------------------------


def test_tip_is_reserved_charged_and_refunded_with_the_transaction(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 1_000)
    tipped = shop.tip(transaction_id, 200)
    assert tipped.status_code == 200
    assert tipped.json()["tipAmount"] == 200
    assert tipped.json()["state"] == "authorized"
    assert tipped.json()["feeAmount"] == expected_fee(shop, 1_200)
    assert shop.funds(customer["customerId"]) == (START - 1_200, 1_200)

    lowered = shop.tip(transaction_id, 150)  # the customer changes their mind
    assert lowered.json()["tipAmount"] == 150
    assert shop.funds(customer["customerId"]) == (START - 1_150, 1_150)

    record = shop.set_state(transaction_id, "complete")
    assert record["tipAmount"] == 150
    assert record["chargedAmount"] == 1_000
    assert shop.funds(customer["customerId"]) == (START - 1_150, 0)
    shop.set_state(transaction_id, "refunded")
    assert shop.funds(customer["customerId"]) == (START, 0)
    assert shop.ledger_for(customer["customerId"], transaction_id) == [
        ("reserve", 1_000),
        ("reserve", 200),
        ("release", 50),
        ("charge", 1_150),
        ("refund", 1_150),
    ]


def test_tip_only_while_authorized_and_only_within_the_balance(shop: Shop) -> None:
    customer = shop.customer(balance=5_000)
    transaction_id = shop.authorize(customer, 1_000)
    assert_problem(shop.tip(transaction_id, 4_001), 402, "PAYMENT_DECLINED")
    assert shop.funds(customer["customerId"]) == (4_000, 1_000)
    assert shop.tip(transaction_id, 4_000).status_code == 200
    assert shop.funds(customer["customerId"]) == (0, 5_000)

    shop.set_state(transaction_id, "complete")
    assert_problem(shop.tip(transaction_id, 10), 409, "INVALID_STATE_TRANSITION")
    assert_problem(shop.tip("no-such-transaction", 10), 404, "NOT_FOUND")
    assert_problem(shop.tip(transaction_id, -1), 400, "BAD_REQUEST", field="tipAmount")


def test_create_is_declined_when_the_balance_is_below_the_charge(shop: Shop) -> None:
    customer = shop.customer(balance=999)
    response = shop.pos.post("/transactions", json=check_body(customer, 1_000))
    assert_problem(response, 402, "PAYMENT_DECLINED")
    assert shop.funds(customer["customerId"]) == (999, 0)
    exact = shop.authorize(customer, 999)
    assert shop.funds(customer["customerId"]) == (0, 999)
    assert shop.get(exact)["state"] == "authorized"
