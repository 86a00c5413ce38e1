"""The catalog edited at the till (:class:`CatalogEditor`): one product at a time, checked whole, written in the audit
log as old → new, undone; CSV checked whole before anything changes; on a till of a store, every change reaches
the other tills."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pos_terminal.journal.catalog import CatalogBook
from pos_terminal.journal.journal import Journal
from pos_terminal.services.catalog import CatalogError, load_catalog, till_catalog
from pos_terminal.services.catalog_editor import CatalogEditError, CatalogEditor, ProductEdit, parse_csv

CSV = """name,price,tax_rate,category,barcodes,colour,active
Flat white,4.80,10,Coffee,9300000000019,#6F4E37,yes
Long black,4.20,10,Coffee,,,
Croissant,5.50,10,Food,036000291452,,
Water,3,,Drinks,,,no
"""


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal(tmp_path / "journal.sqlite3") as opened:
        yield opened


@pytest.fixture
def editor(journal: Journal) -> CatalogEditor:
    return CatalogEditor(CatalogBook(journal), journal, terminal_id="LANE-1", seed=lambda: load_catalog(None))


def audit(journal: Journal, action: str) -> list[dict[str, object]]:
    rows = journal.read("SELECT detail FROM audit WHERE action = ? ORDER BY id", (action,))
    return [json.loads(row[0]) for row in rows]


def prices(editor: CatalogEditor) -> dict[str, int]:
    return {entry.name: entry.price for entry in till_catalog(editor.book, None)}


def test_the_first_edit_starts_from_the_till_s_file_and_is_written_as_old_and_new(
    editor: CatalogEditor, journal: Journal
) -> None:
    shipped = load_catalog(None)
    flat_white = next(row for row in editor.products() if row.name == "Flat white")
    assert len(editor.products()) == len(shipped) and editor.last_change() is None  # taking the file in is no change
    edited = ProductEdit(
        "Flat white", 520, flat_white.tax_rate_bp, flat_white.category_uid, flat_white.barcodes, "#6F4E37"
    )
    editor.save_product(flat_white.uid, edited, by="Maria")
    assert prices(editor)["Flat white"] == 520
    [changed] = audit(journal, "product changed")
    assert changed == {"product": "Flat white", "price": [480, 520], "colour": [None, "#6f4e37"]}
    assert editor.last_change() == "“Flat white” changed"
    assert editor.undo(by="Maria") == "“Flat white” changed"
    assert prices(editor)["Flat white"] == 480
    assert editor.undo(by="Maria") is None, "one level"


def test_a_bad_value_names_its_field_and_changes_nothing(editor: CatalogEditor) -> None:
    rows = {row.name: row for row in editor.products()}
    coded = next(row for row in rows.values() if row.barcodes)
    before = prices(editor)
    cases = [
        (ProductEdit("", 100), "name is empty"),
        (ProductEdit("x" * 81, 100), "longer than 80"),
        (ProductEdit("Tea", -1), "price"),
        (ProductEdit("Tea", 2**31), "price"),
        (ProductEdit("Tea", 100, tax_rate_bp=10_001), "tax rate"),
        (ProductEdit("Tea", 100, category_uid="nowhere"), "category"),
        (ProductEdit("Tea", 100, barcodes=("9300000000011",)), "check digit"),
        (ProductEdit("Tea", 100, barcodes=(coded.barcodes[0],)), f"already on “{coded.name}”"),
        (ProductEdit("Tea", 100, colour="red"), "colour"),
    ]
    for edit, words in cases:
        with pytest.raises(CatalogEditError) as refused:
            editor.save_product(None, edit, by="Maria")
        assert words in refused.value.sentence, (edit, refused.value.sentence)
        assert refused.value.sentence.count(".") <= 2
    assert prices(editor) == before


def test_a_product_added_moved_and_undone(editor: CatalogEditor) -> None:
    coffee = next(row for row in editor.categories() if row.name == "Coffee")
    tea = editor.save_product(None, ProductEdit("Matcha", 650, 1000, coffee.uid, ("4006381333931",)), by="Maria")
    assert till_catalog(editor.book, None).by_code("4006381333931") is not None
    editor.move("product", tea.uid, 0, by="Maria")
    assert editor.products()[0].name == "Matcha"
    assert till_catalog(editor.book, None).entries[0].name == "Matcha"
    editor.undo(by="Maria")  # the move goes back; Matcha stays
    assert [row.name for row in editor.products()][-1] == "Matcha"
    added = editor.save_product(None, ProductEdit("Chai", 550), by="Maria")
    editor.undo(by="Maria")  # an addition undone: the product is taken off, never deleted
    assert "Chai" not in prices(editor)
    assert not next(row for row in editor.products() if row.uid == added.uid).active

    with pytest.raises(CatalogEditError, match="category “Coffee” already"):
        editor.save_category(None, " coffee ", by="Maria")
    juices = editor.save_category(None, "Juices", by="Maria")
    assert editor.categories()[-1].uid == juices.uid


def test_a_csv_with_two_bad_rows_imports_nothing_and_names_both_lines(editor: CatalogEditor) -> None:
    before = prices(editor)
    bad = CSV.replace("Long black,4.20", "Long black,4.2.0").replace("Croissant,5.50,10", "Croissant,5.50,150")
    with pytest.raises(CatalogError) as refused:
        editor.import_csv(bad.encode(), source="menu.csv", by="Maria")
    sentence = refused.value.sentence
    assert sentence.startswith("2 rows of menu.csv cannot be imported: line 3: the price “4.2.0”")
    assert "line 4: the tax rate “150”" in sentence
    assert prices(editor) == before

    published = editor.import_csv(CSV.encode(), source="menu.csv", by="Maria")
    assert "Flat white" in published.changed and "Long black" not in published.changed  # as it was: unchanged
    assert len(published.retired) == len(load_catalog(None)) - 3
    assert prices(editor) == {"Flat white": 480, "Long black": 420, "Croissant": 550}  # Water is inactive
    catalog = till_catalog(editor.book, None)
    assert catalog.categories == ("Coffee", "Food")
    assert catalog.by_code("0036000291452") is not None and catalog.by_code("9300000000019") is not None
    # the export reads back as what was imported (and the products taken off, as inactive)
    exported = parse_csv(editor.export_csv(), "export")[1]
    imported = parse_csv(CSV, "menu")[1]
    assert [d for d in exported if d.active] == [d for d in imported if d.active]
    assert {d.name for d in exported if not d.active} >= {"Water", *published.retired}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "is empty"),
        ("name,cost\nTea,3\n", "“cost” is not one"),
        ("price\n3\n", "must name the columns"),
        ("name,price\nTea,3\ntea,4\n", "line 3: “tea” is on line 2 already"),
        (
            "name,price,barcodes\nA,1,036000291452\nB,1,0036000291452\n",
            "line 3: the barcode 0036000291452 is on line 2",
        ),
        ("name,price\nTea,3,extra\n", "line 2: it has 3 cells"),
        ("name,price,active\nTea,3,maybe\n", "active must be yes or no"),
        ("name,price\n,3\n", "line 2: the product's name is empty"),
        ("name,price\nTea,1e3\n", "not an amount"),
        ("name,price\nTea,NaN\n", "not an amount"),
    ],
)
def test_each_bad_csv_is_one_sentence(text: str, words: str) -> None:
    with pytest.raises(CatalogError) as refused:
        parse_csv(text.encode(), "menu.csv")
    assert words in refused.value.sentence


def test_a_cell_a_spreadsheet_would_run_is_written_safe_and_read_back_as_it_was(editor: CatalogEditor) -> None:
    editor.import_csv(b"name,price\n'=1+1 special,3\n", source="menu.csv", by="Maria")
    assert list(prices(editor)) == ["=1+1 special"]
    exported = editor.export_csv()
    assert "\r\n'=1+1 special,3.00" in exported
    assert parse_csv(exported, "again")[1][0].name == "=1+1 special"
