"""A start reads its sign-in once. It looked for a sign-in kept by a release before 0.2 on every start: the
keychain read once for that and once more for the session, and the whole audit log walked for the terminal's last
sign-in. The earlier key is now looked for only when no sign-in is stored."""

from __future__ import annotations

import asyncio
from pathlib import Path

import keyring

from pos_terminal.config import Settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.session import SessionState
from pos_terminal.services.terminal import ServiceAddress, Terminal, sign_in_key
from tests.conftest import mint_token
from tests.helpers.http import http_client
from tests.keyrings import MemoryKeyring


class CountingKeyring(MemoryKeyring):
    """A keychain that counts what is read from it, entry by entry."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    def get_password(self, service: str, username: str) -> str | None:
        self.reads.append(username)
        return super().get_password(service, username)


def test_a_start_with_its_sign_in_stored_reads_it_once(tmp_path: Path, sandbox: SandboxServer) -> None:
    backend = CountingKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        paths = Paths.profile(tmp_path / "profile")
        service = ServiceAddress.from_root(sandbox.url, name="sandbox", account="test", production=False)

        async def start(sign_in: bool) -> SessionState:
            terminal = Terminal(paths, Settings(terminal_id="LANE-1"), service)
            try:
                if sign_in:
                    with http_client(base_url=sandbox.url) as http:
                        await terminal.session.sign_in_with_token(mint_token(http, expiresIn=0))
                return terminal.session.state
            finally:
                await terminal.aclose()

        assert asyncio.run(start(sign_in=True)) is SessionState.CONNECTED
        backend.reads.clear()
        assert asyncio.run(start(sign_in=False)) is SessionState.CONNECTED
        own = sign_in_key(paths, service, "LANE-1")
        assert backend.reads.count(own) == 1, f"the sign-in read once: {backend.reads}"
        assert "test|LANE-1" not in backend.reads, "the key of a release before 0.2 is not looked at"
    finally:
        keyring.set_keyring(previous)
