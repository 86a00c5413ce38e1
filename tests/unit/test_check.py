"""The check: editing, figures, rules, the charge request (contract section 7) and its JSON forms."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pos_terminal.domain.check import (
    MAX_QUANTITY,
    Check,
    CheckRule,
    CheckRuleError,
    Discount,
    DiscountTooLarge,
    Item,
    LineNotFound,
    Payment,
    TooLarge,
    inclusive_tax,
    round_half_even,
)
from pos_terminal.domain.check_json import CheckFileError, check_from_file, check_from_json
from pos_terminal.domain.money import INT32_MAX, INT32_MIN, MoneyFormat
from pos_terminal.errors import UserError
from pos_terminal.sandbox.rules import check_errors
from tests.helpers.checks import valid_checks

CUSTOMER = {"customerId": "cus-1", "checkInId": "chk-1"}


def coffee_check() -> Check:
    return (
        Check()
        .add_item(Item(name="Flat white", quantity=2, unit_price=550, tax_rate_bp=1000))
        .add_item(Item(name="Croissant", quantity=1, unit_price=650, tax_rate_bp=1000))
        .add_discount(Discount(name="Staff", percent_bp=1000))
        .add_payment(Payment(method="cash", amount=500))
    )


def request_of(check: Check) -> dict[str, Any]:
    return check.charge_request(customer=CUSTOMER, ref_id="pos-1", terminal_id="LANE-1")


# --- rounding -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "d", "q"),
    [(5, 2, 2), (7, 2, 4), (-5, 2, -2), (-7, 2, -4), (1, 3, 0), (2, 3, 1), (-2, 3, -1), (0, 7, 0), (10, 5, 2)],
)
def test_round_half_even(n: int, d: int, q: int) -> None:
    assert round_half_even(n, d) == q


@given(st.integers(-(10**12), 10**12), st.integers(1, 10**6))
def test_round_half_even_matches_decimal(n: int, d: int) -> None:
    from decimal import ROUND_HALF_EVEN

    expected = (Decimal(n) / Decimal(d)).quantize(Decimal(1), rounding=ROUND_HALF_EVEN)
    assert round_half_even(n, d) == int(expected)


def test_round_half_even_needs_a_positive_denominator() -> None:
    with pytest.raises(ValueError, match="positive"):
        round_half_even(1, 0)


@given(st.integers(0, INT32_MAX), st.integers(0, 10000))
def test_inclusive_tax_lies_within_the_amount(amount: int, rate: int) -> None:
    assert 0 <= inclusive_tax(amount, rate) <= amount


def test_inclusive_tax_examples() -> None:
    assert inclusive_tax(1100, 1000) == 100  # 10 % GST on $11.00
    assert inclusive_tax(650, 1000) == 59  # 59.09...
    assert inclusive_tax(1190, 1900) == 190
    assert inclusive_tax(0, 1000) == 0


# --- figures ------------------------------------------------------------------------------------


def test_coffee_check_totals() -> None:
    totals = coffee_check().validate()
    assert totals.item_total == 1750
    assert totals.item_tax == 159
    assert totals.discount_total == -175
    assert totals.discount_tax == -16  # 175 × 159 / 1750 = 15.9
    assert totals.total == 1575
    assert totals.tax == 143
    assert totals.payments == 500
    assert totals.balance == totals.charge_amount == 1075


def test_item_figures() -> None:
    item = Item(name="Tea", quantity=3, unit_price=400, tax=100)
    assert item.amount == 1200
    assert item.tax_amount == 100  # a typed tax wins over a rate
    assert Item(name="Tea", quantity=3, unit_price=400, tax_rate_bp=1000, tax=7).tax_amount == 7
    assert Item(name="Water", unit_price=200).tax_amount == 0


def test_fixed_discount_takes_its_share_of_tax() -> None:
    check = Check().add_item(Item(name="A", unit_price=1100, tax_rate_bp=1000)).add_discount(Discount("D", amount=-110))
    totals = check.validate()
    assert (totals.discount_total, totals.discount_tax) == (-110, -10)


def test_editing_returns_new_checks() -> None:
    check = coffee_check()
    item_id = check.items[1].id
    fewer = check.set_quantity(0, 1)
    assert check.items[0].quantity == 2 and fewer.items[0].quantity == 1
    by_id = check.set_quantity(item_id, 3)
    assert by_id.items[1].quantity == 3
    assert [i.name for i in check.remove_item(item_id).items] == ["Flat white"]
    assert check.remove_item(-1).items == check.items[:1]
    assert check.remove_discount(0).discounts == ()
    assert check.remove_payment(check.payments[0].id).payments == ()
    assert len(check.items) == 2 and len(check.discounts) == 1 and len(check.payments) == 1
    with pytest.raises(AttributeError):
        check.items = ()  # type: ignore[misc]


@pytest.mark.parametrize("which", [2, -3, "nope"])
def test_missing_line_is_a_user_error(which: int | str) -> None:
    with pytest.raises(LineNotFound):
        coffee_check().set_quantity(which, 1)
    assert issubclass(LineNotFound, UserError)


def test_line_ids_are_unique() -> None:
    ids = {Item(name="x").id for _ in range(100)}
    assert len(ids) == 100


# --- the charge request -------------------------------------------------------------------------


def test_charge_request_shape() -> None:
    body = request_of(coffee_check())
    assert body["refId"] == "pos-1" and body["terminalId"] == "LANE-1"
    assert body["customer"] == CUSTOMER
    assert body["chargeAmount"] == body["balance"] == 1075
    assert body["items"][0] == {
        "id": body["items"][0]["id"],
        "name": "Flat white",
        "quantity": 2,
        "amount": 1100,
        "tax": 100,
    }
    assert body["discounts"][0]["amount"] == -175
    assert body["payments"] == [{"method": "cash", "amount": 500}]
    json.dumps(body)  # plain JSON values only


def test_empty_lists_and_their_totals_are_left_out() -> None:
    body = request_of(Check().add_item(Item(name="Tea", unit_price=400)))
    assert "discounts" not in body and "payments" not in body
    assert "discountTotal" not in body and "discountTax" not in body
    assert body["balance"] == body["total"] == body["chargeAmount"] == 400
    no_terminal = Check().add_item(Item(name="Tea", unit_price=400))
    assert "terminalId" not in no_terminal.charge_request(customer=CUSTOMER, ref_id="r", terminal_id=None)


def test_charge_request_refuses_an_invalid_check() -> None:
    with pytest.raises(CheckRuleError) as caught:
        request_of(Check())
    assert caught.value.problems[0].rule is CheckRule.NO_ITEMS
    assert caught.value.sentence == "The check has no items."


def test_charge_request_needs_a_checked_in_customer() -> None:
    with pytest.raises(UserError, match="checked in"):
        coffee_check().charge_request(customer={"customerId": "c"}, ref_id="r", terminal_id=None)
    with pytest.raises(UserError, match="terminal id"):
        coffee_check().charge_request(customer=CUSTOMER, ref_id="r", terminal_id="x" * 65)


def assert_contract_7(body: dict[str, Any]) -> None:
    """Every equation of contract section 7, computed from the lines of the body."""
    items, discounts, payments = body["items"], body.get("discounts", []), body.get("payments", [])
    assert items
    for item in items:
        assert item["quantity"] >= 1 and item["amount"] >= 0
        assert 0 <= item["tax"] <= item["amount"]
    for discount in discounts:
        assert discount["amount"] < 0
        assert discount["amount"] <= discount["tax"] <= 0
    for payment in payments:
        assert payment["amount"] > 0
    assert body["itemTotal"] == sum(i["amount"] for i in items)
    assert body["itemTax"] == sum(i["tax"] for i in items)
    assert body.get("discountTotal", 0) == sum(d["amount"] for d in discounts)
    assert body.get("discountTax", 0) == sum(d["tax"] for d in discounts)
    assert body["total"] == body["itemTotal"] + body.get("discountTotal", 0) >= 0
    assert body["tax"] == body["itemTax"] + body.get("discountTax", 0)
    assert body["balance"] == body["total"] - sum(p["amount"] for p in payments)
    assert body["chargeAmount"] == body["balance"] > 0
    for key in ("chargeAmount", "itemTotal", "itemTax", "discountTotal", "discountTax", "total", "tax", "balance"):
        if key in body:
            assert INT32_MIN <= body[key] <= INT32_MAX


def sandbox_errors(body: dict[str, Any]) -> list[Any]:
    """What the sandbox's own rules say about the body."""

    def line(raw: dict[str, Any]) -> SimpleNamespace:
        return SimpleNamespace(**{"tax": None, "quantity": None, **raw})

    fields = {
        key: body.get(key)
        for key in (
            "pointsEarned",
            "refId",
            "terminalId",
            "chargeAmount",
            "itemTotal",
            "itemTax",
            "discountTotal",
            "discountTax",
            "total",
            "tax",
            "balance",
        )
    }
    return check_errors(
        SimpleNamespace(
            **fields,
            items=[line(i) for i in body["items"]],
            discounts=[line(d) for d in body.get("discounts", [])] or None,
            payments=[line(p) for p in body.get("payments", [])] or None,
        )
    )


def no_floats(value: Any) -> bool:
    if isinstance(value, float):
        return False
    if isinstance(value, dict):
        return all(no_floats(k) and no_floats(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(no_floats(v) for v in value)
    return isinstance(value, str | int | bool) or value is None


@settings(max_examples=300)
@given(valid_checks())
def test_valid_checks_meet_contract_7(check: Check) -> None:
    assert check.problems() == []
    assert check.is_valid
    body = request_of(check)
    assert_contract_7(body)
    assert sandbox_errors(body) == []
    assert no_floats(body)
    assert no_floats(check.to_json())
    assert check_from_json(json.loads(json.dumps(check.to_json()))) == check


Draw = Callable[[st.SearchStrategy[Any]], Any]
Breakage = Callable[[Check, Draw], Check]


def _no_items(check: Check, draw: Draw) -> Check:
    return Check()


def _bad_quantity(check: Check, draw: Draw) -> Check:
    return check.set_quantity(draw(st.integers(0, len(check.items) - 1)), draw(st.integers(-5, 0)))


def _negative_price(check: Check, draw: Draw) -> Check:
    return check.add_item(Item("Refund", 1, -draw(st.integers(1, 10)), tax_rate_bp=1000))


def _tax_out_of_range(check: Check, draw: Draw) -> Check:
    if draw(st.booleans()):
        return check.add_item(Item("Odd", 1, 100, tax=draw(st.one_of(st.integers(101, 10_000), st.integers(-9, -1)))))
    return check.add_item(Item("Odd", 1, 100, tax_rate_bp=draw(st.one_of(st.integers(10001, 99999), st.just(-1)))))


def _discount_not_negative(check: Check, draw: Draw) -> Check:
    return check.add_discount(Discount("Wrong way", amount=draw(st.integers(0, 100))))


def _bad_discount(check: Check, draw: Draw) -> Check:
    return check.add_discount(
        draw(
            st.sampled_from(
                [Discount("Neither"), Discount("Both", amount=-1, percent_bp=10), Discount("Zero", percent_bp=0)]
            )
        )
    )


def _negative_total(check: Check, draw: Draw) -> Check:
    """Built as a saved check or a file would hold it: ``add_discount`` refuses such a discount."""
    too_much = Discount("Too much", amount=-(check.totals().total + draw(st.integers(1, 1000))))
    return replace(check, discounts=(*check.discounts, too_much))


def _payment_not_positive(check: Check, draw: Draw) -> Check:
    return check.add_payment(Payment("voucher", draw(st.integers(-100, 0))))


def _overpaid(check: Check, draw: Draw) -> Check:
    return check.add_payment(Payment("cash", check.totals().balance + draw(st.integers(1, 1000))))


def _nothing_to_charge(check: Check, draw: Draw) -> Check:
    return check.add_payment(Payment("cash", check.totals().balance))


def _out_of_int32(check: Check, draw: Draw) -> Check:
    """Built as a saved check or a file would hold it: ``add_item`` refuses a line or a check this large."""

    def with_item(item: Item) -> Check:
        return replace(check, items=(*check.items, item))

    broken: Check = draw(
        st.sampled_from(
            [
                with_item(Item("Gold", 2, INT32_MAX)),
                with_item(Item("Gold", 1, INT32_MAX)),  # each line fits, the total does not
                with_item(Item("Gold", 2**31, 1)),
                check.add_payment(Payment("cash", 2**31)),
                check.add_item(Item("Gold", 1, 100, tax=2**40)),
            ]
        )
    )
    return broken


def _bad_text(check: Check, draw: Draw) -> Check:
    name = draw(st.sampled_from(["Tart \ud800", "\udfffPie", "Bell\x07", "Null\x00"]))
    return check.add_item(Item(name, 1, 100)) if draw(st.booleans()) else check.add_discount(Discount(name, -1))


BREAKAGES: dict[CheckRule, Breakage] = {
    CheckRule.NO_ITEMS: _no_items,
    CheckRule.BAD_QUANTITY: _bad_quantity,
    CheckRule.NEGATIVE_PRICE: _negative_price,
    CheckRule.TAX_OUT_OF_RANGE: _tax_out_of_range,
    CheckRule.BAD_DISCOUNT: _bad_discount,
    CheckRule.DISCOUNT_NOT_NEGATIVE: _discount_not_negative,
    CheckRule.NEGATIVE_TOTAL: _negative_total,
    CheckRule.PAYMENT_NOT_POSITIVE: _payment_not_positive,
    CheckRule.OVERPAID: _overpaid,
    CheckRule.NOTHING_TO_CHARGE: _nothing_to_charge,
    CheckRule.OUT_OF_INT32: _out_of_int32,
    CheckRule.BAD_TEXT: _bad_text,
}


def test_every_rule_has_a_breakage() -> None:
    assert set(BREAKAGES) == set(CheckRule)


@settings(max_examples=300)
@given(st.sampled_from(sorted(BREAKAGES)), valid_checks(), st.data())
def test_one_broken_rule_is_named_alone(rule: CheckRule, check: Check, data: st.DataObject) -> None:
    broken = BREAKAGES[rule](check, data.draw)
    problems = broken.problems()
    assert [p.rule for p in problems] == [rule]
    assert not broken.is_valid
    problem = problems[0]
    assert problem.sentence.endswith(".") and problem.sentence[0].isupper()
    with pytest.raises(CheckRuleError) as caught:
        broken.validate()
    assert caught.value.problems == tuple(problems)
    assert caught.value.sentence == problem.sentence


def test_percent_that_rounds_to_nothing_is_named() -> None:
    check = Check().add_item(Item("Mint", 1, 4)).add_discount(Discount("Tiny", percent_bp=100))
    assert [(p.rule, p.field) for p in check.problems()] == [(CheckRule.DISCOUNT_NOT_NEGATIVE, "discounts[0].amount")]


def test_problem_fields_name_the_wire_field() -> None:
    check = coffee_check().set_quantity(1, 0)
    assert [(p.rule, p.field) for p in check.problems()] == [(CheckRule.BAD_QUANTITY, "items[1].quantity")]
    assert "Croissant" in check.problems()[0].sentence


def test_a_name_that_is_not_text_is_named_and_refused_from_a_file() -> None:
    """A lone surrogate (JSON "\\ud800") cannot be journaled, sent or printed."""
    check = coffee_check().add_item(Item("Tart \ud800", 1, 450))
    assert [(p.rule, p.field) for p in check.problems()] == [(CheckRule.BAD_TEXT, "items[2].name")]
    assert check.problems()[0].sentence == "The name of item 3 holds a character that is not valid text."
    data = json.loads('{"items": [{"name": "Tart \\ud800", "quantity": 1, "unitPrice": 450, "taxRate": 10}]}')
    with pytest.raises(CheckFileError) as refused:
        check_from_file(data)
    assert "holds a character that is not valid text" in refused.value.text()
    assert "\ud800" not in refused.value.text()


# --- journal and check files --------------------------------------------------------------------


def test_journal_round_trip_keeps_ids() -> None:
    check = coffee_check()
    again = check_from_json(json.loads(json.dumps(check.to_json())))
    assert again == check
    assert request_of(again)["items"] == request_of(check)["items"]


@pytest.mark.parametrize(
    "data",
    [
        {"version": 99, "items": []},
        {"version": 1, "items": "no"},
        {"version": 1, "items": [{"id": "a", "name": "x", "quantity": "2", "unitPrice": 1}]},
        {"version": 1, "items": [{"name": "x", "quantity": 1, "unitPrice": 1}]},
    ],
)
def test_damaged_journal_check_is_a_user_error(data: dict[str, Any]) -> None:
    with pytest.raises(CheckFileError):
        check_from_json(data)


def load(text: str) -> Any:
    return json.loads(text, parse_float=Decimal)


def test_from_file() -> None:
    check = check_from_file(
        load(
            """{"items": [{"name": "Flat white", "quantity": 2, "unitPrice": 550, "taxRate": 10},
                          {"name": "Croissant", "unitPrice": 650, "taxRate": 7.7},
                          {"name": "Gift card", "quantity": 1, "unitPrice": 2000, "tax": 0}],
                "discounts": [{"name": "Staff", "percent": 12.5}, {"name": "Coupon", "amount": -100}],
                "payments": [{"method": "cash", "amount": 500}]}"""
        )
    )
    assert [i.tax_rate_bp for i in check.items] == [1000, 770, None]
    assert check.items[1].quantity == 1
    assert check.items[2].tax == 0
    assert [(d.percent_bp, d.amount) for d in check.discounts] == [(1250, None), (None, -100)]
    assert check.payments[0].amount == 500
    assert check.is_valid


def test_from_file_takes_floats_through_their_text() -> None:
    check = check_from_file({"items": [{"name": "Tea", "unitPrice": 100, "taxRate": 0.07}]})
    assert check.items[0].tax_rate_bp == 7
    check = check_from_file({"items": [{"name": "Tea", "unitPrice": 100.0}]})
    assert check.items[0].unit_price == 100


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({}, '"items"'),
        ({"items": {}}, '"items"'),
        ({"items": [{"name": "x", "unitPrice": 1.5}]}, "whole number"),
        ({"items": [{"name": "x", "unitPrice": "1"}]}, "whole number"),
        ({"items": [{"name": "x", "unitPrice": True}]}, "whole number"),
        ({"items": [{"name": "x"}]}, "unitPrice"),
        ({"items": [{"name": "", "unitPrice": 1}]}, '"name"'),
        ({"items": [{"name": "x", "unitPrice": 1, "taxRate": 10.123}]}, "2 decimals"),
        ({"items": [{"name": "x", "unitPrice": 1, "taxRate": "10"}]}, "percent"),
        ({"items": [{"name": "x", "unitPrice": 1, "taxRate": 10, "tax": 1}]}, "both"),
        ({"items": [{"name": "x", "unit_price": 1}]}, "unit_price"),
        ({"items": [], "extra": 1}, "extra"),
        ({"items": [], "discounts": [{"name": "d"}]}, "either"),
        ({"items": [], "discounts": [{"name": "d", "amount": -1, "percent": 5}]}, "either"),
        ({"items": [], "payments": [{"method": "cash"}]}, '"amount"'),
        ({"items": [{"name": "x", "unitPrice": Decimal("NaN")}]}, "number"),
    ],
)
def test_from_file_refuses_what_it_cannot_read(data: dict[str, Any], words: str) -> None:
    with pytest.raises(CheckFileError) as caught:
        check_from_file(data)
    assert words in caught.value.sentence
    assert caught.value.sentence[0].isupper() and caught.value.sentence.endswith(".")


def test_from_file_leaves_rules_to_problems() -> None:
    check = check_from_file({"items": [], "discounts": [{"name": "d", "amount": 100}]})
    assert {p.rule for p in check.problems()} == {CheckRule.NO_ITEMS, CheckRule.DISCOUNT_NOT_NEGATIVE}


# --- discounts larger than the check, cash and change -----------------------------------------------


def test_a_discount_larger_than_the_check_is_refused_with_the_amounts() -> None:
    check = Check().add_item(Item("Tart", 1, 700, tax_rate_bp=1000))
    with pytest.raises(DiscountTooLarge) as refused:
        check.add_discount(Discount("Discount", amount=-2000))
    assert (refused.value.discount, refused.value.available) == (2000, 700)
    assert refused.value.explained(lambda cents: f"${cents / 100:.2f}") == (
        "A discount of $20.00 is more than the check's $7.00."
    )
    assert check.add_discount(Discount("Discount", amount=-700)).totals().total == 0, "all of it is allowed"
    with pytest.raises(DiscountTooLarge):
        Check().add_discount(Discount("Discount", amount=-500))  # nothing on the check to take it from
    staff = check.add_discount(Discount("Staff", amount=-500))
    with pytest.raises(DiscountTooLarge):
        staff.add_discount(Discount("All", percent_bp=10000))


def test_cash_over_the_total_is_change_due_and_needs_no_charge() -> None:
    check = Check().add_item(Item("Tart", 1, 700, tax_rate_bp=1000)).add_payment(Payment("cash", 5000))
    totals = check.totals()
    assert (totals.balance, totals.left_to_pay, totals.change_due) == (-4300, 0, 4300)
    assert check.paid_in_full
    exact = Check().add_item(Item("Tart", 1, 700)).add_payment(Payment("cash", 700))
    assert exact.paid_in_full and exact.totals().change_due == 0
    part = Check().add_item(Item("Tart", 1, 700)).add_payment(Payment("cash", 200))
    assert not part.paid_in_full and part.totals().left_to_pay == 500 and part.totals().change_due == 0
    assert not Check().add_payment(Payment("cash", 200)).paid_in_full, "no items: nothing was sold"
    bad = Check().add_item(Item("Tart", 0, 700)).add_payment(Payment("cash", 5000))
    assert not bad.paid_in_full, "a broken line is named first"


def test_a_line_or_a_check_too_large_is_refused_when_it_is_added() -> None:
    """9999 × $99,999 never reaches the check (Charge turned off only later); nor does a quantity above the
    keypad's, or a line that takes the check's items past an int32 of cents."""
    money = MoneyFormat("en_US", "USD")
    with pytest.raises(TooLarge) as refused:
        Check().add_item(Item("Gold", 9999, 9_999_900))
    assert refused.value.explained(money.format) == (
        "9,999 × Gold would come to $999,890,001.00, more than the $21,474,836.47 the service takes."
    )
    line = Item("Gold", 1, 100)
    with pytest.raises(TooLarge, match="at most 9,999"):
        Check().add_item(line).set_quantity(line.id, MAX_QUANTITY + 1)
    big = Check().add_item(Item("Gold", 1, INT32_MAX - 1))
    with pytest.raises(TooLarge) as refused:
        big.add_item(Item("Silver", 1, 2))
    assert refused.value.explained(money.format).startswith("The check would come to $21,474,836.48, more than")
    assert big.add_item(Item("Tin", 1, 1)).totals().item_total == INT32_MAX


@pytest.mark.parametrize(
    ("locale", "currency", "said"),
    [
        ("en_AU", "AUD", "A discount of 12.5 % ($0.44) needs"),
        ("de_DE", "EUR", "A discount of 12,5 % (0,44\xa0€) needs"),
    ],
)
def test_a_discount_to_approve_is_said_with_the_locale_s_decimal_mark(locale: str, currency: str, said: str) -> None:
    """A German manager was asked to approve "12.5 % (0,44 €)": two decimal marks in one sentence."""
    from pos_terminal.domain.people import DiscountNeedsApproval

    money = MoneyFormat(locale, currency)
    assert DiscountNeedsApproval(1250, 44).explained(money.format, money.decimal_mark).startswith(said)
