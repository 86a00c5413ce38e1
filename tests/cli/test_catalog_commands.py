"""``catalog list|import|export`` and ``details``: on a till that stands alone, and on two tills of one store (a
SQLite store file), against the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from PIL import Image
from pypdf import PdfReader

from tests.cli.conftest import CLI, Run, write_config
from tests.conftest import mint_token, new_checked_in_customer
from tests.helpers.cli import MANAGER, MANAGER_PIN, pin_fd, store, write_check


def lane(cli: CLI, tmp_path: Path, client: httpx.Client, name: str) -> Path:
    profile = tmp_path / name
    write_config(profile, terminal_id=name, request_timeout_seconds=5)
    assert cli("login", "--token", mint_token(client, expiresIn=0), base=profile).code == 0
    return profile


def catalog_file(path: Path, items: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps({"version": 2, "items": items}), encoding="utf-8")
    return path


def prices(run: Run) -> dict[str, int]:
    return {item["name"]: item["price"] for item in run.data["items"]}


def test_a_till_standing_alone_imports_a_catalog_whole_or_not_at_all(
    cli: CLI, tmp_path: Path, client: httpx.Client
) -> None:
    till = lane(cli, tmp_path, client, "LANE-A")
    shipped = cli("catalog", "list", json=True, base=till)
    assert shipped.code == 0, shipped.err
    assert len(shipped.data["items"]) > 5

    bad = catalog_file(tmp_path / "bad.json", [{"name": "Tea", "price": 350}, {"name": "Cake", "price": -1}])
    refused = cli("catalog", "import", str(bad), base=till)
    assert refused.code == 1
    assert "“Cake”" in refused.err and "whole number of cents" in refused.err
    assert prices(cli("catalog", "list", json=True, base=till)) == prices(shipped), "nothing half-imported"

    good = catalog_file(tmp_path / "good.json", [{"name": "Tea", "price": 350, "taxRate": 10}])
    imported = cli("catalog", "import", str(good), json=True, base=till)
    assert imported.code == 0, imported.err
    assert imported.data["added"] == ["Tea"] and len(imported.data["retired"]) == len(shipped.data["items"])
    good.unlink()  # the till keeps a copy of what it imported: the file given can go
    assert prices(cli("catalog", "list", json=True, base=till)) == {"Tea": 350}
    exported = cli("catalog", "export", str(tmp_path / "out.json"), base=till)
    assert exported.code == 0, exported.err
    assert json.loads((tmp_path / "out.json").read_text())["items"] == [{"name": "Tea", "price": 350, "taxRate": 10}]


def test_a_catalog_imported_on_one_till_of_a_store_is_the_other_till_s(
    cli: CLI, capsys: pytest.CaptureFixture[str], tmp_path: Path, client: httpx.Client, pins: list[int]
) -> None:
    lane_a, lane_b = lane(cli, tmp_path, client, "LANE-A"), lane(cli, tmp_path, client, "LANE-B")
    address = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    assert store(lane_a, capsys, "init", address).code == 0
    assert store(lane_a, capsys, "join", address).code == 0
    assert store(lane_b, capsys, "join", address).code == 0
    first = cli("people", "add", MANAGER, "--role", "manager", "--new-pin-fd", pin_fd(pins, MANAGER_PIN), base=lane_a)
    assert first.code == 0, first.err
    shipped = prices(cli("catalog", "list", json=True, base=lane_b))

    menu = [{"name": "Flat white", "price": 520, "taxRate": 10, "category": "Coffee"}]
    imported = cli(
        "catalog",
        "import",
        str(catalog_file(tmp_path / "menu.json", menu)),
        "--pin-fd",
        pin_fd(pins, MANAGER_PIN),
        json=True,
        base=lane_a,
    )
    assert imported.code == 0, imported.err
    assert imported.data["store"] is True
    assert "Flat white" in imported.data["changed"] and shipped["Flat white"] != 520
    listed = cli("catalog", "list", json=True, base=lane_b)
    assert listed.code == 0, listed.err
    assert prices(listed) == {"Flat white": 520}
    assert listed.data["categories"] == ["Coffee"]

    # a wrong PIN imports nothing
    wrong = cli("catalog", "import", str(tmp_path / "menu.json"), "--pin-fd", pin_fd(pins, "0000"), base=lane_b)
    assert wrong.code == 1 and "PIN" in wrong.err


def test_the_store_s_details_are_set_once_for_every_till(
    cli: CLI, capsys: pytest.CaptureFixture[str], tmp_path: Path, client: httpx.Client
) -> None:
    lane_a, lane_b = lane(cli, tmp_path, client, "LANE-A"), lane(cli, tmp_path, client, "LANE-B")
    address = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    assert store(lane_a, capsys, "init", address).code == 0
    for till in (lane_a, lane_b):
        assert store(till, capsys, "join", address).code == 0
    empty = cli("details", json=True, base=lane_b)
    assert empty.code == 0 and empty.data["name"] is None

    too_long = cli("details", "--name", "N" * 81, base=lane_a)
    assert too_long.code == 1 and "store's name is longer than 80" in too_long.err
    no_name = cli("details", "--address", "1 Quay St", base=lane_a)
    assert no_name.code == 1 and "needs a name" in no_name.err

    set_ = cli(
        "details", "--name", "Café Nord", "--address", "1 Quay St\nWellington", "--footer", "Ka kite!", base=lane_a
    )
    assert set_.code == 0, set_.err
    shown = cli("details", json=True, base=lane_b)
    assert shown.data == {
        "name": "Café Nord",
        "address": "1 Quay St\nWellington",
        "tax_number": None,
        "receipt_header": None,
        "receipt_footer": "Ka kite!",
        "logo": None,
    }
    cleared = cli("details", "--footer", "", base=lane_b)
    assert cleared.code == 0, cleared.err
    assert cli("details", json=True, base=lane_a).data["receipt_footer"] is None

    # a logo: checked whole first (nothing changes when it is refused), then every till's
    (tmp_path / "notes.png").write_text("not a picture")
    refused = cli("details", "--logo", str(tmp_path / "notes.png"), base=lane_a)
    assert refused.code == 1 and "The logo notes.png is not a PNG or JPEG picture." in refused.err
    Image.new("L", (800, 400), 0).save(tmp_path / "logo.png")
    with_logo = cli("details", "--logo", str(tmp_path / "logo.png"), json=True, base=lane_a)
    assert with_logo.code == 0, with_logo.err
    assert with_logo.data["logo"] == "384 x 192 px" and with_logo.data["name"] == "Café Nord"
    assert cli("details", json=True, base=lane_b).data["logo"] == "384 x 192 px"
    assert cli("details", "--no-logo", base=lane_b).code == 0
    assert cli("details", json=True, base=lane_a).data["logo"] is None


def test_a_receipt_names_the_store_and_prints_its_header_and_footer(
    cli: CLI, tmp_path: Path, client: httpx.Client
) -> None:
    till = lane(cli, tmp_path, client, "LANE-A")
    details = ("--name", "Café Nord", "--address", "1 Quay St", "--tax-number", "12-345-678", "--footer", "Ka kite!")
    assert cli("details", *details, base=till).code == 0
    customer = new_checked_in_customer(client)
    charged = cli(
        "charge", "--customer", customer["customerId"], "--check", str(write_check(tmp_path)), json=True, base=till
    )
    assert charged.code == 0, charged.err
    transaction_id = charged.data["transactionId"]
    assert cli("tx", "complete", transaction_id, base=till).code == 0
    pdf = tmp_path / "receipt.pdf"
    printed = cli("receipt", transaction_id, "--pdf", str(pdf), base=till)
    assert printed.code == 0, printed.err
    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    head = text.index("Café Nord")
    assert head < text.index("1 Quay St") < text.index("Tax number 12-345-678") < text.index(transaction_id)
    assert text.index(transaction_id) < text.index("Ka kite!")
