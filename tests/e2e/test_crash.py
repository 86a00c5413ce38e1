"""The terminal process killed with SIGKILL at the worst moments, then restarted.

Each scenario runs the real command line in a subprocess against a sandbox
over loopback, kills it while a request is in flight (the sandbox holds the
request with a ``delay`` fault, so the kill lands at a known step), lets the
request land, and restarts: the terminal must end with exactly one transaction
per check in the right state, and its journal must pass ``integrity_check``.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import mint_token, new_checked_in_customer

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")]

CHECK = {
    "items": [{"name": "Flat white", "quantity": 2, "unitPrice": 550, "taxRate": 10}],
    "discounts": [{"name": "Loyalty stamp", "amount": -100}],
    "payments": [{"method": "cash", "amount": 200}],
}


class Lane:
    """One terminal profile driven through the command line."""

    def __init__(self, server: SandboxServer, profile: Path) -> None:
        self.server = server
        self.profile = profile
        self.env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
        (profile / "config").mkdir(parents=True)
        (profile / "config" / "config.toml").write_text(
            'schema_version = 1\nterminal_id = "LANE-9"\n'
            "allow_insecure_token_file = true\nrequest_timeout_seconds = 10\n"
        )

    def args(self, *command: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "pos_terminal",
            *command,
            "--profile",
            str(self.profile),
            "--service",
            self.server.url,
            "--json",
        ]

    def run(self, *command: str, check: bool = True) -> Any:
        done = subprocess.run(self.args(*command), env=self.env, capture_output=True, text=True, timeout=120)
        if check:
            assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if done.stdout.strip() else None

    def start(self, *command: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.args(*command), env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    def integrity(self) -> str:
        with sqlite3.connect(self.profile / "data" / "journal.sqlite3") as conn:
            return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


def wait_for(condition: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def kill(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL


def arm_delay(http: httpx.Client, method: str, path: str) -> None:
    http.post(
        "/sandbox/faults", json={"method": method, "path": path, "mode": "delay", "delayMs": 2500}
    ).raise_for_status()


def fault_taken(http: httpx.Client) -> Callable[[], bool]:
    return lambda: http.get("/sandbox/faults").json() == []


def customer_transactions(http: httpx.Client, customer_id: str) -> list[dict[str, Any]]:
    refs = {e["reference"] for e in http.get(f"/sandbox/customers/{customer_id}/ledger").json() if e["kind"] != "topup"}
    return [http.get(f"/sandbox/transactions/{ref}").json() for ref in sorted(refs)]


@pytest.fixture
def lane(
    make_sandbox: Callable[..., SandboxServer], tmp_path: Path
) -> Callable[..., tuple[Lane, httpx.Client, dict[str, Any]]]:
    clients: list[httpx.Client] = []

    def make(**settings: Any) -> tuple[Lane, httpx.Client, dict[str, Any]]:
        server = make_sandbox(**settings)
        http = httpx.Client(base_url=server.url, timeout=10)
        clients.append(http)
        terminal = Lane(server, tmp_path / f"lane-{len(clients)}")
        terminal.run("login", "--token", mint_token(http, expiresIn=0))
        (tmp_path / "check.json").write_text(json.dumps(CHECK))
        return terminal, http, new_checked_in_customer(http)

    yield make
    for http in clients:
        http.close()


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
    again = terminal.run("charge", "--customer", who["customerId"], "--check", str(tmp_path / "check.json"))
    assert again["state"] == "authorized"
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
