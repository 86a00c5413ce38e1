"""A search for a lost charge reads the hour it looks through as rows, not as whole records (docs/memory.md).

When a create's answer is lost, the terminal lists its own transactions from an hour before the charge and picks
the one with its ``refId``. At a busy till that hour holds hundreds of sales; read as whole records (some 9.5 KB of
small objects each) every search made a passing peak that grew with the day, and left the interpreter's memory
higher after each. The sandbox runs in a process of its own, so what is measured is the terminal's side alone.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pos_terminal.services.checkout import ChargeStatus
from tests.conftest import check_body, create_transaction, mint_token, new_checked_in_customer
from tests.helpers.sandbox_process import SandboxProcess, sandbox_process
from tests.helpers.services import arm, customer_model
from tests.services.test_checkout import coffee_check

BUSY_HOUR = 400  # sales of this terminal in the hour before the lost charge
PEAK_LIMIT = 2_500_000  # bytes: as rows the search peaks at about 1.2 MB here (the answer included), whole at 5.7 MB


@pytest.fixture
def served(tmp_path: Path) -> Iterator[SandboxProcess]:
    with sandbox_process(tmp_path) as sandbox:
        yield sandbox


async def test_a_lost_charge_is_found_among_a_busy_hour_without_holding_the_hour_whole(
    served: SandboxProcess, open_terminal: Callable[..., Any]
) -> None:
    terminal = await open_terminal(served, "LANE-1")
    with httpx.Client(base_url=served.url, timeout=10) as control:
        customer = new_checked_in_customer(control, balance=10_000_000)
        token = mint_token(control)
        with httpx.Client(base_url=f"{served.url}/v4", headers={"Authorization": f"Bearer {token}"}) as pos:
            for n in range(BUSY_HOUR):
                create_transaction(pos, check_body(customer, 100 + n, refId=f"busy-{n}", terminalId="LANE-1"))
        arm(control, "POST", "/v4/transactions", "drop_after")  # it lands; its answer is lost
    who = await customer_model(terminal, customer["customerId"])
    tracemalloc.start()
    try:
        outcome = await terminal.checkout.charge(coffee_check(), who)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.status is ChargeStatus.AUTHORIZED
    assert outcome.transaction is not None and outcome.transaction.ref_id == outcome.ref_id
    assert [item.name for item in outcome.transaction.items] == ["Flat white", "Croissant"], "read whole"
    assert peak < PEAK_LIMIT, f"the search held {peak:,} bytes at its peak"
