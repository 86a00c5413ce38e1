"""GUI tests: real widgets (offscreen) on the application's loop, against a real sandbox over loopback HTTP.

Each async test runs on a fresh :class:`~pos_terminal.ui.loop.EventLoop`, so the window's
coroutines run exactly as in the application; all GUI tests share one process and pass in
any order. Tests wait on conditions (``until``), never on
a fixed sleep. Sign-ins are kept in an in-memory keyring backend.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pos_terminal.allocator import hand_memory_back
from pos_terminal.app import AppHost, close_down
from pos_terminal.config import Settings, save_settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.ui.loop import EventLoop
from pos_terminal.ui.main_window import MainWindow, Page
from pos_terminal.ui.theme import Scheme, apply_theme
from pos_terminal.ui.till_view import TillMode
from tests.conftest import mint_token
from tests.keyrings import MemoryKeyring

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

TERMINAL_ID = "LANE-1"
SIZE = (1280, 800)
# The first manager every signed-in window gets (long PINs: none can turn up in a log by chance).
MANAGER, MANAGER_PIN = "Maria Manager", "908172635401"


def _application() -> QApplication:
    hand_memory_back()  # as the application's start does (pos_terminal.app.run_gui)
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    apply_theme(app, Scheme.LIGHT)  # every test starts light, whatever a test before it chose
    app.setQuitOnLastWindowClosed(False)  # as the application: closing a window must not stop the loop
    return app


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> dict[str, Callable[[], EventLoop]]:
    """The async tests of this folder run on the application's own loop, one per test, in one process."""
    return {"qt": lambda: EventLoop(_application())}


@pytest.fixture(autouse=True)
def _in_memory_keychain(memory_keyring: MemoryKeyring) -> MemoryKeyring:
    """Every window here keeps its sign-in in the in-memory keychain."""
    return memory_keyring


async def until(
    condition: Callable[[], Any],
    timeout: float = 15.0,  # noqa: ASYNC109
    what: str = "",
    poll: float = 0.02,
) -> Any:
    """Let the loop run until ``condition()`` is truthy; fail with ``what`` and where every task waits after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            others = [describe(t) for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            raise AssertionError(f"timed out waiting for {what or condition}; tasks: {others}")
        await asyncio.sleep(poll)


def describe(task: asyncio.Task[Any]) -> str:
    """Where a task waits: its chain of awaited coroutines, down to the future it is parked on."""
    chain: list[str] = []
    coro: Any = task.get_coro()
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
        if frame is not None:
            chain.append(f"{frame.f_code.co_qualname}:{frame.f_lineno}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
    return " > ".join(chain) + f" ({task!r})"


async def idle(window: MainWindow, timeout: float = 15.0) -> None:  # noqa: ASYNC109
    """Wait until none of the window's coroutines is running."""
    try:
        await until(lambda: not window.background_work(), timeout, "the window to be idle")
    except AssertionError as exc:
        running = [describe(task) for task in window.background_work()]
        raise AssertionError(f"{exc}: still running {running}") from None


async def finish(window: MainWindow, host: AppHost, *, wait: bool = True) -> None:
    """End a test as the application ends: let work finish, close the window, close the host, on the loop."""
    if wait:
        await idle(window)
    window.close()
    await close_down(window, host)
    assert not window.background_work(), "closing the window ends its work"


def screenshot(window: MainWindow, name: str, tmp_path: Path) -> Path:
    """Save the window as PNG: in $POS_TERMINAL_SCREENSHOTS when set (the README's pictures), else tmp."""
    folder = Path(os.environ.get("POS_TERMINAL_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    QApplication.processEvents()  # let pending layouts settle, as a person would see it
    assert window.grab().save(str(path)), path
    return path


@pytest.fixture
def profile(tmp_path: Path) -> Paths:
    paths = Paths.profile(tmp_path / "profile").ensure()
    save_settings(paths.config_file, Settings(terminal_id=TERMINAL_ID))
    return paths


@pytest.fixture
def host(profile: Paths, sandbox: SandboxServer) -> AppHost:
    return AppHost(profile, service_url=sandbox.url)


@pytest.fixture
def make_window(qtbot: Any) -> Iterator[Callable[[AppHost], MainWindow]]:
    windows: list[MainWindow] = []

    def make(host: AppHost) -> MainWindow:
        window = MainWindow(host)
        qtbot.addWidget(window)
        window.resize(*SIZE)
        window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.tasks.cancel_all()


async def first_manager_and_shift(window: MainWindow, opening_float: str = "200.00") -> None:
    """The first start's till page, as a manager goes through it: name and PIN twice, then the float."""
    await until(lambda: window.page is Page.TILL and window.terminal is not None, what="the till's page")
    till = window.till
    assert till.mode is TillMode.FIRST_MANAGER
    QTest.keyClicks(till.first_name, MANAGER)
    QTest.keyClicks(till.first_pin, MANAGER_PIN)
    QTest.keyClicks(till.first_again, MANAGER_PIN)
    QTest.mouseClick(till.create_button, Qt.MouseButton.LeftButton)
    await until(lambda: till.mode is TillMode.OPEN_SHIFT, what="the shift step")
    QTest.keyClicks(till.opening_float, opening_float)
    QTest.mouseClick(till.open_button, Qt.MouseButton.LeftButton)
    await until(lambda: window.page is Page.WORKSPACE, what="the workspace")


async def sign_in_at_till(window: MainWindow, name: str, pin: str) -> None:
    """Tap the name, type the PIN, Enter: the workspace again."""
    till = window.till
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.SIGN_IN, what="the till's sign-in")
    choice = next(b for b in till.person_buttons if b.text().startswith(name))
    QTest.mouseClick(choice, Qt.MouseButton.LeftButton)
    QTest.keyClicks(till.pin, pin)
    QTest.keyClick(till.pin, Qt.Key.Key_Return)
    await until(lambda: window.page is Page.WORKSPACE, what=f"{name} at the till")


async def signed_in_window(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    *,
    listing: dict[str, Any] | None = None,
) -> MainWindow:
    """A window whose terminal already holds a token (as after an earlier sign-in), showing the customers
    (``listing`` among them, when given), with the first manager at the till and a shift open (as at the
    first start, through the till's own page)."""
    terminal = await host.connect()
    await terminal.session.sign_in_with_token(mint_token(client))
    window = make_window(host)
    window.start()
    await first_manager_and_shift(window)
    await until(lambda: window.cashier.customers.model.rowCount() > 0, what="the customer list")
    if listing is not None:
        model = window.cashier.customers.model
        await until(lambda: model.row_of(listing["customerId"]) is not None, what=listing["firstName"])
    return window
