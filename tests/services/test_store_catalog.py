"""The catalog and the store's details, shared by the tills of a store (a SQLite file, and a real PostgreSQL).

The first till to join a store with no catalog gives it its own; every till then sells from its copy of the
store's, which follows every change the tills publish, and keeps selling from it while the store is away.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from PIL import Image

from pos_terminal.domain.details import StoreDetails
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import Journal
from pos_terminal.reports.logo import store_logo
from pos_terminal.services.catalog import Catalog, CatalogEntry, catalog_of, drafts_of, load_catalog
from pos_terminal.services.store_sync import StoreSync
from tests.conftest import StoreTarget
from tests.helpers.services import Secrets, rows


@dataclass
class Till:
    journal: Journal
    store: StoreSync
    catalog_file: Path

    def catalog(self) -> Catalog:
        """What the terminal's ``catalog()`` gives: the store's copy while linked, else the file."""
        if self.store.linked:
            return catalog_of(self.store.catalog.categories(), self.store.catalog.products())
        return load_catalog(self.catalog_file)

    def publish(self, catalog: Catalog) -> None:
        self.store.catalog.publish(*drafts_of(catalog))

    async def link_to(self, address: str) -> None:
        """Point the link at ``address`` (a file where no store is: the store is away) and drop the connection."""
        self.journal.write("UPDATE store_link SET address = ?", (address,))
        await self.store.close()


def write_catalog(path: Path, items: list[dict[str, object]], categories: list[str] | None = None) -> Path:
    path.write_text(json.dumps({"version": 2, "categories": categories or [], "items": items}), encoding="utf-8")
    return path


HOUSE = [
    {"name": "Flat white", "price": 480, "taxRate": 10, "category": "Coffee", "barcodes": ["9300000000019"]},
    {"name": "Long black", "price": 420, "taxRate": 10, "category": "Coffee"},
    {"name": "Croissant", "price": 550, "taxRate": 10, "category": "Food", "barcode": "036000291452"},
    {"name": "Water", "price": 300, "category": "Drinks"},
]


@pytest.fixture
def make_till(tmp_path: Path) -> Iterator[Callable[..., Till]]:
    opened: list[Till] = []
    secrets: dict[str, Secrets] = {}

    def make(terminal_id: str, items: list[dict[str, object]] | None = None) -> Till:
        journal = Journal(tmp_path / f"{terminal_id}.sqlite3")
        catalog_file = write_catalog(tmp_path / f"{terminal_id}.json", items if items is not None else HOUSE)
        store = StoreSync(
            journal,
            terminal_id=terminal_id,
            secrets=lambda address: secrets.setdefault(address, Secrets()),
            own_catalog=lambda: load_catalog(catalog_file),
        )
        till = Till(journal, store, catalog_file)
        opened.append(till)
        return till

    yield make
    for till in opened:
        till.journal.close()


@pytest.fixture
def store(store_target: StoreTarget) -> StoreTarget:
    store_target.open().init_schema()
    return store_target


def prices(catalog: Catalog) -> dict[str, int]:
    return {entry.name: entry.price for entry in catalog}


async def test_the_first_till_gives_an_empty_store_its_catalog_and_the_next_takes_the_store_s(
    make_till: Callable[..., Till], store: StoreTarget
) -> None:
    first = make_till("LANE-1")
    own = first.catalog()
    await first.store.join(store.url, store.password)
    assert first.catalog() == own  # the same products, tabs and codes, now the store's
    # nobody imported it: an "Undo import" here took every product off sale at every till
    assert first.store.catalog.last_change() is None
    assert {row["name"] for row in rows(store, "product")} == {entry.name for entry in own}
    assert {row["gtin"] for row in rows(store, "product_code")} == {"09300000000019", "00036000291452"}

    # a till with a catalog file of its own takes the store's when it joins: one catalog for the store
    second = make_till("LANE-2", [{"name": "Tea", "price": 350}])
    await second.store.join(store.url, store.password)
    assert second.catalog() == own
    assert second.catalog().categories == ("Coffee", "Food", "Drinks")
    assert second.catalog().by_code("0036000291452") == CatalogEntry("Croissant", 550, 1000, "Food", ("036000291452",))
    assert "Tea" not in {row["name"] for row in rows(store, "product")}


async def test_a_price_changed_on_one_till_is_the_price_on_the_other(
    make_till: Callable[..., Till], store: StoreTarget
) -> None:
    first, second = make_till("LANE-1"), make_till("LANE-2")
    await first.store.join(store.url, store.password)
    await second.store.join(store.url, store.password)
    ids = {row.name: row.uid for row in second.store.catalog.products()}

    edited = [dict(item) for item in HOUSE if item["name"] != "Water"]
    edited[0]["price"] = 520
    edited.append({"name": "Muffin", "price": 450, "taxRate": 10, "category": "Food"})
    first.publish(load_catalog(write_catalog(first.catalog_file.with_name("new.json"), edited)))
    await first.store.sync()
    report = await second.store.sync()

    assert report.catalog_changed
    assert prices(second.catalog()) == {"Flat white": 520, "Long black": 420, "Croissant": 550, "Muffin": 450}
    assert second.catalog().categories == ("Coffee", "Food")  # Drinks has no active product left
    # a product keeps its id, and one that leaves the catalog is kept inactive: reports still name it
    kept = {row.name: row for row in second.store.catalog.products()}
    assert kept["Flat white"].uid == ids["Flat white"]
    assert not kept["Water"].active
    stored = {row["name"]: row for row in rows(store, "product")}
    assert (stored["Flat white"]["price"], stored["Flat white"]["version"]) == (520, 2)
    assert stored["Water"]["active"] in (False, 0)
    # the same catalog published again changes nothing, and sends nothing
    first.publish(first.catalog())
    assert first.store.status().waiting == 0
    assert not (await second.store.sync()).catalog_changed


async def test_a_till_apart_from_the_store_sells_from_its_copy_and_its_change_goes_when_the_store_is_back(
    make_till: Callable[..., Till], store: StoreTarget, tmp_path: Path
) -> None:
    first, second = make_till("LANE-1"), make_till("LANE-2")
    await first.store.join(store.url, store.password)
    await second.store.join(store.url, store.password)
    away = tmp_path / "nowhere.sqlite3"
    await first.link_to(f"sqlite:///{away}")
    cheaper = [dict(item, price=int(item["price"]) - 10) for item in HOUSE]  # type: ignore[call-overload]
    first.publish(load_catalog(write_catalog(tmp_path / "cheaper.json", cheaper)))
    assert prices(first.catalog())["Water"] == 290  # the till sells at the price it set, store or not
    with pytest.raises(UserError):
        await first.store.sync()
    assert first.store.status().waiting == 4

    await first.link_to(store.url)
    await first.store.sync()
    await second.store.sync()
    assert (
        prices(second.catalog())
        == prices(first.catalog())
        == {
            "Flat white": 470,
            "Long black": 410,
            "Croissant": 540,
            "Water": 290,
        }
    )


async def test_a_till_that_joins_another_store_forgets_the_catalog_of_the_first(
    make_till: Callable[..., Till], store: StoreTarget, tmp_path: Path
) -> None:
    till = make_till("LANE-1")
    await till.store.join(store.url, store.password)
    await till.store.leave()
    other = f"sqlite:///{tmp_path / 'other-store.sqlite3'}"
    from pos_terminal.store.database import StoreDatabase

    StoreDatabase(other).init_schema()
    seeded = make_till("LANE-9", [{"name": "Tea", "price": 350}])
    await seeded.store.join(other, None)
    await till.store.join(other, None)
    assert prices(till.catalog()) == {"Tea": 350}


async def test_the_store_s_details_travel_like_the_rest(make_till: Callable[..., Till], store: StoreTarget) -> None:
    first = make_till("LANE-1")
    # a till standing alone has details of its own; a store with none takes them when it joins
    assert first.store.details.set(StoreDetails("Café Nord", address="1 Quay St", receipt_footer="Thank you!"))
    assert not first.store.details.set(StoreDetails("Café Nord", address="1 Quay St", receipt_footer="Thank you!"))
    await first.store.join(store.url, store.password)
    [info] = rows(store, "store_info")
    assert (info["name"], info["address"], info["receipt_footer"]) == ("Café Nord", "1 Quay St", "Thank you!")

    second = make_till("LANE-2")
    second.store.details.set(StoreDetails("A name of its own"))
    await second.store.join(store.url, store.password)  # the store has details: the till takes them
    details = second.store.details.get()
    assert details is not None and (details.name, details.address) == ("Café Nord", "1 Quay St")

    second.store.details.set(StoreDetails("Café Nord", address="2 Quay St", tax_number="12 345 678"))
    await second.store.sync()
    report = await first.store.sync()
    assert report.details_changed
    details = first.store.details.get()
    assert details is not None and (details.address, details.tax_number) == ("2 Quay St", "12 345 678")
    [info] = rows(store, "store_info")
    assert (info["version"], info["updated_by_till"]) == (2, "LANE-2")


async def test_the_store_s_logo_reaches_the_other_till_and_its_removal_too(
    make_till: Callable[..., Till], store: StoreTarget
) -> None:
    first, second = make_till("LANE-1"), make_till("LANE-2")
    await first.store.join(store.url, store.password)
    await second.store.join(store.url, store.password)
    picture = io.BytesIO()
    Image.new("L", (640, 320), 40).save(picture, format="PNG")
    logo = store_logo(picture.getvalue(), "nord.png")
    assert first.store.details.set(StoreDetails("Café Nord", logo=logo))
    assert not first.store.details.set(StoreDetails("Café Nord", logo=logo)), "the same picture is no change"
    await first.store.sync()
    [info] = rows(store, "store_info")
    assert base64.b64decode(info["logo"]) == logo

    assert (await second.store.sync()).details_changed
    details = second.store.details.get()
    assert details is not None and (details.name, details.logo) == ("Café Nord", logo)

    assert second.store.details.set(replace(details, logo=None))
    await second.store.sync()
    assert (await first.store.sync()).details_changed
    details = first.store.details.get()
    assert details is not None and details.name == "Café Nord" and details.logo is None


async def test_two_tills_apart_from_the_store_changing_one_price_end_with_the_later_change(
    make_till: Callable[..., Till], store: StoreTarget, tmp_path: Path
) -> None:
    from datetime import UTC, datetime, timedelta

    first, second = make_till("LANE-1"), make_till("LANE-2")
    await first.store.join(store.url, store.password)
    await second.store.join(store.url, store.password)
    for till in (first, second):
        await till.link_to(f"sqlite:///{tmp_path / 'away.sqlite3'}")

    start = datetime(2026, 11, 25, 14, 0, tzinfo=UTC)
    for till, minutes, price in ((first, 0, 500), (second, 1, 510)):  # LANE-2 changes it a minute later
        till.journal.now = lambda moment=start + timedelta(minutes=minutes): moment  # type: ignore[misc]
        edited = [dict(item, price=price) if item["name"] == "Flat white" else item for item in HOUSE]
        till.publish(load_catalog(write_catalog(tmp_path / f"{till.store.terminal_id}.new.json", edited)))
        assert prices(till.catalog())["Flat white"] == price

    for till in (second, first):  # the later change arrives first; the earlier one, sent after it, loses
        await till.link_to(store.url)
        await till.store.sync()
    await second.store.sync()
    assert prices(first.catalog())["Flat white"] == prices(second.catalog())["Flat white"] == 510
    [stored] = [row for row in rows(store, "product") if row["name"] == "Flat white"]
    assert (stored["price"], stored["updated_by_till"]) == (510, "LANE-2")


async def test_a_barcode_moves_to_another_product_through_the_store(
    make_till: Callable[..., Till], store: StoreTarget, tmp_path: Path
) -> None:
    first, second = make_till("LANE-1"), make_till("LANE-2")
    await first.store.join(store.url, store.password)
    await second.store.join(store.url, store.password)
    # the croissant is taken off and its code goes to the new almond croissant; the flat white's code to a latte
    moved = [item for item in HOUSE if item["name"] != "Croissant"]
    moved[0] = {**moved[0], "barcodes": []}
    moved += [
        {"name": "Almond croissant", "price": 650, "barcode": "036000291452"},
        {"name": "Latte", "price": 500, "barcodes": ["9300000000019"]},
    ]
    first.publish(load_catalog(write_catalog(tmp_path / "moved.json", moved)))
    assert (await first.store.sync()).refused == []
    await second.store.sync()
    catalog = second.catalog()
    assert catalog.by_code("036000291452") is not None and catalog.by_code("036000291452").name == "Almond croissant"  # type: ignore[union-attr]
    assert catalog.by_code("9300000000019").name == "Latte"  # type: ignore[union-attr]
    codes = rows(store, "product_code")
    assert sorted((c["gtin"], bool(c["active"])) for c in codes) == [
        ("00036000291452", False),  # the croissant, taken off, keeps its code for the day it comes back
        ("00036000291452", True),
        ("09300000000019", True),
    ]
