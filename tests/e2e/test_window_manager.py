"""The window under a real window manager: openbox on Xvfb, Qt's xcb platform.

Qt's offscreen platform has no frames and no window manager; what a person meets when the window is maximised,
restored and moved is seen only on an X server with one running.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pos_terminal.app import display_problem

TOOLS = "make window-manager (apt-get install xvfb openbox x11-utils libxcb-cursor0 libxkbcommon-x11-0)"

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not all(shutil.which(tool) for tool in ("Xvfb", "openbox", "xprop")),
    reason=f"no Xvfb, openbox or xprop to run the window under a window manager: {TOOLS}",
)

SHOW = """
import json, subprocess, sys, time
from pathlib import Path
from PySide6.QtWidgets import QApplication
from pos_terminal.app import AppHost
from pos_terminal.paths import Paths
from pos_terminal.ui.main_window import MainWindow

app = QApplication([])
window = MainWindow(AppHost(Paths.profile(Path(sys.argv[1]))))
window.open_on_screen()
window.show_first_screen()

def until(condition):
    deadline = time.monotonic() + 10  # a bound on the window manager's answers, not a measure
    while not condition() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)

def rect(r):
    return [r.x(), r.y(), r.width(), r.height()]

available = window.screen().availableGeometry()
until(lambda: window.isMaximized() and window.frameGeometry() != window.geometry())  # framed and maximised
maximised, inside = rect(window.frameGeometry()), window.size()
window.showNormal()  # as the title bar's button does: the window manager restores it
until(lambda: not window.isMaximized() and window.size() != inside and available.contains(window.frameGeometry()))
restored, inside = rect(window.frameGeometry()), rect(window.geometry())

# a dialog over it, as closing a shift opens one
from datetime import UTC, datetime
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.shift import Shift
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog

shift = Shift(1, "LANE-1", datetime(2026, 11, 27, 9, tzinfo=UTC), "Maria Manager", 20_000)
dialog = CloseShiftDialog(shift, MoneyFormat("en_US", "USD"), window)
dialog.open()
# framed, and placed: the frame is known before the window manager has placed it over the window (a loaded
# machine read it at x = -1 in between), as the restore above waits for the frame on the screen
until(lambda: dialog.isVisible() and dialog.frameGeometry() != dialog.geometry()
      and available.contains(dialog.frameGeometry()))
def told(widget):
    said = subprocess.run(["xprop", "-id", str(int(widget.winId())), "_NET_WM_WINDOW_TYPE", "_MOTIF_WM_HINTS",
                           "WM_TRANSIENT_FOR", "_NET_WM_NAME"], capture_output=True, text=True)
    return said.stdout
print(json.dumps({"available": rect(available), "maximised": maximised, "restored": restored, "inside": inside,
                  "dialog": rect(dialog.frameGeometry()), "dialog_told": told(dialog),
                  "window": hex(int(window.winId())), "window_told": told(window)}), flush=True)
"""


@pytest.fixture
def managed_x_server() -> Iterator[str]:
    """An X server of its own (1024×768) with openbox managing its windows; its display name."""
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    manager: subprocess.Popen[bytes] | None = None
    try:
        with os.fdopen(read) as answer:
            number = answer.readline().strip()
        assert number, "Xvfb ended without a display"
        display = f":{number}"
        if (problem := display_problem({"DISPLAY": display})) is not None:
            pytest.skip(problem)
        env = {**os.environ, "DISPLAY": display}
        manager = subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10  # a bound on openbox's start: the root window says when it manages
        while time.monotonic() < deadline:
            check = subprocess.run(
                ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=env, capture_output=True, text=True
            )
            if "window id" in check.stdout:
                break
            time.sleep(0.05)
        else:
            pytest.fail("openbox did not start managing the display")
        yield display
    finally:
        if manager is not None:
            manager.terminate()
            manager.wait(timeout=10)
        server.terminate()
        server.wait(timeout=10)


def test_the_restored_window_keeps_its_title_bar_on_the_screen(managed_x_server: str, tmp_path: Path) -> None:
    """Opened maximised and restored from the title bar's button, the window's frame (title bar included) is on
    the screen, where it can be taken and moved; it sat at −1, −20 before, its title bar above the screen, and
    then reached 25 px past the screen's foot."""
    env = {**os.environ, "DISPLAY": managed_x_server, "QT_QPA_PLATFORM": "xcb"}
    shown = subprocess.run(
        [sys.executable, "-c", SHOW, str(tmp_path / "profile")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    geometry = json.loads(shown.stdout)
    left, top, width, height = geometry["available"]
    assert geometry["maximised"] == [left, top, width, height], geometry
    frame_left, frame_top, frame_width, frame_height = geometry["restored"]
    assert left <= frame_left < left + width, geometry
    assert top <= frame_top < top + height, ("the title bar is above the screen", geometry)
    assert frame_left + frame_width <= left + width, ("the frame reaches past the screen's edge", geometry)
    assert frame_top + frame_height <= top + height, ("the frame reaches past the screen's foot", geometry)
    assert geometry["inside"][1] > frame_top, ("the title bar is above the window's inside", geometry)


MWM_MINIMIZE, MWM_MAXIMIZE = 0x8, 0x10  # of the Motif hints' functions, which a window manager offers


def test_a_dialog_is_a_dialog_to_the_window_manager_over_the_window(managed_x_server: str, tmp_path: Path) -> None:
    """The close-shift dialog is told to X as a dialog, for the window it belongs to, with no minimise or maximise
    among what may be done with it, and its frame is on the screen. (Openbox draws both buttons on a dialog
    whatever the hints say; other window managers leave them off.) The window's own title is told too."""
    env = {**os.environ, "DISPLAY": managed_x_server, "QT_QPA_PLATFORM": "xcb"}
    shown = subprocess.run(
        [sys.executable, "-c", SHOW, str(tmp_path / "profile")], env=env, capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    geometry = json.loads(shown.stdout)
    told = geometry["dialog_told"]
    assert "_NET_WM_WINDOW_TYPE_DIALOG" in told.split("=", 1)[1].split(",")[0], told
    assert f"window id # {geometry['window']}" in told, ("transient for the window", told)
    assert '_NET_WM_NAME(UTF8_STRING) = "Close shift 1"' in told, told
    hints = [int(part, 16) for part in told.split("_MOTIF_WM_HINTS(_MOTIF_WM_HINTS) = ")[1].splitlines()[0].split(", ")]
    flags, functions = hints[0], hints[1]
    assert flags & 1 and not functions & (MWM_MINIMIZE | MWM_MAXIMIZE), told
    left, top, width, height = geometry["available"]
    x, y, w, h = geometry["dialog"]
    assert left <= x and top <= y and x + w <= left + width and y + h <= top + height, (geometry["dialog"], geometry)
    assert "_NET_WM_NAME" in geometry["window_told"], geometry["window_told"]
