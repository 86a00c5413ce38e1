"""Text in the service's answers that is not text: a lone surrogate (JSON ``"\\ud800"``) or a control character.

Shown, journaled or printed as it came, it crashed the command line (``UnicodeEncodeError`` on the way out).
It is read as U+FFFD ("�"), whatever the answer (a list, one record, a problem), and nothing else changes.
"""

from __future__ import annotations

import json

import httpx
import pytest

from pos_terminal.api.answers import has_odd_text, read_json
from pos_terminal.api.auth import StaticCredentials
from pos_terminal.api.client import PosClient
from pos_terminal.api.errors import ApiError
from pos_terminal.domain.lifecycle import TxState
from tests.api.fake_service import Answer, FakeService
from tests.helpers.text import ODD


def client_of(http: httpx.AsyncClient, service: FakeService) -> PosClient:
    return PosClient(http, f"{service.url}/v4", StaticCredentials("t"))


def test_reading_replaces_what_is_not_text_and_keeps_the_rest() -> None:
    read = read_json(ODD)
    assert [(c["firstName"], c["lastName"]) for c in read] == [
        ("Zoë", "Tab\tOk"),
        ("\ufffd", "Bell\ufffd"),
        ("😀", "\ufffd\ufffd"),  # a surrogate pair is one character, and text
    ]
    assert not has_odd_text(json.dumps([{"name": "Zoë Ångström", "note": "a\nb"}], ensure_ascii=False).encode())
    with pytest.raises(ValueError, match="nested too deep"):
        read_json(b"[" * 100_000 + b"]" * 100_000)


async def test_a_customer_list_with_odd_text_lists_everyone(http: httpx.AsyncClient, fake_service: FakeService) -> None:
    fake_service.routes["GET /v4/customers"] = Answer(200, ODD, {"Content-Type": "application/json"})
    customers = await client_of(http, fake_service).list_customers()
    assert [c.display_name for c in customers] == ["Zoë Tab\tOk", "\ufffd Bell\ufffd", "😀 \ufffd\ufffd"]
    assert all(c.display_name.encode("utf-8") for c in customers)


async def test_a_record_and_a_problem_with_odd_text(http: httpx.AsyncClient, fake_service: FakeService) -> None:
    record = {"transactionId": "t1", "state": "complete", "refId": "\ud800", "total": 100, "chargeAmount": 100}
    fake_service.routes["GET /v4/transactions/t1"] = Answer.json(200, record)
    problem = {"status": 409, "code": "INVALID_STATE_TRANSITION", "detail": "refused\u0007 \udfff"}
    fake_service.routes["PATCH /v4/transactions/t1"] = Answer.json(409, problem, "application/problem+json")
    client = client_of(http, fake_service)
    assert (await client.get_transaction("t1")).ref_id == "\ufffd"
    with pytest.raises(ApiError) as refused:
        await client.set_state("t1", TxState.COMPLETE)
    refused.value.text().encode("utf-8")  # it can be shown and logged
