"""Property tests of contract section 7: random valid checks are accepted; one broken rule names its field.

The checks are generated here from the contract, independently of the
terminal's check builder, so the sandbox's rules are tested on their own.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.sandbox.helpers import Shop, assert_problem, running_sandbox

TEXT = st.characters(exclude_categories=("Cs", "Cc"))  # text, as the sandbox takes it: no surrogates, no controls

INT32_MAX = 2**31 - 1
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shop]:
    with running_sandbox(tmp_path_factory.mktemp("properties")) as server, Shop.open(server) as opened:
        yield opened


@pytest.fixture(scope="module")
def customer(shop: Shop) -> dict[str, Any]:
    return shop.customer(balance=2_000_000_000)


@st.composite
def valid_checks(draw: st.DrawFn) -> dict[str, Any]:
    """A create request (2.6) obeying every rule of contract section 7, without the customer."""
    items = []
    for n in range(draw(st.integers(1, 6))):
        quantity = draw(st.integers(1, 5))
        amount = quantity * draw(st.integers(0, 200_000))
        items.append(
            {
                "id": f"sku-{n}",
                "name": f"Item {n}",
                "quantity": quantity,
                "amount": amount,
                "tax": draw(st.integers(0, amount)),
            }
        )
    if sum(i["amount"] for i in items) < 2:
        items[0].update(quantity=1, amount=items[0]["amount"] + 2)
    item_total = sum(i["amount"] for i in items)
    item_tax = sum(i["tax"] for i in items)
    discounts = []
    room = item_total - 2  # keep total >= 2 so one cent can be paid and one charged
    for n in range(draw(st.integers(0, 3))):
        if room < 1:
            break
        amount = -draw(st.integers(1, min(room, 50_000)))
        room += amount
        discounts.append(
            {"id": f"d-{n}", "name": f"Discount {n}", "amount": amount, "tax": draw(st.integers(amount, 0))}
        )
    total = item_total + sum(d["amount"] for d in discounts)
    payments = []
    left = total - 1
    for _ in range(draw(st.integers(0, 3))):
        if left < 1:
            break
        paid = draw(st.integers(1, left))
        left -= paid
        payments.append({"method": draw(st.sampled_from(["cash", "voucher", "card"])), "amount": paid})
    balance = total - sum(p["amount"] for p in payments)
    body: dict[str, Any] = {
        "refId": draw(st.text(TEXT, min_size=1, max_size=64)),
        "terminalId": draw(st.none() | st.text(TEXT, max_size=64)),
        "chargeAmount": balance,
        "itemTotal": item_total,
        "total": total,
        "balance": balance,
        "items": items,
    }
    if draw(st.booleans()):
        body["itemTax"] = item_tax
        body["tax"] = item_tax + sum(d["tax"] for d in discounts)
    if discounts or draw(st.booleans()):
        body["discounts"] = discounts
        body["discountTotal"] = sum(d["amount"] for d in discounts)
        body["discountTax"] = sum(d["tax"] for d in discounts)
    if payments or draw(st.booleans()):
        body["payments"] = payments
    return body


def with_customer(body: dict[str, Any], customer: dict[str, Any]) -> dict[str, Any]:
    return {**body, "customer": {"customerId": customer["customerId"], "checkInId": customer["checkInId"]}}


@SETTINGS
@given(body=valid_checks())
def test_any_valid_check_is_accepted(shop: Shop, customer: dict[str, Any], body: dict[str, Any]) -> None:
    response = shop.pos.post("/transactions", json=with_customer(body, customer))
    assert response.status_code == 201, response.text
    transaction_id = response.headers["location"].rsplit("/", 1)[-1]
    record = shop.get(transaction_id)
    assert record["state"] == "authorized"
    assert record["chargeAmount"] == body["chargeAmount"]
    shop.set_state(transaction_id, "canceled")  # gives the reserved funds back for the next example


Breaker = Callable[[dict[str, Any], int], str]


def truth(body: dict[str, Any], field: str) -> int:
    """What ``field`` must be, computed from the lines (for the optional fields a check may leave out)."""
    item_tax = sum(i["tax"] for i in body["items"])
    discount_total = sum(d["amount"] for d in body.get("discounts", []))
    discount_tax = sum(d["tax"] for d in body.get("discounts", []))
    optional = {
        "itemTax": item_tax,
        "tax": item_tax + discount_tax,
        "discountTotal": discount_total,
        "discountTax": discount_tax,
    }
    return int(body[field]) if field in body else optional[field]


def shift(field: str) -> Breaker:
    def apply(body: dict[str, Any], delta: int) -> str:
        body[field] = truth(body, field) + delta
        return field

    return apply


def item_quantity_zero(body: dict[str, Any], _: int) -> str:
    body["items"][-1]["quantity"] = 0
    return f"items[{len(body['items']) - 1}].quantity"


def item_tax_above_amount(body: dict[str, Any], delta: int) -> str:
    line = body["items"][0]
    line["tax"] = line["amount"] + abs(delta)
    return "items[0].tax"


def item_tax_negative(body: dict[str, Any], delta: int) -> str:
    body["items"][0]["tax"] = -abs(delta)
    return "items[0].tax"


def discount_positive(body: dict[str, Any], delta: int) -> str:
    body.setdefault("discounts", []).append({"name": "Oops", "amount": abs(delta), "tax": 0})
    return f"discounts[{len(body['discounts']) - 1}].amount"


def discount_tax_below_amount(body: dict[str, Any], delta: int) -> str:
    body.setdefault("discounts", []).append({"name": "Odd", "amount": -1, "tax": -1 - abs(delta)})
    return f"discounts[{len(body['discounts']) - 1}].tax"


def payment_not_positive(body: dict[str, Any], delta: int) -> str:
    body.setdefault("payments", []).append({"method": "cash", "amount": -abs(delta) if delta % 2 else 0})
    return f"payments[{len(body['payments']) - 1}].amount"


def no_items(body: dict[str, Any], _: int) -> str:
    body["items"] = []
    return "items"


def out_of_int32(body: dict[str, Any], _: int) -> str:
    body["chargeAmount"] = INT32_MAX + 1
    return "chargeAmount"


BREAKERS: dict[str, Breaker] = {
    "itemTotal off": shift("itemTotal"),
    "itemTax off": shift("itemTax"),
    "total off": shift("total"),
    "tax off": shift("tax"),
    "balance off": shift("balance"),
    "chargeAmount off": shift("chargeAmount"),
    "discountTotal off": shift("discountTotal"),
    "discountTax off": shift("discountTax"),
    "quantity zero": item_quantity_zero,
    "item tax above amount": item_tax_above_amount,
    "item tax negative": item_tax_negative,
    "discount positive": discount_positive,
    "discount tax below amount": discount_tax_below_amount,
    "payment not positive": payment_not_positive,
    "no items": no_items,
    "chargeAmount beyond int32": out_of_int32,
}


@SETTINGS
@given(
    body=valid_checks(),
    breaker=st.sampled_from(sorted(BREAKERS)),
    delta=st.integers(-1_000, 1_000).filter(bool),
)
def test_one_broken_rule_is_rejected_naming_its_field(
    shop: Shop, customer: dict[str, Any], body: dict[str, Any], breaker: str, delta: int
) -> None:
    broken = copy.deepcopy(body)
    field = BREAKERS[breaker](broken, delta)
    response = shop.pos.post("/transactions", json=with_customer(broken, customer))
    problem = assert_problem(response, 422, "VALIDATION_FAILED", field=field)
    if breaker.endswith(" off"):
        # a sent total is checked against the truth from the lines, so only that field is named
        assert [e["field"] for e in problem["errors"]] == [field], problem


def test_the_generators_cover_discounts_and_payments() -> None:
    """Guard against a generator that silently stopped producing the interesting parts."""
    seen: set[str] = set()

    @settings(max_examples=200, deadline=None)
    @given(valid_checks())
    def collect(body: dict[str, Any]) -> None:
        seen.update(k for k in ("discounts", "payments") if body.get(k))

    collect()
    assert seen == {"discounts", "payments"}


def test_the_generator_stays_within_int32() -> None:
    @settings(max_examples=100, deadline=None)
    @given(valid_checks())
    def bounded(body: dict[str, Any]) -> None:
        for value in (body["itemTotal"], body["total"], body["balance"]):
            assert 0 <= value <= INT32_MAX

    bounded()
