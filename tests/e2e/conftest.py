"""A terminal profile run as real processes (command line and window) against a sandbox over loopback."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import mint_token, new_checked_in_customer
from tests.helpers.http import http_client

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

    def start_window(self) -> subprocess.Popen[str]:
        """The cashier's window (offscreen) on this profile, as a counter PC starts it."""
        command = [sys.executable, "-m", "pos_terminal", "--profile", str(self.profile), "--service", self.server.url]
        env = {**self.env, "QT_QPA_PLATFORM": "offscreen"}
        return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def integrity(self) -> str:
        with sqlite3.connect(self.profile / "data" / "journal.sqlite3") as conn:
            return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


def wait_for(condition: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


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
) -> Iterator[Callable[..., tuple[Lane, httpx.Client, dict[str, Any]]]]:
    clients: list[httpx.Client] = []

    def make(**settings: Any) -> tuple[Lane, httpx.Client, dict[str, Any]]:
        server = make_sandbox(**settings)
        http = http_client(base_url=server.url, timeout=10)
        clients.append(http)
        terminal = Lane(server, tmp_path / f"lane-{len(clients)}")
        terminal.run("login", "--token", mint_token(http, expiresIn=0))
        (tmp_path / "check.json").write_text(json.dumps(CHECK))
        return terminal, http, new_checked_in_customer(http)

    yield make
    for http in clients:
        http.close()
