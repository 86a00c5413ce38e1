"""Composition root of the GUI: settings, the embedded sandbox, the terminal's services, the window, the loop.

Runs on :class:`pos_terminal.ui.loop.EventLoop` (asyncio over Qt); shutdown is tied to the
window closing, which SIGTERM and SIGINT do too (a session logout, a service manager, Ctrl+C).
Logging goes to the profile's log file with secrets masked; an unexpected error
is logged with its traceback and shown as one sentence naming the log file; a native
crash is written to a crash report there, which the next start mentions.

Start-up paints first and loads the rest after. Before the first paint it loads Qt and the cashier's
screen (its widgets and the pure domain under them) and nothing else: the screen is painted waiting for
its terminal ("Connecting to the service…"). Then the settings, the event loop and the services a
connected terminal holds (journal, keychain, sign-in, API clients) load, and the screen is filled in.
What no start shows loads when first used: the other tabs and pages, F1's overlay, the PDF machinery
(Reports), python-escpos and Pillow (the first slip), the wire models' validators (the first answer),
the embedded sandbox (only when chosen, on a thread while "Connecting…" shows). The log says when the
cashier screen was shown and when it was ready.
``tests/e2e/test_startup_imports.py`` holds to this; ``tests/bench/bench_startup.py`` times it;
``python -X importtime -m pos_terminal`` shows the order.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from pos_terminal.allocator import hand_memory_back
from pos_terminal.errors import UserError
from pos_terminal.logs import CrashReports, configure_logging
from pos_terminal.paths import Paths

if TYPE_CHECKING:
    from pos_terminal.config import Settings
    from pos_terminal.sandbox import SandboxServer
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.main_window import MainWindow

    from PySide6.QtCore import QEventLoop

log = logging.getLogger("pos_terminal")

STARTED = time.monotonic()


class AppHost:
    """What the windows need from around them (see :class:`pos_terminal.ui.host.Host`)."""

    def __init__(self, paths: Paths, *, service_url: str | None = None, crash_notice: str | None = None) -> None:
        self.paths = paths.ensure()
        self.crash_notice = crash_notice
        self.service_url = service_url
        # a new profile is set up first, whatever --service says: its terminal id is never guessed
        self.first_launch = not paths.config_file.exists()
        self.terminal: Terminal | None = None
        self._settings: Settings | None = None
        self._sandbox: SandboxServer | None = None

    @property
    def settings(self) -> Settings:
        """The settings, read the first time they are asked for (after the first screen is painted); a bad file is
        a :class:`~pos_terminal.errors.ConfigError`."""
        if self._settings is None:
            from pos_terminal.config import load_settings

            settings, existed = load_settings(self.paths.config_file)
            if not settings.terminal_id.strip():
                self.first_launch = True  # a file without a terminal id: the till was never set up
            if not existed and self.service_url:
                from pos_terminal.services.setup import of_service

                settings = of_service(settings, self.service_url)  # the set-up page shows the service given
            self._settings = settings
        return self._settings

    def region_choices(self) -> list[tuple[str, str]]:
        from pos_terminal.services.setup import region_choices

        return region_choices(self.paths)

    def save_settings(self, settings: Settings) -> None:
        from pos_terminal.config import save_settings

        try:
            save_settings(self.paths.config_file, settings)
        except OSError as exc:
            raise UserError(f"The settings cannot be saved ({exc.strerror}).", hint="Check the disk.") from exc
        self._settings = settings
        self.first_launch = False

    async def connect(self) -> Terminal:
        from pos_terminal.services.terminal import Terminal, resolve_service

        if self.terminal is not None:
            await self.terminal.aclose()
            self.terminal = None
        embedded_root = None
        if not self.service_url and self.settings.region == "sandbox":
            if self._sandbox is None:
                import asyncio  # the loop runs by now

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
            import asyncio  # the loop runs by now

            await asyncio.to_thread(self._sandbox.stop)
            self._sandbox = None


async def close_down(window: MainWindow, host: AppHost) -> None:
    """What closing the window leads to: every view's work canceled and ended, then the terminal
    (its connections and journal) and the embedded sandbox closed."""
    await window.wind_down()
    await host.aclose()


PAINT_WAIT_MS = 2000  # the longest the start waits for the first screen to be painted before loading the rest
STOP_CHECK_MS = 200  # how often a wait before the event loop looks for SIGTERM or SIGINT

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
    import ctypes

    import PySide6

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    try:
        ctypes.CDLL(str(plugin))  # what Qt loads next anyway: when it loads, nothing is missing
        return None
    except OSError:
        pass
    import subprocess

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


def _said(moment: str) -> Callable[[], None]:
    """Logs the cashier screen's moment: "shown" (first painted), "ready" (its terminal attached)."""
    return lambda: log.info("cashier screen %s %.3f s after start", moment, time.monotonic() - STARTED)


def run_gui(paths: Paths, *, service_url: str | None = None) -> int:
    """Open the cashier's window; returns the exit code when it closes."""
    if (problem := display_problem()) is not None:
        print(problem, file=sys.stderr)
        return 1
    hand_memory_back()  # a shift's reports must not ratchet the resident memory up
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
    early_stop = _EarlyStop()
    try:
        return _open_window(paths, service_url, notice, early_stop)
    finally:
        crashes.finish()


class _EarlyStop:
    """SIGTERM and SIGINT (a service manager, a session logout, Ctrl+C) that come before the event loop takes them
    over: the first screen is painted before the loop runs. Each is noted, and the window closes as soon as the
    loop runs, as it does for one that comes later."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self) -> None:
        self.asked = False
        self._before = {signum: signal.signal(signum, self._note) for signum in self.SIGNALS}

    def _note(self, signum: int, frame: object) -> None:
        self.asked = True

    def release(self) -> None:
        """The handlers as they were, for the loop to replace (where it cannot, as on Windows, they stay)."""
        for signum, handler in self._before.items():
            signal.signal(signum, handler)

    def wait(self, loop: QEventLoop) -> None:
        """Run ``loop`` until it quits or a stop is asked for. Python sees a signal only when it runs, so a timer
        gives it the chance while Qt waits."""
        from PySide6.QtCore import QTimer

        watch = QTimer()
        watch.timeout.connect(lambda: loop.quit() if self.asked else None)
        watch.start(STOP_CHECK_MS)
        loop.exec()
        watch.stop()


def _open_window(paths: Paths, service_url: str | None, notice: str | None, early_stop: _EarlyStop) -> int:
    from pos_terminal.ui.import_scan import skip_source_scans

    skip_source_scans()  # before the window's modules and everything after them are imported
    from pos_terminal.ui.main_window import MainWindow
    from pos_terminal.ui.theme import follow_system

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("pos-terminal")
    app.setQuitOnLastWindowClosed(False)
    follow_system(app)  # the platform's style, light or dark as the system is, with our accents
    host = AppHost(paths, service_url=service_url, crash_notice=notice)
    window = MainWindow(host)
    # Paint first: the cashier's screen is on the screen before the settings, the event loop and the terminal's
    # services load (a bound, in case the platform never exposes the window).
    painted = QEventLoop()
    window.cashier_painted.connect(_said("shown"))
    window.cashier_painted.connect(painted.quit)
    window.open_on_screen()
    window.show_first_screen()
    if not host.first_launch:
        QTimer.singleShot(PAINT_WAIT_MS, painted.quit)
        early_stop.wait(painted)
    from pos_terminal.api.trust import prepare

    prepare()  # the CA certificates load on a thread while the settings and the services do here
    try:
        host.settings  # noqa: B018 (read now: a bad file is said before anything else happens)
    except UserError as exc:
        # Said on standard error and in a box on the screen; the window closes when the box does (or on SIGTERM).
        print(exc.text(), file=sys.stderr)
        box = QMessageBox(QMessageBox.Icon.Critical, "The till cannot start — pos-terminal", exc.text(), parent=window)
        answered = QEventLoop()
        box.finished.connect(answered.quit)
        box.open()
        log.error("the window cannot start, said in a box: %s", exc.text())
        early_stop.wait(answered)
        return 1
    import asyncio
    import gc

    from pos_terminal.ui.loop import run

    async def main() -> int:
        closed = asyncio.Event()
        window.closed.connect(closed.set)

        def crashed(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
            log.error("unexpected error", exc_info=(kind, value, tb))
            window.messages.show_error(
                f"Something unexpected went wrong; nothing was lost. Details are in {paths.log_file}."
            )

        sys.excepthook = crashed
        loop = asyncio.get_running_loop()
        early_stop.release()
        for signum in _EarlyStop.SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError):  # no POSIX signals on Windows
                loop.add_signal_handler(signum, window.close)
        window.workspace_ready.connect(_said("ready"))
        window.start()
        if early_stop.asked:
            window.close()
        await closed.wait()
        await close_down(window, host)
        return 0

    # What the window loaded to get this far (Qt, its modules, the window, pydantic, the settings) lives as long as the
    # process: set aside, no collection walks it again. Every full collection of the day walked all of it, a tenth of
    # a second and more with a day's objects beside it (docs/event-loop.md).
    gc.freeze()
    return int(run(main(), app))
