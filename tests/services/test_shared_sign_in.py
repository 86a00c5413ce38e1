"""One sign-in shared by the terminals of one profile (here two in one process; tests/e2e has two processes).

With a server that rotates refresh tokens and revokes the grant when one is used twice, two
refreshes with the same refresh token sign the till out. Under the profile's lock the second
reads the stored sign-in again and takes the first one's token instead of refreshing.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from pos_terminal.api.errors import InvalidGrant
from pos_terminal.config import Settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.session import SessionState
from pos_terminal.services.terminal import ServiceAddress, Terminal, resolve_service
from tests.api.fake_service import FakeService, signs_in_without_refresh
from tests.conftest import finish_at_once
from tests.helpers.http import async_http_client


@pytest.fixture
def rotating(make_sandbox: Callable[..., SandboxServer]) -> SandboxServer:
    return make_sandbox(rotate_refresh_tokens=True, device_interval=1)


@pytest.fixture
async def lanes(
    tmp_path: Path, rotating: SandboxServer, insecure_token_file: None
) -> AsyncIterator[Callable[[], Terminal]]:
    """Terminals of one profile (one token file, one lock) against the rotating sandbox."""
    opened: list[Terminal] = []
    service = ServiceAddress.from_root(rotating.url, name="sandbox", account="shared", production=False)

    def open_lane() -> Terminal:
        settings = Settings(terminal_id="LANE-1", allow_insecure_token_file=True, request_timeout_seconds=5.0)
        terminal = Terminal(Paths.profile(tmp_path / "profile"), settings, service)
        opened.append(terminal)
        return terminal

    yield open_lane
    for terminal in opened:
        await terminal.aclose()


async def sign_in(terminal: Terminal, server: SandboxServer) -> None:
    authorization = await terminal.session.start_device_sign_in()
    async with async_http_client(base_url=server.url) as control:
        approved = await control.post("/sandbox/device/approve", json={"userCode": authorization.user_code})
        approved.raise_for_status()
    await finish_at_once(terminal.session, authorization)


async def expire_on_the_server(server: SandboxServer) -> None:
    """The service now sees every access token as expired; the terminals' own clocks do not."""
    async with async_http_client(base_url=server.url) as control:
        (await control.post("/sandbox/clock", json={"advanceSeconds": 3_601})).raise_for_status()


class NoLock:
    """A profile lock that never makes anyone wait: what each process had before the lock existed."""

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        yield


def managers(*terminals: Terminal) -> list[Any]:
    return [t.session._manager for t in terminals]


async def test_two_terminals_of_a_profile_refresh_once_and_the_grant_survives(
    lanes: Callable[[], Terminal], rotating: SandboxServer
) -> None:
    first = lanes()
    await sign_in(first, rotating)
    second = lanes()
    assert second.session.state is SessionState.CONNECTED, "the second read the stored sign-in"
    await expire_on_the_server(rotating)

    listed = await asyncio.gather(first.customers.refresh(), second.customers.refresh())

    assert all(listed)
    counted = managers(first, second)
    assert sum(m.refreshes for m in counted) == 1, "one refresh for the profile"
    with rotating.sandbox.db.tx() as conn:  # the other took the stored token: the service saw one refresh token spent
        spent = conn.execute("SELECT count(*) FROM refresh_tokens WHERE used_at IS NOT NULL").fetchone()[0]
        revoked = conn.execute("SELECT count(*) FROM refresh_tokens WHERE revoked = 1").fetchone()[0]
    assert (spent, revoked) == (1, 0), "the other took the stored token"
    assert counted[0].tokens == counted[1].tokens
    third = lanes()  # a later process: the stored, rotated sign-in still refreshes
    await expire_on_the_server(rotating)
    assert await third.customers.refresh()
    assert third.session.state is SessionState.CONNECTED


async def test_without_the_lock_the_same_refresh_token_is_used_twice_and_the_grant_is_revoked(
    lanes: Callable[[], Terminal], rotating: SandboxServer
) -> None:
    """What the lock prevents, shown with it taken away: the scenario above is sharp enough to fail."""
    first = lanes()
    await sign_in(first, rotating)
    second = lanes()
    for terminal in (first, second):
        terminal.session.lock = NoLock()
    await expire_on_the_server(rotating)
    async with async_http_client(base_url=rotating.url) as control:  # both read the store before either saves
        slow = {"method": "POST", "path": "/v1/token", "mode": "delay", "delayMs": 1_000, "times": 2}
        (await control.post("/sandbox/faults", json=slow)).raise_for_status()

    results = await asyncio.gather(first.customers.refresh(), second.customers.refresh(), return_exceptions=True)

    assert any(isinstance(r, InvalidGrant) for r in results), results
    assert SessionState.REVOKED in (first.session.state, second.session.state)


async def test_a_sign_in_removed_by_another_terminal_signs_this_one_out(
    lanes: Callable[[], Terminal], rotating: SandboxServer
) -> None:
    first = lanes()
    await sign_in(first, rotating)
    second = lanes()
    first.session.disconnect()
    await expire_on_the_server(rotating)
    with pytest.raises(InvalidGrant, match="removed by another pos-terminal"):
        await second.customers.refresh()
    assert second.session.state is SessionState.SIGNED_OUT


async def test_a_sign_in_without_a_refresh_token_says_when_it_ends(
    tmp_path: Path, fake_service: FakeService, insecure_token_file: None
) -> None:
    """A server that gives refresh tokens only with offline_access gave none, and the terminal fell silent."""
    signs_in_without_refresh(fake_service)
    settings = Settings(terminal_id="LANE-1", allow_insecure_token_file=True)
    paths = Paths.profile(tmp_path / "profile")
    terminal = Terminal(paths, settings, resolve_service(settings, paths, service_url=fake_service.url))
    try:
        authorization = await terminal.session.start_device_sign_in()
        before = terminal.session.auth.now()
        await finish_at_once(terminal.session, authorization)
        ends = terminal.session.ends_at
        assert ends is not None
        assert 899 <= (ends - before).total_seconds() <= 901
    finally:
        await terminal.aclose()
    reopened = Terminal(paths, settings, resolve_service(settings, paths, service_url=fake_service.url))
    try:
        assert reopened.session.ends_at == ends, "known again after a restart"
    finally:
        await reopened.aclose()
