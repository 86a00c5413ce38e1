"""Signing in with the authorization service, and keeping the token fresh.

* Device flow exactly per RFC 8628: wait ``interval`` between polls, add 5 s
  for good on ``slow_down``, stop on ``access_denied``, ``expired_token`` or any
  other error, back off on network errors, stop at ``expires_in``.
* Authorization-code exchange and the refresh grant (a refresh answer without
  ``refresh_token`` keeps the old one).
* The endpoints come from the settings, the server's metadata or the published
  paths (:mod:`pos_terminal.api.discovery`), and every error of the authorization
  server is said in words about that server, naming the address that failed.
* :class:`TokenManager` refreshes before expiry and after a 401, one refresh at
  a time however many requests wait for it; with a :class:`SharedSignIn` also one
  at a time across the processes of a profile, refreshing only a token that is
  still the stale one when its turn comes (a server that rotates refresh tokens
  revokes the whole grant when one is used twice).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

import httpx
from pydantic import ValidationError

from pos_terminal.api.answers import read_json
from pos_terminal.api.discovery import EndpointChoice, Endpoints, discover, unanswered_at
from pos_terminal.api.errors import (
    AuthEndpointNotFound,
    AuthorizationPending,
    ExpiredToken,
    InvalidGrant,
    OAuthError,
    ResponseInvalid,
    ServerError,
    ServiceUnreachable,
    SlowDown,
    auth_server_error,
)
from pos_terminal.api.models import DeviceAuthorization, TokenResponse
from pos_terminal.api.transport import bounded_request
from pos_terminal.domain.clock import Clock, utcnow

log = logging.getLogger(__name__)

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
SLOW_DOWN_STEP = 5
MAX_NETWORK_BACKOFF = 60


@dataclass(frozen=True)
class TokenSet:
    """What the terminal keeps of a sign-in; stored as JSON in the token keeper."""

    access_token: str
    refresh_token: str | None
    expires_at: datetime | None
    scope: str | None
    owner_type: str | None

    @classmethod
    def from_response(cls, response: TokenResponse, *, now: datetime, previous: TokenSet | None = None) -> TokenSet:
        expires_at = now + timedelta(seconds=response.expires_in) if response.expires_in is not None else None
        return cls(
            access_token=response.access_token,
            refresh_token=response.refresh_token or (previous.refresh_token if previous else None),
            expires_at=expires_at,
            scope=response.scope or (previous.scope if previous else None),
            owner_type=response.resource_owner_type or (previous.owner_type if previous else None),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "accessToken": self.access_token,
            "refreshToken": self.refresh_token,
            "expiresAt": self.expires_at.isoformat() if self.expires_at else None,
            "scope": self.scope,
            "ownerType": self.owner_type,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TokenSet:
        access = data["accessToken"]
        if not isinstance(access, str) or not access:
            raise ValueError("no access token")
        expires = data.get("expiresAt")
        return cls(
            access_token=access,
            refresh_token=data.get("refreshToken") or None,
            expires_at=datetime.fromisoformat(expires) if expires else None,
            scope=data.get("scope"),
            owner_type=data.get("ownerType"),
        )

    def expires_within(self, margin: timedelta, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at - margin <= now

    def __repr__(self) -> str:  # never show the secrets, even in a traceback
        refresh = "yes" if self.refresh_token else "no"
        return f"TokenSet(expires_at={self.expires_at!r}, scope={self.scope!r}, refresh={refresh})"


class DevicePhase(StrEnum):
    PENDING = "pending"
    SLOWED_DOWN = "slowed down"
    NETWORK_TROUBLE = "network trouble"


@dataclass(frozen=True)
class DeviceStatus:
    """Where a device sign-in stands, for the screen: the phase, the poll interval, time left."""

    phase: DevicePhase
    interval: int
    seconds_left: int
    message: str


class AuthClient:
    """The authorization service at ``auth_url`` for one OAuth client."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        auth_url: str,
        client_id: str,
        client_secret: str | None = None,
        *,
        endpoints: EndpointChoice | None = None,
        now: Clock = utcnow,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.http = http
        self.auth_url = auth_url.rstrip("/")
        self.client_id = client_id
        self.client_secret = client_secret
        self.choice = endpoints or EndpointChoice()
        self.now = now
        self.sleep = sleep
        self._endpoints: Endpoints | None = None
        self._discovering = asyncio.Lock()

    async def endpoints(self) -> Endpoints:
        """Where to sign in: found once per client (a failure is not kept, so the next try asks again)."""
        if self._endpoints is None:
            async with self._discovering:
                if self._endpoints is None:
                    self._endpoints = await discover(self.http, self.auth_url, self.choice)
        return self._endpoints

    async def _post(self, url: str, form: dict[str, str]) -> dict[str, Any]:
        form = {"client_id": self.client_id, **form}
        if self.client_secret:
            form["client_secret"] = self.client_secret
        try:
            response = await bounded_request(self.http, "POST", url, data=form, headers={"Accept": "application/json"})
        except httpx.TransportError as exc:
            raise unanswered_at(exc, url) from exc
        if not response.is_success:
            raise auth_server_error(response.status_code, response.headers, response.text, url)
        try:
            data = read_json(response.content)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ResponseInvalid(
                f"The authorization server at {url} answered with something other than a JSON object.",
                detail=response.text[:200],
            )
        return data

    async def _token(self, form: dict[str, str], previous: TokenSet | None = None) -> TokenSet:
        url = (await self.endpoints()).token
        data = await self._post(url, form)
        try:
            response = TokenResponse.model_validate(data)
        except ValidationError:
            raise ResponseInvalid(
                f"The authorization server at {url} answered without an access token.", detail="token response"
            ) from None
        if response.token_type.lower() != "bearer":
            raise ResponseInvalid(
                f"The authorization server at {url} gave a token of an unsupported type ({response.token_type[:40]})."
            )
        return TokenSet.from_response(response, now=self.now(), previous=previous)

    # --- device flow ------------------------------------------------------------------------------

    async def start_device_authorization(self, scope: str = "posapi") -> DeviceAuthorization:
        endpoints = await self.endpoints()
        url = endpoints.device_authorization
        if url is None:
            raise AuthEndpointNotFound(
                f"The authorization server at {self.auth_url} does not offer sign-in with a code "
                f"(its metadata names no device authorization endpoint)."
            )
        data = await self._post(url, {"scope": scope})
        try:
            return DeviceAuthorization.model_validate({**data, "received_at": self.now()})
        except ValidationError:
            raise ResponseInvalid(
                f"The authorization server at {url} sent an incomplete answer to the sign-in request."
            ) from None

    async def poll_device_token(
        self, authorization: DeviceAuthorization, on_status: Callable[[DeviceStatus], None] | None = None
    ) -> TokenSet:
        """Poll until approved (tokens), denied (:class:`AccessDenied`) or expired (:class:`ExpiredToken`)."""
        interval = max(1, authorization.interval)
        wait = interval
        deadline = authorization.expires_at
        form = {"grant_type": DEVICE_GRANT, "device_code": authorization.device_code}
        phase, message = DevicePhase.PENDING, "Waiting for approval."
        while True:
            remaining = (deadline - self.now()).total_seconds()
            left = int(remaining)
            if on_status is not None:
                on_status(DeviceStatus(phase, interval, max(0, left), message))
            if remaining <= 0:
                raise ExpiredToken()
            if remaining < wait:
                # the code ends before the next poll is due: no poll sooner than the interval (RFC 8628 §3.5),
                # so none at all (a wait cut to the whole seconds left once polled early, before the end)
                await self.sleep(remaining)
                raise ExpiredToken()
            await self.sleep(wait)
            try:
                return await self._token(form)
            except AuthorizationPending:
                phase, message, wait = DevicePhase.PENDING, "Waiting for approval.", interval
            except SlowDown:
                interval += SLOW_DOWN_STEP
                wait = interval
                phase, message = DevicePhase.SLOWED_DOWN, f"The service asked to check every {interval} s."
            except (ServiceUnreachable, ServerError) as exc:
                wait = min(MAX_NETWORK_BACKOFF, max(wait, interval) * 2)
                phase, message = DevicePhase.NETWORK_TROUBLE, f"{exc.sentence} Still trying every {wait} s."
                log.info("device poll failed (%s); next try in %s s", exc.sentence, wait)

    # --- authorization code and refresh ---------------------------------------------------------

    async def exchange_code(self, code: str, redirect_uri: str) -> TokenSet:
        return await self._token({"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri})

    async def refresh(self, tokens: TokenSet) -> TokenSet:
        """New access token; the answer has no refresh_token, so the old one is kept."""
        if not tokens.refresh_token:
            raise OAuthError("This sign-in cannot be renewed.", hint="Sign in again.")
        return await self._token({"grant_type": "refresh_token", "refresh_token": tokens.refresh_token}, tokens)


class SharedSignIn(Protocol):
    """Where every process of one profile keeps the sign-in, and the lock they take turns under to renew it."""

    def turn(self) -> AbstractAsyncContextManager[None]:
        """Exclusive across processes for as long as it is held."""
        ...

    def load(self) -> TokenSet | None:
        """The sign-in as stored now; None when there is none."""
        ...

    def save(self, tokens: TokenSet) -> None: ...


class SignedOutElsewhere(InvalidGrant):
    sentence = "The sign-in was removed by another pos-terminal on this computer."
    hint = "Sign in again."


class TokenManager:
    """The current token of a sign-in: refreshed before expiry and after a 401, one refresh at a time.

    With ``shared``, a refresh also waits its turn among the profile's processes, then reads the
    stored sign-in again: when another process has renewed it meanwhile, that token is taken and
    nothing is sent, so a refresh token is never used twice. The new tokens are saved before the
    turn ends. ``on_change`` hears of every new token set, whoever renewed it.
    """

    def __init__(
        self,
        auth: AuthClient,
        tokens: TokenSet,
        *,
        shared: SharedSignIn | None = None,
        on_change: Callable[[TokenSet], None] | None = None,
        margin: timedelta = timedelta(seconds=60),
    ) -> None:
        self.auth = auth
        self.tokens = tokens
        self.shared = shared
        self.on_change = on_change
        self.margin = margin
        self._lock = asyncio.Lock()
        self.refreshes = 0

    @staticmethod
    def _header(tokens: TokenSet) -> tuple[str, str]:
        return "Authorization", f"Bearer {tokens.access_token}"

    async def auth_header(self) -> tuple[str, str]:
        if self.tokens.expires_within(self.margin, self.auth.now()):
            async with self._lock:
                if self.tokens.expires_within(self.margin, self.auth.now()):
                    try:
                        await self._renew(self.tokens)
                    except ServiceUnreachable:
                        if self.tokens.expires_within(timedelta(), self.auth.now()):
                            raise
                        log.info("refresh before expiry failed; the current token is still valid")
        return self._header(self.tokens)

    async def after_unauthorized(self, rejected: tuple[str, str]) -> tuple[str, str] | None:
        async with self._lock:
            if self._header(self.tokens) != rejected:
                return self._header(self.tokens)  # another request refreshed meanwhile
            await self._renew(self.tokens)
            return self._header(self.tokens)

    async def _renew(self, stale: TokenSet) -> None:
        if self.shared is None:
            self._use(await self.auth.refresh(stale))
            self.refreshes += 1
            return
        # Where to refresh is found before the turn: a turn lasts one refresh, and the profile's other processes
        # wait on it (a first discovery is up to two more requests).
        await self.auth.endpoints()
        async with self.shared.turn():
            stored = self.shared.load()
            if stored is None:
                raise SignedOutElsewhere()
            if stored.access_token != stale.access_token:
                log.info("another process renewed the sign-in; using its token")
                self._use(stored)
                return
            fresh = await self.auth.refresh(stored)
            self.shared.save(fresh)
        self.refreshes += 1
        self._use(fresh)

    def _use(self, tokens: TokenSet) -> None:
        self.tokens = tokens
        if self.on_change is not None:
            self.on_change(tokens)


class StaticCredentials:
    """A token created by hand: sent as a bearer token or, for legacy setups, as ``X-Api-Token``."""

    def __init__(self, token: str, *, legacy: bool = False) -> None:
        self._token = token
        self.legacy = legacy

    async def auth_header(self) -> tuple[str, str]:
        return ("X-Api-Token", self._token) if self.legacy else ("Authorization", f"Bearer {self._token}")

    async def after_unauthorized(self, rejected: tuple[str, str]) -> tuple[str, str] | None:
        return None

    def __repr__(self) -> str:
        return f"StaticCredentials(legacy={self.legacy})"
