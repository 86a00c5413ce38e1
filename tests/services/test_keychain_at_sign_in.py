"""A terminal started on a remembered "no keychain" looks again when it finds no sign-in and before a sign-in: a
keychain set up since keeps that sign-in, and the next start uses it (``pos_terminal.keychain.backend``); a sign-in
already kept in a keychain found then is the terminal's at once."""

from __future__ import annotations

import json
from pathlib import Path

import keyring.backend
import keyring.core
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from pos_terminal.config import Settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.session import SessionState
from pos_terminal.services.terminal import ServiceAddress, Terminal
from tests.conftest import mint_token
from tests.helpers.http import http_client
from tests.keyrings import SystemKeyring


async def test_a_keychain_set_up_since_keeps_the_next_sign_in(
    sandbox: SandboxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # a fresh process: nothing chosen yet
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    offered: list[KeyringBackend] = []
    looks: list[int] = []

    def look() -> list[KeyringBackend]:
        looks.append(1)
        return list(offered)

    monkeypatch.setattr(keyring.backend, "get_all_keyring", look)
    paths = Paths.profile(tmp_path / "profile")
    service = ServiceAddress.from_root(sandbox.url, name="sandbox", account="test", production=False)
    settings = Settings(terminal_id="LANE-1", allow_insecure_token_file=True)

    first = Terminal(paths, settings, service)  # no keychain on this machine yet: found, and remembered
    await first.aclose()
    assert looks == [1]

    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # the next start
    SystemKeyring.shelf.clear()
    keychain = SystemKeyring()
    offered.append(keychain)  # a keychain is set up
    second = Terminal(paths, settings, service)
    try:
        assert isinstance(second.keychain.backend, fail.Keyring)  # what was remembered, loaded at once
        # no sign-in stored in the file it led to: the start looked again, as a sign-in would, for one kept there
        assert not second.session.keeper.insecure and looks == [1, 1]
        assert second.session.state is SessionState.SIGNED_OUT
        with http_client(base_url=sandbox.url) as http:
            await second.session.sign_in_with_token(mint_token(http, expiresIn=0))
        assert second.session.state is SessionState.CONNECTED
        assert not second.session.keeper.insecure  # the sign-in went to the keychain found
        assert keychain.secrets and not paths.insecure_token_file.exists()
    finally:
        await second.aclose()
    assert looks == [1, 1]
    assert json.loads(paths.keychain_file.read_text())["backend"] == "tests.keyrings.SystemKeyring"

    monkeypatch.setattr(keyring.core, "_keyring_backend", None)
    third = Terminal(paths, settings, service)
    try:
        assert isinstance(third.keychain.backend, SystemKeyring) and not third.keychain.worth_a_recheck
        assert third.session.state is SessionState.CONNECTED  # signed in from the keychain, nobody asked
    finally:
        await third.aclose()
    assert looks == [1, 1]
