"""Times on the wire: read in UTC whatever their zone, blank or null as none, the same from JSON or Python."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from pos_terminal.api.client import PosClient
from pos_terminal.api.models import Customer, Summary, Transaction, loosened
from tests.helpers.http import async_http_client

NOON = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ("2026-11-22T12:00:00.000Z", NOON),
        ("2026-11-22T12:00:00Z", NOON),
        ("2026-11-22T12:00:00", NOON),  # no zone: UTC
        ("2026-11-22T17:30:00+05:30", NOON),
        ("2026-11-22T04:00:00.000-08:00", NOON),
        ("2026-11-22T12:00:00.123456Z", NOON + timedelta(microseconds=123456)),
        ("2026-11-22T12:00:00.5Z", NOON + timedelta(milliseconds=500)),
        ("2026-11-22 12:00:00", NOON),  # not the usual shape: pydantic reads it
        (int(NOON.timestamp()), NOON),
        (NOON.astimezone(timezone(timedelta(hours=10))), NOON),
        ("", None),
        ("   ", None),
        (None, None),
    ],
)
@pytest.mark.parametrize("from_json", [False, True])
def test_times_are_read_in_utc(wire: Any, expected: datetime | None, from_json: bool) -> None:
    record = {"customerId": "cus-1", "checkInDate": wire, "dob": wire}
    if from_json:
        if isinstance(wire, datetime):
            pytest.skip("no datetime in JSON")
        customer = Customer.model_validate_json(json.dumps(record))
    else:
        customer = Customer.model_validate(record)
    assert customer.check_in_date == expected
    assert customer.dob == expected
    if expected is not None:
        assert customer.check_in_date is not None
        assert customer.check_in_date.tzinfo is UTC


@pytest.mark.parametrize(
    "wire",
    ["2026-02-30T12:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T12:00:00+12:60", "yesterday", "2026-11-22T12:00Zx"],
)
def test_unreadable_times_are_refused(wire: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Transaction.model_validate({"transactionId": "t", "state": "complete", "created": wire})
    assert caught.value.errors()[0]["loc"] == ("created",)
    # a customer's own times only describe them: read again without them, the customer stays, chargeable
    record = {"customerId": "cus-1", "checkInId": "k-1", "checkInDate": wire, "dob": wire}
    with pytest.raises(ValidationError):
        Customer.model_validate(record)
    customer = Customer.model_validate(loosened(Customer, record))
    assert (customer.customer_id, customer.check_in_id, customer.check_in_date, customer.dob) == (
        "cus-1",
        "k-1",
        None,
        None,
    )


def test_every_time_field_is_read_in_utc() -> None:
    transaction = Transaction.model_validate(
        {"transactionId": "t", "state": "completed", "created": "2026-11-22T13:00:00+01:00", "updated": " "}
    )
    assert transaction.created == NOON and transaction.created.tzinfo is UTC
    assert transaction.updated is None
    summary = Summary.model_validate(
        {"count": 0, "total": 0, "from": "2026-11-22T12:00:00", "to": "2026-11-22T14:00:00+02:00"}
    )
    assert summary.start == summary.end == NOON


def _client() -> PosClient:
    return PosClient(async_http_client(), "http://127.0.0.1:1/v4", credentials=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "body",
    [
        [{"customerId": "a", "checkInDate": "2026-11-22T12:00:00Z"}, {"customerId": "b", "extra": [1]}],
        {"customers": [{"customerId": "a", "checkInDate": "2026-11-22T12:00:00Z"}, {"customerId": "b"}]},
        [{"customerId": "a", "checkInDate": "2026-11-22T12:00:00Z"}, {"customerId": None}, {"customerId": "b"}],
    ],
)
def test_lists_read_in_one_pass_or_entry_by_entry_agree(body: Any) -> None:
    customers = _client()._list(httpx.Response(200, content=json.dumps(body).encode()), Customer, "customers")
    assert [c.customer_id for c in customers] == ["a", "b"]
    assert customers[0].check_in_date == NOON and customers[0].check_in_date.tzinfo is UTC
