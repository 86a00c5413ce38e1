"""Importing a 5,000-product CSV catalog through :meth:`CatalogEditor.import_csv` into a fresh journal: every row
checked, the whole catalog written in one transaction, queued for the store and kept for undo.

Its baseline, measured in the same run: the same file read by the csv module and its rows inserted into a fresh
SQLite file in one transaction, with the journal's settings (the least any import has to do). The CI bound
guards against an import that became quadratic, not against a busy machine.
"""

from __future__ import annotations

import csv
import io
import sqlite3
import statistics
import time
from pathlib import Path

import pytest

from pos_terminal.domain.barcode import check_digit
from pos_terminal.journal.catalog import CatalogBook
from pos_terminal.journal.journal import Journal
from pos_terminal.services.catalog import load_catalog
from pos_terminal.services.catalog_editor import CatalogEditor
from tests.bench.conftest import Bench

COUNT = 5_000
TARGET = 40.0  # about 25 on a quiet machine: every row checked, categories, codes, the undo copy, the outbox
CI_BOUND = 200.0  # an import that became quadratic, not a busy machine
COLOURS = ("#6f4e37", "#c0392b", "", "#1e8449", "")


def _code(n: int) -> str:
    body = f"{930_000_000_000 + n:012d}"
    return f"{body}{check_digit(body)}"


@pytest.fixture(scope="module")
def catalog_csv() -> bytes:
    """5,000 products in 40 categories, as a spreadsheet saves them: UTF-8 with a BOM, CRLF, names beyond ASCII."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(("name", "price", "tax_rate", "category", "barcodes", "colour", "active"))
    for n in range(COUNT):
        writer.writerow(
            (
                f"{('Flat white', 'Crème brûlée', 'Sourdough, sliced', 'Čaj', 'Muffin')[n % 5]} {n}",
                f"{1 + n % 40}.{n % 100:02d}",
                ("10", "", "5.5")[n % 3],
                f"Shelf {n % 40}",
                _code(n) if n % 4 else f"{_code(n)} {_code(COUNT + n)}",
                COLOURS[n % len(COLOURS)],
                "no" if n % 50 == 0 else "yes",
            )
        )
    return ("\ufeff" + out.getvalue()).encode()


def _import(data: bytes, folder: Path) -> tuple[float, CatalogEditor, Journal]:
    journal = Journal(folder / "journal.sqlite3")
    editor = CatalogEditor(CatalogBook(journal), journal, terminal_id="LANE-1", seed=lambda: load_catalog(None))
    start = time.perf_counter()
    editor.import_csv(data, source="catalog.csv", by="Maria Manager")
    return time.perf_counter() - start, editor, journal


def _baseline(data: bytes, folder: Path) -> float:
    """The csv module's reading and one plain insert per row in one transaction, on the journal's settings."""
    conn = sqlite3.connect(folder / "baseline.sqlite3", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE product (name TEXT, price TEXT, rate TEXT, category TEXT, codes TEXT, colour TEXT)")
    start = time.perf_counter()
    rows = csv.reader(io.StringIO(data.decode("utf-8-sig"), newline=""))
    next(rows)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO product VALUES (?, ?, ?, ?, ?, ?)", (row[:6] for row in rows))
    conn.execute("COMMIT")
    seconds = time.perf_counter() - start
    conn.close()
    return seconds


def test_import_a_5000_product_csv(catalog_csv: bytes, tmp_path: Path, bench: Bench) -> None:
    rounds = bench.rounds(measuring=5, smoke=1)
    imports, baselines = [], []
    for n in range(rounds):
        folder = tmp_path / f"round-{n}"
        folder.mkdir()
        baselines.append(_baseline(catalog_csv, folder))
        seconds, editor, journal = _import(catalog_csv, folder)
        imports.append(seconds)
        if n == 0:
            products = editor.products()
            imported = [row for row in products if row.name.rsplit(" ", 1)[-1].isdigit()]
            assert len(imported) == COUNT and sum(not row.active for row in imported) == COUNT // 50
            assert sum(len(row.barcodes) for row in imported) == COUNT + COUNT // 4
            assert len({row.category_uid for row in imported}) == 40
            assert editor.last_change() == "import"
        journal.close()
    bench.hold(
        "catalog import, 5,000 products",
        measured=("CatalogEditor.import_csv", statistics.median(imports)),
        baseline=("csv module + plain inserts", statistics.median(baselines)),
        unit="s",
        target=TARGET,
        ci_bound=CI_BOUND,
        rounds=rounds,
    )
