"""Fault injection of contract section 8, on create and on PATCH, over real sockets."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.helpers.http import http_client
from tests.sandbox.helpers import Shop, assert_problem, check_body, running_sandbox

DROPPED = (httpx.RemoteProtocolError, httpx.ReadError)
START = 100_000
DELAY_MS = 700


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with running_sandbox(tmp_path_factory.mktemp("faults")) as running:
        yield running


@pytest.fixture
def shop(server: SandboxServer) -> Iterator[Shop]:
    """Fresh clients per test; every fault is disarmed afterwards."""
    with Shop.open(server) as opened:
        yield opened
        assert opened.control.delete("/sandbox/faults").status_code == 204


def arm(shop: Shop, method: str, path: str, mode: str, **extra: Any) -> dict[str, Any]:
    response = shop.control.post("/sandbox/faults", json={"method": method, "path": path, "mode": mode, **extra})
    assert response.status_code == 201, response.text
    fault: dict[str, Any] = response.json()
    return fault


def armed(shop: Shop) -> list[dict[str, Any]]:
    response = shop.control.get("/sandbox/faults")
    assert response.status_code == 200
    faults: list[dict[str, Any]] = response.json()
    return faults


@dataclass
class Operation:
    """One call under a fault, and how to tell whether its work was done."""

    method: str
    path: str
    send: Callable[[], httpx.Response]
    done: Callable[[], bool]
    not_done: Callable[[], bool]
    success_status: int


def create_operation(shop: Shop, ref_id: str) -> Operation:
    customer = shop.customer()
    cid = customer["customerId"]

    def matching() -> list[dict[str, Any]]:
        return [r for r in shop.listed() if r["refId"] == ref_id]

    return Operation(
        method="POST",
        path="/v4/transactions",
        send=lambda: shop.pos.post("/transactions", json=check_body(customer, 1_000, refId=ref_id)),
        done=lambda: len(matching()) == 1 and shop.funds(cid) == (START - 1_000, 1_000),
        not_done=lambda: matching() == [] and shop.funds(cid) == (START, 0),
        success_status=201,
    )


def patch_operation(shop: Shop, ref_id: str) -> Operation:
    customer = shop.customer()
    cid = customer["customerId"]
    transaction_id = shop.authorize(customer, 1_000, refId=ref_id)
    return Operation(
        method="PATCH",
        path=f"/v4/transactions/{transaction_id}",
        send=lambda: shop.patch(transaction_id, "complete"),
        done=lambda: shop.get(transaction_id)["state"] == "complete" and shop.funds(cid) == (START - 1_000, 0),
        not_done=lambda: (
            shop.get(transaction_id)["state"] == "authorized" and shop.funds(cid) == (START - 1_000, 1_000)
        ),
        success_status=200,
    )


OPERATIONS = {"create": create_operation, "patch": patch_operation}


@pytest.fixture(params=sorted(OPERATIONS))
def operation(request: pytest.FixtureRequest, shop: Shop) -> Operation:
    return OPERATIONS[request.param](shop, f"fault-{uuid.uuid4()}")


# --- each mode, on create and on PATCH ---------------------------------------------------------------


def test_drop_before_closes_the_connection_and_does_nothing(shop: Shop, operation: Operation) -> None:
    arm(shop, operation.method, operation.path, "drop_before")
    with pytest.raises(DROPPED):
        operation.send()
    assert operation.not_done()
    assert armed(shop) == []
    assert operation.send().status_code == operation.success_status  # the fault fired once; the retry works
    assert operation.done()


def test_drop_after_closes_the_connection_after_the_work(shop: Shop, operation: Operation) -> None:
    arm(shop, operation.method, operation.path, "drop_after")
    with pytest.raises(DROPPED):
        operation.send()
    assert operation.done()


def test_error_before_answers_500_and_does_nothing(shop: Shop, operation: Operation) -> None:
    arm(shop, operation.method, operation.path, "error_before")
    problem = assert_problem(operation.send(), 500, "INTERNAL_ERROR")
    assert "error_before" in problem["detail"]
    assert operation.not_done()


def test_error_after_answers_500_but_the_work_is_done(shop: Shop, operation: Operation) -> None:
    arm(shop, operation.method, operation.path, "error_after")
    assert_problem(operation.send(), 500, "INTERNAL_ERROR")
    assert operation.done()


def test_rate_limit_answers_429_with_retry_after_and_does_nothing(shop: Shop, operation: Operation) -> None:
    arm(shop, operation.method, operation.path, "rate_limit")
    response = operation.send()
    assert_problem(response, 429, "RATE_LIMITED")
    assert response.headers["retry-after"] == "1"
    assert operation.not_done()


def test_delay_answers_late_and_correctly_while_others_are_served(shop: Shop, operation: Operation) -> None:
    arm(shop, operation.method, operation.path, "delay", delayMs=DELAY_MS)
    finished = threading.Event()
    outcome: dict[str, Any] = {}

    def delayed_call() -> None:
        started = time.monotonic()
        try:
            outcome["response"] = operation.send()
        finally:
            outcome["seconds"] = time.monotonic() - started
            finished.set()

    caller = threading.Thread(target=delayed_call)
    caller.start()
    try:
        deadline = time.monotonic() + 5
        while armed(shop):  # the delayed request has reached the sandbox once its fault is taken
            assert time.monotonic() < deadline, "the delayed request never arrived"
        assert shop.pos.get("/customers").status_code == 200  # another request is answered meanwhile
        assert not finished.is_set()
        assert operation.not_done()
    finally:
        caller.join(timeout=10)
    assert finished.is_set()
    assert outcome["response"].status_code == operation.success_status
    assert outcome["seconds"] >= DELAY_MS / 1000
    assert operation.done()


# --- times, wildcards, listing and disarming -------------------------------------------------------


def test_times_counts_down_the_firings(shop: Shop) -> None:
    arm(shop, "GET", "/v4/customers", "rate_limit", times=3)
    assert [f["times"] for f in armed(shop)] == [3]
    for remaining in (2, 1, 0):
        assert shop.pos.get("/customers").status_code == 429
        assert [f["times"] for f in armed(shop)] == ([remaining] if remaining else [])
    assert shop.pos.get("/customers").status_code == 200


def test_wildcards_in_method_and_path(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 500)
    arm(shop, "*", "/v4/transactions/*", "error_before", times=2)
    assert shop.pos.get(f"/transactions/{transaction_id}").status_code == 500
    assert shop.pos.post("/transactions", json=check_body(customer, 100)).status_code == 201  # not under the *
    assert shop.patch(transaction_id, "complete").status_code == 500
    assert armed(shop) == []
    assert shop.get(transaction_id)["state"] == "authorized"

    arm(shop, "get", "/v4/*", "rate_limit")  # the method is matched case-insensitively
    assert shop.pos.get("/customers").status_code == 429
    assert shop.pos.get("/customers").status_code == 200


def test_list_and_disarm(shop: Shop) -> None:
    first = arm(shop, "POST", "/v4/transactions", "delay", delayMs=5, times=2)
    assert first == {"method": "POST", "path": "/v4/transactions", "mode": "delay", "times": 2, "delayMs": 5}
    arm(shop, "GET", "/v4/customers", "drop_before")
    assert [f["mode"] for f in armed(shop)] == ["delay", "drop_before"]
    assert shop.control.delete("/sandbox/faults").status_code == 204
    assert armed(shop) == []
    assert shop.pos.get("/customers").status_code == 200


def test_faults_never_touch_the_control_surface(shop: Shop) -> None:
    arm(shop, "*", "*", "rate_limit", times=5)
    assert shop.control.get("/sandbox/clock").status_code == 200
    assert [f["times"] for f in armed(shop)] == [5]
    assert shop.pos.get("/customers").status_code == 429


@pytest.mark.parametrize(
    "body",
    [
        {"method": "GET", "path": "/v4/customers", "mode": "explode"},
        {"method": "GET", "path": "/v4/customers", "mode": "delay", "times": 0},
        {"method": "GET", "path": "/v4/customers", "mode": "delay", "delayMs": -1},
        {"method": "GET", "mode": "delay"},
        {"method": "", "path": "/v4/customers", "mode": "delay"},
    ],
)
def test_bad_fault_spec_is_a_bad_request(shop: Shop, body: dict[str, Any]) -> None:
    assert_problem(shop.control.post("/sandbox/faults", json=body), 400, "BAD_REQUEST")
    assert armed(shop) == []


# --- the method override ---------------------------------------------------------------------------------


def test_faults_match_the_overridden_method(shop: Shop) -> None:
    customer = shop.customer()
    transaction_id = shop.authorize(customer, 500)
    override = {"X-HTTP-Method-Override": "PATCH"}

    arm(shop, "POST", "/v4/transactions/*", "error_before")
    response = shop.pos.post(f"/transactions/{transaction_id}", json={"state": "canceled"}, headers=override)
    assert response.status_code == 200  # a PATCH now: the POST fault does not match it
    assert response.json()["state"] == "canceled"
    assert len(armed(shop)) == 1
    shop.control.delete("/sandbox/faults")

    other = shop.authorize(customer, 500)
    arm(shop, "PATCH", f"/v4/transactions/{other}", "error_before")
    response = shop.pos.post(f"/transactions/{other}", json={"state": "complete"}, headers=override)
    assert_problem(response, 500, "INTERNAL_ERROR")
    assert shop.get(other)["state"] == "authorized"
    assert armed(shop) == []


def test_an_override_the_sandbox_ignores_does_not_change_which_fault_fires(shop: Shop) -> None:
    """``X-HTTP-Method-Override: GET`` leaves a POST a POST, so a POST fault must still fire on it."""
    customer = shop.customer()
    arm(shop, "POST", "/v4/transactions", "rate_limit")
    response = shop.pos.post(
        "/transactions",
        json=check_body(customer, 100, refId="ignored-override"),
        headers={"X-HTTP-Method-Override": "GET"},
    )
    assert_problem(response, 429, "RATE_LIMITED")
    assert [r for r in shop.listed() if r["refId"] == "ignored-override"] == []
    assert armed(shop) == []


def test_stopping_answers_a_delayed_request_at_once_without_a_traceback(
    make_sandbox: Callable[..., SandboxServer], capfd: pytest.CaptureFixture[str]
) -> None:
    """Quitting the terminal while a request was held by a delay fault waited out uvicorn's graceful timeout,
    then canceled the request and printed "Exception in ASGI application" with a traceback."""
    sandbox = make_sandbox()
    with http_client(base_url=sandbox.url, timeout=30) as http:
        held = {"method": "GET", "path": "/v4/customers", "mode": "delay", "delayMs": 30_000}
        http.post("/sandbox/faults", json=held).raise_for_status()
        answers: list[int] = []
        waiting = threading.Thread(target=lambda: answers.append(http.get("/v4/customers").status_code))
        waiting.start()
        deadline = time.monotonic() + 10
        while http.get("/sandbox/faults").json() and time.monotonic() < deadline:
            time.sleep(0.01)  # until the request is held (the fault is taken); not a wait on an outcome
        started = time.monotonic()
        sandbox.stop()
        stopped = time.monotonic() - started
        waiting.join(timeout=10)
    assert answers == [401], "the held request is answered (without a token: 401), not dropped"
    assert stopped < 1.0, f"stopping took {stopped:.1f} s"
    assert "Traceback" not in capfd.readouterr().err


def test_a_request_cut_off_before_its_body_takes_no_fault_and_does_nothing(shop: Shop) -> None:
    """A fault is taken by a request that has fully arrived. One taken when the headers came let a client that
    closed before its body was sent look like a create that reached the service (the restart test then waited
    for a charge the service never had)."""
    customer = shop.customer(balance=20_000)
    arm(shop, "POST", "/v4/transactions", "delay", delayMs=DELAY_MS)
    body = json.dumps(check_body(customer, 1_000)).encode()
    url = httpx.URL(shop.server.url)
    with socket.create_connection((url.host, url.port)) as raw:
        head = (
            f"POST /v4/transactions HTTP/1.1\r\nHost: {url.host}\r\nAuthorization: {shop.pos.headers['Authorization']}"
            f"\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        raw.sendall(head.encode() + body[:10])  # the headers and a little of the body, then the power goes
    assert len(armed(shop)) == 1, "the fault waits for a request that arrives"
    created = shop.pos.post("/transactions", json=check_body(customer, 1_000))
    assert created.status_code == 201, created.text
    assert armed(shop) == [], "taken by the request that arrived whole"
    assert created.elapsed.total_seconds() >= DELAY_MS / 1000, "and delayed"
