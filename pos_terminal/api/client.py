"""The POS API v4 client: the only place requests to the POS API are built and answers read.

Credentials are asked for at each request; a 401 gives them one chance to
refresh, then the request is sent once more. Retries follow :mod:`retry`. The
create call never re-sends: a lost answer is :class:`OutcomeUnknown`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any, Protocol, TypeVar
from urllib.parse import unquote

import httpx
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from pos_terminal.api.answers import has_odd_text, read_json
from pos_terminal.api.errors import (
    OutcomeUnknown,
    RateLimited,
    ResponseInvalid,
    ServerError,
    ServiceUnreachable,
    Unauthorized,
    error_from_response,
)
from pos_terminal.api.models import (
    CreateAnswer,
    CreateTransactionRequest,
    Customer,
    Summary,
    Transaction,
    TransactionRef,
    loosened,
)
from pos_terminal.api.retry import RetryPolicy
from pos_terminal.api.routes import Routes
from pos_terminal.api.transport import AnswerTooLarge, AnswerTooSlow, bounded_request, unanswered
from pos_terminal.api.trust import trust
from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.lifecycle import TxState

log = logging.getLogger(__name__)

Model = TypeVar("Model", bound=BaseModel)
Entry = TypeVar("Entry")  # a model, or a pydantic dataclass (TransactionRow)
USER_AGENT = "pos-terminal/0.1"
# How long an idle connection is used again. A server closes one it has kept idle for its own keep-alive time (5 s
# for uvicorn, the sandbox, Node and Apache); a request sent as it closes is lost on the way, and a create lost so
# is a charge "not confirmed" the cashier has to ring up again. httpx keeps one 5 s, as long as they do, and under
# load 1 in 60 creates after a 5 s pause was lost (tests/api/test_keep_alive.py); a connection idle longer than
# this is closed here first, well before a server's 5 s.
KEEPALIVE_EXPIRY = 2.0
CLOCK_RESOLUTION = timedelta(seconds=2)  # what an answer's Date can tell of the service's clock


class Credentials(Protocol):
    async def auth_header(self) -> tuple[str, str]:
        """The header that signs the next request."""
        ...

    async def after_unauthorized(self, rejected: tuple[str, str]) -> tuple[str, str] | None:
        """A new header after ``rejected`` got a 401, or None when there is nothing better."""
        ...


class AnswerCookies(httpx.Cookies):
    """httpx's cookie jar, read for an answer's cookies only when the answer sets one.

    The service signs requests with tokens and sets no cookie, yet httpx reads every answer for cookies through
    urllib's request class, which splits the request's address through the standard library's cache of the last
    128 addresses split. Every transaction has an address of its own, so a shift's addresses passed through that
    cache all day: medium-lived objects in among the short-lived ones, which kept the interpreter's memory from
    going back (docs/memory.md). A cookie an answer does set is still kept, as httpx keeps it."""

    def extract_cookies(self, response: httpx.Response) -> None:
        if "set-cookie" in response.headers or "set-cookie2" in response.headers:
            super().extract_cookies(response)


def make_http_client(*, timeout: float = 15.0) -> httpx.AsyncClient:
    """One connection pool for the whole terminal, with the environment's proxies and trust (:mod:`.trust`); TLS
    verification stays on. It is made with the terminal, after the window's first screen is painted
    (pos_terminal.app)."""
    http = httpx.AsyncClient(
        verify=trust(),
        timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
        limits=httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=KEEPALIVE_EXPIRY),
        headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        follow_redirects=False,
    )
    http._cookies = AnswerCookies(http.cookies)  # the setter would copy it into a plain jar
    return http


def iso_utc(moment: datetime) -> str:
    """ISO 8601 in UTC with ``Z``; milliseconds only when there are some."""
    moment = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += f".{moment.microsecond // 1000:03d}"
    return text + "Z"


@dataclass(frozen=True, slots=True)
class Listing:
    """A listing of transactions as the service answered it: its bytes, one object, however long the day."""

    content: bytes
    context: Mapping[str, Any] | None = None  # what the client reads answers with (a deployment's state spellings)

    def read(self, kind: type[Entry]) -> list[Entry]:
        """Each readable entry as ``kind`` (a whole record, a row, a reference)."""
        return read_entries(self.content, kind, "transactions", self.context)


@dataclass(frozen=True)
class CreateResult:
    state: TxState
    transaction_id: str | None
    location: str | None


CONNECT_FAILURES = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.UnsupportedProtocol)


class PosClient:
    """POS API v4 for one merchant (the one the credentials belong to)."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        base_url: str,
        credentials: Credentials,
        *,
        routes: Routes | None = None,
        method_override: bool = False,
        retry: RetryPolicy | None = None,
        now: Clock = utcnow,
        states: Mapping[str, str] | None = None,
    ) -> None:
        """``states``: a deployment's own spellings of the transaction states, lower case (``{"settled": "complete"}``),
        read beside the spec's."""
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.credentials = credentials
        self.routes = routes or Routes()
        self.method_override = method_override
        self.retry = retry or RetryPolicy()
        self.states = {spelling.strip().lower(): state for spelling, state in (states or {}).items()}
        self._context: dict[str, Any] | None = {"states": self.states} if self.states else None
        self.now = now  # this machine's clock, which the service's is measured against
        # the service's clock less this machine's, from the last answer's Date header; None until one is read
        self.clock_offset: timedelta | None = None

    def signed_with(self, credentials: Credentials) -> PosClient:
        """The same service, routes and connections, with other credentials (a token given, to check it)."""
        return PosClient(
            self.http,
            self.base_url,
            credentials,
            routes=self.routes,
            method_override=self.method_override,
            retry=self.retry,
            now=self.now,
            states=self.states,
        )

    # --- calls ----------------------------------------------------------------------------------

    async def list_customers(self) -> list[Customer]:
        response = await self._send("GET", self.routes.customers, idempotent=True)
        return self._list(response, Customer, "customers")

    async def list_transactions(
        self, start: datetime, end: datetime, terminal_id: str | None = None
    ) -> list[Transaction]:
        return await self._transactions(start, end, terminal_id, Transaction)

    async def list_transaction_refs(
        self, start: datetime, end: datetime, terminal_id: str | None = None
    ) -> list[TransactionRef]:
        """The same listing again, each entry read only as far as its id, ``refId`` and creation."""
        return await self._transactions(start, end, terminal_id, TransactionRef)

    async def transaction_listing(self, start: datetime, end: datetime, terminal_id: str | None = None) -> Listing:
        """The same listing as the service sent it, read later (and elsewhere: a report reads it in its child
        process, so the day's rows are never built in the window)."""
        params = {"from": iso_utc(start), "to": iso_utc(end)}
        if terminal_id:
            params["terminalId"] = terminal_id
        response = await self._send("GET", self.routes.transactions, params=params, idempotent=True)
        return Listing(response.content, self._context)

    async def _transactions(
        self, start: datetime, end: datetime, terminal_id: str | None, kind: type[Entry]
    ) -> list[Entry]:
        return (await self.transaction_listing(start, end, terminal_id)).read(kind)

    async def get_transaction(self, transaction_id: str) -> Transaction:
        response = await self._send("GET", self.routes.transaction_path(transaction_id), idempotent=True)
        return self._one(response, Transaction)

    async def set_state(self, transaction_id: str, target: TxState) -> Transaction:
        """Complete, cancel or refund; repeating the current state is harmless (spec 3.1), so it is retried."""
        response = await self._send(
            "PATCH", self.routes.transaction_path(transaction_id), body={"state": str(target)}, idempotent=True
        )
        return self._one(response, Transaction)

    async def create_transaction(self, request: CreateTransactionRequest) -> CreateResult:
        """Create once. The id comes from the body if sent, else from ``Location``, else the caller reconciles."""
        response = await self._send("POST", self.routes.transactions, body=request.wire(), idempotent=False)
        try:
            answer = (
                CreateAnswer.model_validate(read_json(response.content), context=self._context)
                if response.content.strip()
                else CreateAnswer()
            )
        except (ValueError, ValidationError):
            log.warning("create answered %s with a body that is not the expected state object", response.status_code)
            answer = CreateAnswer()
        location = response.headers.get("location")
        transaction_id = answer.transaction_id or self._id_from_location(location)
        return CreateResult(answer.state, transaction_id, location)

    async def summary(
        self, start: datetime, end: datetime | None = None, *, terminal_id: str | None = None, merge: bool = False
    ) -> list[Summary] | Summary:
        params = {"from": iso_utc(start)}
        if end is not None:
            params["to"] = iso_utc(end)
        if terminal_id:
            params["terminalId"] = terminal_id
        if merge:
            params["merge"] = "true"
        response = await self._send("GET", self.routes.summary, params=params, idempotent=True)
        data = self._json(response)
        if isinstance(data, list):
            return self._list(response, Summary, "summaries")
        return self._one(response, Summary)

    # --- transport --------------------------------------------------------------------------------

    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        idempotent: bool,
    ) -> httpx.Response:
        url = f"{self.base_url}{path}"
        header = await self.credentials.auth_header()
        refreshed = False
        attempt = 0
        while True:
            attempt += 1
            headers = dict([header])
            wire_method = method
            if self.method_override and method in ("PATCH", "DELETE", "PUT"):
                headers["X-HTTP-Method-Override"] = method
                wire_method = "POST"
            content = None
            if body is not None:
                headers["Content-Type"] = "application/json"
                content = json.dumps(body, separators=(",", ":")).encode()
            try:
                response = await bounded_request(
                    self.http, wire_method, url, params=params, content=content, headers=headers
                )
            except CONNECT_FAILURES as exc:
                # nothing reached the service: safe to try again, whatever the call
                if self.retry.may_retry(attempt):
                    await asyncio.sleep(self.retry.delay(attempt))
                    continue
                raise ServiceUnreachable(detail=type(exc).__name__) from exc
            except httpx.TransportError as exc:
                # an answer past its deadline or its size already took all the patience it gets
                bounded = isinstance(exc, AnswerTooSlow | AnswerTooLarge)
                if idempotent and not bounded and self.retry.may_retry(attempt):
                    await asyncio.sleep(self.retry.delay(attempt))
                    continue
                if not idempotent:
                    raise OutcomeUnknown(detail=str(exc) if bounded else type(exc).__name__) from exc
                raise unanswered(exc) from exc
            self._read_clock(response)
            if response.status_code == 401 and not refreshed:
                refreshed = True
                renewed = await self.credentials.after_unauthorized(header)
                if renewed is not None:
                    header = renewed
                    attempt -= 1  # the retry after a refresh is not a failure of the network
                    continue
            if response.is_success:
                return response
            error = error_from_response(response.status_code, response.headers, response.text)
            if isinstance(error, RateLimited) and self.retry.may_retry(attempt):
                await asyncio.sleep(self.retry.delay(attempt, error.retry_after))
                continue
            if isinstance(error, ServerError):
                if not idempotent:
                    # the work may be committed before the error: never re-send a create
                    raise OutcomeUnknown(status=error.status, code=error.code, detail=error.detail) from error
                if self.retry.may_retry(attempt):
                    await asyncio.sleep(self.retry.delay(attempt, error.retry_after))
                    continue
            if isinstance(error, Unauthorized):
                log.info("%s %s answered 401 after a refresh", method, path)
            raise error

    def _read_clock(self, response: httpx.Response) -> None:
        """Keep how far the service's clock is from ours (RFC 9110 §6.6.1 ``Date``; whole seconds)."""
        stamp = response.headers.get("date")
        if not stamp:
            return
        try:
            said = parsedate_to_datetime(stamp)
        except (TypeError, ValueError, IndexError):
            return  # a proxy's odd Date says nothing about the service's clock
        if said.tzinfo is None:
            return
        offset = said - self.now()
        # Date carries whole seconds, cut down, and the answer took a while: less than that is no skew at all, and no
        # change of it either (each answer measures it a little differently; a range by the service's clock made
        # with the offset known stays the range to ask for)
        if abs(offset - (self.clock_offset or timedelta(0))) > CLOCK_RESOLUTION:
            self.clock_offset = offset if abs(offset) > CLOCK_RESOLUTION else timedelta(0)
        elif self.clock_offset is None:
            self.clock_offset = timedelta(0)

    # --- reading ----------------------------------------------------------------------------------

    @staticmethod
    def _json(response: httpx.Response) -> Any:
        try:
            return read_json(response.content)
        except ValueError:
            raise ResponseInvalid(detail=f"not JSON: {response.text[:80]!r}") from None

    def _one(self, response: httpx.Response, model: type[Model]) -> Model:
        data = self._json(response)
        try:
            return model.model_validate(data, context=self._context)
        except ValidationError as exc:
            if (loose := loosened(model, data)) is not None:
                with contextlib.suppress(ValidationError):
                    return model.model_validate(loose, context=self._context)
            raise ResponseInvalid(detail=_first_error(exc)) from None

    def _list(self, response: httpx.Response, kind: type[Entry], what: str) -> list[Entry]:
        return read_entries(response.content, kind, what, self._context)

    def _id_from_location(self, location: str | None) -> str | None:
        """The last path segment of ``Location``, when the segment before it is the transactions route's."""
        if not location:
            return None
        try:  # httpx's parser: the standard library's keeps every address it split in a cache (AnswerCookies)
            path = httpx.URL(location).raw_path.split(b"?", 1)[0].decode("ascii")
        except httpx.InvalidURL:
            log.warning("Location %r is not an address", location)
            return None
        segments = [unquote(s) for s in path.split("/") if s]
        expected = [s for s in self.routes.transaction.split("/") if s]
        if len(segments) < 2 or len(expected) < 2 or segments[-2] != expected[-2]:
            log.warning("Location %s does not look like a transaction address", location)
            return None
        return segments[-1]


def read_entries(content: bytes, kind: type[Entry], what: str, context: Mapping[str, Any] | None = None) -> list[Entry]:
    """Each readable entry of a listing's answer; an unreadable one is skipped and logged rather than hiding all the
    others.

    A plain list whose entries are all readable (the usual answer) is read in one pass, straight from the bytes;
    anything else (a wrapped list, an unreadable entry, a body that is not UTF-8, text that is not text) is read
    entry by entry, which gives the same models.
    """
    if content.lstrip()[:1] == b"[" and not has_odd_text(content):
        try:
            return _list_adapter(kind).validate_json(content, context=context)
        except ValidationError:
            pass  # read entry by entry below: it keeps the readable ones and says which are not
    try:
        data = read_json(content)
    except ValueError:
        raise ResponseInvalid(detail=f"not JSON: {content[:80].decode('utf-8', 'replace')!r}") from None
    if isinstance(data, Mapping):  # some deployments wrap lists
        data = next((v for k, v in data.items() if k in ("items", "data", "results", what)), data)
    if not isinstance(data, list):
        raise ResponseInvalid(detail=f"expected a list of {what}")
    entries: list[Entry] = []
    one = _entry_adapter(kind)
    for index, entry in enumerate(data):
        try:
            entries.append(one.validate_python(entry, context=context))
        except ValidationError as exc:
            if (loose := loosened(kind, entry)) is not None:
                try:
                    entries.append(one.validate_python(loose, context=context))
                    continue
                except ValidationError:
                    pass
            log.warning("skipping unreadable %s entry %d: %s", what, index, _first_error(exc))
    return entries


_LIST_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}
_ENTRY_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _entry_adapter(kind: type[Entry]) -> TypeAdapter[Entry]:
    adapter = _ENTRY_ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ENTRY_ADAPTERS[kind] = TypeAdapter(kind)
    return adapter


def _list_adapter(model: type[Entry]) -> TypeAdapter[list[Entry]]:
    """One adapter per model, built on first use (building one costs far more than a read).

    Only keys go in pydantic's process-wide string cache: with values too, every listing left up to
    16,384 of its ids and names alive, made while the whole list was in memory, and the interpreter
    could not hand those arenas back (the resident memory of a long shift rose with the day's size).
    """
    adapter = _LIST_ADAPTERS.get(model)
    if adapter is None:
        adapter = _LIST_ADAPTERS[model] = TypeAdapter(list[model], config=ConfigDict(cache_strings="keys"))  # type: ignore[valid-type]
    return adapter


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    return f"{where}: {first.get('msg', 'invalid')}"
