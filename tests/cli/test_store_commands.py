"""``store init|join|status|leave`` and ``report --store``: two tills of one store, on the command line, against the
sandbox and a store database (a SQLite file; PostgreSQL where it says so)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from pypdf import PdfReader

from pos_terminal.cli import main
from pos_terminal.journal.journal import Journal
from tests.cli.conftest import CLI, write_config
from tests.conftest import StoreTarget, mint_token, new_checked_in_customer
from tests.helpers.cli import MANAGER, MANAGER_PIN, pin_fd, store, write_check
from tests.store.postgres import USER


@pytest.fixture
def two_tills(cli: CLI, tmp_path: Path, client: httpx.Client) -> tuple[Path, Path]:
    lanes = []
    for name in ("LANE-A", "LANE-B"):
        profile = tmp_path / name
        write_config(profile, terminal_id=name, request_timeout_seconds=5)
        assert cli("login", "--token", mint_token(client, expiresIn=0), base=profile).code == 0
        lanes.append(profile)
    return lanes[0], lanes[1]


def test_two_tills_share_people_and_the_store_day_reports_both(
    cli: CLI,
    capsys: pytest.CaptureFixture[str],
    two_tills: tuple[Path, Path],
    tmp_path: Path,
    client: httpx.Client,
    pins: list[int],
) -> None:
    lane_a, lane_b = two_tills
    address = f"sqlite:///{tmp_path / 'shop' / 'store.sqlite3'}"
    assert store(lane_a, capsys, "status").data["linked"] is False
    refused = store(lane_a, capsys, "join", address)
    assert refused.code == 1 and "has not been set up yet" in refused.err, refused
    init = store(lane_a, capsys, "init", address)
    assert init.code == 0, init
    assert init.data == {"address": address, "schema": "current", "tillRoles": False, "currency": "AUD"}
    for lane in (lane_a, lane_b):
        joined = store(lane, capsys, "join", address)
        assert joined.code == 0, joined
        assert (joined.data["linked"], joined.data["online"], joined.data["waiting"]) == (True, True, 0)

    first = cli("people", "add", MANAGER, "--role", "manager", "--new-pin-fd", pin_fd(pins, MANAGER_PIN), base=lane_a)
    assert first.code == 0, first
    listed = cli("people", "list", "--as", MANAGER, "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True, base=lane_b)
    assert listed.code == 0, listed.err
    assert [p["name"] for p in listed.data] == [MANAGER], "the manager made on LANE-A signs in on LANE-B"

    for lane, float_ in ((lane_a, "150"), (lane_b, "100")):
        opened = cli("shift", "open", "--float", float_, "--pin-fd", pin_fd(pins, MANAGER_PIN), base=lane)
        assert opened.code == 0, opened.err
    customer = new_checked_in_customer(client)
    check = str(write_check(tmp_path))
    as_manager = ("--as", MANAGER, "--pin-fd", pin_fd(pins, MANAGER_PIN))
    charged = cli("charge", "--customer", customer["customerId"], "--check", check, *as_manager, json=True, base=lane_a)
    assert charged.code == 0, charged.err
    transaction_id = charged.data["transactionId"]
    completed = cli("tx", "complete", transaction_id, base=lane_a)
    assert completed.code == 0, completed.err
    with Journal(lane_b / "data" / "journal.sqlite3") as journal:  # a cash sale at LANE-B (the window takes them)
        journal.cash_sales.record(
            terminal_id="LANE-B", customer=None, total=700, tax=64, paid=1_000, check={"version": 1}, actor=MANAGER
        )
    assert store(lane_b, capsys, "status").data["waiting"] == 0

    day = cli("report", "--store", json=True, base=lane_a)
    assert day.code == 0, day.err
    section: dict[str, Any] = day.data["store"]
    assert section["tills"] == ["LANE-A", "LANE-B"]
    assert sorted((s["terminalId"], s["openingFloat"]) for s in section["shifts"]) == [
        ("LANE-A", 15_000),
        ("LANE-B", 10_000),
    ]
    assert [p["person"] for p in section["people"]] == [MANAGER], section["people"]
    [manager] = section["people"]
    assert manager["person"] == MANAGER and manager["checks"] == 2  # one charged on A, one cash sale on B
    assert [(c["terminalId"], c["total"]) for c in day.data["cashSales"]] == [("LANE-B", 700)]
    assert day.data["scope"]["kind"] == "merged" and day.data["title"].startswith("The store's day")
    assert day.data["reconciled"] is True
    text = cli("report", "--store", base=lane_b).out
    assert "LANE-A" in text and "LANE-B" in text and "still open" in text

    for layout in ("a4", "roll"):
        pdf = tmp_path / f"store-{layout}.pdf"
        saved = cli("report", "--store", "--layout", layout, "--pdf", str(pdf), base=lane_a)
        assert saved.code == 0, saved.err
        words = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.read_bytes())).pages)
        for expected in ("The store", "Shifts and drawers", "LANE-A", "LANE-B", "Sales per person, every till"):
            assert expected in words, (layout, expected)

    left = store(lane_b, capsys, "leave")
    assert left.code == 0 and left.data["linked"] is False
    refused_day = cli("report", "--store", base=lane_b)
    assert refused_day.code == 1 and "This till is not part of a store." in refused_day.err


@pytest.mark.parametrize(
    ("address", "says"),
    [
        ("mysql://pos@shop/store", "postgresql://"),
        ("postgresql://pos@127.0.0.1:1/store", "cannot be reached"),
    ],
)
def test_a_store_address_that_cannot_be_used_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], memory_keyring: Any, address: str, says: str
) -> None:
    write_config(tmp_path / "lane", terminal_id="LANE-Z")
    refused = store(tmp_path / "lane", capsys, "join", address)
    assert refused.code == 1
    assert "Traceback" not in refused.err and len(refused.err.strip().splitlines()) == 1, refused.err
    assert says in refused.err


def test_a_wrong_password_is_one_sentence_and_a_right_one_is_kept_in_the_keychain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], postgres_target: StoreTarget, memory_keyring: Any
) -> None:
    postgres_target.open().init_schema()
    write_config(tmp_path / "lane", terminal_id="LANE-P")
    user_host = postgres_target.url.replace("postgresql://", "")
    wrong = store(tmp_path / "lane", capsys, "join", f"postgresql://{user_host.replace('@', ':nope@', 1)}")
    assert wrong.code == 1 and "password" in wrong.err.lower(), wrong.err
    assert len(wrong.err.strip().splitlines()) == 1
    right = f"postgresql://{user_host.replace('@', ':' + postgres_target.password + '@', 1)}"
    joined = store(tmp_path / "lane", capsys, "join", right)
    assert joined.code == 0, joined.err
    assert joined.data["address"] == postgres_target.url, "the address is kept without its password"
    assert postgres_target.password not in json.dumps(joined.data)
    assert any(postgres_target.password in value for value in memory_keyring.secrets.values())
    with Journal(tmp_path / "lane" / "data" / "journal.sqlite3") as journal:
        assert postgres_target.password not in str(journal.conn.execute("SELECT * FROM store_link").fetchall())
    assert store(tmp_path / "lane", capsys, "status").data["online"] is True


def test_setup_joins_the_store_too_and_writes_nothing_when_it_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], memory_keyring: Any
) -> None:
    from pos_terminal.store.database import StoreDatabase

    profile = tmp_path / "new-till"
    address = f"sqlite:///{tmp_path / 'shop' / 'store.sqlite3'}"
    argv = ["setup", "--region", "sandbox", "--terminal", "LANE-S", "--profile", str(profile), "--store", address]
    assert main(argv) == 1, "the store is not set up yet"
    assert "has not been set up yet" in capsys.readouterr().err
    assert not (profile / "config" / "config.toml").exists(), "nothing is written when the store cannot be joined"
    with StoreDatabase(address) as database:
        database.init_schema()
    assert main(argv) == 0
    assert "This till (LANE-S) is part of the store" in capsys.readouterr().out
    assert (profile / "config" / "config.toml").exists()
    status = store(profile, capsys, "status")
    assert (status.data["linked"], status.data["address"], status.data["online"]) == (True, address, True)


def test_the_owner_gives_each_till_a_user_of_its_own_and_the_till_joins_with_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    postgres_target: StoreTarget,
    memory_keyring: Any,
    pins: list[int],
) -> None:
    owner_password = postgres_target.password
    assert owner_password is not None
    lane = tmp_path / "lane"
    write_config(lane, terminal_id="LANE-P")
    for _ in range(2):  # running it again changes nothing
        init = store(
            lane, capsys, "init", postgres_target.url, "--till-roles", "--password-fd", pin_fd(pins, owner_password)
        )
        assert init.code == 0, init.err
        assert init.data == {"address": postgres_target.url, "schema": "current", "tillRoles": True, "currency": "AUD"}
    till_password = "lane-p password"
    for _ in range(2):  # a second time gives the till its new password
        added = store(
            lane,
            capsys,
            "add-till",
            postgres_target.url,
            "LANE-P",
            "--password-fd",
            pin_fd(pins, owner_password),
            "--till-password-fd",
            pin_fd(pins, till_password),
        )
        assert added.code == 0, added.err
    assert till_password not in added.out + added.err
    till_url = added.data["joinAddress"]
    assert till_url == postgres_target.url.replace(f"//{USER}@", "//LANE-P@")
    joined = store(lane, capsys, "join", till_url, "--password-fd", pin_fd(pins, till_password))
    assert joined.code == 0, joined.err
    assert (joined.data["online"], joined.data["waiting"], joined.data["refused"]) == (True, 0, [])
    # the store's owner upgrading later gives the tills their grants again, without being asked
    again = store(lane, capsys, "init", postgres_target.url, "--password-fd", pin_fd(pins, owner_password))
    assert again.code == 0 and again.data["tillRoles"] is True, again.err
    # a till cannot set the roles up: one sentence
    refused = store(lane, capsys, "init", till_url, "--till-roles", "--password-fd", pin_fd(pins, till_password))
    assert refused.code == 1 and len(refused.err.strip().splitlines()) == 1, refused.err
    assert "User “LANE-P” does not own the tables of the store database" in refused.err, refused.err


def test_a_till_s_password_is_never_taken_from_nowhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], postgres_target: StoreTarget, pins: list[int]
) -> None:
    write_config(tmp_path / "lane", terminal_id="LANE-Q")
    owner_password = postgres_target.password
    assert owner_password is not None
    assert (
        store(
            tmp_path / "lane",
            capsys,
            "init",
            postgres_target.url,
            "--till-roles",
            "--password-fd",
            pin_fd(pins, owner_password),
        ).code
        == 0
    )
    added = store(
        tmp_path / "lane",
        capsys,
        "add-till",
        postgres_target.url,
        "LANE-Q",
        "--password-fd",
        pin_fd(pins, owner_password),
    )
    assert added.code == 1
    assert added.err.strip().splitlines() == [
        "A password is needed. Type it at a terminal, or give --till-password-fd N and write it to fd N."
    ]


@pytest.mark.parametrize("command", [("init", "--till-roles"), ("add-till", "LANE-1")], ids=["init", "add-till"])
def test_a_store_in_a_file_has_no_roles_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, str]
) -> None:
    write_config(tmp_path / "lane", terminal_id="LANE-F")
    file = tmp_path / "shop" / "store.sqlite3"
    action, argument = command
    refused = store(tmp_path / "lane", capsys, action, f"sqlite:///{file}", argument)
    assert refused.code == 1
    assert refused.err.strip().splitlines() == [
        f"Database users for tills exist only on PostgreSQL: the store database file {file} has none."
        " Keep the store in a file for tills on one computer, or move it to PostgreSQL for roles per till."
    ]
    assert not file.exists(), "nothing is set up"
