"""A customer described differently than the spec writes it is still listed, and can be charged.

Only ``customerId`` and ``checkInId`` are needed to charge (contract: the check-in is what the service checks).
A birthday written ``12/04/1990`` or a member number sent as a number made the whole customer unreadable: the list
skipped them, and the cashier could not charge a customer standing at the counter.
"""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from pos_terminal.api.auth import StaticCredentials
from pos_terminal.api.client import PosClient
from tests.api.fake_service import Answer, FakeService

CUSTOMERS = [
    {"customerId": "c1", "firstName": "Ana", "checkInId": "k1", "dob": "1990-04-12"},
    {"customerId": "c2", "firstName": "Ben", "checkInId": "k2", "dob": "12/04/1990", "checkInDate": "soon"},
    {"customerId": "c3", "firstName": "Cy", "checkInId": "k3", "memberNo": 100234, "checkInNumber": 7},
    {"customerId": "c4", "firstName": "Di", "checkInId": "k4", "gender": {"code": "F"}, "notes": ["vip"]},
    {"customerId": 5, "firstName": "Ed", "checkInId": "k5"},  # no id to charge: still left out
]


async def test_a_customer_described_differently_is_listed_and_keeps_what_a_charge_needs(
    http: httpx.AsyncClient, fake_service: FakeService
) -> None:
    fake_service.routes["GET /v4/customers"] = Answer.json(200, CUSTOMERS)
    customers = await PosClient(http, f"{fake_service.url}/v4", StaticCredentials("t")).list_customers()

    assert [(c.customer_id, c.check_in_id) for c in customers] == [
        ("c1", "k1"),
        ("c2", "k2"),
        ("c3", "k3"),
        ("c4", "k4"),
    ]
    first, second, third, fourth = customers
    assert first.dob == datetime(1990, 4, 12, tzinfo=UTC)
    assert (second.dob, second.check_in_date) == (None, None)
    assert (third.member_no, third.check_in_number) == ("100234", "7")
    assert (fourth.gender, fourth.notes) == (None, None)
    assert second.reference() == {"customerId": "c2", "firstName": "Ben", "checkInId": "k2"}


async def test_a_record_whose_customer_is_described_differently_is_still_listed_and_read(
    http: httpx.AsyncClient, fake_service: FakeService
) -> None:
    record = {
        "transactionId": "t1",
        "state": "complete",
        "total": 100,
        "chargeAmount": 100,
        "customer": {"customerId": "c2", "firstName": "Ben", "checkInId": "k2", "dob": "12/04/1990", "memberNo": 7},
    }
    fake_service.routes["GET /v4/transactions"] = Answer.json(200, [record])
    fake_service.routes["GET /v4/transactions/t1"] = Answer.json(200, record)
    client = PosClient(http, f"{fake_service.url}/v4", StaticCredentials("t"))
    start, end = datetime(2026, 11, 27, tzinfo=UTC), datetime(2026, 11, 28, tzinfo=UTC)
    [listed] = await client.list_transactions(start, end)
    read = await client.get_transaction("t1")
    for transaction in (listed, read):
        assert transaction.customer is not None
        assert (transaction.customer.display_name, transaction.customer.member_no) == ("Ben", "7")
        assert transaction.customer.dob is None
