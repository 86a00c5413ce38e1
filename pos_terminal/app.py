"""Composition root of the GUI: settings, the embedded sandbox, the terminal's services, the window, the loop.

Runs on :class:`pos_terminal.ui.loop.EventLoop` (asyncio over Qt); shutdown is tied to the
window closing, which SIGTERM and SIGINT do too (a session logout, a service manager, Ctrl+C).
Logging goes to the profile's log file with secrets masked; an unexpected error
is logged with its traceback and shown as one sentence naming the log file; a native
crash is written to a crash report there, which the next start mentions.

Start-up loads what the first screen needs and nothing more: Qt, the event loop, the settings,
the services a connected terminal holds (journal, sign-in, API clients) and the cashier's screen.
What it does not show loads when first used: the other tabs and pages, F1's overlay, the PDF
machinery (Reports), python-escpos and Pillow (the first slip), the connection pool and CA bundle
(the first request), the wire models' validators (the first answer), the embedded sandbox (only when
chosen, on a thread while "Connecting…" shows). ``tests/e2e/test_startup_imports.py`` holds to this;
``tests/bench/bench_startup.py`` times it; ``python -X importtime -m pos_terminal`` shows the order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from pos_terminal.allocator import keep_large_blocks_out_of_the_heap
from pos_terminal.errors import UserError
from pos_terminal.logs import CrashReports, configure_logging
from pos_terminal.paths import Paths

if TYPE_CHECKING:
    from pos_terminal.config import Settings
    from pos_terminal.sandbox import SandboxServer
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.main_window import MainWindow

log = logging.getLogger("pos_terminal")

STARTED = time.monotonic()


class AppHost:
    """What the windows need from around them (see :class:`pos_terminal.ui.host.Host`)."""

    def __init__(self, paths: Paths, *, service_url: str | None = None, crash_notice: str | None = None) -> None:
        from pos_terminal.config import load_settings

        self.paths = paths.ensure()
        self.crash_notice = crash_notice
        self.service_url = service_url
        self.settings, existed = load_settings(paths.config_file)
        self.first_launch = not existed and service_url is None
        self.terminal: Terminal | None = None
        self._sandbox: SandboxServer | None = None

    def region_choices(self) -> list[tuple[str, str]]:
        from pos_terminal.services.setup import region_choices

        return region_choices(self.paths)

    def save_settings(self, settings: Settings) -> None:
        from pos_terminal.config import save_settings

        try:
            save_settings(self.paths.config_file, settings)
        except OSError as exc:
            raise UserError(f"The settings cannot be saved ({exc.strerror}).", hint="Check the disk.") from exc
        self.settings = settings
        self.first_launch = False

    async def connect(self) -> Terminal:
        from pos_terminal.services.terminal import Terminal, resolve_service

        if self.terminal is not None:
            await self.terminal.aclose()
            self.terminal = None
        embedded_root = None
        if not self.service_url and self.settings.region == "sandbox":
            if self._sandbox is None:
                from pos_terminal.embedded import start_embedded_sandbox  # the emulated service only when used

                self._sandbox = await asyncio.to_thread(start_embedded_sandbox, self.paths)
            embedded_root = self._sandbox.url
        service = resolve_service(self.settings, self.paths, service_url=self.service_url, embedded_root=embedded_root)
        self.terminal = Terminal(self.paths, self.settings, service)
        return self.terminal

    async def aclose(self) -> None:
        if self.terminal is not None:
            await self.terminal.aclose()
            self.terminal = None
        if self._sandbox is not None:
            await asyncio.to_thread(self._sandbox.stop)
            self._sandbox = None


async def close_down(window: MainWindow, host: AppHost) -> None:
    """What closing the window leads to: every view's work canceled and ended, then the terminal
    (its connections and journal) and the embedded sandbox closed."""
    await window.wind_down()
    await host.aclose()


DISPLAY_PACKAGES = "libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxkbcommon-x11-0"


def display_problem(environ: Mapping[str, str] = os.environ) -> str | None:
    """Why the window could not open on this machine, as one sentence; None when nothing is in the way.

    Qt aborts the process when its platform plugin cannot load, with a message a cashier cannot act on;
    on Linux the usual causes are no screen at all and system libraries the X11 plugin needs.
    """
    if not sys.platform.startswith("linux") or environ.get("QT_QPA_PLATFORM", "xcb") != "xcb":
        return None
    if not environ.get("DISPLAY"):
        if environ.get("WAYLAND_DISPLAY"):
            return None
        return "There is no screen to open the window on. Run it on a desktop, or set QT_QPA_PLATFORM=offscreen."
    import PySide6

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    try:
        linked = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, timeout=10, check=False)  # noqa: S603, S607
    except (OSError, subprocess.TimeoutExpired):
        return None
    missing = [line.split()[0] for line in linked.stdout.splitlines() if "not found" in line]
    if not missing:
        return None
    return (
        f"The window cannot open: this system lacks {', '.join(missing)}. "
        f"On Debian or Ubuntu: sudo apt install {DISPLAY_PACKAGES}"
    )


def run_gui(paths: Paths, *, service_url: str | None = None) -> int:
    """Open the cashier's window; returns the exit code when it closes."""
    if (problem := display_problem()) is not None:
        print(problem, file=sys.stderr)
        return 1
    keep_large_blocks_out_of_the_heap()  # a shift's reports must not ratchet the resident memory up
    from pos_terminal.ui.loop import run
    from pos_terminal.ui.main_window import MainWindow
    from pos_terminal.ui.theme import follow_system

    from PySide6.QtWidgets import QApplication

    try:
        paths = paths.ensure()
        configure_logging(paths.log_file, "pos-terminal window")
    except UserError as exc:
        print(exc.text(), file=sys.stderr)
        return 1
    crashes = CrashReports(paths.log_file)
    notice = crashes.previous_run()
    if notice:
        log.warning("%s", notice)
    crashes.start()
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("pos-terminal")
    app.setQuitOnLastWindowClosed(False)
    follow_system(app)  # the platform's style, light or dark as the system is, with our accents
    try:
        host = AppHost(paths, service_url=service_url, crash_notice=notice)
    except UserError as exc:
        crashes.finish()
        print(exc.text(), file=sys.stderr)
        return 1

    async def main() -> int:
        window = MainWindow(host)
        closed = asyncio.Event()
        window.closed.connect(closed.set)

        def crashed(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
            log.error("unexpected error", exc_info=(kind, value, tb))
            window.messages.show_error(
                f"Something unexpected went wrong; nothing was lost. Details are in {paths.log_file}."
            )

        sys.excepthook = crashed
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # no POSIX signals on Windows
                loop.add_signal_handler(signum, window.close)
        window.workspace_ready.connect(
            lambda: log.info("cashier screen shown %.3f s after start", time.monotonic() - STARTED)
        )
        window.open_on_screen()
        window.start()
        await closed.wait()
        await close_down(window, host)
        return 0

    try:
        return int(run(main(), app))
    finally:
        crashes.finish()
