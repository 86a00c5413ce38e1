"""The authorization service's pages in a real browser, joined to the flows that use them.

The device sign-in page approves the code of the terminal's own device flow
(``Terminal.session``, polling as it does in the window) and the terminal then holds a
working token. The merchant authorization page completes the authorization-code flow
back to a redirect on another loopback port, whose code the token endpoint exchanges.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx

from pos_terminal.api.models import DeviceAuthorization
from pos_terminal.config import Settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.session import SessionState
from pos_terminal.services.terminal import ServiceAddress, Terminal
from tests.browser.conftest import LoopbackSite, Snap
from tests.keyrings import MemoryKeyring

WAIT_SECONDS = 30


class TerminalSignIn:
    """The terminal's device sign-in on its own thread and event loop, as the window runs it.

    The device code is handed over as soon as the terminal has it; the terminal then polls
    until the person approves, and keeps what it saw.
    """

    def __init__(self, profile: Path, sandbox: SandboxServer) -> None:
        self.profile = profile
        self.sandbox = sandbox
        self.codes: queue.Queue[DeviceAuthorization | BaseException] = queue.Queue()
        self.state: SessionState | None = None
        self.customers: list[str] = []
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), name="terminal-sign-in")

    async def _run(self) -> None:
        service = ServiceAddress.from_root(self.sandbox.url, name="sandbox", account="browser", production=False)
        terminal = Terminal(Paths.profile(self.profile), Settings(terminal_id="LANE-1"), service)
        try:
            authorization = await terminal.session.start_device_sign_in()
            self.codes.put(authorization)
            await terminal.session.finish_device_sign_in(authorization)
            self.state = terminal.session.state
            self.customers = [c.customer_id for c in await terminal.customers.refresh()]
        except BaseException as exc:  # handed to the test, which fails with it
            self.failure = exc
            self.codes.put(exc)
        finally:
            await terminal.aclose()

    def start(self) -> DeviceAuthorization:
        self.thread.start()
        handed = self.codes.get(timeout=WAIT_SECONDS)
        if isinstance(handed, BaseException):
            raise handed
        return handed

    def join(self) -> None:
        self.thread.join(WAIT_SECONDS)
        assert not self.thread.is_alive(), "the terminal is still waiting for the approval"
        if self.failure is not None:
            raise self.failure


def test_device_page_approves_the_code_the_terminal_then_receives(
    page: Any,
    sandbox: SandboxServer,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    snap: Snap,
) -> None:
    terminal = TerminalSignIn(tmp_path / "profile", sandbox)
    authorization = terminal.start()

    page.goto(f"{sandbox.url}/device")
    page.fill("#user_code", "BCDF-GHJK")
    page.click("button[type=submit]")
    error = page.locator("#code-error")
    assert error.text_content() == "That code is not valid or has expired. Check the terminal and type it again."
    assert page.get_attribute("#user_code", "aria-invalid") == "true"
    snap(page, "device-code-wrong")

    page.goto(authorization.verification_uri_complete)
    assert page.input_value("#user_code") == authorization.user_code
    snap(page, "device-code")
    page.click("button[type=submit]")
    page.fill("#username", "demo")
    page.fill("#password", "wrong")
    page.click("button[type=submit]")
    assert page.text_content("#login-error") == "The user name or password is wrong."
    snap(page, "device-sign-in-wrong")
    page.fill("#username", "demo")
    page.fill("#password", "demo")
    page.click("button[type=submit]")
    assert authorization.user_code in page.text_content("main")
    snap(page, "device-approve")
    page.get_by_label("Quayside Bistro").check()
    page.click("button[value=approve]")
    page.get_by_text("The terminal is connected to Quayside Bistro.").wait_for()
    snap(page, "device-connected")

    terminal.join()
    assert terminal.state is SessionState.CONNECTED
    assert "cus-sofia" in terminal.customers, "the token acts for the merchant chosen on the page"
    assert memory_keyring.secrets, "the terminal keeps the sign-in in the keychain"


def test_merchant_authorization_page_returns_a_code_to_a_loopback_redirect(
    page: Any, sandbox: SandboxServer, site: LoopbackSite, snap: Snap
) -> None:
    redirect_uri = f"{site.url}/callback"
    query = {
        "client_id": "demo-web",
        "response_type": "code",
        "redirect_uri": redirect_uri,
        "scope": "posapi",
        "state": "a1b2c3",
    }
    page.goto(f"{sandbox.url}/authorize/merchant?{urlencode(query)}")
    assert "Demo ordering web app" in page.text_content("main")
    snap(page, "authorize-merchant-sign-in")
    page.fill("#username", "cafe")
    page.fill("#password", "demo")
    page.click("button[type=submit]")
    page.get_by_label("Harbour Café").wait_for()
    snap(page, "authorize-merchant-approve")
    page.click("button[value=approve]")

    returned = site.wait_for("/callback")
    page.wait_for_url(f"{redirect_uri}?**")
    assert returned["grant_type"] == ["authorization_code"]
    assert returned["state"] == ["a1b2c3"]
    exchanged = httpx.post(
        f"{sandbox.url}/v1/token",
        data={
            "grant_type": "authorization_code",
            "code": returned["code"][0],
            "redirect_uri": redirect_uri,
            "client_id": "demo-web",
            "client_secret": "demo-web-secret",
        },
    )
    assert exchanged.status_code == 200, exchanged.text
    tokens = exchanged.json()
    assert (tokens["resource_owner_type"], tokens["scope"]) == ("merchant", "posapi")
    customers = httpx.get(f"{sandbox.url}/v4/customers", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert customers.status_code == 200
    assert "cus-ava" in {c["customerId"] for c in customers.json()}
