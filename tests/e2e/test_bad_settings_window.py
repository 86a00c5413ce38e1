"""A window started on a settings file it cannot use: it has painted its first screen before the settings are read.

The sentence goes to standard error and into a box on the screen; the window closes with exit code 1 when the
box is closed, and a service manager's SIGTERM still ends it at once.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]


def test_a_bad_settings_file_is_one_sentence_and_a_stop_still_ends_the_window(lane: Any) -> None:
    terminal, _, _ = lane()
    (terminal.profile / "config" / "config.toml").write_text(
        'schema_version = 1\nterminal_id = "LANE-9"\ncurrency = "AUDX"\n', encoding="utf-8"
    )
    window = terminal.start_window()
    assert window.stderr is not None
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(window.stderr or []), daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not any("currency" in line for line in said):
        assert window.poll() is None, f"the window ended before saying what is wrong: {''.join(said)}"
        assert time.monotonic() < deadline, "the window never said what is wrong with the settings"
        time.sleep(0.05)

    log = terminal.profile / "logs" / "pos-terminal.log"
    while "said in a box" not in (log.read_text(encoding="utf-8") if log.exists() else ""):
        assert window.poll() is None, f"the window ended before its box was up: {''.join(said)}"
        assert time.monotonic() < deadline, "the window never put its box up"
        time.sleep(0.05)
    assert window.poll() is None  # the box is up; the window waits for it
    sent = time.monotonic()
    window.send_signal(signal.SIGTERM)
    code = window.wait(timeout=30)
    reader.join(timeout=5)

    assert code == 1
    assert time.monotonic() - sent < 2.0
    sentence = next(line for line in said if "currency" in line)
    assert "is invalid" in sentence and "Traceback" not in "".join(said)
