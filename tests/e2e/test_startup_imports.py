"""Paint first: when the window logs its cashier screen as shown, nothing the first screen does not need is loaded.

The window runs as a counter PC starts it (``python -m pos_terminal``, signed in, the service at ``--service``)
in a process of its own; a handler on its log names the modules loaded at the moment it says the cashier
screen is shown, then closes the window as a service manager does. What is checked is what each deferral
promises: the PDF machinery with the Reports tab, the printer's libraries with the first slip, the other
tabs and pages when first shown, the connection pool with the first request (which follows the screen),
and the emulated service only when the embedded sandbox is chosen.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]

WINDOW = """
import json, logging, os, signal, sys
from pos_terminal.cli import main

class Shown(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("cashier screen shown"):
            print(json.dumps(sorted(sys.modules)), flush=True)
            os.kill(os.getpid(), signal.SIGTERM)

logging.getLogger("pos_terminal").addHandler(Shown())
sys.exit(main(sys.argv[1:]))
"""

NOT_BEFORE_THE_SCREEN = {
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
    # the connection pool and its CA bundle come with the first request, which the screen does not wait for
    "httpcore": "httpcore (the first request)",
    # views the first screen does not show
    "pos_terminal.ui.history_view": "the History tab",
    "pos_terminal.ui.settings_view": "the Settings tab",
    "pos_terminal.ui.reports_view": "the Reports tab",
    "pos_terminal.ui.shifts_view": "the Shifts view",
    "pos_terminal.ui.help_overlay": "F1's overlay",
    "pos_terminal.ui.setup_view": "the first-launch page",
    "pos_terminal.ui.signin_view": "the sign-in page",
}


def loaded_when_shown(terminal: Any) -> list[str]:
    command = [
        sys.executable,
        "-c",
        WINDOW,
        "--profile",
        str(terminal.profile),
        "--service",
        terminal.server.url,
    ]
    env = {**terminal.env, "QT_QPA_PLATFORM": "offscreen"}
    window = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = window.communicate(timeout=90)
    finally:
        if window.poll() is None:
            window.send_signal(signal.SIGKILL)
            window.wait()
    assert window.returncode == 0, stderr
    assert stdout.strip(), f"the window never said its cashier screen was shown:\n{stderr}"
    modules: list[str] = json.loads(stdout.splitlines()[0])
    return modules


def test_the_cashier_screen_shows_before_what_it_does_not_need_loads(lane: Any) -> None:
    terminal, _, _ = lane()
    modules = loaded_when_shown(terminal)

    assert "pos_terminal.ui.cashier_view" in modules  # the probe saw the screen it is about
    early = sorted(
        {why for name, why in NOT_BEFORE_THE_SCREEN.items() for m in modules if m == name or m.startswith(name + ".")}
    )
    assert early == [], f"loaded before the cashier screen showed: {', '.join(early)}"
