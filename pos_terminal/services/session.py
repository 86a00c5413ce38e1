"""The terminal's connection to the service: sign-in, the token's life, disconnect.

Tokens live in the token keeper (the OS keychain unless the user opted in to an
insecure file); the api layer's :class:`TokenManager` refreshes them before
expiry and after a 401. The processes of one profile (the window, a ``report``
from cron) take turns under a lock in the profile to refresh, and each reads the
stored sign-in again when its turn comes, so a refresh token is used once.

A sign-in that brought no refresh token cannot be renewed: :attr:`Session.ends_at`
says when it stops working, for the status bar and ``status``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from datetime import datetime
from enum import StrEnum

from pydantic import ValidationError

from pos_terminal.api.auth import (
    AuthClient,
    DeviceStatus,
    SignedOutElsewhere,
    StaticCredentials,
    TokenManager,
    TokenSet,
)
from pos_terminal.api.client import Credentials
from pos_terminal.api.errors import (
    AccessDenied,
    ApiError,
    ExpiredToken,
    InsufficientScope,
    InvalidClient,
    InvalidGrant,
    ServiceUnreachable,
    Unauthorized,
)
from pos_terminal.api.models import DeviceAuthorization, TokenResponse
from pos_terminal.disk.locks import ProfileLock
from pos_terminal.domain.clock import utcnow
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import Journal
from pos_terminal.keychain.tokens import NoKeychain, TokenKeeper

log = logging.getLogger(__name__)


class SessionState(StrEnum):
    SIGNED_OUT = "signed out"
    CONNECTED = "connected"
    EXPIRED = "expired"
    REVOKED = "revoked"


class NotSignedIn(UserError):
    sentence = "This terminal is not signed in to the service."
    hint = "Sign in first (pos-terminal login)."


class NoKeychainHere(NotSignedIn):
    """No keychain answers this process, and no file is allowed: a sign-in kept in the keychain cannot be read."""

    sentence = "No keychain is available to this command, so it cannot read the sign-in kept there."
    hint = (
        "Run it in the desktop's session (from cron, with that session's DBUS_SESSION_BUS_ADDRESS; see the README), "
        "or keep the sign-in in a file (allow_insecure_token_file = true)."
    )


class NotAToken(UserError):
    sentence = "What was given is not a token."
    hint = "Give the access token alone, or the authorization server's answer (JSON) as it came."


class TokenRefused(UserError):
    sentence = "The service did not accept this token, so it was not kept."
    hint = "Check that it is whole and still valid, and give it again."


_BEARER = re.compile(r"[A-Za-z0-9\-._~+/]+=*")  # RFC 6750 §2.1, b64token
_HEADER_WORD = re.compile(r"[!-~]+")  # X-Api-Token: visible ASCII, no spaces


def given_tokens(text: str, *, scope: str, legacy: bool = False, now: datetime | None = None) -> TokenSet:
    """What a person gave ``login --token``: a token alone, or an authorization server's token response as it came
    (RFC 6749 §5.1), whose refresh token, lifetime and scope are kept too. Anything else is :class:`NotAToken`: a
    token stored as given would be sent on every request and refused by each."""
    text = text.strip()
    if text.startswith("{"):
        try:
            response = TokenResponse.model_validate_json(text)
        except ValidationError:
            raise NotAToken() from None
        tokens = TokenSet.from_response(response, now=now or utcnow())
        if tokens.scope is None:
            tokens = replace(tokens, scope=scope)
    else:
        tokens = TokenSet(access_token=text, refresh_token=None, expires_at=None, scope=scope, owner_type="merchant")
    if not (_HEADER_WORD if legacy else _BEARER).fullmatch(tokens.access_token):
        raise NotAToken()
    return tokens


class Session:
    """One terminal's sign-in with one service."""

    def __init__(
        self,
        auth: AuthClient,
        keeper: TokenKeeper,
        journal: Journal,
        *,
        terminal_id: str | None,
        scope: str = "posapi",
        actor: str | None = None,
        lock: ProfileLock,
        better_keeper: Callable[[], TokenKeeper | None] | None = None,
        earlier: Callable[[], bool] | None = None,
    ) -> None:
        """``better_keeper``: asked once, when no sign-in is found or before the first sign-in, for a keeper to look
        in and keep it in instead of ``keeper`` (the terminal's: a keychain set up since "no keychain" was
        remembered); None keeps ``keeper``.
        ``earlier``: asked when :meth:`restore` finds no sign-in, to move one an earlier release kept elsewhere into
        ``keeper``; True when it did. A start with its sign-in kept reads the keeper once."""
        self.auth = auth
        self._better_keeper = better_keeper
        self._earlier = earlier
        self.actor = actor
        self.keeper = keeper
        self.journal = journal
        self.terminal_id = terminal_id
        self.scope = scope
        self.lock = lock
        self._manager: TokenManager | None = None
        self._static: StaticCredentials | None = None
        self._tokens: TokenSet | None = None
        self._state = SessionState.SIGNED_OUT
        self._listeners: list[Callable[[SessionState], None]] = []

    # --- state ---------------------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        return self._state

    def on_state(self, listener: Callable[[SessionState], None]) -> None:
        self._listeners.append(listener)

    def _set_state(self, state: SessionState) -> None:
        if state is not self._state:
            self._state = state
            for listener in list(self._listeners):
                listener(state)

    @property
    def insecure_store(self) -> bool:
        return self.keeper.insecure

    @property
    def ends_at(self) -> datetime | None:
        """When a sign-in that cannot be renewed (no refresh token came) stops working; None otherwise."""
        tokens = self._tokens
        if tokens is None or tokens.refresh_token is not None or self._static is None or self._static.legacy:
            return None
        return tokens.expires_at

    def restore(self) -> bool:
        """Pick up a sign-in stored earlier; True when there is one. None stored where this start looked first (a
        remembered "no keychain"): the keychain found now, if one is, is where it looks next and keeps it."""
        data = self.keeper.load()
        if not data and self._ensure_better_keeper():
            data = self.keeper.load()
        if not data and self._earlier is not None and self._earlier():
            data = self.keeper.load()
        if not data:
            self._set_state(SessionState.SIGNED_OUT)
            return False
        tokens = _readable(data)
        if tokens is None:
            log.warning("the stored sign-in is unreadable; signing out")
            self.keeper.clear()
            self._set_state(SessionState.SIGNED_OUT)
            return False
        self._adopt(tokens, legacy=bool(data.get("legacy")))
        return True

    def credentials(self) -> Credentials:
        """What the POS client signs its requests with."""
        if self._manager is not None:
            return _Watched(self._manager, self)
        if self._static is not None:
            return _Watched(self._static, self)
        raise NotSignedIn() if self.keeper.can_keep else NoKeychainHere()

    # --- sign-in ---------------------------------------------------------------------------------

    async def start_device_sign_in(self) -> DeviceAuthorization:
        """Get a code for a person to approve; refused up front when the sign-in could not be kept."""
        self._ensure_storable()
        return await self.auth.start_device_authorization(self.scope)

    def _ensure_better_keeper(self) -> bool:
        """Ask ``better_keeper`` once; True when it gave a keeper, kept from now on."""
        if self._better_keeper is None:
            return False
        better, self._better_keeper = self._better_keeper(), None
        if better is not None:
            self.keeper = better
        return better is not None

    def _ensure_storable(self) -> None:
        self._ensure_better_keeper()
        if not self.keeper.can_keep:
            raise NoKeychain()

    async def finish_device_sign_in(
        self, authorization: DeviceAuthorization, on_status: Callable[[DeviceStatus], None] | None = None
    ) -> None:
        """Poll until the person approves; raises AccessDenied or ExpiredToken when they don't."""
        try:
            tokens = await self.auth.poll_device_token(authorization, on_status)
        except (AccessDenied, ExpiredToken):
            raise
        await self._signed_in(tokens, how="device code")

    async def sign_in_with_token(
        self,
        token: str,
        *,
        legacy: bool = False,
        check: Callable[[Credentials], Awaitable[object]] | None = None,
    ) -> bool:
        """A token created by hand (support, the sandbox control surface, an authorization server's answer; see
        :func:`given_tokens`); legacy sends X-Api-Token. ``check`` makes a request with it first: a token the service
        refuses is :class:`TokenRefused` and the sign-in kept before stays. False when the service could not be
        reached to check it: it is kept then, as given."""
        self._ensure_storable()
        tokens = given_tokens(token, scope=self.scope, legacy=legacy)
        checked = True
        if check is not None:
            try:
                await check(StaticCredentials(tokens.access_token, legacy=legacy))
            except (Unauthorized, InsufficientScope):
                raise TokenRefused() from None
            except ServiceUnreachable:
                checked = False
            except ApiError as exc:
                log.info("a token given was kept unchecked: the check was answered %s", exc.status)
                checked = False
        self._save(tokens, legacy=legacy)
        self._adopt(tokens, legacy=legacy)
        self.journal.audit.record("sign-in", actor=self.actor, terminal_id=self.terminal_id, detail={"how": "token"})
        return checked

    async def _signed_in(self, tokens: TokenSet, *, how: str) -> None:
        self._save(tokens, legacy=False)
        self._adopt(tokens, legacy=False)
        self.journal.audit.record("sign-in", actor=self.actor, terminal_id=self.terminal_id, detail={"how": how})

    def _save(self, tokens: TokenSet, *, legacy: bool) -> None:
        data = tokens.to_json()
        if legacy:
            data["legacy"] = True
        self.keeper.save(data)

    def _adopt(self, tokens: TokenSet, *, legacy: bool) -> None:
        self._tokens = tokens
        if legacy or tokens.refresh_token is None:
            self._static = StaticCredentials(tokens.access_token, legacy=legacy)
            self._manager = None
        else:
            self._manager = TokenManager(self.auth, tokens, shared=_KeptSignIn(self), on_change=self._on_renewed)
            self._static = None
        self._set_state(SessionState.CONNECTED)

    def _on_renewed(self, tokens: TokenSet) -> None:
        """A new token set, saved already (by this process or another)."""
        self._tokens = tokens
        self._set_state(SessionState.CONNECTED)

    # --- failures seen by the client ---------------------------------------------------------------

    def credential_failed(self, error: Exception) -> None:
        """A refresh or a request was refused: tell the cashier whether to sign in again."""
        if isinstance(error, SignedOutElsewhere):
            self._set_state(SessionState.SIGNED_OUT)
        elif isinstance(error, InvalidGrant | InvalidClient):
            self._set_state(SessionState.REVOKED)
        elif isinstance(error, Unauthorized):
            self._set_state(SessionState.EXPIRED)

    def disconnect(self, *, actor: str | None = None, approved_by: str | None = None) -> None:
        """Forget the connection: every stored token is removed (``actor`` asked, ``approved_by`` approved)."""
        self.keeper.clear()
        self._manager = None
        self._static = None
        detail = {"approvedBy": approved_by} if approved_by else None
        self.journal.audit.record("disconnect", actor=actor or self.actor, terminal_id=self.terminal_id, detail=detail)
        self._set_state(SessionState.SIGNED_OUT)


def _readable(data: dict[str, object]) -> TokenSet | None:
    try:
        return TokenSet.from_json(data)
    except (ValueError, KeyError, TypeError):
        return None


class _KeptSignIn:
    """The session's token keeper and profile lock, as the api layer's :class:`SharedSignIn`."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def turn(self) -> AbstractAsyncContextManager[None]:
        return self._session.lock.hold()

    def load(self) -> TokenSet | None:
        data = self._session.keeper.load()
        return _readable(data) if data else None

    def save(self, tokens: TokenSet) -> None:
        self._session._save(tokens, legacy=False)


class _Watched:
    """Credentials that report refusals to the session, so its state follows reality."""

    def __init__(self, inner: Credentials, session: Session) -> None:
        self._inner = inner
        self._session = session

    async def auth_header(self) -> tuple[str, str]:
        try:
            return await self._inner.auth_header()
        except UserError as exc:
            self._session.credential_failed(exc)
            raise

    async def after_unauthorized(self, rejected: tuple[str, str]) -> tuple[str, str] | None:
        try:
            header = await self._inner.after_unauthorized(rejected)
        except UserError as exc:
            self._session.credential_failed(exc)
            raise
        if header is None:
            self._session.credential_failed(Unauthorized())
        return header
