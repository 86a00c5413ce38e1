"""Independent implementations against ours: a stock OAuth provider, and OAuth client libraries.

The provider is ``oidc-provider`` from npm (tests/interop/provider, installed by ``make
interop-deps``), started by the test on loopback; its development login and consent pages are
driven over HTTP as a person in a browser would. Without node or the package the tests that need
it skip, saying how to install them.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.http import http_client

PROVIDER_DIR = Path(__file__).with_name("provider")
INSTALL = "sudo apt install nodejs npm (Node.js 20 or later), then make interop-deps"


@dataclass
class Provider:
    """A running oidc-provider: its issuer, and the pages a person uses to approve a device."""

    issuer: str
    process: subprocess.Popen[str]

    def approve(self, verification_uri_complete: str, who: str = "cashier") -> None:
        """Open the address from the device, confirm the code, sign in as ``who`` and consent."""
        with http_client(follow_redirects=True, timeout=10) as browser:
            page = browser.get(verification_uri_complete)
            for _ in range(6):
                found = _first_form(page.text)
                if found is None:
                    break
                action, fields, names = found
                if "login" in names:
                    fields.update(login=who, password="any")  # the development login takes any password
                page = browser.post(page.url.join(action or str(page.url)), data=fields)
            assert "Sign-in Success" in page.text, page.text[:500]

    def introspect(self, token: str) -> dict[str, Any]:
        answer = httpx.post(
            f"{self.issuer}/token/introspection", data={"token": token}, auth=("checker", "checker-secret")
        )
        answer.raise_for_status()
        body: dict[str, Any] = answer.json()
        return body


def _first_form(page: str) -> tuple[str | None, dict[str, str], list[str]] | None:
    match = re.search(r"<form([^>]*)>(.*?)</form>", page, re.S)
    if match is None:
        return None
    action = re.search(r'action="([^"]*)"', match.group(1))
    inputs = re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', match.group(2))
    fields = {html.unescape(name): html.unescape(value) for name, value in inputs}
    names = re.findall(r'<(?:input|button)[^>]*name="([^"]+)"', match.group(2))
    if "confirm" in names and "confirm" not in fields:
        fields["confirm"] = "yes"
    return (html.unescape(action.group(1)) if action else None), fields, names


@pytest.fixture
def start_provider() -> Iterator[Callable[..., Provider]]:
    """Start oidc-provider on loopback (``rotate=True``: refresh tokens rotate); stopped afterwards."""
    node = shutil.which("node")
    if node is None:
        pytest.skip(f"node is not installed: {INSTALL}")
    if not (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir():
        pytest.skip(f"oidc-provider is not installed: make interop-deps (needs node and npm: {INSTALL})")
    started: list[subprocess.Popen[str]] = []

    def start(*, rotate: bool) -> Provider:
        process = subprocess.Popen(
            [node, "server.mjs", *(["--rotate"] if rotate else [])],
            cwd=PROVIDER_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        started.append(process)
        assert process.stdout is not None
        ready = process.stdout.readline()  # the provider prints its issuer once it listens
        assert ready.startswith("READY "), f"oidc-provider did not start: {ready!r}"
        return Provider(ready.split()[1], process)

    yield start
    for process in started:
        assert process.stdin is not None
        process.stdin.close()  # the script ends when its standard input closes
        process.wait(timeout=10)
