"""The About dialog, and the window telling the cashier that the run before it ended abnormally."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.logs import CrashReports
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.ui.main_window import MainWindow, Tab
from pos_terminal.version import version
from tests.ui.conftest import finish, screenshot, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


async def test_about_shows_version_region_profile_paths_and_licences(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    window.show_tab(Tab.SETTINGS)
    QTest.mouseClick(window.workspace.settings_view.about_button, Qt.MouseButton.LeftButton)
    about = window.settings_flow.about
    assert about is not None and about.isVisible()
    fields = about.fields  # type: ignore[attr-defined]
    assert fields["Version"] == version() and fields["Region"] == host.settings.region
    assert "SANDBOX" in fields["Service"] and str(host.paths.log_dir) in fields["Log folder"]
    texts = " ".join(child.text() for child in about.findChildren(type(window.connecting)))
    assert "LICENSE-DejaVu.txt" in texts and "LICENSE-DroidSansFallback.txt" in texts
    assert about.grab().save(str(tmp_path / "about.png"))
    about.accept()
    await finish(window, host)


async def test_the_window_says_the_last_run_ended_abnormally_and_where_the_report_is(
    profile: Paths, sandbox: SandboxServer, make_window: Callable[[AppHost], MainWindow], tmp_path: Path
) -> None:
    left = profile.log_dir / "crash-running-999999999.txt"  # a pid no process has: the run that crashed
    left.write_text("Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n")
    notice = CrashReports(profile.log_file).previous_run()
    assert notice is not None and not left.exists()
    host = AppHost(profile, service_url=sandbox.url, crash_notice=notice)
    window = make_window(host)
    window.start()
    banner = window.banner.text.text()
    assert banner.startswith("The last run ended abnormally; its crash report is in ")
    report = Path(banner.removeprefix("The last run ended abnormally; its crash report is in ").rstrip("."))
    assert report.parent == profile.log_dir and "Segmentation fault" in report.read_text()
    screenshot(window, "crash-notice", tmp_path)
    assert CrashReports(profile.log_file).previous_run() is None, "said once"
    await until(lambda: window.terminal is not None, what="the terminal")
    await finish(window, host, wait=False)  # not signed in: the sign-in page waits for a person


@pytest.mark.skipif(sys.platform == "win32", reason="signals are POSIX")
def test_a_native_crash_of_the_window_is_written_to_the_log_folder(profile: Paths, sandbox: SandboxServer) -> None:
    """The real window, killed by SIGSEGV as a crash in Qt would kill it: faulthandler writes the report."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    command = [sys.executable, "-m", "pos_terminal", "--profile", str(profile.log_dir.parent), "--service", sandbox.url]
    window = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    running = profile.log_dir / f"crash-running-{window.pid}.txt"
    deadline = time.monotonic() + 60
    while not running.exists():  # named so once a crash would be written to it: killed at once, as soon as it is
        assert window.poll() is None and time.monotonic() < deadline, window.stderr.read() if window.stderr else ""
        time.sleep(0.001)
    assert "pos-terminal window started" in profile.log_file.read_text()
    window.send_signal(signal.SIGSEGV)
    assert window.wait(timeout=30) == -signal.SIGSEGV
    assert "Segmentation fault" in running.read_text()
    notice = CrashReports(profile.log_file).previous_run()
    assert notice is not None and "crash report is in" in notice
