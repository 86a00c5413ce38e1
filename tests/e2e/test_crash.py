"""The terminal process killed with SIGKILL at the worst moments, then restarted.

Each scenario runs the real command line in a subprocess against a sandbox
over loopback, kills it while a request is in flight (the sandbox holds the
request with a ``delay`` fault, so the kill lands at a known step), lets the
request land, and restarts: the terminal must end with exactly one transaction
per check in the right state, and its journal must pass ``integrity_check``.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import arm_delay, customer_transactions, fault_taken, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")]


def kill(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL


def test_killed_right_after_recording_the_intent(lane: Any, tmp_path: Path) -> None:
    terminal, http, who = lane()
    arm_delay(http, "POST", "/v4/transactions")
    process = terminal.start("charge", "--customer", who["customerId"], "--check", str(tmp_path / "check.json"))
    wait_for(fault_taken(http))
    kill(process)
    wait_for(lambda: len(customer_transactions(http, who["customerId"])) == 1)

    listed = terminal.run("tx", "list")
    [record] = customer_transactions(http, who["customerId"])
    assert record["state"] == "authorized"
    assert [t["transactionId"] for t in listed] == [record["transactionId"]]
    assert terminal.integrity() == "ok"
    status = terminal.run("status")
    assert status["unfinishedCharges"] == 0


def test_killed_right_after_the_create(lane: Any, tmp_path: Path) -> None:
    terminal, http, who = lane(location=False)
    arm_delay(http, "GET", "/v4/transactions")
    process = terminal.start("charge", "--customer", who["customerId"], "--check", str(tmp_path / "check.json"))
    wait_for(fault_taken(http))
    kill(process)
    assert len(customer_transactions(http, who["customerId"])) == 1

    terminal.run("tx", "list")
    [record] = customer_transactions(http, who["customerId"])
    assert record["state"] == "authorized"
    assert terminal.run("status")["unfinishedCharges"] == 0
    assert terminal.integrity() == "ok"
    # charged again as a person would after a command that died: refused, since the first charge holds the money
    again = terminal.start("charge", "--customer", who["customerId"], "--check", str(tmp_path / "check.json"))
    _, err = again.communicate(timeout=60)
    assert again.returncode == 1
    assert f"This check was charged already: transaction {record['transactionId']}" in err
    assert len(customer_transactions(http, who["customerId"])) == 1
    # a second hold on purpose takes --again
    second = terminal.run("charge", "--customer", who["customerId"], "--check", str(tmp_path / "check.json"), "--again")
    assert second["state"] == "authorized"
    assert len(customer_transactions(http, who["customerId"])) == 2


def test_killed_right_after_a_complete(lane: Any, tmp_path: Path) -> None:
    terminal, http, who = lane()
    charged = terminal.run("charge", "--customer", who["customerId"], "--check", str(tmp_path / "check.json"))
    transaction_id = charged["transactionId"]
    arm_delay(http, "PATCH", f"/v4/transactions/{transaction_id}")
    process = terminal.start("tx", "complete", transaction_id)
    wait_for(fault_taken(http))
    kill(process)
    assert terminal.run("status")["pendingStateChanges"] == 1

    wait_for(lambda: customer_transactions(http, who["customerId"])[0]["state"] == "complete")
    terminal.run("tx", "list")
    assert terminal.run("status")["pendingStateChanges"] == 0
    kinds = [e["kind"] for e in http.get(f"/sandbox/customers/{who['customerId']}/ledger").json()]
    assert kinds.count("charge") == 1
    assert terminal.integrity() == "ok"
