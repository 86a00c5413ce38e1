"""A counter's kiosk session: the window on a real X server with no window manager (Xvfb, Qt's xcb platform).

Qt's offscreen platform makes every window it shows active, so the GUI suite cannot see what a session without a
window manager does: nothing makes a new window active, X hands it the keys typed into its fields, and Qt gives
its shortcuts (F1, F2, F8 …) nothing until the screen is touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pos_terminal.app import display_problem

XVFB = "apt-get install xvfb libxcb-cursor0 libxkbcommon-x11-0"

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("Xvfb") is None,
    reason=f"no Xvfb to run a session without a window manager: {XVFB}",
)

SHOW = """
import sys, time
from pathlib import Path
from PySide6.QtWidgets import QApplication
from pos_terminal.app import AppHost
from pos_terminal.paths import Paths
from pos_terminal.ui.main_window import MainWindow

app = QApplication([])
window = MainWindow(AppHost(Paths.profile(Path(sys.argv[1]))))
window.open_on_screen()
window.show_first_screen()
deadline = time.monotonic() + 5  # a bound on the X server's answers, not a measure: the state is the assertion
while not window.isActiveWindow() and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.01)
print("active" if window.isActiveWindow() else "inactive", flush=True)
"""


@pytest.fixture
def bare_x_server() -> Iterator[str]:
    """An X server of its own, with no window manager; its display name."""
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as answer:
            number = answer.readline().strip()
        assert number, "Xvfb ended without a display"
        display = f":{number}"
        if (problem := display_problem({"DISPLAY": display})) is not None:
            pytest.skip(problem)
        yield display
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_window_opens_active_where_no_window_manager_activates_it(bare_x_server: str, tmp_path: Path) -> None:
    env = {**os.environ, "DISPLAY": bare_x_server, "QT_QPA_PLATFORM": "xcb"}
    shown = subprocess.run(
        [sys.executable, "-c", SHOW, str(tmp_path / "profile")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert shown.stdout.strip() == "active", shown.stderr[-2000:]
