"""The service-layer tests' shared steps: faults armed in the sandbox, a customer as the terminal reads it, and
the store database's rows and secrets."""

from __future__ import annotations

from typing import Any

import httpx
import sqlalchemy as sa

from pos_terminal.services.terminal import Terminal
from tests.conftest import StoreTarget


def arm(http: httpx.Client, method: str, path: str, mode: str, **extra: Any) -> None:
    response = http.post("/sandbox/faults", json={"method": method, "path": path, "mode": mode, **extra})
    assert response.status_code == 201, response.text


async def customer_model(terminal: Terminal, customer_id: str) -> Any:
    return await terminal.customers.find(customer_id)


class Secrets:
    """A keychain entry in memory."""

    insecure = False
    description = "memory"
    can_keep = True

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}

    def load(self) -> dict[str, Any] | None:
        return dict(self.data) or None

    def save(self, data: Any) -> None:
        self.data = dict(data)

    def clear(self) -> None:
        self.data = {}


def rows(target: StoreTarget, table: str) -> list[dict[str, Any]]:
    database = target.open()
    with database._reading() as conn:  # a test reads the store database as it is
        return [dict(row._mapping) for row in conn.execute(sa.text(f"SELECT * FROM {table}"))]  # noqa: S608
