"""Every failure the service can answer with, mapped once to a typed exception with one sentence.

:func:`error_from_response` reads RFC 9457 problem details (contract section 3)
and also the other shapes a real deployment may send: ``{"error": {...}}``,
``{"error": "...", "error_description": ...}`` (OAuth), ``{"code", "message"}``,
``{"message"}``, plain text and HTML from a proxy. The cashier always sees one
plain sentence; the status, code, detail and field errors stay on the exception
for logs and for code that decides what to do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pos_terminal.api.answers import read_json
from pos_terminal.errors import UserError


@dataclass(frozen=True)
class FieldProblem:
    field: str
    message: str


class ApiError(UserError):
    """The service answered with an error."""

    sentence = "The service refused the request."
    status: int | None = None

    def __init__(
        self,
        sentence: str | None = None,
        *,
        hint: str | None = None,
        status: int | None = None,
        code: str | None = None,
        detail: str | None = None,
        field_errors: tuple[FieldProblem, ...] = (),
        retry_after: float | None = None,
    ) -> None:
        if status is not None:
            self.status = status
        self.code = code
        self.detail = detail
        self.field_errors = field_errors
        self.retry_after = retry_after
        super().__init__(sentence, hint=hint)


class BadRequest(ApiError):
    sentence = "The service could not read the request."
    hint = "This is a problem in the terminal; note what you did and tell support."


class ValidationFailed(ApiError):
    sentence = "The service rejected the check's figures."
    hint = "Check the items, discounts and payments, then charge again."


class CustomerNotCheckedIn(ApiError):
    sentence = "The customer is no longer checked in at this merchant."
    hint = "Ask them to check in again, refresh the list and charge again."


class PaymentDeclined(ApiError):
    sentence = "The customer's payment was declined."
    hint = "Ask the customer to pay another way."


class InvalidStateTransition(ApiError):
    sentence = "The transaction cannot change to that state now."
    hint = "Refresh it to see its current state."


class NotFound(ApiError):
    sentence = "The service does not know that transaction."
    hint = "Check the transaction id and that it belongs to this merchant."


class Unauthorized(ApiError):
    sentence = "The service did not accept this terminal's sign-in."
    hint = "Sign in again."
    status = 401


class InsufficientScope(ApiError):
    sentence = "This terminal's sign-in does not allow that."
    hint = "Sign in again with a POS token (scope posapi)."


class RateLimited(ApiError):
    sentence = "The service is busy and asked the terminal to slow down."
    hint = "Wait a moment and try again."


class ServerError(ApiError):
    sentence = "The service had a problem answering."
    hint = "Try again in a moment."


class AlreadyRefunded(ApiError):
    sentence = "The transaction has already been refunded."


class NonceUsed(ApiError):
    sentence = "That payment approval has already been used."
    hint = "Ask the customer to approve the payment again."


class NonceExpired(ApiError):
    sentence = "That payment approval has expired."
    hint = "Ask the customer to approve the payment again."


class TransactionMismatch(ApiError):
    sentence = "The payment does not match what the customer approved."
    hint = "Check the total, the tax and the merchant, then try again."


class UnexpectedResponse(ApiError):
    sentence = "The service answered with an error the terminal does not know."
    hint = "Try again; if it keeps happening, tell support."


class ServiceUnreachable(ApiError):
    """No answer came back, and the request certainly did nothing (it was never sent, or it is safe to repeat)."""

    sentence = "The service cannot be reached."
    hint = "Check the network connection and try again."


class ServiceTooSlow(ServiceUnreachable):
    """The whole answer did not arrive within the request's deadline (a trickling or stalled server)."""

    sentence = "The service did not answer in time."
    hint = "Try again in a moment; if it keeps happening, check the network or tell support."


class OutcomeUnknown(ApiError):
    """A request that changes something got no clear answer: it may or may not have taken effect."""

    sentence = "The service did not confirm the request in time."
    hint = "The terminal is checking whether it went through; do not repeat it."


class ResponseInvalid(ApiError):
    """A success answer that does not have the shape the spec promises."""

    sentence = "The service sent an answer the terminal cannot read."
    hint = "Try again; if it keeps happening, tell support."


# --- OAuth (RFC 6749 §5.2, RFC 8628 §3.5) -------------------------------------------------------------------


class OAuthError(ApiError):
    sentence = "Signing in failed."
    hint = "Try signing in again."


class AuthorizationPending(OAuthError):
    sentence = "Waiting for the code to be approved."


class SlowDown(OAuthError):
    sentence = "The service asked the terminal to check less often."


class AccessDenied(OAuthError):
    sentence = "The sign-in request was denied."
    hint = "Get a new code and approve it in the browser."


class ExpiredToken(OAuthError):
    sentence = "The sign-in code expired before it was approved."
    hint = "Get a new code and approve it within the time shown."


class InvalidGrant(OAuthError):
    sentence = "The terminal's sign-in is no longer valid."
    hint = "Sign in again."


class InvalidClient(OAuthError):
    sentence = "The service does not recognise this terminal application."
    hint = "Check the region and the client id in the settings."


class InvalidScope(OAuthError):
    sentence = "The authorization server does not grant the scopes this terminal asks for."
    hint = "Check the scopes of the region in the settings (auth.REGION.scope)."


# --- the authorization server answering with something that is not an OAuth error ------------------------


class AuthEndpointNotFound(ApiError):
    """A 404 (or 405, 410) from a sign-in address: a wrong path, not an unknown transaction."""

    sentence = "The authorization server has no sign-in address there."
    hint = "Check the region's auth address, or set the sign-in endpoints of the region in the settings."


class AuthServerRefused(ApiError):
    sentence = "The authorization server refused the request."
    hint = "Check the region's auth address and the client id in the settings."


class AuthMetadataInvalid(ApiError):
    """The server's metadata document cannot be used (RFC 8414 §3.3)."""

    sentence = "The authorization server describes itself in a way the terminal cannot use."
    hint = "Check the region's auth address, or set the sign-in endpoints of the region in the settings."


PROBLEM_CODES: Mapping[str, type[ApiError]] = {
    "BAD_REQUEST": BadRequest,
    "VALIDATION_FAILED": ValidationFailed,
    "CUSTOMER_NOT_CHECKED_IN": CustomerNotCheckedIn,
    "PAYMENT_DECLINED": PaymentDeclined,
    "INVALID_STATE_TRANSITION": InvalidStateTransition,
    "NOT_FOUND": NotFound,
    "UNAUTHORIZED": Unauthorized,
    "INSUFFICIENT_SCOPE": InsufficientScope,
    "RATE_LIMITED": RateLimited,
    "ALREADY_REFUNDED": AlreadyRefunded,
    "NONCE_USED": NonceUsed,
    "NONCE_EXPIRED": NonceExpired,
    "TRANSACTION_MISMATCH": TransactionMismatch,
}

OAUTH_CODES: Mapping[str, type[OAuthError]] = {
    "invalid_scope": InvalidScope,
    "authorization_pending": AuthorizationPending,
    "slow_down": SlowDown,
    "access_denied": AccessDenied,
    "expired_token": ExpiredToken,
    "invalid_grant": InvalidGrant,
    "invalid_client": InvalidClient,
    "unauthorized_client": InvalidClient,
}

# RFC 6750 §3.1: a resource server's own error codes for bearer tokens, often sent as OAuth-style JSON
BEARER_CODES: Mapping[str, type[ApiError]] = {
    "invalid_token": Unauthorized,
    "insufficient_scope": InsufficientScope,
}

STATUSES: Mapping[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    402: PaymentDeclined,
    403: InsufficientScope,
    404: NotFound,
    409: InvalidStateTransition,
    422: ValidationFailed,
    429: RateLimited,
}

MAX_DETAIL = 300


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())[:MAX_DETAIL]
    return None


def _fields(value: Any) -> tuple[FieldProblem, ...]:
    if not isinstance(value, list):
        return ()
    found = []
    for entry in value:
        if isinstance(entry, Mapping):
            name = _text(entry.get("field")) or _text(entry.get("name")) or _text(entry.get("path")) or "?"
            found.append(FieldProblem(name, _text(entry.get("message")) or _text(entry.get("detail")) or ""))
    return tuple(found)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _body_of(content_type: str, text: str) -> tuple[Any, str | None]:
    """The parsed JSON body (or None) and a plain-text detail for anything else."""
    stripped = text.strip()
    if not stripped:
        return None, None
    if "json" in content_type or stripped[:1] in "{[":
        try:
            return read_json(stripped), None
        except ValueError:
            pass
    if "html" in content_type or stripped.lower().startswith(("<!doctype", "<html")):
        title = re.search(r"<title[^>]*>(.*?)</title>", stripped, re.IGNORECASE | re.DOTALL)
        return None, _text(title.group(1)) if title else None
    return None, _text(stripped)


def _sentence_for(cls: type[ApiError], detail: str | None, field_errors: tuple[FieldProblem, ...]) -> str | None:
    """The person's sentence: the class's own, but a declined payment or a broken rule says which."""
    if cls is PaymentDeclined and detail:
        said = detail.rstrip(".")
        # "The customer's card was declined" says it whole; "Insufficient funds" needs saying what it stopped
        return f"{said}." if "declined" in said.lower() else f"The payment was declined: {said}."
    if cls is ValidationFailed and field_errors:
        first = field_errors[0]
        return f"The service rejected the check: {first.field} {first.message}".rstrip(".") + "."
    return None


def error_from_response(status: int, headers: Mapping[str, str], text: str) -> ApiError:
    """The exception for one error answer, whatever its shape."""
    lowered = {k.lower(): v for k, v in headers.items()}
    body, plain = _body_of(lowered.get("content-type", ""), text)
    code: str | None = None
    detail: str | None = plain
    field_errors: tuple[FieldProblem, ...] = ()
    oauth: str | None = None
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping):  # {"error": {"code", "message"}}
            code = _text(inner.get("code"))
            detail = _text(inner.get("message")) or _text(inner.get("detail"))
            field_errors = _fields(inner.get("errors") or inner.get("details"))
        elif isinstance(inner, str):  # OAuth {"error", "error_description"}
            oauth = inner
            detail = _text(body.get("error_description")) or _text(body.get("message"))
        if code is None:
            code = _text(body.get("code"))
        detail = detail or _text(body.get("detail")) or _text(body.get("message")) or _text(body.get("title"))
        field_errors = field_errors or _fields(body.get("errors"))
    retry_after = _retry_after(lowered)
    cls: type[ApiError]
    if status >= 500:
        # whatever the body says ({"error": "Bad Gateway"}, Spring's {"status", "error", "message"}): the work may be
        # done or not, so a read is tried again and a create is an unknown outcome, never a refusal
        cls = ServerError
        detail = detail or oauth
    elif oauth is not None and oauth in OAUTH_CODES:
        cls = OAUTH_CODES[oauth]
        code = oauth
    elif oauth is not None and oauth in BEARER_CODES:
        cls, code = BEARER_CODES[oauth], oauth
    elif oauth is not None and code is None and status in (400, 401):  # RFC 6749 §5.2: an error code of its own
        cls, code = OAuthError, oauth
    elif code is not None and code.upper() in PROBLEM_CODES:
        code = code.upper()
        cls = PROBLEM_CODES[code]
    elif status >= 500:
        cls = ServerError
    else:
        cls = STATUSES.get(status, UnexpectedResponse)
        detail = detail or oauth  # {"error": "Too Many Requests"}: a status's reason, not an OAuth code
    return cls(
        _sentence_for(cls, detail, field_errors),
        status=status,
        code=code,
        detail=detail,
        field_errors=field_errors,
        retry_after=retry_after,
    )


# OAuth errors about the terminal's configuration, not about the person's sign-in: their sentence names the address.
_CONFIGURATION_ERRORS = (InvalidClient, InvalidScope)


def auth_server_error(status: int, headers: Mapping[str, str], text: str, url: str) -> ApiError:
    """The exception for an error answer of the authorization server at ``url``, in words about that server.

    OAuth errors about the sign-in itself (pending, denied, expired, invalid grant) keep their own
    sentences; everything else names the address that failed, so a wrong path is not taken for an
    unknown transaction, nor a proxy's 502 for the POS API's.
    """
    error = error_from_response(status, headers, text)

    def said(cls: type[ApiError], sentence: str) -> ApiError:
        return cls(sentence, status=status, code=error.code, detail=error.detail, retry_after=error.retry_after)

    if isinstance(error, OAuthError) and error.code is not None:
        if isinstance(error, _CONFIGURATION_ERRORS):
            return said(type(error), f"{error.sentence.rstrip('.')} ({url}).")
        if type(error) is OAuthError:  # an error code the terminal has no sentence for
            return said(OAuthError, f"The authorization server at {url} refused the sign-in ({error.code}).")
        return error
    if status in (404, 405, 410):
        return said(AuthEndpointNotFound, f"The authorization server has no sign-in address at {url} (HTTP {status}).")
    if status == 429 or status >= 500:
        what = "is busy" if status == 429 else "had a problem answering"
        return said(ServerError, f"The authorization server at {url} {what} (HTTP {status}).")
    return said(AuthServerRefused, f"The authorization server at {url} refused the request (HTTP {status}).")
