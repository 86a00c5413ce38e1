"""A deployment's own spellings of the transaction states (contract: the terminal relies on no spelling that a
deployment could write differently without a setting for it). Without the setting, a record in "settled" was left
out of every list and its read failed; with ``states = {settled = "complete"}`` it is read as complete everywhere."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from pos_terminal.api.auth import StaticCredentials
from pos_terminal.api.client import PosClient
from pos_terminal.api.errors import ResponseInvalid
from pos_terminal.api.models import Transaction, TransactionRow
from pos_terminal.config import Settings, with_changes
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.errors import ConfigError
from tests.api.fake_service import Answer, FakeService

RECORDS = [
    {"transactionId": "t1", "state": "Settled", "total": 100, "chargeAmount": 100},
    {"transactionId": "t2", "state": "VOIDED", "total": 200, "chargeAmount": 200},
    {"transactionId": "t3", "state": "completed", "total": 300, "chargeAmount": 300},
]


def client(http: httpx.AsyncClient, service: FakeService, states: dict[str, str] | None) -> PosClient:
    return PosClient(http, f"{service.url}/v4", StaticCredentials("t"), states=states)


async def test_a_deployments_own_state_spellings_are_read_as_the_settings_say(
    http: httpx.AsyncClient, fake_service: FakeService
) -> None:
    fake_service.routes["GET /v4/transactions"] = Answer.json(200, RECORDS)
    fake_service.routes["GET /v4/transactions/t1"] = Answer.json(200, RECORDS[0])
    states = Settings(states={" settled ": "complete", "Voided": "Canceled"}).states
    assert states == {" settled ": "complete", "Voided": "canceled"}
    start, end = datetime(2026, 11, 27, tzinfo=UTC), datetime(2026, 11, 28, tzinfo=UTC)

    plain = client(http, fake_service, None)
    assert [t.transaction_id for t in await plain.list_transactions(start, end)] == ["t3"]
    with pytest.raises(ResponseInvalid):
        await plain.get_transaction("t1")

    told = client(http, fake_service, states).signed_with(StaticCredentials("u"))
    listed = await told.list_transactions(start, end)
    assert [(t.transaction_id, t.state) for t in listed] == [
        ("t1", TxState.COMPLETE),
        ("t2", TxState.CANCELED),
        ("t3", TxState.COMPLETE),
    ]
    assert (await told.get_transaction("t1")).state is TxState.COMPLETE
    listing = await told.transaction_listing(start, end)
    assert [r.state for r in listing.read(TransactionRow)] == [TxState.COMPLETE, TxState.CANCELED, TxState.COMPLETE]
    assert [r.state for r in listing.read(Transaction)][:2] == [TxState.COMPLETE, TxState.CANCELED]


def test_a_spelling_for_no_state_is_refused_in_the_settings() -> None:
    with pytest.raises(ConfigError, match="is none of the states"):
        with_changes(Settings(), states={"settled": "done"})
