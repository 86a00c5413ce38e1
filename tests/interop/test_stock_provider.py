"""The terminal's device sign-in and refresh against a stock provider it has never seen (oidc-provider).

Its endpoints are ``/token`` and ``/device/auth``, found through discovery; it gives refresh tokens
only with ``offline_access``; with rotation it revokes the grant when a refresh token is used twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from pos_terminal.config import CustomUrls, RegionAuth, Settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.session import SessionState
from pos_terminal.services.terminal import Terminal, resolve_service
from tests.conftest import finish_at_once
from tests.interop.conftest import Provider
from tests.keyrings import MemoryKeyring

OFFLINE = "openid offline_access posapi"


@pytest.fixture
async def open_lane(
    tmp_path: Path, sandbox: SandboxServer, memory_keyring: MemoryKeyring
) -> AsyncIterator[Callable[[Provider, str], Terminal]]:
    """Terminals of one profile whose region ("custom") signs in at the provider; the POS API is the sandbox."""
    opened: list[Terminal] = []

    def open_one(provider: Provider, scope: str) -> Terminal:
        urls = CustomUrls(auth_url=provider.issuer, pos_url=f"{sandbox.url}/v4", payments_url=sandbox.url)
        settings = Settings(
            terminal_id="LANE-1", region="custom", custom_urls=urls, auth={"custom": RegionAuth(scope=scope)}
        )
        paths = Paths.profile(tmp_path / "profile")
        terminal = Terminal(paths, settings, resolve_service(settings, paths))
        opened.append(terminal)
        return terminal

    yield open_one
    for terminal in opened:
        await terminal.aclose()


async def sign_in(terminal: Terminal, provider: Provider) -> None:
    authorization = await terminal.session.start_device_sign_in()
    assert authorization.verification_uri_complete
    await asyncio.to_thread(provider.approve, authorization.verification_uri_complete)
    await finish_at_once(terminal.session, authorization)


async def renew(terminal: Terminal) -> str:
    """What a 401 leads to: the refresh, through the session's own credentials; the new access token."""
    credentials = terminal.session.credentials()
    header = await credentials.auth_header()
    renewed = await credentials.after_unauthorized(header)
    assert renewed is not None and renewed != header
    return renewed[1].removeprefix("Bearer ")


@pytest.mark.parametrize("rotate", [False, True], ids=["refresh tokens kept", "refresh tokens rotated"])
async def test_device_sign_in_and_refresh_through_discovery(
    start_provider: Callable[..., Provider], open_lane: Callable[[Provider, str], Terminal], rotate: bool
) -> None:
    provider = start_provider(rotate=rotate)
    terminal = open_lane(provider, OFFLINE)

    await sign_in(terminal, provider)

    endpoints = await terminal.session.auth.endpoints()
    assert (endpoints.token, endpoints.device_authorization) == (
        f"{provider.issuer}/token",
        f"{provider.issuer}/device/auth",
    )
    assert endpoints.source.startswith(f"the metadata at {provider.issuer}/.well-known/")
    assert terminal.session.state is SessionState.CONNECTED
    assert terminal.session.ends_at is None, "offline_access brought a refresh token"
    first = terminal.session.keeper.load()
    assert first is not None and first["refreshToken"]

    for _ in range(2):  # a second renewal shows the grant still stands after the first
        access = await renew(terminal)
        assert provider.introspect(access)["active"] is True
    stored = terminal.session.keeper.load()
    assert stored is not None and stored["accessToken"] == access
    spent = provider.introspect(first["refreshToken"])["active"]
    assert spent is not rotate, "rotated: the first refresh token is spent; kept: it still works"
    assert provider.introspect(stored["refreshToken"])["active"] is True


async def test_without_offline_access_the_sign_in_says_when_it_ends(
    start_provider: Callable[..., Provider], open_lane: Callable[[Provider, str], Terminal]
) -> None:
    provider = start_provider(rotate=False)
    terminal = open_lane(provider, "openid posapi")
    before = terminal.session.auth.now()
    await sign_in(terminal, provider)
    ends = terminal.session.ends_at
    assert ends is not None, "no refresh token came"
    assert 3_590 <= (ends - before).total_seconds() <= 3_610  # the provider's access tokens last an hour


async def test_two_terminals_of_a_profile_renew_once_with_a_rotating_provider(
    start_provider: Callable[..., Provider], open_lane: Callable[[Provider, str], Terminal]
) -> None:
    provider = start_provider(rotate=True)
    first = open_lane(provider, OFFLINE)
    await sign_in(first, provider)
    second = open_lane(provider, OFFLINE)
    assert second.session.state is SessionState.CONNECTED

    renewed = await asyncio.gather(renew(first), renew(second))

    assert renewed[0] == renewed[1], "one renewal, taken by both"
    assert provider.introspect(renewed[0])["active"] is True, "the grant was not revoked"
    assert first.session.state is second.session.state is SessionState.CONNECTED
