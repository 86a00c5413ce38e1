"""Closing the window while a request is in flight: the process ends promptly with status 0 and a sound journal.

A till is shut down by its session's logout or a service manager (SIGTERM) and by Ctrl+C
(SIGINT) as often as by its own Quit; each closes the window the same way.
"""

from __future__ import annotations

import signal
import sys
import time
from typing import Any

import pytest

from tests.e2e.conftest import fault_taken, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]

PROMPT_EXIT_SECONDS = 2.0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_closes_the_window_promptly_while_a_request_is_in_flight(lane: Any, signum: int) -> None:
    terminal, http, _ = lane()
    delay = {"method": "GET", "path": "/v4/customers", "mode": "delay", "delayMs": 30_000}
    http.post("/sandbox/faults", json=delay).raise_for_status()
    window = terminal.start_window()
    wait_for(fault_taken(http), timeout=60)  # the customer list is waiting on the service

    sent = time.monotonic()
    window.send_signal(signum)
    _, stderr = window.communicate(timeout=30)
    took = time.monotonic() - sent

    assert window.returncode == 0, stderr
    assert took < PROMPT_EXIT_SECONDS, f"the window took {took:.1f} s to close"
    assert "Traceback" not in stderr, stderr
    assert terminal.integrity() == "ok"
    status = terminal.run("status")
    assert (status["unfinishedCharges"], status["pendingStateChanges"]) == (0, 0)
