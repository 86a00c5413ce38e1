"""Hostile input and hostile clients: numbers out of range, types bent, huge bodies, idle and slow connections.

Each case answers a 4xx problem naming what was wrong, never a 500, and leaves the sandbox
working for everyone else.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest

from pos_terminal.sandbox import SandboxServer
from pos_terminal.sandbox.cli import main as sandbox_main
from pos_terminal.sandbox.state import LATEST_MS
from tests.conftest import DEMO_MERCHANT
from tests.helpers.http import http_client
from tests.sandbox.helpers import Shop, assert_problem, check_body


@pytest.fixture
def shop(sandbox: SandboxServer) -> Iterator[Shop]:
    with Shop.open(sandbox) as opened:
        yield opened


def still_serving(shop: Shop) -> None:
    """A transaction, a token and a device code can still be made (after 1e16 they all answered 500)."""
    assert shop.pos.post("/transactions", json=check_body(shop.customer())).status_code == 201
    assert shop.control.post("/sandbox/tokens", json={"merchantId": DEMO_MERCHANT}).status_code == 201
    started = shop.control.post("/v1/device_authorization", data={"client_id": "pos-terminal"})
    assert started.status_code == 200, started.text


# --- numbers ---------------------------------------------------------------------------------------------------


def test_a_token_lifetime_past_what_sqlite_holds_is_refused_naming_the_field(shop: Shop) -> None:
    """expiresIn 9223372036854775 answered 500 (OverflowError into SQLite)."""
    refused = shop.control.post("/sandbox/tokens", json={"merchantId": DEMO_MERCHANT, "expiresIn": 9223372036854775})
    assert_problem(refused, 400, "BAD_REQUEST", field="expiresIn")
    still_serving(shop)


@pytest.mark.parametrize("name", ["autoCancelSeconds", "tokenTtl", "deviceInterval", "deviceExpiresIn"])
def test_settings_out_of_range_are_refused_and_change_nothing(shop: Shop, name: str) -> None:
    """1e16 was accepted, and then creating a transaction, /v1/token, /sandbox/tokens and device authorization broke."""
    before = shop.settings()
    raw = f'{{"{name}": 1e16}}'.encode()
    refused = shop.control.patch("/sandbox/settings", content=raw, headers={"Content-Type": "application/json"})
    assert_problem(refused, 400, "BAD_REQUEST", field=name)
    assert shop.settings() == before
    still_serving(shop)


def test_the_clock_stops_before_times_cannot_be_written(shop: Shop, sandbox: SandboxServer) -> None:
    ten_years = 10 * 365 * 86_400
    state = sandbox.sandbox  # most of the 8,000 years in-process (800 requests took half a minute), the end by HTTP
    state.advance_clock((LATEST_MS - state.clock.now_ms()) / 1000 - 1.5 * ten_years)
    assert shop.control.post("/sandbox/clock", json={"advanceSeconds": ten_years}).status_code == 200
    refused = shop.control.post("/sandbox/clock", json={"advanceSeconds": ten_years})
    assert_problem(refused, 422, "VALIDATION_FAILED", field="advanceSeconds")
    assert shop.control.get("/sandbox/clock").json()["now"] < "9000"
    assert shop.pos.get("/summary", params={"from": "2000-01-01T00:00:00Z"}).status_code == 200
    assert shop.control.post("/sandbox/tokens", json={"merchantId": DEMO_MERCHANT}).status_code == 201


# --- the typing rule ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("post", "/sandbox/clock", {"advanceSeconds": True}, "advanceSeconds"),
        ("patch", "/sandbox/settings", {"location": 0}, "location"),
        ("patch", "/sandbox/settings", {"rotateRefreshTokens": "yes"}, "rotateRefreshTokens"),
        ("post", "/sandbox/tokens", {"merchantId": DEMO_MERCHANT, "refresh": 1}, "refresh"),
        ("post", "/sandbox/tokens", {"merchantId": DEMO_MERCHANT, "expiresIn": "60"}, "expiresIn"),
        ("post", "/sandbox/customers", {"firstName": "A", "lastName": "B", "balance": 19117.5}, "balance"),
        ("post", "/sandbox/customers", {"firstName": "A", "lastName": "B", "balance": False}, "balance"),
    ],
)
def test_booleans_are_not_numbers_and_numbers_not_booleans(
    shop: Shop, method: str, path: str, body: dict[str, Any], field: str
) -> None:
    before = shop.control.get("/sandbox/clock").json()["offsetSeconds"]
    refused = shop.control.request(method.upper(), path, json=body)
    assert_problem(refused, 400, "BAD_REQUEST", field=field)
    assert shop.control.get("/sandbox/clock").json()["offsetSeconds"] == before, "true did not move the clock"


def test_an_integer_may_be_written_with_a_zero_fraction(shop: Shop) -> None:
    """19117.0 is the integer 19117 in JSON, as JSON Schema's integer says; it was refused."""
    created = shop.control.post("/sandbox/customers", json={"firstName": "A", "lastName": "B", "balance": 19117.0})
    assert created.status_code == 201, created.text
    assert created.json()["balance"] == 19117
    customer = shop.customer()
    body = check_body(customer, 1_000)
    body["chargeAmount"] = body["total"] = body["balance"] = body["itemTotal"] = 1_000.0
    assert shop.pos.post("/transactions", json=body).status_code == 201


def test_query_booleans_are_the_words_true_and_false(shop: Shop) -> None:
    for word, merged in (("true", True), ("false", False)):
        answer = shop.pos.get("/summary", params={"from": "2000-01-01T00:00:00Z", "merge": word})
        assert answer.status_code == 200
        assert isinstance(answer.json(), dict) is merged
    assert_problem(shop.pos.get("/summary", params={"from": "2000-01-01T00:00:00Z", "merge": "1"}), 400, "BAD_REQUEST")


def test_the_openapi_document_states_the_rule_and_the_bounds(shop: Shop) -> None:
    document = shop.control.get("/openapi.json").json()
    assert "19117.0" in document["info"]["description"]
    schemas = document["components"]["schemas"]
    expires = schemas["MintToken"]["properties"]["expiresIn"]["anyOf"][0]
    assert expires["type"] == "integer" and expires["maximum"] == 10 * 365 * 86_400
    assert schemas["SettingsPatch"]["properties"]["location"]["anyOf"][0]["type"] == "boolean"
    create = document["paths"]["/v4/transactions"]["post"]
    assert {"413", "422"} <= set(create["responses"])


# --- methods and bodies ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/v4/transactions", "GET, POST"),
        ("DELETE", "/v4/transactions/x", "GET, PATCH"),
        ("PUT", "/sandbox/settings", "GET, PATCH"),
        ("OPTIONS", "/sandbox/faults", "DELETE, GET, POST"),
        ("DELETE", "/openapi.json", "GET, HEAD"),
    ],
)
def test_405_lists_every_method_of_the_route(shop: Shop, method: str, path: str, allowed: str) -> None:
    """PUT /v4/transactions answered Allow: GET, without POST (RFC 9110 §15.5.6)."""
    answer = shop.control.request(method, path)
    assert_problem(answer, 405, "METHOD_NOT_ALLOWED")
    assert answer.headers["allow"] == allowed


def test_a_body_over_the_limit_is_413_whether_announced_or_streamed(make_sandbox: Callable[..., SandboxServer]) -> None:
    server = make_sandbox(max_body_bytes=10_000)
    with Shop.open(server) as shop:
        announced = shop.pos.post("/transactions", content=b"{" + b" " * 20_000 + b"}")
        assert_problem(announced, 413, "PAYLOAD_TOO_LARGE")

        def chunks() -> Iterator[bytes]:
            yield b'{"items": ['
            for _ in range(2_000):
                yield b'{"name": "x"},'
            yield b"{}]}"

        streamed = shop.pos.post("/transactions", content=chunks(), headers={"Content-Type": "application/json"})
        assert_problem(streamed, 413, "PAYLOAD_TOO_LARGE")
        assert streamed.headers["connection"] == "close", "the rest of the body is never read"
        assert shop.pos.post("/transactions", json=check_body(shop.customer())).status_code == 201


# --- connections -------------------------------------------------------------------------------------------------


@contextmanager
def raw_connections(server: SandboxServer, count: int, first_bytes: bytes = b"") -> Iterator[list[socket.socket]]:
    """``count`` connections that send ``first_bytes`` (maybe nothing) and then nothing more."""
    with ExitStack() as stack:
        opened = []
        for _ in range(count):
            conn = stack.enter_context(socket.create_connection(("127.0.0.1", server.port), timeout=10))
            if first_bytes:
                conn.sendall(first_bytes)
            opened.append(conn)
        yield opened


def closed_by_server(conn: socket.socket) -> bool:
    """Waits (up to the socket's timeout) for the server to close ``conn``."""
    try:
        return conn.recv(1) == b""
    except (ConnectionResetError, TimeoutError):
        return False


def still_open(conn: socket.socket) -> bool:
    """The server has neither closed nor reset ``conn``: a short read finds nothing yet."""
    conn.settimeout(0.05)
    try:
        conn.recv(1)
    except TimeoutError:
        return True
    except OSError:
        return False
    return False


def test_a_request_that_does_not_arrive_in_time_is_closed(make_sandbox: Callable[..., SandboxServer]) -> None:
    """Idle and slow-header connections were never timed out."""
    server = make_sandbox(request_seconds=0.5)
    with raw_connections(server, 1) as idle, raw_connections(server, 1, b"GET /v4/customers HTTP/1.1\r\nHost") as slow:
        assert closed_by_server(idle[0])
        assert closed_by_server(slow[0])
    with http_client(base_url=server.url) as client:
        assert client.get("/sandbox/clock").status_code == 200


def test_at_the_connection_limit_idle_clients_make_room_and_it_is_logged_once(
    make_sandbox: Callable[..., SandboxServer], caplog: pytest.LogCaptureFixture
) -> None:
    """20,000 idle connections exhausted the descriptors, normal requests timed out and every failure logged."""
    server = make_sandbox(max_connections=20, request_seconds=60)
    caplog.set_level(logging.WARNING)
    with raw_connections(server, 200) as idle, raw_connections(server, 50, b"POST /v1/token HTTP/1.1\r\n") as slow:
        with http_client(base_url=server.url, timeout=10) as client:
            answered = [client.get("/sandbox/clock").status_code for _ in range(5)]
        assert answered == [200] * 5
        evicted = sum(closed_by_server(conn) for conn in idle[:150])
        assert evicted == 150, "the connections that waited longest were closed first"
        # the limit holds 20: the newest connections stay, and those closed are the oldest (an unbroken run)
        kept = [still_open(conn) for conn in slow]
        assert kept == sorted(kept) and sum(kept) >= 15, kept
    lines = [r for r in caplog.records if r.name == "pos_terminal.sandbox" and "connections" in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    assert server.guard.conditions.counts["connections-full"] >= 230


def test_public_refuses_to_start_with_the_demo_accounts(capsys: pytest.CaptureFixture[str]) -> None:
    """With --public anyone on the network could sign in as demo/demo and take a merchant token."""
    assert sandbox_main(["--host", "0.0.0.0", "--public", "--memory"]) == 2  # noqa: S104 (refused before binding)
    said = capsys.readouterr().err
    assert "demo/demo" in said
    assert "--allow-demo-accounts" in said
