"""A till's identity is never guessed: a command that works as this till, run on a profile never set up, says so in one
sentence naming ``pos-terminal setup`` (it used the computer's host name as the terminal id, so two profiles on one
computer were one till to the service and the store). The README's two-till recipe, from fresh profiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pos_terminal.cli import main
from pos_terminal.config import load_settings
from pos_terminal.sandbox import SandboxServer
from tests.keyrings import MemoryKeyring

NOT_SET_UP = (
    "This till is not set up yet: “pos-terminal setup --terminal ID --region REGION” sets it up "
    "(or --service URL for a service of your own), as the window's first start does."
)


@pytest.mark.parametrize(
    "command",
    [
        ["status"],
        ["customers"],
        ["report"],
        ["shift", "list"],
        ["people", "list"],
        ["store", "join", "sqlite:///{shop}"],
        ["store", "status"],
    ],
    ids=lambda command: " ".join(command[:2]),
)
def test_a_command_on_a_profile_never_set_up_says_so_and_guesses_no_terminal_id(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    sandbox: SandboxServer,
    memory_keyring: MemoryKeyring,
    command: list[str],
) -> None:
    profile = tmp_path / "fresh"
    argv = [part.format(shop=tmp_path / "shop.sqlite3") for part in command]
    service = [] if argv[0] == "store" else ["--service", sandbox.url]
    code = main([*argv, "--profile", str(profile), *service])
    said = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert (code, said) == (1, [NOT_SET_UP])
    assert not (profile / "config" / "config.toml").exists()
    assert not memory_keyring.secrets
    assert not (tmp_path / "shop.sqlite3").exists(), "no store was joined as anyone"


def test_the_readme_recipe_sets_up_two_tills_of_one_store_from_fresh_profiles(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sandbox: SandboxServer, memory_keyring: MemoryKeyring
) -> None:
    shop = f"sqlite:///{tmp_path / 'shop' / 'store.sqlite3'}"
    assert main(["store", "init", shop]) == 0, capsys.readouterr().err
    tills = {"CAFE-1": tmp_path / "till-1", "CAFE-2": tmp_path / "till-2"}
    for terminal_id, profile in tills.items():
        argv = ["setup", "--profile", str(profile), "--service", sandbox.url, "--terminal", terminal_id]
        assert main([*argv, "--store", shop]) == 0, capsys.readouterr().err
    capsys.readouterr()
    for terminal_id, profile in tills.items():
        settings, existed = load_settings(profile / "config" / "config.toml")
        assert existed and settings.terminal_id == terminal_id
        assert (settings.region, settings.custom_urls.pos_url) == ("custom", f"{sandbox.url}/v4")
        assert main(["status", "--json", "--profile", str(profile), "--service", sandbox.url]) == 0
        status = json.loads(capsys.readouterr().out)
        assert (status["terminalId"], status["posUrl"]) == (terminal_id, f"{sandbox.url}/v4")
        assert status["service"] == sandbox.url.removeprefix("http://"), "the service by its host, not “sandbox”"
        assert main(["store", "status", "--json", "--profile", str(profile)]) == 0
        assert json.loads(capsys.readouterr().out)["linked"] is True


def test_setup_takes_a_region_or_a_service(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sandbox: SandboxServer
) -> None:
    profile = ["--profile", str(tmp_path / "p"), "--terminal", "CAFE-1"]
    assert main(["setup", *profile]) == 1
    assert capsys.readouterr().err.strip() == (
        "Say where this till works: --region REGION, or --service URL for a service of your own."
    )
    assert main(["setup", *profile, "--region", "sandbox", "--service", sandbox.url]) == 1
    assert capsys.readouterr().err.strip() == (
        "Give --region or --service, not both: --service URL is the custom region at URL."
    )
    assert not (tmp_path / "p" / "config" / "config.toml").exists()
