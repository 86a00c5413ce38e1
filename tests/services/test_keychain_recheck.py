"""A terminal started on a remembered "no keychain" looks again on a thread of its own (``Terminal.recheck_keychain``),
and the next start signs in to the keychain it found."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import keyring
import keyring.backend
import keyring.core
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from pos_terminal.config import Settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.terminal import ServiceAddress, Terminal
from tests.keyrings import MemoryKeyring


async def test_a_remembered_no_keychain_is_looked_at_again_off_the_loop(
    sandbox: SandboxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # a fresh process: nothing chosen yet
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    looked_from: list[str] = []
    offered: list[KeyringBackend] = []

    def look() -> list[KeyringBackend]:
        looked_from.append(threading.current_thread().name)
        return list(offered)

    monkeypatch.setattr(keyring.backend, "get_all_keyring", look)
    paths = Paths.profile(tmp_path / "profile")
    service = ServiceAddress.from_root(sandbox.url, name="sandbox", account="test", production=False)
    settings = Settings(terminal_id="LANE-1", allow_insecure_token_file=True)

    first = Terminal(paths, settings, service)  # no keychain on this machine yet: found, and remembered
    await first.aclose()
    assert looked_from == [threading.current_thread().name]
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)

    offered.append(MemoryKeyring())  # a keychain is set up
    second = Terminal(paths, settings, service)
    try:
        assert isinstance(second.keychain.backend, fail.Keyring)  # this start did not wait to look
        assert second.session.store.insecure  # and keeps the sign-in in the opted-in file
        await second.recheck_keychain()
    finally:
        await second.aclose()
    assert looked_from[1:] == ["keychain recheck"]
    assert json.loads(paths.keychain_file.read_text())["backend"] == "tests.keyrings.MemoryKeyring"

    monkeypatch.setattr(keyring.core, "_keyring_backend", None)
    third = Terminal(paths, settings, service)
    try:
        assert isinstance(third.keychain.backend, MemoryKeyring)
        assert not third.session.store.insecure
        await third.recheck_keychain()  # nothing to look at again
    finally:
        await third.aclose()
    assert len(looked_from) == 2
