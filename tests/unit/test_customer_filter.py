"""The customer filter narrows as the cashier types and widens back, always matching a fresh search."""

from __future__ import annotations

import pytest

from pos_terminal.api.models import Customer
from pos_terminal.domain.text import fold, person_name
from pos_terminal.ui.customers import CustomerModel, search_key

from PySide6.QtWidgets import QApplication

NAMES = [("Ava", "Nguyen", "M-1"), ("Avery", "Ng", None), ("Zoë", "Quigley", "M-12"), ("Eva", "Avon", "M-21")]


def fresh(text: str, customers: list[Customer]) -> list[str]:
    words = fold(text).split()
    return [c.customer_id for c in customers if all(w in search_key(c) for w in words)]


def test_typing_on_and_back_matches_a_fresh_search(qapp: QApplication) -> None:
    customers = [
        Customer(customer_id=f"c{n}", first_name=first, last_name=last, member_no=member, check_in_number=str(10 + n))
        for n, (first, last, member) in enumerate(NAMES * 5)
    ]
    model = CustomerModel()
    model.set_customers(customers)
    for text in ["a", "av", "ava", "ava ", "ava n", "ava ng", "ava n", "av", "", "m-1", "m-12", "1", "zoë q", "q"]:
        model.set_filter(text)
        shown = [model.customer(r).customer_id for r in range(model.rowCount())]  # type: ignore[union-attr]
        assert shown == fresh(text, customers), text
    model.set_filter("ava")
    model.set_customers(customers[:4])
    assert [model.customer(r).customer_id for r in range(model.rowCount())] == fresh("ava", customers[:4])  # type: ignore[union-attr]


def test_names_are_found_as_people_type_them(qapp: QApplication) -> None:
    """Accents and case do not matter, on first name, last name, member number and check-in number."""
    people = [
        Customer(customer_id="zoe", first_name="Zoë", last_name="Ångström", member_no="M-77", check_in_number="109"),
        Customer(customer_id="lukasz", first_name="Łukasz", last_name="Wiśniewski", check_in_number="110"),
        Customer(customer_id="strasse", first_name="Jörg", last_name="Straße", member_no="m-88"),
        Customer(customer_id="noel", first_name="NOËL", last_name="Dupré"),
    ]
    model = CustomerModel()
    model.set_customers(people)
    found = {
        "zoe": ["zoe"],
        "ZOE angstrom": ["zoe"],
        "ångström": ["zoe"],
        "wisniewski": ["lukasz"],
        "łuk": ["lukasz"],
        "strasse": ["strasse"],
        "M-88": ["strasse"],
        "m-77": ["zoe"],
        "109": ["zoe"],
        "noel dupre": ["noel"],
        "Noël": ["noel"],
    }
    for typed, wanted in found.items():
        model.set_filter(typed)
        assert [model.customer(r).customer_id for r in range(model.rowCount())] == wanted, typed  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("first", "last", "said"),
    [
        ("Ava", "Nguyen", "Ava Nguyen"),
        ("雷", "李", "李雷"),  # Chinese: family name first, no space
        ("ミク", "初音", "初音ミク"),
        ("민준", "김", "김민준"),
        ("Lei", "李", "Lei 李"),  # a name in two scripts is left as given
        ("雷", None, "雷"),
        (None, "Nguyen", "Nguyen"),
    ],
)
def test_a_name_is_said_as_its_script_writes_it(first: str | None, last: str | None, said: str) -> None:
    assert person_name(first, last) == said
