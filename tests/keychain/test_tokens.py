"""Token stores: the keychain (an in-memory backend here), chunking, failing closed, and the opted-in file."""

from __future__ import annotations

import json
import logging
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail, null

from pos_terminal.keychain.tokens import (
    CHUNK_SIZE,
    SERVICE,
    FileTokenKeeper,
    KeychainError,
    KeyringTokenKeeper,
    NoKeychain,
    NoTokenKeeper,
    move_earlier_sign_in,
    open_token_keeper,
)
from tests.keyrings import MemoryKeyring


class BrokenKeyring(MemoryKeyring):
    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("locked, and the secret is s3cret")


@pytest.fixture
def use_keyring() -> Iterator[Any]:
    previous = keyring.get_keyring()

    def use(backend: KeyringBackend) -> None:
        keyring.set_keyring(backend)

    yield use
    keyring.set_keyring(previous)


@pytest.fixture
def memory(use_keyring: Any) -> MemoryKeyring:
    backend = MemoryKeyring(limit=CHUNK_SIZE)
    use_keyring(backend)
    return backend


TOKENS = {"access_token": "a" * 40, "refresh_token": "r" * 40, "expires_at": "2026-03-01T10:00:00+00:00"}


def test_keychain_round_trip(memory: MemoryKeyring) -> None:
    store = KeyringTokenKeeper(SERVICE, "sandbox|LANE-1")
    assert store.load() is None
    store.save(TOKENS)
    assert store.load() == TOKENS
    assert not store.insecure
    assert "keychain" in store.description
    assert list(memory.secrets) == [(SERVICE, "sandbox|LANE-1")]
    store.clear()
    assert store.load() is None
    assert memory.secrets == {}
    store.clear()  # nothing stored is fine


def test_a_large_token_is_split_into_chunks(memory: MemoryKeyring) -> None:
    big = {"access_token": "x" * 5_000, "legacy": True}
    store = KeyringTokenKeeper(SERVICE, "acct")
    store.save(big)
    assert store.load() == big
    names = sorted(name for _, name in memory.secrets)
    assert names[0] == "acct" and len(names) == 1 + 6  # the head and 6 chunks of <= 1,000 characters
    assert all(len(value) <= CHUNK_SIZE for value in memory.secrets.values())
    assert {f"acct#{i}" for i in range(1, 7)} <= set(names)


def test_clear_removes_every_chunk(memory: MemoryKeyring) -> None:
    store = KeyringTokenKeeper(SERVICE, "acct")
    store.save({"access_token": "x" * 5_000})
    store.clear()
    assert memory.secrets == {}


def test_a_smaller_token_after_a_chunked_one_leaves_no_chunks(memory: MemoryKeyring) -> None:
    store = KeyringTokenKeeper(SERVICE, "acct")
    store.save({"access_token": "x" * 5_000})
    store.save({"access_token": "x" * 1_500})
    assert store.load() == {"access_token": "x" * 1_500}
    assert sorted(name for _, name in memory.secrets) == ["acct", "acct#1", "acct#2"]
    store.save(TOKENS)
    assert list(memory.secrets) == [(SERVICE, "acct")]


def test_chunks_that_do_not_belong_together_are_ignored(memory: MemoryKeyring) -> None:
    store = KeyringTokenKeeper(SERVICE, "acct")
    store.save({"access_token": "x" * 3_000})
    memory.secrets[(SERVICE, "acct#2")] = "y" * CHUNK_SIZE  # a save cut short
    assert store.load() is None


def test_accounts_are_apart(memory: MemoryKeyring) -> None:
    KeyringTokenKeeper(SERVICE, "one").save(TOKENS)
    assert KeyringTokenKeeper(SERVICE, "two").load() is None


@pytest.mark.parametrize("backend", [fail.Keyring, null.Keyring], ids=["fail", "null"])
def test_no_keychain_fails_closed(use_keyring: Any, backend: type[KeyringBackend]) -> None:
    use_keyring(backend())
    with pytest.raises(NoKeychain) as caught:
        KeyringTokenKeeper(SERVICE, "acct")
    assert "No keychain" in caught.value.sentence
    assert "allow_insecure_token_file" in caught.value.text()


def test_backend_errors_become_a_sentence_without_the_secret(
    use_keyring: Any, caplog: pytest.LogCaptureFixture
) -> None:
    use_keyring(BrokenKeyring())
    store = KeyringTokenKeeper(SERVICE, "acct")
    with caplog.at_level(logging.DEBUG), pytest.raises(KeychainError) as caught:
        store.load()
    assert "s3cret" not in caught.value.text()
    assert "s3cret" not in caplog.text
    assert caught.value.__cause__ is None


def test_file_store(tmp_path: Path) -> None:
    path = tmp_path / "data" / "tokens.json"
    store = FileTokenKeeper(path, account="acct")
    assert store.load() is None
    store.save(TOKENS)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.load() == TOKENS
    assert store.insecure
    assert "unencrypted file" in store.description and str(path) in store.description
    assert [p.name for p in path.parent.iterdir()] == ["tokens.json"]  # no temporary file left
    assert FileTokenKeeper(path, account="another service").load() is None
    store.clear()
    assert not path.exists()
    store.clear()


def test_a_sign_in_to_another_service_keeps_this_ones_in_the_file(tmp_path: Path) -> None:
    """The file held one sign-in: ``login --service URL`` (a test against another service) forgot the till's."""
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"account": "till", "tokens": TOKENS}))  # as earlier releases wrote it
    till, other = FileTokenKeeper(path, account="till"), FileTokenKeeper(path, account="other")
    assert till.load() == TOKENS and other.load() is None
    other.save({**TOKENS, "access_token": "o"})
    assert till.load() == TOKENS
    assert other.load() == {**TOKENS, "access_token": "o"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    other.clear()
    assert till.load() == TOKENS and path.exists()
    till.clear()
    assert not path.exists()


def test_file_store_overwrites_with_0600_even_if_the_file_was_wider(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text("{}")
    path.chmod(0o644)
    FileTokenKeeper(path, account="acct").save(TOKENS)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_unreadable_file_means_signed_out(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text("{not json")
    assert FileTokenKeeper(path, account="acct").load() is None


def test_open_token_store_prefers_the_keychain(memory: MemoryKeyring, tmp_path: Path) -> None:
    store = open_token_keeper(account="acct", file_path=tmp_path / "tokens.json", allow_insecure_file=True)
    assert isinstance(store, KeyringTokenKeeper)


def test_a_sign_in_kept_under_an_earlier_key_moves_and_leaves_it(memory: MemoryKeyring, tmp_path: Path) -> None:
    store = open_token_keeper(account="acct", file_path=tmp_path / "t.json", allow_insecure_file=False)
    assert not move_earlier_sign_in(store, "old-shared-key", file_path=tmp_path / "t.json", allow_insecure_file=False)
    KeyringTokenKeeper(SERVICE, "old-shared-key").save(TOKENS)
    assert move_earlier_sign_in(store, "old-shared-key", file_path=tmp_path / "t.json", allow_insecure_file=False)
    assert store.load() == TOKENS
    assert KeyringTokenKeeper(SERVICE, "old-shared-key").load() is None, "the shared key is let go of"


def test_open_token_store_uses_the_file_only_when_allowed(use_keyring: Any, tmp_path: Path) -> None:
    use_keyring(fail.Keyring())  # type: ignore[no-untyped-call]
    allowed = open_token_keeper(account="acct", file_path=tmp_path / "tokens.json", allow_insecure_file=True)
    assert isinstance(allowed, FileTokenKeeper) and allowed.insecure
    refused = open_token_keeper(account="acct", file_path=tmp_path / "tokens.json", allow_insecure_file=False)
    assert isinstance(refused, NoTokenKeeper)
    assert refused.load() is None
    with pytest.raises(NoKeychain):
        refused.save(TOKENS)
    refused.clear()
    assert not (tmp_path / "tokens.json").exists()
