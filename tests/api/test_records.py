"""Records the sandbox returns for the checks the terminal builds are read, whatever optional parts they lack.

A check without discounts or payments is sent without those fields, and the
service answers its record with ``"discounts": null, "payments": null``. A
tolerant reader takes null as empty; refusing it would hide the transaction
from ``tx get``, state changes and, worst, reconciliation by ``refId``.
"""

from __future__ import annotations

import gc
import json
import tracemalloc
import uuid
from datetime import UTC, datetime, timedelta

import httpx

from pos_terminal.api.client import PosClient, _list_adapter
from pos_terminal.api.models import CreateTransactionRequest, Transaction, TransactionRef, TransactionRow
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


def test_reading_a_listing_keeps_none_of_its_strings() -> None:
    """A long listing, read and let go, leaves nothing behind: pydantic's string cache kept up to 16,384 of
    its ids and names, and with them the memory the whole list had used (the soak's resident memory)."""
    body = json.dumps(
        [
            {
                "transactionId": uuid.uuid4().hex,
                "refId": f"pos-{uuid.uuid4().hex}",
                "state": "complete",
                "terminalId": "LANE-1",
                "customer": {"customerId": uuid.uuid4().hex, "firstName": f"First {n}", "lastName": f"Last {n}"},
                "items": [{"name": f"Item {n}", "quantity": 1, "unitPrice": 450, "amount": 450}],
            }
            for n in range(5000)
        ]
    ).encode()
    adapter = _list_adapter(Transaction)
    adapter.validate_json(b"[]")  # built before measuring
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        listed = adapter.validate_json(body)
        assert len(listed) == 5000 and listed[0].customer is not None
        del listed
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 64 * 1024, f"{kept} bytes of the listing stayed alive"


async def test_a_reports_listing_reads_the_same_rows_in_a_fraction_of_the_memory(
    pos_client: PosClient, client: httpx.Client
) -> None:
    """Reports read the day's listing as rows: the same figures as whole records, without the day-sized peak of
    small objects a whole listing is (the soak's arenas grew at each report's listing)."""
    customer = new_checked_in_customer(client, firstName="Zoë", lastName="Row")
    for n in range(3):
        check = Check().add_item(Item(name="Long black", quantity=n + 1, unit_price=450, tax_rate_bp=1000))
        body = check.charge_request(
            customer={"customerId": customer["customerId"], "checkInId": customer["checkInId"]},
            ref_id=f"row-{n}",
            terminal_id="LANE-1",
        )
        created = await pos_client.create_transaction(CreateTransactionRequest.model_validate(body))
        if n and created.transaction_id:
            await pos_client.set_state(created.transaction_id, TxState.COMPLETE)
    now = datetime.now(UTC)
    window = (now - timedelta(hours=1), now + timedelta(hours=1), "LANE-1")
    records = await pos_client.list_transactions(*window)
    rows = (await pos_client.transaction_listing(*window)).read(TransactionRow)  # what History reads
    fields = ("transaction_id", "state", "ref_id", "terminal_id", "created", "updated", "completed", "total")
    money = ("charge_amount", "amount_charged", "tip_amount", "fee_amount")
    assert [tuple(getattr(r, f) for f in fields + money) for r in rows] == [
        tuple(getattr(r, f) for f in fields + money) for r in records
    ]
    assert [r.customer.display_name for r in rows if r.customer] == ["Zoë Row"] * 3
    refs = await pos_client.list_transaction_refs(*window)  # what the search for a lost charge reads
    assert [(r.transaction_id, r.ref_id, r.created) for r in refs] == [
        (r.transaction_id, r.ref_id, r.created) for r in records
    ]

    day = json.dumps([r.model_dump(by_alias=True, mode="json") for r in records] * 700).encode()
    peaks = {}
    for kind in (Transaction, TransactionRow, TransactionRef):
        adapter = _list_adapter(kind)
        adapter.validate_json(b"[]")
        gc.collect()
        tracemalloc.start()
        try:
            adapter.validate_json(day)
            peaks[kind] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peaks[TransactionRow] * 5 < peaks[Transaction], peaks
    assert peaks[TransactionRef] * 2 < peaks[TransactionRow], peaks
