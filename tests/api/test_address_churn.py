"""A day of answers leaves no trail of addresses behind it (docs/memory.md).

Each transaction has an address of its own. The standard library keeps the last 128 addresses it split in a
cache, so an address split for every answer makes a shift's worth of medium-lived objects among the
short-lived ones, which keeps the interpreter's memory from going back. httpx split each answer's address to
look for cookies the service never sets; the client reads cookies only from an answer that sets one, and reads
a Location with httpx's own parser.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

from pos_terminal.api.models import CreateTransactionRequest
from tests.api.fake_service import Answer, FakeService
from tests.api.test_errors import fake_client
from tests.conftest import check_body


async def test_a_day_of_sales_splits_no_address_through_the_standard_library(
    fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    pos = fake_client(fake_service, http)
    body = CreateTransactionRequest.model_validate(check_body({"customerId": "cus-1", "checkInId": "chk-1"}))
    before = urlsplit.cache_info()  # type: ignore[attr-defined]
    for n in range(5):
        fake_service.routes["POST /v4/transactions"] = Answer.json(
            201, {"state": "authorized"}, Location=f"{fake_service.url}/v4/transactions/tx-{n}"
        )
        fake_service.routes[f"GET /v4/transactions/tx-{n}"] = Answer.json(
            200, {"transactionId": f"tx-{n}", "state": "authorized", "total": 1_000}
        )
        result = await pos.create_transaction(body)
        assert result.transaction_id == f"tx-{n}"
        await pos.get_transaction(f"tx-{n}")
    after = urlsplit.cache_info()  # type: ignore[attr-defined]
    assert after.hits + after.misses == before.hits + before.misses, "an answer's address went through urlsplit"


async def test_a_cookie_an_answer_sets_is_still_kept(fake_service: FakeService, http: httpx.AsyncClient) -> None:
    fake_service.routes["GET /v4/customers"] = Answer.json(200, [], **{"Set-Cookie": "lb=a1; Path=/"})
    await fake_client(fake_service, http).list_customers()
    assert http.cookies.get("lb") == "a1"


async def test_an_id_is_read_from_a_location_of_any_shape(fake_service: FakeService, http: httpx.AsyncClient) -> None:
    body = CreateTransactionRequest.model_validate(check_body({"customerId": "cus-1", "checkInId": "chk-1"}))
    for location, expected in [
        (f"{fake_service.url}/v4/transactions/tx%2042?expand=1#top", "tx 42"),
        ("/v4/transactions/tx-7/", "tx-7"),
        ("http://[odd/v4/transactions/tx-8", "tx-8"),
        ("http://host:port/v4/transactions/tx-9", None),
        ("/v4/elsewhere/tx-10", None),
    ]:
        fake_service.routes["POST /v4/transactions"] = Answer.text(201, "Created", "text/plain", Location=location)
        result = await fake_client(fake_service, http).create_transaction(body)
        assert result.transaction_id == expected, location
