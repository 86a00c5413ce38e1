"""Product codes: the GS1 check digit, one product under its UPC-A and EAN-13 spellings, codes in the catalog."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pos_terminal.domain.barcode import BadCheckDigit, check_digit, gtin_key
from pos_terminal.domain.slip import Feed, Line, Qr, Rule, Slip, SlipKind
from pos_terminal.services.catalog import CatalogError, load_catalog, parse_catalog


@pytest.mark.parametrize(
    "code", ["4006381333931", "036000291452", "0036000291452", "96385074", "10614141000415", "9310072001258"]
)
def test_valid_codes_of_every_length(code: str) -> None:
    assert check_digit(code[:-1]) == int(code[-1])
    assert gtin_key(code) == code.zfill(14)


def test_a_upc_a_and_its_ean_13_spelling_are_one_product() -> None:
    assert gtin_key("036000291452") == gtin_key("0036000291452")


@pytest.mark.parametrize(
    ("code", "sentence"),
    [
        ("4006381333932", "The code 4006381333932 was misread: its check digit is wrong."),
        ("12345", "“12345” is not a product code (8, 12, 13 or 14 digits)."),
        ("M-100234", "“M-100234” is not a product code (8, 12, 13 or 14 digits)."),
        ("４００６３８１３３３９３１", "“４００６３８１３３３９３１” is not a product code (8, 12, 13 or 14 digits)."),
    ],
)
def test_a_code_that_is_not_right_is_one_sentence(code: str, sentence: str) -> None:
    with pytest.raises(BadCheckDigit) as raised:
        gtin_key(code)
    assert raised.value.sentence == sentence


def test_the_shipped_catalog_finds_its_products_by_code() -> None:
    catalog = load_catalog(None)
    found = catalog.by_code("0036000291452")
    assert found is not None and found.name == "Keep cup"
    assert catalog.by_code("2000000000015").name == "Bottled water"  # type: ignore[union-attr]
    assert catalog.by_code("4006381333931") is None
    with pytest.raises(BadCheckDigit):
        catalog.by_code("2000000000016")


@pytest.mark.parametrize(
    ("items", "sentence"),
    [
        (
            [{"name": "Soap", "price": 100, "barcode": "4006381333932"}],
            "The barcode of “Soap” in the catalog test is wrong: The code 4006381333932 was misread",
        ),
        ([{"name": "Soap", "price": 100, "barcodes": "4006381333931"}], "The barcodes of “Soap”"),
        (
            [
                {"name": "Soap", "price": 100, "barcode": "036000291452"},
                {"name": "Suds", "price": 100, "barcodes": ["0036000291452"]},
            ],
            "The code 0036000291452 is on both “Soap” and “Suds” in the catalog test.",
        ),
    ],
)
def test_a_wrong_code_in_the_catalog_is_one_sentence(items: list[object], sentence: str) -> None:
    with pytest.raises(CatalogError) as raised:
        parse_catalog(json.dumps({"version": 2, "items": items}), "test")
    assert raised.value.sentence.startswith(sentence)


def test_a_catalog_without_codes_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"version": 1, "items": [{"name": "Tea", "price": 400}]}))
    assert load_catalog(path).by_code("4006381333931") is None


def test_a_slip_reads_back_from_the_journal_as_it_was_written() -> None:
    slip = Slip(SlipKind.RECEIPT, "Receipt t", (Line("Zoë", "$1", bold=True), Rule(), Feed(2), Qr("txn-1")))
    assert Slip.from_json(json.loads(json.dumps(slip.to_json()))) == slip
    with pytest.raises(ValueError, match="unknown block"):
        Slip.from_json({"kind": "receipt", "title": "t", "blocks": [{"what": 1}]})
