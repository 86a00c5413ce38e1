"""A sign-in that brought no refresh token says, once, in the status bar, when it ends.

A server that gives refresh tokens only with ``offline_access`` gave none, and the terminal went on
silently until the token died at ``expires_in``. Here the authorization server is a scripted one
(no refresh token, 15 minutes), the POS API the sandbox.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.config import CustomUrls, Settings, save_settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.ui.main_window import MainWindow
from tests.api.fake_service import FakeService, signs_in_without_refresh
from tests.conftest import mint_token
from tests.ui.conftest import TERMINAL_ID, finish, first_manager_and_shift, screenshot, until

LIFETIME = 900


@pytest.fixture
def auth_server(client: httpx.Client) -> Iterator[FakeService]:
    """Device sign-in without a refresh token; its access token is a real sandbox token of the same lifetime."""
    with FakeService().running() as service:
        signs_in_without_refresh(service, mint_token(client, expiresIn=LIFETIME), LIFETIME)
        yield service


async def test_the_status_bar_says_when_a_sign_in_that_cannot_renew_ends(
    tmp_path: Path, sandbox: SandboxServer, auth_server: FakeService, make_window: Callable[[AppHost], MainWindow]
) -> None:
    paths = Paths.profile(tmp_path / "profile").ensure()
    urls = CustomUrls(auth_url=auth_server.url, pos_url=f"{sandbox.url}/v4", payments_url=sandbox.url)
    save_settings(paths.config_file, Settings(terminal_id=TERMINAL_ID, region="custom", custom_urls=urls))
    host = AppHost(paths)
    window = make_window(host)
    window.start()

    await first_manager_and_shift(window)  # the sign-in done, the till's first start
    assert window.terminal is not None
    host_and_port = sandbox.url.removeprefix("http://")
    assert window.built_sign_in is not None
    assert window.built_sign_in.heading.text() == f"Sign in terminal {TERMINAL_ID} to {host_and_port}", (
        "not “to custom”"
    )
    assert window.status.region.text() == host_and_port
    ends = window.terminal.session.ends_at
    assert ends is not None
    connection = window.status.connection.text()
    assert connection == f"Connected — the sign-in ends at {ends.astimezone().strftime('%H:%M')} and cannot be renewed"
    assert "offline_access" in window.status.connection.toolTip()
    await until(lambda: window.cashier.customers.model.rowCount() > 0, what="the customers, with that token")
    for size in ((1024, 768), (1920, 1080)):
        window.resize(*size)
        screenshot(window, f"sign-in-ends-{size[0]}", tmp_path)
    assert window.status.connection.text() == connection, "said once, and still said"
    await finish(window, host)
