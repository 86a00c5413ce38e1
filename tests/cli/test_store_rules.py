"""A store counts in one currency and knows each till by its install: ``store init|join``, ``setup --store``,
``config set`` and ``report --store`` on the command line, against a real PostgreSQL store (tests/store/postgres.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import httpx
import keyring
import pytest
from keyring.backends import fail

from pos_terminal.cli import main
from pos_terminal.journal.journal import Journal
from pos_terminal.store.database import StoreDatabase
from tests.cli.conftest import CLI, write_config
from tests.conftest import StoreTarget, mint_token
from tests.helpers.cli import pin_fd, store


def _install_id(profile: Path) -> str:
    settings = tomllib.loads((profile / "config" / "config.toml").read_text())
    return str(settings["install_id"])


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_two_profiles_with_one_terminal_id_are_refused_and_the_same_till_joins_again(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    postgres_target: StoreTarget,
    memory_keyring: Any,
    pins: list[int],
) -> None:
    password = postgres_target.password
    assert password is not None
    first, second = tmp_path / "first", tmp_path / "second"
    for profile in (first, second):  # two profiles on one computer, both told they are CAFE-1
        write_config(profile, terminal_id="CAFE-1", locale="de_DE", currency="EUR")
    init = store(first, capsys, "init", postgres_target.url, "--password-fd", pin_fd(pins, password))
    assert init.code == 0, init.err
    joined = store(first, capsys, "join", postgres_target.url, "--password-fd", pin_fd(pins, password))
    assert joined.code == 0, joined.err

    refused = store(second, capsys, "join", postgres_target.url, "--password-fd", pin_fd(pins, password))
    assert refused.code == 1
    assert _one_line(refused.err) == (
        "Another till of this store is already called CAFE-1. Choose another terminal id."
    )
    assert store(second, capsys, "status").data["linked"] is False

    again = store(first, capsys, "join", postgres_target.url, "--password-fd", pin_fd(pins, password))
    assert again.code == 0, "the same till joining again is the same till"
    assert _install_id(first) != _install_id(second)
    with StoreDatabase(postgres_target.url, password=password) as database:
        till = database.get("till", "CAFE-1")
    assert till is not None and till["install_id"] == _install_id(first)


def test_a_join_that_failed_leaves_no_till_behind_to_refuse_the_next_try(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    postgres_target: StoreTarget,
    memory_keyring: Any,
    pins: list[int],
) -> None:
    """``setup --store`` on a computer with no keychain fails, and writes no settings: the next try is a new
    profile's install identity, which a till row left by the first try would refuse as another till."""
    password = postgres_target.password
    assert password is not None
    owner = tmp_path / "owner"
    write_config(owner, terminal_id="CAFE-0")
    assert store(owner, capsys, "init", postgres_target.url, "--password-fd", pin_fd(pins, password)).code == 0
    new = tmp_path / "new"
    argv = ["setup", "--region", "sandbox", "--terminal", "CAFE-1", "--profile", str(new), "--store"]
    argv.append(postgres_target.url)
    keyring.set_keyring(fail.Keyring())
    capsys.readouterr()
    assert main([*argv, "--password-fd", pin_fd(pins, password)]) == 1
    assert "keychain" in _one_line(capsys.readouterr().err)
    assert not (new / "config" / "config.toml").exists()
    keyring.set_keyring(memory_keyring)
    assert main([*argv, "--password-fd", pin_fd(pins, password)]) == 0, capsys.readouterr().err
    with StoreDatabase(postgres_target.url, password=password) as database:
        till = database.get("till", "CAFE-1")
    assert till is not None and till["install_id"] == _install_id(new)


def test_a_till_in_pounds_is_refused_by_a_store_in_euros(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    postgres_target: StoreTarget,
    memory_keyring: Any,
    pins: list[int],
) -> None:
    password = postgres_target.password
    assert password is not None
    owner = tmp_path / "owner"
    write_config(owner, terminal_id="CAFE-1", locale="de_DE", currency="EUR")
    assert store(owner, capsys, "init", postgres_target.url, "--password-fd", pin_fd(pins, password)).code == 0
    sentence = "This store counts in EUR; this till is set to GBP. Set the till to EUR to join, or join another store."

    pounds = tmp_path / "pounds"
    write_config(pounds, terminal_id="CAFE-2", locale="en_GB", currency="GBP")
    refused = store(pounds, capsys, "join", postgres_target.url, "--password-fd", pin_fd(pins, password))
    assert refused.code == 1
    assert _one_line(refused.err) == sentence
    assert store(pounds, capsys, "status").data["linked"] is False

    new = tmp_path / "new"
    argv = ["setup", "--region", "sandbox", "--terminal", "CAFE-3", "--locale", "en_GB", "--currency", "GBP"]
    argv += ["--profile", str(new), "--store", postgres_target.url, "--password-fd", pin_fd(pins, password)]
    capsys.readouterr()
    assert main(argv) == 1
    assert _one_line(capsys.readouterr().err) == sentence
    assert not (new / "config" / "config.toml").exists(), "a till that cannot join is not set up"
    with StoreDatabase(postgres_target.url, password=password) as database:
        assert database.get("till", "CAFE-2") is None and database.get("till", "CAFE-3") is None


def test_a_till_of_a_store_cannot_change_its_currency(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    postgres_target: StoreTarget,
    memory_keyring: Any,
    pins: list[int],
) -> None:
    password = postgres_target.password
    assert password is not None
    lane = tmp_path / "lane"
    write_config(lane, terminal_id="CAFE-1", locale="de_DE", currency="EUR")
    assert store(lane, capsys, "init", postgres_target.url, "--password-fd", pin_fd(pins, password)).code == 0
    assert store(lane, capsys, "join", postgres_target.url, "--password-fd", pin_fd(pins, password)).code == 0
    sentence = (
        f"The currency cannot change while this till is part of the store at {postgres_target.url}, which counts in"
        " EUR. Leave the store first to count in another currency."
    )
    for argv in (
        ["config", "set", "currency", "GBP"],
        ["setup", "--region", "sandbox", "--terminal", "CAFE-1", "--currency", "GBP"],
    ):
        capsys.readouterr()
        assert main([*argv, "--profile", str(lane)]) == 1, argv
        assert _one_line(capsys.readouterr().err) == sentence
    settings = tomllib.loads((lane / "config" / "config.toml").read_text())
    assert settings["currency"] == "EUR"
    assert store(lane, capsys, "leave").code == 0
    capsys.readouterr()
    assert main(["config", "set", "currency", "GBP", "--profile", str(lane)]) == 0, "a till standing alone may"


def test_the_store_s_day_is_written_in_the_store_s_currency_whatever_the_till_that_makes_it(
    cli: CLI,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    postgres_target: StoreTarget,
    client: httpx.Client,
    pins: list[int],
) -> None:
    password = postgres_target.password
    assert password is not None
    lane = tmp_path / "lane"
    write_config(lane, terminal_id="CAFE-1", locale="de_DE", currency="EUR", request_timeout_seconds=5)
    assert cli("login", "--token", mint_token(client, expiresIn=0), base=lane).code == 0
    assert store(lane, capsys, "init", postgres_target.url, "--password-fd", pin_fd(pins, password)).code == 0
    assert store(lane, capsys, "join", postgres_target.url, "--password-fd", pin_fd(pins, password)).code == 0
    with Journal(lane / "data" / "journal.sqlite3") as journal:
        journal.cash_sales.record(
            terminal_id="CAFE-1", customer=None, total=1_740, tax=158, paid=2_000, check={"version": 1}, actor=None
        )
    assert store(lane, capsys, "status").data["waiting"] == 0
    # the till's settings file edited by hand to pounds (a till joined before the store had a currency is the same)
    config = lane / "config" / "config.toml"
    config.write_text(config.read_text().replace('currency = "EUR"', 'currency = "GBP"'))

    text = cli("report", "--store", base=lane)
    assert text.code == 0, text.err
    words = text.out.replace("\u00a0", " ").replace("\u202f", " ")
    assert "17,40 €" in words, words
    assert "£" not in words, "no amount of the store's day is relabelled in the till's currency"
    day = cli("report", "--store", json=True, base=lane)
    assert day.code == 0, day.err
    assert day.data["store"]["currency"] == "EUR"


def test_a_profile_never_set_up_joins_without_claiming_its_terminal_id(
    tmp_path: Path, postgres_target: StoreTarget, memory_keyring: Any
) -> None:
    """``store join`` before ``setup``: the profile's settings are defaults, kept nowhere, so each run would bring
    another install identity; it brings none, and the profile set up afterwards claims the till's row."""
    import asyncio

    from pos_terminal.config import Settings
    from pos_terminal.paths import Paths
    from pos_terminal.services.terminal import join_store

    password = postgres_target.password
    StoreDatabase(postgres_target.url, password=password).init_schema(currency="EUR")
    lane = Paths.profile(tmp_path / "lane")
    for _ in range(2):
        unsaved = Settings(terminal_id="CAFE-1", currency="EUR")  # made anew by each command, as load_settings does
        asyncio.run(join_store(lane, unsaved, postgres_target.url, password, kept=False))
    set_up = Settings(terminal_id="CAFE-1", currency="EUR")
    asyncio.run(join_store(lane, set_up, postgres_target.url, password))
    with StoreDatabase(postgres_target.url, password=password) as database:
        till = database.get("till", "CAFE-1")
    assert till is not None and till["install_id"] == set_up.install_id
