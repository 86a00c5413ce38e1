"""A terminal (services layer) against the sandbox over loopback, with a profile in tmp_path."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backends import fail

from pos_terminal.config import Settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.terminal import ServiceAddress, Terminal
from tests.conftest import mint_token
from tests.helpers.http import http_client


class FakeClock:
    """The terminal's idea of now, moved by tests instead of sleeping."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)


@pytest.fixture
def terminal_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def open_terminal(
    tmp_path: Path, terminal_clock: FakeClock, insecure_token_file: None
) -> AsyncIterator[Callable[..., Any]]:
    """Open terminals signed in with a non-expiring token; call with ``terminal_id=`` or ``server=``."""
    opened: list[Terminal] = []

    async def open_one(server: SandboxServer, terminal_id: str = "LANE-1", **settings: Any) -> Terminal:
        settings.setdefault("request_timeout_seconds", 2.0)
        paths = Paths.profile(tmp_path / f"profile-{terminal_id}")
        service = ServiceAddress.from_root(server.url, name="sandbox", account="test", production=False)
        settings_ = Settings(terminal_id=terminal_id, allow_insecure_token_file=True, **settings)
        terminal = Terminal(paths, settings_, service, now=terminal_clock)
        with http_client(base_url=server.url) as http:
            await terminal.session.sign_in_with_token(mint_token(http, expiresIn=0))
        opened.append(terminal)
        return terminal

    yield open_one
    for terminal in opened:
        await terminal.aclose()


@pytest.fixture
def insecure_token_file() -> Iterator[None]:
    """No keychain here: the fail backend, so tokens go to the opted-in 0600 file."""
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture
async def terminal(sandbox: SandboxServer, open_terminal: Callable[..., Any]) -> Terminal:
    opened: Terminal = await open_terminal(sandbox)
    return opened
