"""A shift survives the terminal being killed with SIGKILL in the middle of a charge.

The real command line in subprocesses: a manager opens a shift, a charge with cash on the
check is cut off by SIGKILL while its create is in flight, and the next commands find the
same shift open with its float, resume the charge, and close the shift with the drawer right.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import CHECK, Lane, arm_delay, customer_transactions, fault_taken, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")]

MANAGER, PIN = "Mia Manager", "73915584026"


def run(lane: Lane, *command: str) -> Any:
    """One command with the manager's PIN on standard input (``--pin-fd 0``)."""
    done = subprocess.run(
        lane.args(*command, "--pin-fd", "0"),
        env=lane.env,
        input=f"{PIN}\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert PIN not in done.stdout + done.stderr
    return json.loads(done.stdout)


def test_a_shift_open_across_a_sigkill_is_there_at_the_next_start(lane: Any, tmp_path: Path) -> None:
    terminal, http, who = lane()
    added = subprocess.run(
        terminal.args("people", "add", MANAGER, "--role", "manager", "--new-pin-fd", "0"),
        env=terminal.env, input=f"{PIN}\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    opened = run(terminal, "shift", "open", "--float", "100")

    arm_delay(http, "POST", "/v4/transactions")
    charge = ("charge", "--customer", who["customerId"], "--check", str(tmp_path / "check.json"))
    process = subprocess.Popen(
        terminal.args(*charge, "--as", MANAGER, "--pin-fd", "0"),
        env=terminal.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdin is not None
    process.stdin.write(f"{PIN}\n")
    process.stdin.close()
    wait_for(fault_taken(http))
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL
    for stream in (process.stdout, process.stderr):
        assert stream is not None
        stream.close()
    wait_for(lambda: len(customer_transactions(http, who["customerId"])) == 1)

    [still] = run(terminal, "shift", "list")
    assert (still["id"], still["open"], still["openingFloat"]) == (opened["id"], True, 10_000)
    assert terminal.integrity() == "ok"
    [listed] = terminal.run("tx", "list")  # resumes the charge the kill cut off
    assert listed["state"] == "authorized"
    terminal.run("tx", "complete", listed["transactionId"])

    cash = sum(p["amount"] for p in CHECK["payments"])
    x = run(terminal, "shift", "x")
    assert x["shift"]["drawer"]["cashSales"] == cash
    assert x["shift"]["people"][0]["person"] == MANAGER, "the charge is the manager's, who signed in for it"
    closed = run(terminal, "shift", "close", "--counted", str((10_000 + cash) / 100))
    assert closed["shift"]["drawer"]["overShort"] == 0
    assert closed["shift"]["drawer"]["expectedCash"] == 10_000 + cash
    assert terminal.integrity() == "ok"
