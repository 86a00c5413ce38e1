"""The keychain is found once and remembered (``pos_terminal.keychain.backend``): later starts load only that backend,
check that it still works, and look again when it does not; the user's own choice always wins."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import keyring
import keyring.backend
import keyring.core
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from pos_terminal.keychain.backend import Keychain
from tests.keyrings import MemoryKeyring


@pytest.fixture
def nothing_chosen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """keyring as a fresh process has it: no backend chosen, none in the environment or keyring's own file."""
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


def machine_with(monkeypatch: pytest.MonkeyPatch, *backends: KeyringBackend) -> list[int]:
    """keyring's look at every backend, as on a machine offering ``backends``; returns a list counting the looks."""
    looks: list[int] = []

    def look() -> list[KeyringBackend]:
        looks.append(1)
        return list(backends)

    monkeypatch.setattr(keyring.backend, "get_all_keyring", look)
    return looks


def remembered(memory: Path) -> str:
    return str(json.loads(memory.read_text(encoding="utf-8"))["backend"])


@pytest.mark.usefixtures("nothing_chosen")
def test_the_first_start_looks_and_remembers_and_the_next_loads_only_that(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = tmp_path / "keychain.json"
    looks = machine_with(monkeypatch, fail.Keyring(), MemoryKeyring())

    first = Keychain(memory)
    assert isinstance(first.backend, MemoryKeyring) and not first.from_memory
    assert keyring.get_keyring() is first.backend  # the process's choice from now on
    assert remembered(memory) == "tests.keyrings.MemoryKeyring"

    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # the next start
    later = Keychain(memory)
    assert isinstance(later.backend, MemoryKeyring) and later.from_memory
    assert not later.worth_a_recheck  # a keychain that answered needs no second look
    assert len(looks) == 1


@pytest.mark.usefixtures("nothing_chosen")
def test_a_remembered_keychain_that_stopped_working_is_looked_for_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = tmp_path / "keychain.json"
    looks = machine_with(monkeypatch, MemoryKeyring())
    memory.write_text(json.dumps({**_found_with_here(), "backend": "tests.keyrings.StoppedKeyring"}))

    chosen = Keychain(memory)
    assert isinstance(chosen.backend, MemoryKeyring) and not chosen.from_memory
    assert len(looks) == 1
    assert remembered(memory) == "tests.keyrings.MemoryKeyring"


@pytest.mark.usefixtures("nothing_chosen")
def test_no_keychain_remembered_is_used_at_once_and_looked_at_again_before_a_sign_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = tmp_path / "keychain.json"
    machine_with(monkeypatch)  # nothing at all: keyring's fail backend
    Keychain(memory)
    assert remembered(memory) == "keyring.backends.fail.Keyring"

    monkeypatch.setattr(keyring.core, "_keyring_backend", None)
    looks = machine_with(monkeypatch, MemoryKeyring())  # a keychain is set up after that start
    start = Keychain(memory)
    assert isinstance(start.backend, fail.Keyring) and start.worth_a_recheck
    assert looks == []  # the start did not wait for the look

    found = start.look_again()  # before a sign-in
    assert isinstance(found, MemoryKeyring)
    assert keyring.get_keyring() is start.backend  # the process's other secrets stay where they were found
    assert start.look_again() is None and len(looks) == 1  # once
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)
    assert isinstance(Keychain(memory).backend, MemoryKeyring)  # the next start uses the keychain


@pytest.mark.usefixtures("nothing_chosen")
@pytest.mark.parametrize(
    "written",
    [
        "not json",
        json.dumps(["tests.keyrings.MemoryKeyring"]),
        json.dumps(
            {"format": 1, "keyring": "0.1", "python": sys.executable, "backend": "tests.keyrings.MemoryKeyring"}
        ),
        json.dumps({"format": 1, "keyring": "x", "python": "/elsewhere/python", "backend": "no.such.Backend"}),
    ],
    ids=["unreadable", "not an object", "another keyring", "another python"],
)
def test_a_memory_written_by_something_else_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    memory = tmp_path / "keychain.json"
    memory.write_text(written)
    looks = machine_with(monkeypatch, MemoryKeyring())
    assert not Keychain(memory).from_memory
    assert len(looks) == 1
    assert remembered(memory) == "tests.keyrings.MemoryKeyring"


@pytest.mark.usefixtures("nothing_chosen")
def test_the_users_own_choice_wins_and_is_not_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = tmp_path / "keychain.json"
    looks = machine_with(monkeypatch, MemoryKeyring())
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    chosen = Keychain(memory)
    assert type(chosen.backend).__module__ == "keyring.backends.null"
    assert not chosen.worth_a_recheck
    assert looks == [] and not memory.exists()


def test_a_backend_set_in_this_process_is_kept(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    chosen = Keychain(tmp_path / "keychain.json")
    assert chosen.backend is memory_keyring
    assert not (tmp_path / "keychain.json").exists()


def test_a_memory_that_cannot_be_written_only_means_looking_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nothing_chosen: None
) -> None:
    (tmp_path / "file").write_text("")
    machine_with(monkeypatch, MemoryKeyring())
    chosen = Keychain(tmp_path / "file" / "keychain.json")  # its folder is a file
    assert isinstance(chosen.backend, MemoryKeyring)


def _found_with_here() -> dict[str, object]:
    installed = os.stat(keyring.core.__file__).st_mtime_ns
    return {"format": 1, "keyring": f"{keyring.core.__file__}@{installed}", "python": sys.executable}
