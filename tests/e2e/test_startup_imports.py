"""Paint first: when the window logs its cashier screen as shown, nothing the first screen does not need is loaded.

The window runs as a counter PC starts it (``python -m pos_terminal``, signed in, the service at ``--service``)
in a process of its own; a handler on its log names the modules loaded at the moment it says the cashier
screen is shown (first painted), and sees it say the screen is ready (its terminal attached), then closes the
window as a service manager does. What is checked is what each deferral promises: the settings, asyncio and
the service's side (HTTP, models, journal, keychain) after the first paint; the PDF machinery with the Reports
tab, the printer's libraries with the first slip, the other tabs and pages when first shown, and the
emulated service only when the embedded sandbox is chosen.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from keyring.backends import fail

from pos_terminal.config import load_settings
from pos_terminal.disk.money_memory import money_format
from pos_terminal.keychain.backend import remember
from pos_terminal.logs import CrashReports
from pos_terminal.paths import Paths

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]

WINDOW = """
import gc, json, logging, os, signal, sys
from pos_terminal.cli import main

STOP_AT = os.environ["PROBE_STOP_AT"]

class Shown(logging.Handler):
    def emit(self, record):
        said = record.getMessage()
        if said.startswith("cashier screen shown"):
            print(json.dumps(sorted(sys.modules)), flush=True)
        if said.startswith("cashier screen ready"):
            print("frozen", gc.get_freeze_count(), flush=True)
            print("ready", json.dumps(sorted(sys.modules)), flush=True)
        if said.startswith(f"cashier screen {STOP_AT}"):
            os.kill(os.getpid(), signal.SIGTERM)

logging.getLogger("pos_terminal").addHandler(Shown())
sys.exit(main(sys.argv[1:]))
"""

NOT_BEFORE_THE_SCREEN = {
    # what the first paint does not wait for: the settings, the loop, the service's side, the check's arithmetic
    "pydantic": "pydantic (the settings and the wire models)",
    "pos_terminal.config": "the settings",
    "asyncio": "asyncio (the event loop runs after the first paint)",
    "httpx": "httpx (the API clients)",
    "pos_terminal.api": "the API clients and models",
    "pos_terminal.services.terminal": "the terminal's services",
    "pos_terminal.services.register": "the register",
    "pos_terminal.journal": "the journal",
    "pos_terminal.keychain": "the keychain",
    "pos_terminal.store": "the store database",
    "pos_terminal.disk": "the profile's files (SQLite, its lock, what earlier starts remembered)",
    "sqlite3": "SQLite (the journal)",
    "keyring": "the keychain",
    "babel": "Babel (the money format)",
    "pos_terminal.domain.check": "the check's arithmetic",
    "pos_terminal.services.catalog": "the catalog",
    # the PDF and printing machinery: the Reports tab, a receipt, a printer
    "reportlab": "reportlab (the Reports tab builds it)",
    "pypdfium2": "pypdfium2 (previews and printing)",
    "pos_terminal.reports": "the report renderers",
    "pos_terminal.ui.printing": "printing",
    "escpos": "python-escpos (the first slip or drawer kick)",
    "PIL": "Pillow (a slip line drawn as a picture)",
    "barcode": "python-barcode",
    # the emulated service, with --service given
    "fastapi": "FastAPI (the embedded sandbox only)",
    "uvicorn": "uvicorn (the embedded sandbox only)",
    "starlette": "Starlette (the embedded sandbox only)",
    "jinja2": "Jinja2 (the sandbox's pages)",
    "pos_terminal.sandbox.app": "the sandbox's application",
    "pos_terminal.sandbox.server": "the sandbox's server",
    # the connection pool and its CA bundle come with the terminal
    "httpcore": "httpcore (the connection pool)",
    # views the first screen does not show
    "pos_terminal.ui.history_view": "the History tab",
    "pos_terminal.ui.settings_view": "the Settings tab",
    "pos_terminal.ui.reports_view": "the Reports tab",
    "pos_terminal.ui.shifts_view": "the Shifts view",
    "pos_terminal.ui.help_overlay": "F1's overlay",
    "pos_terminal.ui.setup_view": "the first-launch page",
    "pos_terminal.ui.signin_view": "the sign-in page",
}

NOT_BY_READY = {
    # httpx's command-line client and what it brings (encode/httpx#3547): pos_terminal.api keeps it out
    "click": "click (httpx's command-line client)",
    "rich": "rich (httpx's command-line client)",
    "pygments": "Pygments (httpx's command-line client)",
    # what the first report, receipt or slip loads (pos_terminal.services.counter, Terminal.reports)
    "pos_terminal.services.reports": "the reports' service",
    "pos_terminal.domain.report": "the report model",
    "pos_terminal.domain.report_document": "the report's document",
    "pos_terminal.domain.slip": "the slips",
    "pos_terminal.devices": "the receipt printer's protocol",
    # the keychains keyring knows and this one is not (pos_terminal.keychain.backend remembers the one found)
    "keyring.backends.macOS": "keyring's macOS backend (remembered: the fail backend here)",
    # how amounts are written, remembered from an earlier start (pos_terminal.disk.money_memory)
    "babel": "Babel (remembered: the till's money format)",
}


def loaded(modules: list[str], table: dict[str, str]) -> list[str]:
    """What of ``table`` (module or package: why it is not wanted) ``modules`` holds."""
    return sorted({why for name, why in table.items() for m in modules if m == name or m.startswith(name + ".")})


def run_window(terminal: Any, stop_at: str, tmp_path: Path) -> tuple[int, str, str]:
    """The window's exit code, what the probe printed and the window's standard error; closed by SIGTERM once
    it logs the cashier screen ``stop_at`` ("shown" or "ready").

    The window finds its keychain and its money format as a later start does: remembered (keyring's fail backend,
    so the sign-in is the opted-in file the lane wrote, with no choice of the user's in the environment or
    keyring's file; the format as Babel gave it to an earlier start)."""
    paths = Paths.profile(terminal.profile)
    remember(paths.keychain_file, fail.Keyring())
    settings, _ = load_settings(paths.config_file)
    money_format(settings.locale, settings.currency, paths.money_file)  # as an earlier start learned it
    command = [
        sys.executable,
        "-c",
        WINDOW,
        "--profile",
        str(terminal.profile),
        "--service",
        terminal.server.url,
    ]
    env = {**terminal.env, "QT_QPA_PLATFORM": "offscreen", "PROBE_STOP_AT": stop_at}
    env.pop("PYTHON_KEYRING_BACKEND")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "no-keyring-config")
    window = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = window.communicate(timeout=90)
    finally:
        if window.poll() is None:
            window.send_signal(signal.SIGKILL)
            window.wait()
    return window.returncode, stdout, stderr


def test_the_cashier_screen_shows_before_what_it_does_not_need_loads(lane: Any, tmp_path: Path) -> None:
    terminal, _, _ = lane()
    code, stdout, stderr = run_window(terminal, "ready", tmp_path)

    assert code == 0, stderr
    said = stdout.splitlines()
    assert said and said[-1].startswith("ready "), f"the window never said its screen was shown and ready:\n{stderr}"
    modules: list[str] = json.loads(said[0])
    at_ready: list[str] = json.loads(said[-1].removeprefix("ready "))

    assert "pos_terminal.ui.cashier_view" in modules  # the probe saw the screen it is about
    assert "httpx" in at_ready  # the probe saw the terminal it is about
    early = loaded(modules, NOT_BEFORE_THE_SCREEN)
    assert early == [], f"loaded before the cashier screen showed: {', '.join(early)}"
    never = loaded(at_ready, NOT_BY_READY)
    assert never == [], f"loaded by the time the screen was ready: {', '.join(never)}"
    # what was loaded before the loop ran is out of the collector's way (app.py): tens of thousands of objects
    frozen = int(next(line for line in said if line.startswith("frozen ")).split()[1])
    assert frozen > 20_000, f"only {frozen} objects set aside from the collections"


def test_a_stop_asked_for_while_the_first_screen_is_painted_closes_the_window_cleanly(
    lane: Any, tmp_path: Path
) -> None:
    """SIGTERM when the first screen has just been painted comes before the event loop takes the signal over: it
    is kept, and the window closes as for any later SIGTERM (exit code 0, and the next start finds no crash)."""
    terminal, _, _ = lane()
    code, stdout, stderr = run_window(terminal, "shown", tmp_path)

    assert code == 0, f"exit code {code}: {stderr}"
    assert not any(line.startswith("ready") for line in stdout.splitlines())
    log_file = Paths.profile(terminal.profile).log_file
    assert CrashReports(log_file).previous_run() is None  # the next start has no "ended abnormally" to say
