"""Shared helpers of the sandbox's POS API and control-surface tests.

Everything goes over real loopback HTTP to a real :class:`SandboxServer` with
its state in a SQLite file; the helpers only shorten what the tests say.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from pos_terminal.sandbox import SandboxServer, SandboxSettings
from tests.conftest import DEMO_MERCHANT, check_body, create_transaction, mint_token, new_checked_in_customer
from tests.helpers.http import http_client

PROBLEM_JSON = "application/problem+json"
PROBLEM_KEYS = {"type", "title", "status", "code", "detail", "errors"}
MS = timedelta(milliseconds=1)
FAR_PAST = "2000-01-01T00:00:00Z"
FAR_FUTURE = "2999-01-01T00:00:00Z"

__all__ = [
    "DEMO_MERCHANT",
    "FAR_FUTURE",
    "FAR_PAST",
    "MS",
    "PROBLEM_JSON",
    "Shop",
    "advance",
    "assert_problem",
    "check_body",
    "clock_now",
    "create_transaction",
    "funds",
    "iso",
    "ledger",
    "ledger_for",
    "mint_token",
    "new_checked_in_customer",
    "parse",
    "running_sandbox",
]

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
REDIRECT = "http://127.0.0.1/callback"  # the redirect URI the demo web client registered
WEB = {"client_id": "demo-web", "client_secret": "demo-web-secret"}


def csrf(page: httpx.Response) -> str:
    """The CSRF token of one of the sandbox's sign-in pages."""
    match = re.search(r"name='csrf_token' value='([^']+)'", page.text)
    assert match, page.text
    return match.group(1)


@contextmanager
def running_sandbox(directory: Path, **settings: Any) -> Iterator[SandboxServer]:
    """A sandbox on ``directory/sandbox.sqlite3``, stopped on exit (for module-scoped fixtures)."""
    settings.setdefault("db_path", str(directory / "sandbox.sqlite3"))
    server = SandboxServer(SandboxSettings(**settings))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def assert_problem(response: httpx.Response, status: int, code: str, *, field: str | None = None) -> dict[str, Any]:
    """``response`` is RFC 9457 problem details with ``status`` and ``code`` (naming ``field`` if given)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].split(";")[0] == PROBLEM_JSON
    body: dict[str, Any] = response.json()
    assert set(body) == PROBLEM_KEYS, body
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == "about:blank"
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["errors"], list)
    for error in body["errors"]:
        assert set(error) == {"field", "message"}, error
    if field is not None:
        assert field in {e["field"] for e in body["errors"]}, body
    return body


def iso(moment: datetime) -> str:
    """ISO 8601 UTC with milliseconds and ``Z``, as the sandbox writes it."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def clock_now(control: httpx.Client) -> datetime:
    response = control.get("/sandbox/clock")
    response.raise_for_status()
    return parse(response.json()["now"])


def advance(control: httpx.Client, seconds: float) -> dict[str, Any]:
    response = control.post("/sandbox/clock", json={"advanceSeconds": seconds})
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()
    return state


def funds(control: httpx.Client, customer_id: str) -> tuple[int, int]:
    """The customer's spendable ``balance`` and ``held`` (reserved) cents."""
    response = control.get(f"/sandbox/customers/{customer_id}")
    response.raise_for_status()
    body = response.json()
    return int(body["balance"]), int(body["held"])


def ledger(control: httpx.Client, customer_id: str) -> list[dict[str, Any]]:
    response = control.get(f"/sandbox/customers/{customer_id}/ledger")
    response.raise_for_status()
    entries: list[dict[str, Any]] = response.json()
    return entries


def ledger_for(control: httpx.Client, customer_id: str, transaction_id: str) -> list[tuple[str, int]]:
    """``(kind, amount)`` of the ledger movements that name ``transaction_id``, oldest first."""
    return [(e["kind"], e["amount"]) for e in ledger(control, customer_id) if e["reference"] == transaction_id]


class Shop:
    """A control client and a POS client of one merchant on one sandbox, with shortcuts."""

    def __init__(self, server: SandboxServer, control: httpx.Client, pos: httpx.Client) -> None:
        self.server = server
        self.control = control
        self.pos = pos

    @classmethod
    @contextmanager
    def open(cls, server: SandboxServer, merchant_id: str = DEMO_MERCHANT) -> Iterator[Shop]:
        with http_client(base_url=server.url, timeout=10) as control:
            token = mint_token(control, merchant_id, expiresIn=0)
            headers = {"Authorization": f"Bearer {token}"}
            with http_client(base_url=f"{server.url}/v4", headers=headers, timeout=10) as pos:
                yield cls(server, control, pos)

    def customer(self, **fields: Any) -> dict[str, Any]:
        return new_checked_in_customer(self.control, **fields)

    def authorize(self, customer: dict[str, Any], amount: int = 1_000, **overrides: Any) -> str:
        return create_transaction(self.pos, check_body(customer, amount, **overrides))

    def create(self, body: dict[str, Any]) -> str:
        return create_transaction(self.pos, body)

    def patch(self, transaction_id: str, state: str) -> httpx.Response:
        return self.pos.patch(f"/transactions/{transaction_id}", json={"state": state})

    def set_state(self, transaction_id: str, state: str) -> dict[str, Any]:
        response = self.patch(transaction_id, state)
        assert response.status_code == 200, response.text
        record: dict[str, Any] = response.json()
        assert record["state"] == state
        return record

    def get(self, transaction_id: str) -> dict[str, Any]:
        response = self.pos.get(f"/transactions/{transaction_id}")
        assert response.status_code == 200, response.text
        record: dict[str, Any] = response.json()
        return record

    def tip(self, transaction_id: str, amount: int) -> httpx.Response:
        return self.control.post(f"/sandbox/transactions/{transaction_id}/tip", json={"tipAmount": amount})

    def settings(self) -> dict[str, Any]:
        response = self.control.get("/sandbox/settings")
        response.raise_for_status()
        body: dict[str, Any] = response.json()
        return body

    def listed(self, start: str = FAR_PAST, end: str = FAR_FUTURE, **params: str) -> list[dict[str, Any]]:
        response = self.pos.get("/transactions", params={"from": start, "to": end, **params})
        assert response.status_code == 200, response.text
        records: list[dict[str, Any]] = response.json()
        return records

    def funds(self, customer_id: str) -> tuple[int, int]:
        return funds(self.control, customer_id)

    def ledger_for(self, customer_id: str, transaction_id: str) -> list[tuple[str, int]]:
        return ledger_for(self.control, customer_id, transaction_id)

    def now(self) -> datetime:
        return clock_now(self.control)

    def advance(self, seconds: float) -> dict[str, Any]:
        return advance(self.control, seconds)
