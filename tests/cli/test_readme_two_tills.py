"""The README's recipe for two tills and a store database, run as it is written there: its ``pos-terminal`` lines are
read from the README, the shop's server and the service's address put in, and each run in a fresh home against a
real PostgreSQL store and the sandbox. Only the passwords, which the README leaves to a prompt, come through
``--password-fd``; the last line, which opens the two windows, is left to the window's own tests."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from pos_terminal.cli import main
from pos_terminal.config import load_settings
from pos_terminal.sandbox import SandboxServer
from pos_terminal.store.database import StoreDatabase
from tests.conftest import StoreTarget
from tests.helpers.cli import pin_fd

README = Path(__file__).resolve().parents[2] / "README.md"
RECIPE_HEADING = "Two tills and a store database, from nothing"
README_SERVER = "postgresql://pos@shop-server/shop"


def recipe() -> list[list[str]]:
    """The ``pos-terminal`` commands of the recipe's shell block, each as the shell splits it (continuations
    joined, comments dropped), but for the line that opens the windows."""
    text = README.read_text(encoding="utf-8")
    after = text[text.index(RECIPE_HEADING) :]
    block = re.search(r"```sh\n(.*?)```", after, re.S)
    assert block is not None, "the recipe's shell block"
    joined = block.group(1).replace("\\\n", " ")
    commands = [shlex.split(line, comments=True) for line in joined.splitlines()]
    return [words for words in commands if words[:1] == ["pos-terminal"] and "&" not in words]


def test_the_readme_recipe_has_the_commands_this_test_runs() -> None:
    commands = recipe()
    assert [words[1] for words in commands] == ["store", "setup", "setup"], commands
    assert all(README_SERVER in words for words in commands)


def test_two_tills_set_up_from_nothing_as_the_readme_says(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    postgres_target: StoreTarget,
    sandbox: SandboxServer,
    memory_keyring: Any,
    pins: list[int],
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(variable, raising=False)
    password = postgres_target.password
    assert password is not None
    for words in recipe():
        argv = [
            postgres_target.url if word == README_SERVER else sandbox.url if word == "URL" else os.path.expanduser(word)
            for word in words[1:]
        ]
        code = main([*argv, "--password-fd", pin_fd(pins, password)])
        assert code == 0, (words, capsys.readouterr().err)

    tills = {"CAFE-1": home / "till-1", "CAFE-2": home / "till-2"}
    for terminal_id, profile in tills.items():
        settings, existed = load_settings(profile / "config" / "config.toml")
        assert existed
        assert (settings.terminal_id, settings.locale, settings.currency) == (terminal_id, "de_DE", "EUR")
        capsys.readouterr()
        assert main(["store", "status", "--json", "--profile", str(profile)]) == 0
        assert json.loads(capsys.readouterr().out)["linked"] is True
    with StoreDatabase(postgres_target.url, password=password) as database:
        assert database.currency() == "EUR"
        rows = {terminal_id: database.get("till", terminal_id) for terminal_id in tills}
    for terminal_id, profile in tills.items():
        row = rows[terminal_id]
        assert row is not None and row["install_id"] == load_settings(profile / "config" / "config.toml")[0].install_id
