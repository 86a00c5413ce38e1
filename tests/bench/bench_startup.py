"""Start-up time: process start to the cashier screen shown (first painted; token present, sandbox running),
against a bare PySide6 window in the same run. Target: within 2.5x. Prints the figures, and the time to the
screen ready (its terminal attached: customers loading, the check restored, Charge live) beside them.

Usage: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench_startup.py [runs] [--bundle PROGRAM]``;
``--bundle dist/pos-terminal/pos-terminal`` times the PyInstaller bundle instead of ``python -m pos_terminal``.
"""

from __future__ import annotations

import asyncio
import compileall
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import keyring
from keyring.backends import fail

import pos_terminal
from pos_terminal.config import Settings, save_settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer, SandboxSettings
from pos_terminal.services.terminal import ServiceAddress, Terminal

SHOWN = "cashier screen shown"
READY = "cashier screen ready"
_WINDOW = """
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
window = QMainWindow()
window.resize(1280, 800)
window.show()
"""
BARE = (
    _WINDOW
    + """
QTimer.singleShot(0, lambda: (print("shown", flush=True), app.quit()))
app.exec()
"""
)
# The libraries a ready till has loaded, each used once, after a bare window's first paint: the floor under "ready"
# that no start-up of ours can go below without leaving one of them out. Loaded as the terminal loads them: with
# PySide's source scan off and without httpx's command-line client (pos_terminal.ui.import_scan, pos_terminal.api).
FLOOR = (
    _WINDOW
    + """
QTimer.singleShot(0, app.quit)
app.exec()
from pos_terminal.ui.import_scan import skip_source_scans
skip_source_scans()
import pos_terminal.api
import asyncio, sqlite3
import httpx, keyring.core, pydantic
from babel.numbers import format_currency
class Model(pydantic.BaseModel):
    name: str = pydantic.Field(default="x", max_length=8)
Model.model_validate({"name": "y"})
format_currency(1, "AUD", locale="en_AU")
sqlite3.connect(":memory:").close()
print("shown", flush=True)
"""
)


def timed(command: list[str], marker: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None
    for line in process.stdout:
        if marker in line:
            elapsed = time.perf_counter() - started
            process.wait(timeout=30)
            return elapsed
    raise RuntimeError(f"{command} ended without {marker!r}")


def timed_window(command: list[str], log_file: Path, env: dict[str, str]) -> tuple[float, float]:
    """Until the window logs its cashier screen shown, and then ready; then closed as a service manager closes it
    (SIGTERM). Returns both times."""

    def logged(what: str) -> int:
        return log_file.read_text(encoding="utf-8").count(what) if log_file.exists() else 0

    before = logged(SHOWN), logged(READY)
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env)
    deadline = started + 60
    shown: float | None = None
    while time.perf_counter() < deadline and process.poll() is None:
        if shown is None and logged(SHOWN) > before[0]:
            shown = time.perf_counter() - started
        if shown is not None and logged(READY) > before[1]:
            ready = time.perf_counter() - started
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            return shown, ready
        time.sleep(0.002)
    process.kill()
    tail = log_file.read_text(encoding="utf-8")[-2000:] if log_file.exists() else "(no log)"
    raise RuntimeError(f"{command} did not log {SHOWN!r} and {READY!r}; the log ends:\n{tail}")


async def sign_in(paths: Paths, url: str) -> None:
    """Into the profile's opted-in token file, which the started window reads: never into this process's keychain
    (under pytest an in-memory one, which the window could not see)."""
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        await _sign_in(paths, url)
    finally:
        keyring.set_keyring(previous)


async def _sign_in(paths: Paths, url: str) -> None:
    with httpx.Client(base_url=url) as http:
        token = http.post("/sandbox/tokens", json={"merchantId": "mer-cafe"}).json()["access_token"]
    service = ServiceAddress.from_root(url, name="sandbox", account=f"service:{url}", production=False)
    terminal = Terminal(paths, Settings(terminal_id="LANE-1", allow_insecure_token_file=True), service)
    await terminal.session.sign_in_with_token(token)
    await terminal.aclose()


@dataclass(frozen=True)
class Startup:
    """Seconds, run by run: the bare window shown; the libraries' floor (:data:`FLOOR`); the terminal's cashier
    screen shown, then ready."""

    bare: list[float]
    floor: list[float]
    shown: list[float]
    ready: list[float]


def measure(runs: int, bundle: str | None = None) -> Startup:
    """Alternates a bare window and the terminal, ``runs`` times each, against one embedded sandbox."""
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    # byte-compiled as an installed terminal is (a checkout run with PYTHONDONTWRITEBYTECODE compiles each changed
    # module on every start)
    compileall.compile_dir(Path(pos_terminal.__file__).parent, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        server = SandboxServer(SandboxSettings(db_path=str(Path(tmp) / "sandbox.sqlite3")))
        server.start()
        try:
            paths = Paths.profile(Path(tmp) / "profile").ensure()
            save_settings(paths.config_file, Settings(terminal_id="LANE-1", allow_insecure_token_file=True))
            asyncio.run(sign_in(paths, server.url))
            program = [bundle] if bundle else [sys.executable, "-m", "pos_terminal"]
            app = [*program, "--profile", str(paths.config_dir.parent), "--service", server.url]
            figures = Startup([], [], [], [])
            for _ in range(runs):
                figures.bare.append(timed([sys.executable, "-c", BARE], "shown", env))
                figures.floor.append(timed([sys.executable, "-c", FLOOR], "shown", env))
                shown_at, ready_at = timed_window(app, paths.log_file, env)
                figures.shown.append(shown_at)
                figures.ready.append(ready_at)
        finally:
            server.stop()
    return figures


def main(runs: int, bundle: str | None = None) -> tuple[float, float]:
    """Prints the medians and returns them (bare window, terminal), in seconds."""
    figures = measure(runs, bundle)
    b, t = statistics.median(figures.bare), statistics.median(figures.shown)
    for name, runs_ in (
        ("bare PySide6 window", figures.bare),
        ("  and the libraries' floor", figures.floor),
        ("terminal to cashier screen", figures.shown),
        ("  and to the screen ready", figures.ready),
    ):
        median = statistics.median(runs_)
        print(f"{name:<27} median {median * 1000:.0f} ms  (runs: {', '.join(f'{x * 1000:.0f}' for x in runs_)})")
    ready, floor = statistics.median(figures.ready), statistics.median(figures.floor)
    print(
        f"ratio {t / b:.2f}x shown, {ready / b:.2f}x ready (target within 2.5x); the floor {floor / b:.2f}x, "
        f"ready {ready / floor:.2f}x the floor"
        f"{' from the bundle' if bundle else ' from source'}"
    )
    return b, t


if __name__ == "__main__":
    arguments = sys.argv[1:]
    bundled = arguments[arguments.index("--bundle") + 1] if "--bundle" in arguments else None
    counts = [a for a in arguments if a.isdigit()]
    main(int(counts[0]) if counts else 5, bundled)
