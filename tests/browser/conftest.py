"""Headless Chromium from Debian's ``chromium`` package, driven by Playwright for Python.

Playwright's own browser builds are never downloaded: the browser is launched from
``/usr/bin/chromium`` (``executable_path``). Without it, or without the ``playwright``
package, every test here skips and says what to install; ``make test-browser`` installs
Chromium and runs them. Each test gets a fresh browser context on a browser shared by
its module; a script error on any page fails the test.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
INSTALL = "apt-get install chromium (or: make test-browser)"
# what Chromium needs on these machines: no sandbox (root), no GPU, no network of its own
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
WAIT_MS = 15_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for the module; Playwright launches it headless on a fresh profile directory."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is missing: pip install -e '.[test]'")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"Chromium is not installed: {INSTALL}")
    playwright = sync_api.sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield chromium
        chromium.close()
    finally:
        playwright.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page at phone width in a fresh context (no cookies); uncaught script errors fail the test."""
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"script errors on the page: {errors}"


Snap = Callable[..., None]


@pytest.fixture
def snap(tmp_path: Path) -> Snap:
    """Screenshot a page at phone and at desktop width: ``$POS_TERMINAL_SCREENSHOTS/web`` when set, else tmp.

    The whole page from its top; or, with ``at`` (a selector), the screen as a person sees it
    with that element scrolled into view, which is how the app's sheet and bars show.
    """
    folder = Path(os.environ.get("POS_TERMINAL_SCREENSHOTS") or tmp_path) / "web"
    folder.mkdir(parents=True, exist_ok=True)

    def take(tab: Any, name: str, *, at: str | None = None) -> None:
        for width, size in (("phone", PHONE), ("desktop", DESKTOP)):
            tab.set_viewport_size(size)
            if at is None:
                tab.evaluate("() => window.scrollTo(0, 0)")
            else:
                # its top just under the sandbox app's bar
                tab.locator(at).evaluate("e => window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 40)")
            tab.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=at is None)
        tab.set_viewport_size(PHONE)

    return take


class LoopbackSite:
    """Another origin on loopback: an integrator's pages, or where a redirect lands.

    ``pages`` maps a path to the HTML served there; any other path answers a short
    page. Every request is recorded, and :meth:`wait_for` waits on a condition for one.
    """

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        self.files: dict[str, bytes] = {}
        self.requests: list[tuple[str, dict[str, list[str]]]] = []
        self._arrived = threading.Condition()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                with site._arrived:
                    site.requests.append((parts.path, parse_qs(parts.query)))
                    site._arrived.notify_all()
                if parts.path in site.files:
                    body, kind = site.files[parts.path], "text/javascript; charset=utf-8"
                else:
                    body = site.pages.get(parts.path, "<!doctype html><title>Back</title><p>Back at the app.").encode()
                    kind = "text/html; charset=utf-8"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="loopback-site", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def wait_for(self, path: str, timeout: float = 15.0) -> dict[str, list[str]]:
        """The query of the first request to ``path``, once it has arrived."""
        with self._arrived:
            found = self._arrived.wait_for(lambda: [q for p, q in self.requests if p == path], timeout)
        assert found, f"nothing arrived at {path}"
        return found[0]

    def __enter__(self) -> LoopbackSite:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def site() -> Iterator[LoopbackSite]:
    with LoopbackSite() as running:
        yield running
