"""Records the sandbox returns for the checks the terminal builds are read, whatever optional parts they lack.

A check without discounts or payments is sent without those fields, and the
service answers its record with ``"discounts": null, "payments": null``. A
tolerant reader takes null as empty; refusing it would hide the transaction
from ``tx get``, state changes and, worst, reconciliation by ``refId``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from pos_terminal.api.client import PosClient
from pos_terminal.api.models import CreateTransactionRequest
from pos_terminal.domain.check import Check, Item
from pos_terminal.domain.lifecycle import TxState
from tests.conftest import new_checked_in_customer


async def test_a_check_without_discounts_or_payments_is_readable_at_every_step(
    pos_client: PosClient, client: httpx.Client
) -> None:
    customer = new_checked_in_customer(client)
    check = Check().add_item(Item(name="Long black", quantity=1, unit_price=450, tax_rate_bp=1000))
    body = check.charge_request(
        customer={"customerId": customer["customerId"], "checkInId": customer["checkInId"]},
        ref_id="plain-check",
        terminal_id="LANE-1",
    )
    assert "discounts" not in body and "payments" not in body

    created = await pos_client.create_transaction(CreateTransactionRequest.model_validate(body))
    assert created.transaction_id

    read = await pos_client.get_transaction(created.transaction_id)
    assert (read.discounts, read.payments) == ([], [])
    now = datetime.now(UTC)
    listed = await pos_client.list_transactions(now - timedelta(hours=1), now + timedelta(hours=1), "LANE-1")
    assert [t.ref_id for t in listed] == ["plain-check"], "reconciliation by refId must see it"
    completed = await pos_client.set_state(created.transaction_id, TxState.COMPLETE)
    assert completed.state is TxState.COMPLETE
