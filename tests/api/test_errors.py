"""Every error answer becomes one typed exception with one sentence for a person, whatever its shape.

Contract section 3's problem details come from the sandbox where it can produce
them, and from a scripted loopback service (:mod:`tests.api.fake_service`) for
the rest: the codes the sandbox only sends on the payments API, and the shapes a
real deployment or a proxy sends (``{"error": {...}}``, ``{"code", "message"}``,
``{"message"}``, plain text, HTML, an empty body, JSON that does not parse).
The real :class:`PosClient` and httpx stack read them all.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pos_terminal.api import errors
from pos_terminal.api.auth import StaticCredentials
from pos_terminal.api.client import PosClient
from pos_terminal.api.errors import ApiError
from pos_terminal.api.models import CreateTransactionRequest
from pos_terminal.api.retry import NO_RETRY
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.sandbox import SandboxServer
from tests.api.conftest import RecordingRetry
from tests.api.fake_service import Answer, FakeService
from tests.conftest import check_body, create_transaction, mint_token, new_checked_in_customer
from tests.helpers.text import assert_one_sentence

PROBLEM = "application/problem+json"


def problem(status: int, code: str, detail: str, fields: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {
        "type": "about:blank",
        "title": code.replace("_", " ").title(),
        "status": status,
        "code": code,
        "detail": detail,
        "errors": fields or [],
    }


def fake_client(service: FakeService, http: httpx.AsyncClient, **options: Any) -> PosClient:
    return PosClient(http, f"{service.url}/v4", StaticCredentials("token"), **options)


# --- contract section 3: problem details ---------------------------------------------------------------------

SECTION_3 = [
    (400, "BAD_REQUEST", "Body is not JSON", "BadRequest"),
    (422, "VALIDATION_FAILED", "itemTotal does not match", "ValidationFailed"),
    (409, "CUSTOMER_NOT_CHECKED_IN", "Customer cus-1 is not checked in", "CustomerNotCheckedIn"),
    (402, "PAYMENT_DECLINED", "Card declined", "PaymentDeclined"),
    (409, "INVALID_STATE_TRANSITION", "Cannot complete a canceled transaction", "InvalidStateTransition"),
    (404, "NOT_FOUND", "Transaction tx-1", "NotFound"),
    (401, "UNAUTHORIZED", "Token expired", "Unauthorized"),
    (403, "INSUFFICIENT_SCOPE", "posapi needed", "InsufficientScope"),
    (429, "RATE_LIMITED", "Slow down", "RateLimited"),
    (400, "ALREADY_REFUNDED", "Transaction already refunded", "AlreadyRefunded"),
    (409, "NONCE_USED", "The nonce was used", "NonceUsed"),
    (410, "NONCE_EXPIRED", "The nonce expired", "NonceExpired"),
    (404, "NOT_FOUND", "Nonce n-1", "NotFound"),
    (422, "TRANSACTION_MISMATCH", "total does not match", "TransactionMismatch"),
    (500, "INTERNAL_ERROR", "Boom", "ServerError"),
]


@pytest.mark.parametrize(
    ("status", "code", "detail", "expected"), SECTION_3, ids=[f"{c}-{s}" for s, c, _, _ in SECTION_3]
)
async def test_each_problem_code_of_section_3_has_its_own_exception_and_sentence(
    status: int, code: str, detail: str, expected: str, fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    headers = {"Retry-After": "3"} if status == 429 else {}
    fake_service.routes["GET /v4/customers"] = Answer.json(status, problem(status, code, detail), PROBLEM, **headers)

    with pytest.raises(ApiError) as raised:
        await fake_client(fake_service, http, retry=NO_RETRY).list_customers()

    error = raised.value
    assert type(error).__name__ == expected
    assert (error.status, error.code, error.detail) == (status, code, detail)
    text = assert_one_sentence(error)
    assert detail not in text or code == "PAYMENT_DECLINED", "details are for the log, the cashier gets the sentence"
    if status == 429:
        assert error.retry_after == 3.0


def test_no_two_codes_share_a_sentence() -> None:
    """A person can tell the situations apart: each code's class says something of its own."""
    classes = {cls for cls in errors.PROBLEM_CODES.values()}
    sentences = [cls.sentence for cls in classes]
    assert len(sentences) == len(set(sentences))
    assert all(cls.sentence != ApiError.sentence for cls in classes)


async def test_a_declined_payment_and_a_broken_rule_say_which(
    fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    fields = [{"field": "itemTotal", "message": "must equal the sum of item amounts (1150)"}]
    fake_service.routes["GET /v4/customers"] = Answer.json(422, problem(422, "VALIDATION_FAILED", "x", fields), PROBLEM)
    with pytest.raises(errors.ValidationFailed) as invalid:
        await fake_client(fake_service, http).list_customers()
    assert invalid.value.field_errors == (
        errors.FieldProblem("itemTotal", "must equal the sum of item amounts (1150)"),
    )
    assert (
        invalid.value.sentence == "The service rejected the check: itemTotal must equal the sum of item amounts (1150)."
    )

    fake_service.routes["GET /v4/customers"] = Answer.json(
        402, problem(402, "PAYMENT_DECLINED", "Insufficient funds."), PROBLEM
    )
    with pytest.raises(errors.PaymentDeclined) as declined:
        await fake_client(fake_service, http).list_customers()
    assert declined.value.sentence == "The payment was declined: Insufficient funds."


async def test_the_sandboxs_own_problems_map_to_the_same_exceptions(
    sandbox: SandboxServer, client: httpx.Client, http: httpx.AsyncClient, pos: httpx.Client
) -> None:
    """The codes the sandbox can be made to send on the POS API, read by the real client."""
    token = mint_token(client, expiresIn=0)
    terminal = PosClient(http, f"{sandbox.url}/v4", StaticCredentials(token), retry=NO_RETRY)
    customer = new_checked_in_customer(client)
    broke = new_checked_in_customer(client, card="declined")

    def request(who: dict[str, Any], **overrides: Any) -> CreateTransactionRequest:
        return CreateTransactionRequest.model_validate(check_body(who, **overrides))

    cases: list[tuple[Any, type[ApiError]]] = [
        (terminal.create_transaction(request(customer, itemTotal=999)), errors.ValidationFailed),
        (terminal.create_transaction(request(broke)), errors.PaymentDeclined),
        (terminal.get_transaction("tx-unknown"), errors.NotFound),
        (PosClient(http, f"{sandbox.url}/v4", StaticCredentials("nonsense")).list_customers(), errors.Unauthorized),
        (
            PosClient(
                http, f"{sandbox.url}/v4", StaticCredentials(mint_token(client, scope="service-api:transaction.read"))
            ).list_customers(),
            errors.InsufficientScope,
        ),
    ]
    for call, expected in cases:
        with pytest.raises(expected) as raised:
            await call
        assert_one_sentence(raised.value)
        assert raised.value.code is not None
    transaction_id = create_transaction(pos, check_body(customer, refId="errors-1"))
    assert (await terminal.set_state(transaction_id, TxState.CANCELED)).state == "canceled"
    with pytest.raises(errors.InvalidStateTransition):
        await terminal.set_state(transaction_id, TxState.COMPLETE)
    client.delete(f"/sandbox/checkins/{customer['checkInId']}").raise_for_status()
    with pytest.raises(errors.CustomerNotCheckedIn):
        await terminal.create_transaction(request(customer, refId="errors-2"))


# --- other shapes a real deployment may send ----------------------------------------------------------------

NGINX_502 = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n"
    "<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
)
WAF_403 = (
    "<!DOCTYPE html><html><head><title>Access denied | api.example used Cloudflare</title></head><body>x</body></html>"
)

SHAPES = [
    (
        "error-object",
        Answer.json(
            422,
            {
                "error": {
                    "code": "VALIDATION_FAILED",
                    "message": "Totals are off",
                    "details": [{"field": "total", "message": "must be itemTotal + discountTotal"}],
                }
            },
        ),
        errors.ValidationFailed,
        "Totals are off",
    ),
    (
        "error-object-unknown-code",
        Answer.json(409, {"error": {"code": "CONFLICT", "message": "Busy"}}),
        errors.InvalidStateTransition,
        "Busy",
    ),
    (
        "code-message",
        Answer.json(402, {"code": "PAYMENT_DECLINED", "message": "Card expired"}),
        errors.PaymentDeclined,
        "Card expired",
    ),
    (
        "code-message-lowercase",
        Answer.json(404, {"code": "not_found", "message": "No such thing"}),
        errors.NotFound,
        "No such thing",
    ),
    ("message-only", Answer.json(403, {"message": "Forbidden"}), errors.InsufficientScope, "Forbidden"),
    (
        "bearer-invalid-token",  # RFC 6750 §3.1, as many resource servers answer a stale token
        Answer.json(401, {"error": "invalid_token", "error_description": "The token expired"}),
        errors.Unauthorized,
        "The token expired",
    ),
    (
        "bearer-insufficient-scope",
        Answer.json(403, {"error": "insufficient_scope", "error_description": "posapi needed"}),
        errors.InsufficientScope,
        "posapi needed",
    ),
    (
        "plain-text",
        Answer.text(400, "Bad Request: missing field refId"),
        errors.BadRequest,
        "Bad Request: missing field refId",
    ),
    (
        "html-proxy-403",
        Answer.text(403, WAF_403, "text/html"),
        errors.InsufficientScope,
        "Access denied | api.example used Cloudflare",
    ),
    (
        "html-without-content-type",
        Answer(404, b"<html><head><title>Not Found</title></head></html>"),
        errors.NotFound,
        "Not Found",
    ),
    ("empty-404", Answer(404), errors.NotFound, None),
    ("empty-with-json-type", Answer(400, b"", {"Content-Type": "application/json"}), errors.BadRequest, None),
    (
        "broken-json-error",
        Answer.text(422, '{"code": "VALIDATION_FAI', "application/json"),
        errors.ValidationFailed,
        '{"code": "VALIDATION_FAI',
    ),
    ("json-array-error", Answer.json(400, ["something", "wrong"]), errors.BadRequest, None),
    (  # a gateway's, or Spring Boot's default error body: "error" is the status's reason, not an OAuth code
        "spring-409",
        Answer.json(409, {"status": 409, "error": "Conflict", "message": "Customer not checked in"}),
        errors.InvalidStateTransition,
        "Customer not checked in",
    ),
    ("reason-only-429", Answer.json(429, {"error": "Too Many Requests"}), errors.RateLimited, "Too Many Requests"),
    ("reason-only-502", Answer.json(502, {"error": "Bad Gateway"}), errors.ServerError, "Bad Gateway"),
    ("problem-code-on-a-500", Answer.json(500, {"code": "PAYMENT_DECLINED"}), errors.ServerError, None),
    ("unknown-status", Answer.text(418, "I'm a teapot"), errors.UnexpectedResponse, "I'm a teapot"),
    ("huge-text", Answer.text(400, "x " * 5_000), errors.BadRequest, None),
]


@pytest.mark.parametrize(("shape", "answer", "expected", "detail"), SHAPES, ids=[s[0] for s in SHAPES])
async def test_other_error_shapes_become_one_sentence(
    shape: str,
    answer: Answer,
    expected: type[ApiError],
    detail: str | None,
    fake_service: FakeService,
    http: httpx.AsyncClient,
) -> None:
    fake_service.routes["GET /v4/customers"] = answer

    with pytest.raises(ApiError) as raised:
        await fake_client(fake_service, http, retry=NO_RETRY).list_customers()

    error = raised.value
    assert type(error) is expected, (type(error), error.detail)
    assert error.status == answer.status
    if detail is not None:
        assert error.detail == detail
    assert error.detail is None or len(error.detail) <= errors.MAX_DETAIL
    assert_one_sentence(error)


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_a_proxys_5xx_page_on_a_read_is_retried_then_said_plainly(
    status: int, fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    fake_service.routes["GET /v4/customers"] = Answer.text(status, NGINX_502, "text/html")
    retry = RecordingRetry()

    with pytest.raises(errors.ServerError) as raised:
        await fake_client(fake_service, http, retry=retry).list_customers()

    assert len(fake_service.requests("GET", "/v4/customers")) == retry.attempts
    assert raised.value.detail == "502 Bad Gateway"
    assert assert_one_sentence(raised.value) == "The service had a problem answering. Try again in a moment."


async def test_an_empty_5xx_on_create_is_an_unknown_outcome_and_is_not_re_sent(
    fake_service: FakeService, http: httpx.AsyncClient, client: httpx.Client
) -> None:
    fake_service.routes["POST /v4/transactions"] = Answer(503)
    body = check_body({"customerId": "cus-1", "checkInId": "chk-1"})

    with pytest.raises(errors.OutcomeUnknown) as raised:
        await fake_client(fake_service, http, retry=RecordingRetry()).create_transaction(
            CreateTransactionRequest.model_validate(body)
        )

    assert len(fake_service.requests("POST", "/v4/transactions")) == 1
    assert raised.value.status == 503
    assert_one_sentence(raised.value)


SPRING_500 = {"status": 500, "error": "Internal Server Error", "message": "Read timed out", "path": "/v4/transactions"}


@pytest.mark.parametrize("body", [SPRING_500, {"error": "Bad Gateway"}], ids=["spring", "reason-only"])
async def test_a_5xx_on_create_is_an_unknown_outcome_whatever_its_body_says(
    body: dict[str, object], fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    """A gateway's 500 after the service created the charge was read as an OAuth error ("Signing in failed"): the
    charge was journaled as refused while the customer's money was held."""
    fake_service.routes["POST /v4/transactions"] = Answer.json(500, body)
    request = CreateTransactionRequest.model_validate(check_body({"customerId": "cus-1", "checkInId": "chk-1"}))

    with pytest.raises(errors.OutcomeUnknown) as raised:
        await fake_client(fake_service, http, retry=RecordingRetry()).create_transaction(request)

    assert len(fake_service.requests("POST", "/v4/transactions")) == 1
    assert raised.value.status == 500
    assert_one_sentence(raised.value)


async def test_a_reason_only_429_is_waited_out_and_tried_again(
    fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    fake_service.routes["GET /v4/customers"] = Answer(
        429, b'{"error": "Too Many Requests"}', {"Content-Type": "application/json", "Retry-After": "0"}
    )
    retry = RecordingRetry()

    with pytest.raises(errors.RateLimited):
        await fake_client(fake_service, http, retry=retry).list_customers()

    assert len(fake_service.requests("GET", "/v4/customers")) == retry.attempts > 1


# --- success answers that cannot be read --------------------------------------------------------------------

UNREADABLE = [
    ("invalid-json", Answer.text(200, '[{"customerId": "cus-1",', "application/json")),
    ("html-200", Answer.text(200, "<html><body>Please log in</body></html>", "text/html")),
    ("empty-200", Answer(200)),
    ("object-not-list", Answer.json(200, {"unexpected": True})),
]


@pytest.mark.parametrize(("shape", "answer"), UNREADABLE, ids=[u[0] for u in UNREADABLE])
async def test_an_unreadable_success_is_one_sentence(
    shape: str, answer: Answer, fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    fake_service.routes["GET /v4/customers"] = answer

    with pytest.raises(errors.ResponseInvalid) as raised:
        await fake_client(fake_service, http).list_customers()

    assert assert_one_sentence(raised.value) == (
        "The service sent an answer the terminal cannot read. Try again; if it keeps happening, tell support."
    )
    assert len(fake_service.requests("GET", "/v4/customers")) == 1, "a readable 200 is not retried"


async def test_a_record_without_its_id_is_one_sentence(fake_service: FakeService, http: httpx.AsyncClient) -> None:
    fake_service.routes["GET /v4/transactions/tx-1"] = Answer.json(200, {"state": "complete", "total": 100})
    with pytest.raises(errors.ResponseInvalid) as raised:
        await fake_client(fake_service, http).get_transaction("tx-1")
    assert "transactionId" in (raised.value.detail or "")
    assert_one_sentence(raised.value)


async def test_a_create_answer_that_is_not_json_still_yields_the_id_from_location(
    fake_service: FakeService, http: httpx.AsyncClient
) -> None:
    fake_service.routes["POST /v4/transactions"] = Answer.text(
        201, "Created", "text/plain", Location=f"{fake_service.url}/v4/transactions/tx-42"
    )
    body = check_body({"customerId": "cus-1", "checkInId": "chk-1"})
    result = await fake_client(fake_service, http).create_transaction(CreateTransactionRequest.model_validate(body))
    assert result.transaction_id == "tx-42"
    assert result.state == "authorized"
