"""The pure rules: PIN hashes, the lockout, the discount limit, drawer counts and the expected cash."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.people import (
    LOCK_FOR,
    Person,
    Role,
    after_wrong_pin,
    check_name,
    discount_needs_approval,
    discount_share_bp,
    name_key,
)
from pos_terminal.domain.pins import BadPin, Secret, check_pin, hash_pin, hash_secret, pin_matches, secret_matches
from pos_terminal.domain.shift import (
    CompletedCheck,
    CountError,
    DrawerCount,
    RefundRow,
    cash_paid,
    drawer_verdict,
    expected_cash,
    sales_per_person,
)
from pos_terminal.errors import UserError

NOW = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)


@pytest.mark.real_pin_cost
def test_a_pin_is_kept_as_a_salted_scrypt_hash_that_names_its_parameters() -> None:
    first, second = hash_pin("4821"), hash_pin("4821")
    assert first != second, "a salt of its own each time"
    assert first.startswith("scrypt$15$8$1$") and "4821" not in first
    assert pin_matches("4821", first) and pin_matches("4821", second)
    assert not pin_matches("4822", first)
    for stored in ("", "plain", "scrypt$15$8$1$!!$!!", "md5$1$1$1$AAAA$AAAA", first.replace("$15$", "$40$")):
        assert not pin_matches("4821", stored)


def test_pins_are_digits_of_a_sane_length_and_never_repeated_in_the_sentence() -> None:
    assert check_pin("0000") == "0000"
    for bad in ("123", "1234567890123", "12a4", "١٢٣٤", ""):
        with pytest.raises(BadPin) as caught:
            check_pin(bad)
        assert bad not in caught.value.text() or not bad
    with pytest.raises(BadPin) as caught:  # Return on an empty new-PIN form: said as what happened
        check_pin("")
    assert caught.value.text() == "No PIN was typed. A PIN is 4 to 12 digits."


def test_a_secret_never_shows_what_it_holds() -> None:
    secret = Secret("908172635401")
    assert repr(secret) == str(secret) == "Secret(***)" and f"{secret}" == "Secret(***)"
    stored = hash_secret(secret)
    assert "scrypt" not in repr(stored) and secret_matches(secret, stored)


def test_the_fifth_wrong_pin_in_a_row_locks_the_person() -> None:
    person = Person(1, "Ana", Role.CASHIER)
    for expected in range(1, 5):
        outcome = after_wrong_pin(person, NOW)
        assert (outcome.wrong_pins, outcome.locked_until) == (expected, None)
        person = Person(1, "Ana", Role.CASHIER, wrong_pins=outcome.wrong_pins)
    locked = after_wrong_pin(person, NOW)
    assert locked.locked_until == NOW + LOCK_FOR and locked.wrong_pins == 0
    person = Person(1, "Ana", Role.CASHIER, locked_until=locked.locked_until)
    assert person.locked(NOW) and not person.locked(NOW + LOCK_FOR)


def test_names_are_trimmed_and_compared_without_case_or_spacing() -> None:
    assert check_name("  Ana   Cashier ") == "Ana Cashier"
    assert name_key("ANA  cashier") == name_key("Ana Cashier")
    for bad in ("", "   ", "x" * 41, "Ana\x07"):
        with pytest.raises(UserError):
            check_name(bad)


@pytest.mark.parametrize(
    ("items", "discounts", "share"),
    [(10_000, 0, 0), (10_000, -1_000, 1_000), (10_000, -1_001, 1_001), (9_999, -1_000, 1_001), (0, -5, 0)],
)
def test_the_discount_share_is_rounded_up(items: int, discounts: int, share: int) -> None:
    assert discount_share_bp(items, discounts) == share


def test_a_discount_needs_approval_above_the_limit_and_above_what_was_approved() -> None:
    assert not discount_needs_approval(1_000, 1_000, 0)
    assert discount_needs_approval(1_001, 1_000, 0)
    assert not discount_needs_approval(2_000, 1_000, 2_000)
    assert discount_needs_approval(2_500, 1_000, 2_000)


def test_a_count_by_denomination_adds_up_and_refuses_what_the_currency_has_not() -> None:
    count = DrawerCount.by_denomination({5000: 3, 200: 2, 5: 7, 10: 0}, "AUD")
    assert count.total == 15_435 and count.pieces == ((5000, 3), (200, 2), (5, 7))
    with pytest.raises(CountError, match="not a note or coin of AUD"):
        DrawerCount.by_denomination({1: 3}, "AUD")
    with pytest.raises(CountError):
        DrawerCount.by_denomination({5000: -1}, "AUD")
    with pytest.raises(CountError):
        DrawerCount.of_total(-1)
    with pytest.raises(CountError):
        DrawerCount.by_denomination({5000: 10**9}, "AUD")


def test_expected_cash_is_the_float_plus_cash_taken_less_cash_given_back() -> None:
    def sale(person: str, total: int, cash: int) -> CompletedCheck:
        return CompletedCheck("ref", "tx", person, NOW, total, cash, total - cash)

    sales = [sale("Ana", 1_750, 500), sale("Ana", 1_200, 0), sale("Ben", 2_000, 1_000)]
    refunds = [RefundRow("tx", "Ben", "Maria", NOW, 1_250, 500)]
    drawer = expected_cash(20_000, sales, refunds)
    assert (drawer.cash_sales, drawer.cash_refunds, drawer.expected) == (1_500, 500, 21_000)
    people = {p.person: p for p in sales_per_person(sales, refunds)}
    assert (people["Ana"].checks, people["Ana"].total, people["Ana"].cash) == (2, 2_950, 500)
    assert (people["Ben"].refunds, people["Ben"].refunded) == (1, 1_250)


def test_only_cash_counts_as_cash() -> None:
    payments = [
        {"method": "cash", "amount": 500},
        {"method": " Cash ", "amount": 100},
        {"method": "voucher", "amount": 9},
    ]
    assert cash_paid([*payments, {"method": "cash", "amount": "12"}, {"amount": 3}]) == 600


def test_a_drawer_is_right_short_or_over_in_the_same_words_everywhere() -> None:
    money = MoneyFormat("en_AU", "AUD").format
    assert drawer_verdict(0, money) == "right"  # never "over $0.00" (shift list once said so)
    assert drawer_verdict(-50, money) == "short by $0.50"
    assert drawer_verdict(125, money) == "over by $1.25"
    assert drawer_verdict(-50, money, loud=True) == "SHORT by $0.50"
