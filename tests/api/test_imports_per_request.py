"""A request imports nothing: neither the terminal's client nor the sandbox serving it looks for a module.

httpcore asks ``import sniffio`` each time it makes a lock, an event or a cancellation shield (several times a
request) and takes a failed import to mean asyncio. anyio stopped depending on sniffio in 4.11, so without it every
request searched the whole import path for a module that is not there, and Python does not remember a failed
import: about 50 µs a call (6 µs once it is installed). Under pytest the assertion rewriter also made a path of each
search, interning its file name anew, and a soak's till filled the interpreter's table of interned names with
17 dead entries a charge until the table doubled (2.6 MB, after about 1,400 charges). encode/httpcore#1103 is the
upstream fix, still open; the terminal depends on sniffio itself (pyproject.toml) until it lands.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

import httpx

from pos_terminal.api.client import PosClient
from pos_terminal.api.models import CreateTransactionRequest
from pos_terminal.domain.check import Check, Item
from tests.conftest import new_checked_in_customer


class Searches(importlib.abc.MetaPathFinder):
    """First on the import path: notes each module Python looks for (one not already loaded), finds none."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        self.names.append(fullname)
        return None


async def test_requests_after_the_first_import_nothing(pos_client: PosClient, client: httpx.Client) -> None:
    customer = new_checked_in_customer(client)
    check = Check().add_item(Item(name="Long black", quantity=1, unit_price=450, tax_rate_bp=1000))

    async def sale(ref_id: str) -> None:
        body = check.charge_request(
            customer={"customerId": customer["customerId"], "checkInId": customer["checkInId"]},
            ref_id=ref_id,
            terminal_id="LANE-1",
        )
        await pos_client.list_customers()
        await pos_client.create_transaction(CreateTransactionRequest.model_validate(body))

    await sale("first-sale")  # what a first request loads, on either side, is loaded now
    searches = Searches()
    sys.meta_path.insert(0, searches)
    try:
        for n in range(5):
            await sale(f"sale-{n}")
    finally:
        sys.meta_path.remove(searches)

    assert searches.names == [], f"modules looked for on every request: {sorted(set(searches.names))}"
