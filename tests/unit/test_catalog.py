"""The product catalog: categories in the file's order, old files without categories still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pos_terminal.services.catalog import CatalogError, load_catalog, parse_catalog


def test_the_shipped_catalog_has_categories_and_every_entry_in_one() -> None:
    catalog = load_catalog(None)
    assert catalog.categories[0] == "Coffee" and len(catalog.categories) >= 4
    assert all(entry.category in catalog.categories for entry in catalog)
    assert sum(len(catalog.in_category(c)) for c in catalog.categories) == len(catalog)
    assert catalog.in_category(None) == catalog.entries


def test_a_version_1_catalog_without_categories_still_loads(tmp_path: Path) -> None:
    old = {"version": 1, "currency": "AUD", "items": [{"name": "Tea", "price": 400, "taxRate": 10}]}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    catalog = load_catalog(path)
    assert [(e.name, e.price, e.tax_rate_bp, e.category) for e in catalog] == [("Tea", 400, 1000, None)]
    assert catalog.categories == ()


def test_categories_follow_the_list_then_the_items_and_unused_ones_are_left_out() -> None:
    text = json.dumps(
        {
            "categories": ["Drinks", "Unused", "Food"],
            "items": [
                {"name": "Pie", "price": 900, "category": "Food"},
                {"name": "Soap", "price": 300, "category": "Shop"},
                {"name": "Tea", "price": 400, "category": "Drinks"},
                {"name": "Bag", "price": 100},
            ],
        }
    )
    catalog = parse_catalog(text, "test")
    assert catalog.categories == ("Drinks", "Food", "Shop")
    assert [e.name for e in catalog.in_category("Food")] == ["Pie"]


@pytest.mark.parametrize(
    ("data", "sentence"),
    [
        ({"items": [{"name": "Tea", "price": 400, "category": 3}]}, "The category of “Tea” in the catalog"),
        ({"categories": "Food", "items": []}, "list of categories that is not a list of names"),
    ],
)
def test_a_bad_category_is_one_sentence(data: object, sentence: str) -> None:
    with pytest.raises(CatalogError) as caught:
        parse_catalog(json.dumps(data), "test")
    assert caught.value.sentence.startswith(sentence) or sentence in caught.value.sentence
