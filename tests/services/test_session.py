"""Sign-in, token storage in the keychain, disconnect: against the sandbox, with real keyring backends."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from pos_terminal.api.errors import AccessDenied, InvalidGrant
from pos_terminal.config import Settings
from pos_terminal.keychain.tokens import NoKeychain
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.session import NotSignedIn, SessionState
from pos_terminal.services.terminal import ServiceAddress, Terminal
from tests.conftest import mint_token
from tests.helpers.http import async_http_client, http_client
from tests.keyrings import MemoryKeyring

EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
FAR = datetime(2100, 1, 1, tzinfo=UTC)


LIMIT = 1024  # a small keychain entry limit, as some platforms have


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring(limit=LIMIT)
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def open_terminal(tmp_path: Path, server: SandboxServer, **settings: object) -> Terminal:
    service = ServiceAddress.from_root(server.url, name="sandbox", account="test", production=False)
    return Terminal(Paths.profile(tmp_path / "profile"), Settings(terminal_id="LANE-1", **settings), service)


async def device_sign_in(terminal: Terminal, server: SandboxServer, *, approve: bool = True) -> None:
    authorization = await terminal.session.start_device_sign_in()
    async with async_http_client(base_url=server.url) as control:
        route = "/sandbox/device/approve" if approve else "/sandbox/device/deny"
        (await control.post(route, json={"userCode": authorization.user_code})).raise_for_status()
    await terminal.session.finish_device_sign_in(authorization)


async def test_device_sign_in_keeps_tokens_in_the_keychain_and_disconnect_removes_them(
    tmp_path: Path, sandbox: SandboxServer, memory_keyring: MemoryKeyring
) -> None:
    terminal = open_terminal(tmp_path, sandbox)
    try:
        assert terminal.session.state is SessionState.SIGNED_OUT
        await device_sign_in(terminal, sandbox)
        assert terminal.session.state is SessionState.CONNECTED
        assert memory_keyring.secrets, "the sign-in is in the keychain"
        stored = " ".join(memory_keyring.secrets.values())
        assert "accessToken" in stored or len(memory_keyring.secrets) > 1
        assert not (terminal.paths.insecure_token_file).exists()
        assert await terminal.customers.refresh()
    finally:
        await terminal.aclose()

    again = open_terminal(tmp_path, sandbox)
    try:
        assert again.session.state is SessionState.CONNECTED, "a token in the keychain skips sign-in"
        assert await again.customers.refresh()
        again.session.disconnect()
        assert again.session.state is SessionState.SIGNED_OUT
        assert memory_keyring.secrets == {}
        with pytest.raises(NotSignedIn):
            await again.customers.refresh()
        audit = [e.action for e in again.journal.audit.between(EPOCH, FAR)]
        assert audit.count("sign-in") == 1
        assert "disconnect" in audit
    finally:
        await again.aclose()


async def test_a_token_larger_than_the_keychain_limit_is_stored_in_chunks(
    tmp_path: Path, sandbox: SandboxServer, memory_keyring: MemoryKeyring
) -> None:
    terminal = open_terminal(tmp_path, sandbox)
    try:
        big = "x" * 5_000
        await terminal.session.sign_in_with_token(big)
        assert len(memory_keyring.secrets) > 1
        assert all(len(v) <= LIMIT for v in memory_keyring.secrets.values())
        assert terminal.session.keeper.load() is not None
        terminal.session.disconnect()
        assert memory_keyring.secrets == {}
    finally:
        await terminal.aclose()


async def test_without_a_keychain_sign_in_refuses_to_store_and_says_why(
    tmp_path: Path, sandbox: SandboxServer, no_keyring: None
) -> None:
    terminal = open_terminal(tmp_path, sandbox)
    try:
        assert not terminal.session.keeper.can_keep
        with pytest.raises(NoKeychain) as refused:
            await terminal.session.start_device_sign_in()
        assert "keychain" in refused.value.text()
        assert "allow_insecure_token_file" in refused.value.text()
        with http_client(base_url=sandbox.url) as http:
            token = mint_token(http)
        with pytest.raises(NoKeychain):
            await terminal.session.sign_in_with_token(token)
        assert terminal.session.state is SessionState.SIGNED_OUT
        assert not terminal.paths.insecure_token_file.exists()
    finally:
        await terminal.aclose()


async def test_the_insecure_file_store_is_only_used_when_opted_in_and_says_so(
    tmp_path: Path, sandbox: SandboxServer, no_keyring: None
) -> None:
    terminal = open_terminal(tmp_path, sandbox, allow_insecure_token_file=True)
    try:
        assert terminal.session.insecure_store
        await device_sign_in(terminal, sandbox)
        path = terminal.paths.insecure_token_file
        assert path.exists()
        assert path.stat().st_mode & 0o777 == 0o600
        terminal.session.disconnect()
        assert not path.exists() or path.read_text().strip() in ("", "{}")
    finally:
        await terminal.aclose()


async def test_denied_sign_in_stores_nothing(
    tmp_path: Path, sandbox: SandboxServer, memory_keyring: MemoryKeyring
) -> None:
    terminal = open_terminal(tmp_path, sandbox)
    try:
        with pytest.raises(AccessDenied):
            await device_sign_in(terminal, sandbox, approve=False)
        assert terminal.session.state is SessionState.SIGNED_OUT
        assert memory_keyring.secrets == {}
    finally:
        await terminal.aclose()


async def test_a_revoked_refresh_token_marks_the_session_revoked(
    tmp_path: Path, sandbox: SandboxServer, memory_keyring: MemoryKeyring
) -> None:
    terminal = open_terminal(tmp_path, sandbox)
    try:
        await device_sign_in(terminal, sandbox)
        # the sandbox forgets every token, as a merchant revoking the app would
        with http_client(base_url=sandbox.url) as http:
            http.post("/sandbox/clock", json={"advanceSeconds": 3700}).raise_for_status()
        with sandbox.sandbox.db.tx() as conn:
            conn.execute("UPDATE refresh_tokens SET revoked = 1")
        with pytest.raises(InvalidGrant) as failed:
            await terminal.customers.refresh()
        assert terminal.session.state is SessionState.REVOKED
        assert "Sign in again" in str(failed.value)
    finally:
        await terminal.aclose()
