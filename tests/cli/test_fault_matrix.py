"""The command line's money commands under every fault, on every route: never a second hold on one check.

Each case runs one command (charge, complete, cancel, refund) with one fault mode armed on one route of the
POS API (the create, the state change, the read of one transaction, the list), then does what the command
said, as a person would: a charge that says nothing was charged is charged again once the fault is gone; any
other ending is left to the next command. Afterwards:

- the service holds at most one transaction for the check (a duplicate the terminal canceled counts too);
- the terminal's journal knows every transaction the service holds for it;
- a command that said "not charged" or "try again" about a charge did so only while nothing was created;
- a state change took effect once, and the customer's money moved once.

The fault fires on the next ``FAULT_TIMES`` matching requests: enough to use up every retry of one request.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import keyring
import pytest

from pos_terminal.cli import main
from pos_terminal.journal.journal import Journal
from pos_terminal.sandbox import SandboxServer, SandboxSettings
from tests.cli.conftest import Run, write_config
from tests.conftest import ledger_kinds, mint_token, new_checked_in_customer, transactions_of
from tests.helpers.http import http_client
from tests.keyrings import MemoryKeyring

pytestmark = pytest.mark.slow

TIMEOUT = 1.5  # the profile's request deadline, seconds
FAULT_TIMES = 3  # the client's attempts at one request
MODES = ("error_before", "error_after", "drop_before", "drop_after", "delay", "rate_limit")
ROUTES = {
    "create": ("POST", "/v4/transactions"),
    "state change": ("PATCH", "/v4/transactions/*"),
    "read one": ("GET", "/v4/transactions/*"),
    "list": ("GET", "/v4/transactions"),
}
ACTIONS = ("charge", "complete", "cancel", "refund")
CHECK = {
    "items": [{"name": "Flat white", "quantity": 2, "unitPrice": 550, "taxRate": 10}],
    "payments": [{"method": "cash", "amount": 200}],
}
TOLD_TO_RETRY = ("try again", "not charged", "nothing was charged", "charge again")
TARGET = {"complete": "complete", "cancel": "canceled", "refund": "refunded"}


@dataclass
class Lane:
    """One terminal profile, signed in, driven through ``pos_terminal.cli.main`` in this process."""

    server: SandboxServer
    http: httpx.Client
    profile: Path

    def __call__(self, *command: str) -> Run:
        out, err = io.StringIO(), io.StringIO()
        argv = [*command, "--profile", str(self.profile), "--service", self.server.url, "--json"]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        return Run(code, out.getvalue(), err.getvalue())

    def known(self) -> set[str]:
        with Journal(self.profile / "data" / "journal.sqlite3") as journal:
            rows = journal.conn.execute("SELECT transaction_id FROM known_transaction").fetchall()
        return {row[0] for row in rows}

    def arm(self, route: str, mode: str) -> None:
        method, path = ROUTES[route]
        fault: dict[str, Any] = {"method": method, "path": path, "mode": mode, "times": FAULT_TIMES}
        if mode == "delay":
            fault["delayMs"] = int((TIMEOUT + 0.5) * 1000)  # past the request's deadline
        self.http.post("/sandbox/faults", json=fault).raise_for_status()

    def disarm(self) -> None:
        self.http.delete("/sandbox/faults").raise_for_status()

    def held_for(self, customer_id: str) -> list[dict[str, Any]]:
        return transactions_of(self.http, customer_id)

    def ledger(self, customer_id: str) -> list[str]:
        return ledger_kinds(self.http, customer_id)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SandboxServer, httpx.Client]]:
    """One sandbox for the whole matrix (each case has its own customer and its own terminal profile)."""
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    server = SandboxServer(SandboxSettings(db_path=str(tmp_path_factory.mktemp("matrix") / "sandbox.sqlite3")))
    server.start()
    with http_client(base_url=server.url, timeout=10) as http:
        yield server, http
    server.stop()
    keyring.set_keyring(previous)


@pytest.fixture
def lane(service: tuple[SandboxServer, httpx.Client], tmp_path: Path) -> Iterator[Lane]:
    server, http = service
    write_config(tmp_path / "lane", terminal_id=f"MATRIX-{tmp_path.name[-40:]}", request_timeout_seconds=TIMEOUT)
    terminal = Lane(server, http, tmp_path / "lane")
    assert terminal("login", "--token", mint_token(http, expiresIn=0)).code == 0
    yield terminal
    terminal.disarm()


def said(run: Run) -> str:
    return (run.out + run.err).lower()


def charge(lane: Lane, customer: dict[str, Any], check: Path) -> Run:
    return lane("charge", "--customer", customer["customerId"], "--check", str(check), "--wait", "2")


def assert_one_hold_and_known(lane: Lane, customer: dict[str, Any]) -> list[dict[str, Any]]:
    held = lane.held_for(customer["customerId"])
    assert len(held) <= 1, f"a second transaction for one check: {[(t['transactionId'], t['state']) for t in held]}"
    assert {t["transactionId"] for t in held} <= lane.known(), "the service holds a transaction the terminal forgot"
    return held


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("mode", MODES)
def test_a_charge_under_fault_holds_the_money_once(lane: Lane, tmp_path: Path, mode: str, route: str) -> None:
    customer = new_checked_in_customer(lane.http)
    check = tmp_path / "check.json"
    check.write_text(json.dumps(CHECK))
    if route == "list":
        # the list is read when the create's answer is lost: lose it, so the fault meets the reconciliation
        lane.http.post(
            "/sandbox/faults", json={"method": "POST", "path": "/v4/transactions", "mode": "drop_after"}
        ).raise_for_status()
    lane.arm(route, mode)
    first = charge(lane, customer, check)
    held = lane.held_for(customer["customerId"])
    if first.code == 1:
        assert held == [], f"told the charge failed while the service holds it: {first}"
    else:
        assert not any(words in said(first) for words in TOLD_TO_RETRY), first
    if first.code == 0:
        record = json.loads(first.out)
        assert [t["transactionId"] for t in held] == [record["transactionId"]]
        assert record["status"] == "authorized"
    if first.code == 3:
        assert "still being verified" in first.err and "do not charge this check again" in first.err.lower()
    assert first.code in (0, 1, 3), first

    lane.disarm()
    # as told: a charge that failed is charged again; any other ending, charged again by someone who did not listen
    again = charge(lane, customer, check)
    if first.code == 0:
        assert again.code == 1 and "This check was charged already" in again.err, again
    assert_one_hold_and_known(lane, customer)
    status = json.loads(lane("status").out)
    held = lane.held_for(customer["customerId"])
    if status["unfinishedCharges"] == 0:
        assert len(held) == 1 and held[0]["state"] == "authorized", "a settled charge is authorized once"


def charged(lane: Lane, customer: dict[str, Any], tmp_path: Path, *, complete: bool) -> str:
    check = tmp_path / "check.json"
    check.write_text(json.dumps(CHECK))
    run = charge(lane, customer, check)
    assert run.code == 0, run
    transaction_id = str(json.loads(run.out)["transactionId"])
    if complete:
        assert lane("tx", "complete", transaction_id).code == 0
    return transaction_id


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action", ["complete", "cancel", "refund"])
def test_a_state_change_under_fault_takes_effect_once(
    lane: Lane, tmp_path: Path, action: str, mode: str, route: str
) -> None:
    customer = new_checked_in_customer(lane.http)
    transaction_id = charged(lane, customer, tmp_path, complete=action == "refund")
    before = lane.ledger(customer["customerId"])
    lane.arm(route, mode)
    extra = ("--yes",) if action == "refund" else ()
    run = lane("tx", action, transaction_id, *extra)
    assert run.code in (0, 3), run  # done, or kept in the outbox to be sent again
    if run.code == 3:
        assert "kept and will be sent again" in run.err, run
    lane.disarm()
    assert lane("tx", "list").code == 0  # every command first sends what waits
    assert json.loads(lane("status").out)["pendingStateChanges"] == 0
    [held] = assert_one_hold_and_known(lane, customer)
    assert held["state"] == TARGET[action]
    moved = {"complete": ["charge"], "cancel": ["release"], "refund": ["refund"]}[action]
    assert lane.ledger(customer["customerId"]) == before + moved, "the customer's money moved once"
