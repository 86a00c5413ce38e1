"""Authorization service: device flow (RFC 8628), authorization code, refresh, and the browser pages.

``POST /v1/device_authorization`` and ``POST /v1/token`` speak RFC 6749/8628 JSON
(errors ``{"error", "error_description"}``, 400 or 401 for ``invalid_client``)
and take JSON or form bodies. A person uses the HTML pages in a real browser:
``/device`` to enter a user code, ``/authorize/merchant`` and
``/authorize/organization`` for the authorization-code flow. Every page sits on
a cookie session with a CSRF token in each form; wrong user codes and wrong
passwords are rate limited per session and per address; codes are single-use
and short-lived.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit, urlunsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel

from pos_terminal.sandbox.db import secret_digest
from pos_terminal.sandbox.pages import render
from pos_terminal.sandbox.security import KNOWN_SCOPES, POS_SCOPE, issue_tokens, sandbox_of
from pos_terminal.sandbox.state import Sandbox, new_secret
from pos_terminal.sandbox.text import text_problem

router = APIRouter(tags=["authorization service"])

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
# RFC 8628 §6.1: consonants only, no vowels (no words), no look-alikes
USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
USER_CODE_LENGTH = 8
SESSION_COOKIE = "sandbox_session"
SESSION_SECONDS = 3600
# a client that waits exactly ``interval`` may arrive a little early on a busy machine
POLL_TOLERANCE_MS = 250
FORM = "application/x-www-form-urlencoded"
PKCE_VALUE = re.compile(r"[A-Za-z0-9\-._~]{43,128}")  # a code_verifier, and an S256 code_challenge (43)


class TokenResponse(BaseModel):
    """Token response (2.1)."""

    access_token: str
    token_type: str
    expires_in: int | None = None
    scope: str
    resource_owner_type: str
    refresh_token: str | None = None


class DeviceAuthorizationResponse(BaseModel):
    """RFC 8628 §3.2 device authorization response."""

    device_code: str
    user_code: str
    verification_uri: str
    verification_uri_complete: str
    expires_in: int
    interval: int


class OAuthErrorBody(BaseModel):
    """RFC 6749 §5.2 error response."""

    error: str
    error_description: str | None = None


class OAuthError(Exception):
    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def response(self) -> JSONResponse:
        headers = {"Cache-Control": "no-store", "Pragma": "no-cache"}
        if self.status == 401:
            headers["WWW-Authenticate"] = 'Basic realm="sandbox"'
        return JSONResponse(
            {"error": self.error, "error_description": self.description}, status_code=self.status, headers=headers
        )


def _body_doc(
    fields: Mapping[str, str], required: Sequence[str], enums: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """A form or JSON body of string parameters; a parameter given is never empty (an empty one is missing)."""
    properties: dict[str, dict[str, Any]] = {
        name: {"type": "string", "minLength": 1, "description": text} for name, text in fields.items()
    }
    for name, values in (enums or {}).items():
        properties[name]["enum"] = list(values)
    schema = {"type": "object", "properties": properties, "required": list(required)}
    return {
        "requestBody": {"required": True, "content": {FORM: {"schema": schema}, "application/json": {"schema": schema}}}
    }


def _oauth_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"description": "RFC 6749 §5.2 error", "model": OAuthErrorBody} for status in statuses}


async def _params(request: Request) -> dict[str, str]:
    """The body's parameters, JSON or form; anything else is ``invalid_request``."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    raw = await request.body()
    if content_type == "application/json":
        try:
            data = json.loads(raw or b"null")
        except ValueError:
            raise OAuthError("invalid_request", "The body is not valid JSON") from None
        if not isinstance(data, dict):
            raise OAuthError("invalid_request", "The body must be a JSON object")
        params: dict[str, str] = {}
        for key, value in data.items():
            if value is None:
                continue
            if not isinstance(value, str | int) or isinstance(value, bool):
                raise OAuthError("invalid_request", f"Parameter {key} must be a string")
            params[str(key)] = str(value)
        return _text_only(params)
    if content_type in (FORM, ""):
        try:
            pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
        except UnicodeDecodeError:
            raise OAuthError("invalid_request", "The form body is not UTF-8") from None
        params = {}
        for key, value in pairs:
            if key in params:
                raise OAuthError("invalid_request", f"Parameter {key} is repeated")
            params[key] = value
        return _text_only(params)
    raise OAuthError("invalid_request", f"Unsupported content type {content_type}; send JSON or a form")


def _text_only(params: dict[str, str]) -> dict[str, str]:
    """Parameters whose names and values are text (JSON can carry lone surrogates, a form control characters)."""
    for key, value in params.items():
        if text_problem(key) is not None:
            raise OAuthError("invalid_request", "A parameter name is not text")
        if (problem := text_problem(value)) is not None:
            raise OAuthError("invalid_request", f"Parameter {key} {problem}")
    return params


def same_secret(given: str, stored: str) -> bool:
    """Constant-time comparison of any two strings (``compare_digest`` takes ASCII strings only)."""
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"), stored.encode("utf-8", "surrogatepass"))


def _need(params: Mapping[str, str], *names: str) -> None:
    missing = [name for name in names if not params.get(name)]
    if missing:
        raise OAuthError("invalid_request", f"Missing parameter: {', '.join(missing)}")


def _client_credentials(request: Request, params: Mapping[str, str]) -> tuple[str | None, str | None]:
    """Client id and secret from the body, or from HTTP Basic, never both (RFC 6749 §2.3.1).

    In the Basic header both are form-urlencoded before base64, so ``demo%2Dweb`` is ``demo-web``.
    An empty secret is no secret.
    """
    header = request.headers.get("authorization", "")
    if header[:6].lower() == "basic ":
        if params.get("client_secret"):
            raise OAuthError("invalid_request", "Send the client's credentials one way: HTTP Basic or the body")
        try:
            decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            raise OAuthError("invalid_client", "Malformed Basic credentials", 401) from None
        if ":" not in decoded:
            raise OAuthError("invalid_client", "Malformed Basic credentials", 401)
        raw_id, _, raw_secret = decoded.partition(":")
        client_id, secret = unquote_plus(raw_id), unquote_plus(raw_secret)
        if text_problem(client_id) is not None or text_problem(secret) is not None:
            raise OAuthError("invalid_client", "Malformed Basic credentials", 401)
        body_id = params.get("client_id")
        if body_id and body_id != client_id:
            raise OAuthError("invalid_request", "client_id in the body differs from the Basic credentials")
        return client_id, secret or None
    return params.get("client_id"), params.get("client_secret") or None


def _authenticate_client(conn: sqlite3.Connection, client_id: str | None, secret: str | None) -> sqlite3.Row:
    """The client, authenticated: a confidential client proves its secret at every endpoint (RFC 6749 §3.2.1,
    RFC 8628 §3.4); a public client has no secret to send."""
    if not client_id:  # RFC 6749 §5.2: "no client authentication included" is invalid_client
        raise OAuthError("invalid_client", "No client_id and no client credentials", 401)
    row = conn.execute("SELECT * FROM clients WHERE client_id = ?", (client_id,)).fetchone()
    if row is None:
        raise OAuthError("invalid_client", "Unknown client", 401)
    stored = row["client_secret"]
    if stored is None:
        if secret is not None:
            raise OAuthError("invalid_client", "Client authentication failed: this public client has no secret", 401)
    elif secret is None:
        raise OAuthError("invalid_client", "Client authentication required: send the client secret", 401)
    elif not same_secret(secret, stored):
        raise OAuthError("invalid_client", "Client authentication failed", 401)
    client: sqlite3.Row = row
    return client


def _scope_of(raw: str | None, default: str) -> str:
    scopes = (raw or default).split()
    unknown = [s for s in scopes if s not in KNOWN_SCOPES]
    if unknown or not scopes:
        raise OAuthError("invalid_scope", f"Unknown scope: {' '.join(unknown) or '(empty)'}")
    return " ".join(dict.fromkeys(scopes))


def _public_base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def format_user_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def normalize_user_code(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch.isalnum())


def _new_user_code(conn: sqlite3.Connection) -> str:
    while True:
        code = "".join(secrets.choice(USER_CODE_ALPHABET) for _ in range(USER_CODE_LENGTH))
        if conn.execute("SELECT 1 FROM device_codes WHERE user_code = ?", (code,)).fetchone() is None:
            return code


# --- metadata (RFC 8414) -------------------------------------------------------------------------------------


class ServerMetadata(BaseModel):
    """Authorization server metadata (RFC 8414 §2): where each endpoint is and what it supports."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    device_authorization_endpoint: str
    response_types_supported: list[str]
    grant_types_supported: list[str]
    token_endpoint_auth_methods_supported: list[str]
    code_challenge_methods_supported: list[str]
    scopes_supported: list[str]


@router.get("/.well-known/oauth-authorization-server", response_model=ServerMetadata)
def server_metadata(request: Request) -> dict[str, Any]:
    """The endpoints a standard client discovers (RFC 8414); ``issuer`` is the sandbox's root address.

    Organization access uses ``/authorize/organization``, which metadata has no field for.
    """
    base = _public_base(request)
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}/authorize/merchant",
        "token_endpoint": f"{base}/v1/token",
        "device_authorization_endpoint": f"{base}/v1/device_authorization",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", DEVICE_GRANT],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": list(KNOWN_SCOPES),
    }


# --- device authorization and token endpoint -----------------------------------------------------------------


@router.post(
    "/v1/device_authorization",
    response_model=DeviceAuthorizationResponse,
    responses=_oauth_errors(400, 401),
    openapi_extra=_body_doc(
        {
            "client_id": "Issued to the application (or in HTTP Basic)",
            "client_secret": "A confidential client's secret (or in HTTP Basic); a public client sends none",
            "scope": "e.g. posapi",
        },
        [],
    ),
)
async def device_authorization(request: Request) -> Response:
    """Start a device authorization (RFC 8628 §3.1): a device code for the client, a user code for the person."""
    sandbox = sandbox_of(request)
    try:
        params = await _params(request)
        client_id, secret = _client_credentials(request, params)
        with sandbox.db.tx() as conn:
            client = _authenticate_client(conn, client_id, secret)
            scope = _scope_of(params.get("scope"), POS_SCOPE)
            now = sandbox.clock.now_ms()
            device_code = new_secret()
            user_code = _new_user_code(conn)
            settings = sandbox.settings
            conn.execute(
                "INSERT INTO device_codes(device_code, user_code, client_id, scope, created_at, expires_at, interval_s)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    secret_digest(device_code),
                    user_code,
                    client["client_id"],
                    scope,
                    now,
                    now + settings.device_expires_in * 1000,
                    settings.device_interval,
                ),
            )
    except OAuthError as exc:
        return exc.response()
    shown = format_user_code(user_code)
    verification_uri = f"{_public_base(request)}/device"
    body = DeviceAuthorizationResponse(
        device_code=device_code,
        user_code=shown,
        verification_uri=verification_uri,
        verification_uri_complete=f"{verification_uri}?{urlencode({'user_code': shown})}",
        expires_in=sandbox.settings.device_expires_in,
        interval=sandbox.settings.device_interval,
    )
    return JSONResponse(body.model_dump(), headers={"Cache-Control": "no-store"})


@router.post(
    "/v1/token",
    response_model=TokenResponse,
    response_model_exclude_none=True,
    responses=_oauth_errors(400, 401),
    openapi_extra=_body_doc(
        {
            "grant_type": "authorization_code, refresh_token or urn:ietf:params:oauth:grant-type:device_code",
            "code": "authorization_code grant",
            "redirect_uri": "authorization_code grant: the one used in the authorization request",
            "code_verifier": "authorization_code grant: the PKCE verifier, when the request had a code_challenge",
            "refresh_token": "refresh_token grant",
            "scope": "refresh_token grant: the same scope or less (never more)",
            "device_code": "device_code grant",
            "client_id": "Issued to the application (or in HTTP Basic)",
            "client_secret": "A confidential client's secret (or in HTTP Basic); a public client sends none",
        },
        ["grant_type"],
        enums={"grant_type": ["authorization_code", "refresh_token", DEVICE_GRANT]},
    ),
)
async def token(request: Request) -> Response:
    """Token endpoint for the authorization-code, refresh-token and device-code grants."""
    sandbox = sandbox_of(request)
    try:
        params = await _params(request)
        _need(params, "grant_type")
        grant = params["grant_type"]
        client_id, secret = _client_credentials(request, params)
    except OAuthError as exc:
        return exc.response()
    refusal: OAuthError | None = None
    with sandbox.db.tx() as conn:
        # a refusal keeps what led to it (the poll time, a longer interval, revoked tokens): commit, then answer
        try:
            body = _grant(conn, sandbox, params, grant, client_id, secret)
        except OAuthError as exc:
            refusal = exc
    if refusal is not None:
        return refusal.response()
    return JSONResponse(body, headers={"Cache-Control": "no-store", "Pragma": "no-cache"})


def _grant(
    conn: sqlite3.Connection,
    sandbox: Sandbox,
    params: Mapping[str, str],
    grant: str,
    client_id: str | None,
    secret: str | None,
) -> dict[str, Any]:
    grants = {DEVICE_GRANT: _device_grant, "authorization_code": _code_grant, "refresh_token": _refresh_grant}
    if grant not in grants:
        raise OAuthError("unsupported_grant_type", f"Grant type {grant} is not supported")
    client = _authenticate_client(conn, client_id, secret)
    return grants[grant](conn, sandbox, params, client["client_id"])


def _device_grant(
    conn: sqlite3.Connection, sandbox: Sandbox, params: Mapping[str, str], client_id: str
) -> dict[str, Any]:
    _need(params, "device_code")
    row = conn.execute(
        "SELECT * FROM device_codes WHERE device_code = ?", (secret_digest(params["device_code"]),)
    ).fetchone()
    if row is None or row["client_id"] != client_id:
        raise OAuthError("invalid_grant", "Unknown device code")
    now = sandbox.clock.now_ms()
    status = row["status"]
    if status == "used":
        raise OAuthError("invalid_grant", "The device code was already exchanged")
    if row["expires_at"] <= now:
        raise OAuthError("expired_token", "The device code has expired; start again")
    if status == "denied":
        raise OAuthError("access_denied", "The person denied the request")
    if status == "approved":
        conn.execute(
            "UPDATE device_codes SET status = 'used', last_poll_at = ? WHERE device_code = ?", (now, row["device_code"])
        )
        return issue_tokens(
            conn,
            sandbox,
            client_id=client_id,
            owner_type="merchant",
            owner_id=row["merchant_id"],
            scope=row["scope"],
            with_refresh=True,
            grant_id=row["device_code"],
        )
    last = row["last_poll_at"]
    interval_ms = row["interval_s"] * 1000
    if last is not None and now - last < interval_ms - POLL_TOLERANCE_MS:
        conn.execute(
            "UPDATE device_codes SET interval_s = interval_s + 5, last_poll_at = ? WHERE device_code = ?",
            (now, row["device_code"]),
        )
        raise OAuthError("slow_down", f"Polling faster than every {row['interval_s']} s; wait 5 s longer")
    conn.execute("UPDATE device_codes SET last_poll_at = ? WHERE device_code = ?", (now, row["device_code"]))
    raise OAuthError("authorization_pending", "The person has not approved or denied the request yet")


def _code_grant(
    conn: sqlite3.Connection, sandbox: Sandbox, params: Mapping[str, str], client_id: str
) -> dict[str, Any]:
    _need(params, "code", "redirect_uri")
    row = conn.execute("SELECT * FROM auth_codes WHERE code = ?", (secret_digest(params["code"]),)).fetchone()
    if row is None or row["client_id"] != client_id:
        raise OAuthError("invalid_grant", "Unknown authorization code")
    if row["used_at"] is not None:
        # RFC 6749 §4.1.2: a code used twice revokes what the first use issued
        _revoke_grant(conn, row["code"])
        raise OAuthError("invalid_grant", "The authorization code was already used")
    now = sandbox.clock.now_ms()
    if row["expires_at"] <= now:
        raise OAuthError("invalid_grant", "The authorization code has expired")
    if row["redirect_uri"] is not None and row["redirect_uri"] != params["redirect_uri"]:
        raise OAuthError("invalid_grant", "redirect_uri differs from the authorization request")
    _verify_pkce(row["code_challenge"], params.get("code_verifier"))
    conn.execute("UPDATE auth_codes SET used_at = ? WHERE code = ?", (now, row["code"]))
    return issue_tokens(
        conn,
        sandbox,
        client_id=client_id,
        owner_type=row["owner_type"],
        owner_id=row["owner_id"],
        scope=row["scope"],
        with_refresh=True,
        grant_id=row["code"],
    )


def _verify_pkce(challenge: str | None, verifier: str | None) -> None:
    """RFC 7636 §4.6 with S256 only; a verifier for a code issued without a challenge is refused too,
    so PKCE cannot be stripped from a request and added back later (RFC 9700 §2.1.1)."""
    if challenge is None:
        if verifier:
            raise OAuthError(
                "invalid_grant", "code_verifier given, but the authorization request had no code_challenge"
            )
        return
    if not verifier:
        raise OAuthError("invalid_grant", "Missing code_verifier: the authorization request used PKCE")
    if not PKCE_VALUE.fullmatch(verifier):
        raise OAuthError("invalid_grant", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
    if not same_secret(pkce_s256(verifier), challenge):
        raise OAuthError("invalid_grant", "code_verifier does not match the code_challenge")


def pkce_s256(verifier: str) -> str:
    """``BASE64URL(SHA256(verifier))`` without padding (RFC 7636 §4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _revoke_grant(conn: sqlite3.Connection, grant_id: str | None) -> None:
    if grant_id is not None:
        conn.execute("UPDATE access_tokens SET revoked = 1 WHERE grant_id = ?", (grant_id,))
        conn.execute("UPDATE refresh_tokens SET revoked = 1 WHERE grant_id = ?", (grant_id,))


def _refresh_grant(
    conn: sqlite3.Connection, sandbox: Sandbox, params: Mapping[str, str], client_id: str
) -> dict[str, Any]:
    """RFC 6749 §6. Without rotation (the published behaviour) the answer has no refresh_token and the
    client keeps the one it has; with rotation it has a new one, and the old one is spent: presenting a
    spent one again revokes the whole grant, since one of the two holders must be a thief (RFC 9700 §4.14.2)."""
    _need(params, "refresh_token")
    row = conn.execute(
        "SELECT * FROM refresh_tokens WHERE refresh_token = ?", (secret_digest(params["refresh_token"]),)
    ).fetchone()
    if row is None or row["revoked"] or (row["client_id"] is not None and row["client_id"] != client_id):
        raise OAuthError("invalid_grant", "Unknown or revoked refresh token")
    if row["used_at"] is not None:
        _revoke_grant(conn, row["grant_id"])
        raise OAuthError("invalid_grant", "The refresh token was already used; the grant is revoked")
    granted = row["scope"].split()
    scope = row["scope"]
    if params.get("scope"):
        asked = _scope_of(params["scope"], POS_SCOPE).split()
        wider = [s for s in asked if s not in granted]
        if wider:
            raise OAuthError("invalid_scope", f"The grant does not include {' '.join(wider)}")
        scope = " ".join(asked)
    rotate = sandbox.settings.rotate_refresh_tokens
    if rotate:
        conn.execute(
            "UPDATE refresh_tokens SET used_at = ? WHERE refresh_token = ?",
            (sandbox.clock.now_ms(), row["refresh_token"]),
        )
    return issue_tokens(
        conn,
        sandbox,
        client_id=client_id,
        owner_type=row["owner_type"],
        owner_id=row["owner_id"],
        scope=scope,
        with_refresh=rotate,
        grant_id=row["grant_id"],
        refresh_scope=row["scope"],
    )


# --- browser sessions, CSRF and rate limits ------------------------------------------------------------------


@dataclass
class WebSession:
    session_id: str
    csrf: str
    username: str | None
    fresh: bool


def _session(request: Request, conn: sqlite3.Connection, now: int) -> WebSession:
    session_id = request.cookies.get(SESSION_COOKIE)
    if session_id:
        row = conn.execute("SELECT * FROM web_sessions WHERE session_id = ?", (session_id,)).fetchone()
        if row is not None and row["created_at"] + SESSION_SECONDS * 1000 > now:
            return WebSession(row["session_id"], row["csrf_token"], row["username"], fresh=False)
    session = WebSession(new_secret(), new_secret(), None, fresh=True)
    conn.execute(
        "INSERT INTO web_sessions(session_id, csrf_token, username, created_at) VALUES (?, ?, ?, ?)",
        (session.session_id, session.csrf, None, now),
    )
    return session


def _with_cookie(response: Response, session: WebSession) -> Response:
    if session.fresh:
        response.set_cookie(
            SESSION_COOKIE, session.session_id, max_age=SESSION_SECONDS, httponly=True, samesite="lax", path="/"
        )
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Frame-Options"] = "DENY"
    return response


def _csrf_ok(session: WebSession, form: Mapping[str, str]) -> bool:
    sent = form.get("csrf_token", "")
    return not session.fresh and bool(sent) and same_secret(sent, session.csrf)


def _client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _buckets(kind: str, request: Request, session: WebSession) -> list[str]:
    return [f"{kind}:session:{session.session_id}", f"{kind}:address:{_client_address(request)}"]


def _limited(conn: sqlite3.Connection, sandbox: Sandbox, buckets: Sequence[str], now: int) -> int:
    """Seconds until another attempt is allowed, or 0 when one is allowed now."""
    window = sandbox.settings.user_code_window_seconds * 1000
    limit = sandbox.settings.user_code_attempts
    wait = 0
    for bucket in buckets:
        rows = conn.execute(
            "SELECT at FROM attempts WHERE bucket = ? AND at > ? ORDER BY at", (bucket, now - window)
        ).fetchall()
        if len(rows) >= limit:
            oldest = rows[len(rows) - limit]["at"]
            wait = max(wait, (oldest + window - now + 999) // 1000)
    return wait


def _record_failure(conn: sqlite3.Connection, buckets: Sequence[str], now: int) -> None:
    for bucket in buckets:
        conn.execute("INSERT INTO attempts(bucket, at) VALUES (?, ?)", (bucket, now))


async def _form(request: Request) -> dict[str, str]:
    try:
        return await _params(request)
    except OAuthError:
        return {}


# --- HTML ---------------------------------------------------------------------------------------------------


def _page(template: str, *, status: int = 200, headers: Mapping[str, str] | None = None, **context: Any) -> Response:
    """A page of the authorization service: ``templates/<template>`` on the shared layout."""
    return render(template, status=status, headers=headers, **context)


def _message(title: str, message: str, *, tone: str, status: int = 200, **extra: Any) -> Response:
    return _page("auth/message.html", status=status, title=title, message=message, tone=tone, hint=None, **extra)


def _login_page(
    action: str,
    hidden: Mapping[str, str | None],
    error: str | None = None,
    *,
    client_name: str | None = None,
    status: int = 200,
) -> Response:
    return _page(
        "auth/login.html",
        status=status,
        title="Sign in",
        action=action,
        hidden=hidden,
        error=error,
        client_name=client_name,
    )


def _choice_page(
    action: str,
    hidden: Mapping[str, str | None],
    *,
    title: str,
    requester: str,
    kind: str,
    scope: str,
    owners: Sequence[sqlite3.Row],
    field: str,
    error: str | None = None,
    user_code: str | None = None,
    status: int = 200,
) -> Response:
    return _page(
        "auth/choose.html",
        status=status,
        title=title,
        action=action,
        hidden=hidden,
        requester=requester,
        kind=kind,
        scope=scope,
        owners=owners,
        field=field,
        error=error,
        user_code=user_code,
    )


def _owners(conn: sqlite3.Connection, username: str, kind: str) -> list[sqlite3.Row]:
    if kind == "organization":
        query = (
            "SELECT o.id, o.name FROM organizations o JOIN user_organizations u ON u.organization_id = o.id"
            " WHERE u.username = ? ORDER BY o.name"
        )
    else:
        query = (
            "SELECT m.id, m.name FROM merchants m JOIN user_merchants u ON u.merchant_id = m.id"
            " WHERE u.username = ? ORDER BY m.name"
        )
    return list(conn.execute(query, (username,)).fetchall())


def _check_password(conn: sqlite3.Connection, username: str, password: str) -> bool:
    row = conn.execute("SELECT password FROM users WHERE username = ?", (username,)).fetchone()
    return row is not None and same_secret(password, row["password"])


def _login(
    conn: sqlite3.Connection, sandbox: Sandbox, request: Request, session: WebSession, form: Mapping[str, str], now: int
) -> str | None:
    """Sign the session in; the error sentence when that fails."""
    buckets = _buckets("login", request, session)
    wait = _limited(conn, sandbox, buckets, now)
    if wait:
        return f"Too many failed sign-ins. Try again in {wait} seconds."
    username = form.get("username", "").strip()
    if not _check_password(conn, username, form.get("password", "")):
        _record_failure(conn, buckets, now)
        return "The user name or password is wrong."
    conn.execute("UPDATE web_sessions SET username = ? WHERE session_id = ?", (username, session.session_id))
    session.username = username
    return None


HTML_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "HTML page", "content": {"text/html": {}}},
    400: {"description": "HTML page explaining the error", "content": {"text/html": {}}},
    403: {"description": "The form expired (CSRF check failed)", "content": {"text/html": {}}},
    429: {"description": "Too many wrong attempts", "content": {"text/html": {}}},
}


def _expired_form(session: WebSession) -> Response:
    page = _message(
        "This form has expired",
        "The page was open too long or came from elsewhere. Go back, reload it and try again.",
        tone="error",
        status=403,
    )
    return _with_cookie(page, session)


# --- device verification page -------------------------------------------------------------------------------


def _code_page(session: WebSession, user_code: str, error: str | None = None, *, status: int = 200) -> Response:
    return _page(
        "device/code.html",
        status=status,
        title="Connect a device",
        csrf_token=session.csrf,
        user_code=user_code,
        error=error,
    )


@router.get("/device", response_class=HTMLResponse, responses=HTML_RESPONSES)
def device_page(request: Request, user_code: str = "") -> Response:
    """The verification page: enter the user code (or arrive with it filled in)."""
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        session = _session(request, conn, sandbox.clock.now_ms())
    return _with_cookie(_code_page(session, user_code[:12]), session)


@router.post(
    "/device",
    response_class=HTMLResponse,
    responses=HTML_RESPONSES,
    openapi_extra={
        "requestBody": {
            "content": {
                FORM: {
                    "schema": {
                        "type": "object",
                        "properties": {
                            name: {"type": "string"}
                            for name in (
                                "csrf_token",
                                "step",
                                "user_code",
                                "username",
                                "password",
                                "merchant_id",
                                "decision",
                            )
                        },
                    }
                }
            }
        }
    },
)
async def device_submit(request: Request) -> Response:
    """One step of the verification page: the code, the sign-in, then approve or deny for a merchant."""
    sandbox = sandbox_of(request)
    form = await _form(request)
    with sandbox.db.tx() as conn:
        now = sandbox.clock.now_ms()
        session = _session(request, conn, now)
        if not _csrf_ok(session, form):
            return _expired_form(session)
        shown = form.get("user_code", "")
        code = normalize_user_code(shown)
        # The limit comes before the look-up: once an address or a session has guessed wrong too often,
        # the right code gets the same 429 as a wrong one, so the answer tells a guesser nothing.
        buckets = _buckets("user_code", request, session)
        wait = _limited(conn, sandbox, buckets, now)
        if wait:
            page = _message(
                "Too many attempts",
                f"Too many wrong codes. Try again in {wait} seconds.",
                tone="error",
                status=429,
                headers={"Retry-After": str(wait)},
            )
            return _with_cookie(page, session)
        row = None
        if len(code) == USER_CODE_LENGTH:
            row = conn.execute(
                "SELECT * FROM device_codes WHERE user_code = ? AND status = 'pending' AND expires_at > ?", (code, now)
            ).fetchone()
        if row is None:
            _record_failure(conn, buckets, now)
            error = "That code is not valid or has expired. Check the terminal and type it again."
            return _with_cookie(_code_page(session, shown[:12], error, status=400), session)
        hidden = {"csrf_token": session.csrf, "user_code": format_user_code(code)}
        step = form.get("step")
        if step == "login":
            failure = _login(conn, sandbox, request, session, form, now)
            if failure:
                return _with_cookie(_login_page("/device", hidden, failure, status=400), session)
        if session.username is None:
            return _with_cookie(_login_page("/device", hidden), session)
        merchants = _owners(conn, session.username, "merchant")
        prompt = {
            "title": "Approve the terminal",
            "requester": "A terminal",
            "kind": "merchant",
            "scope": row["scope"],
            "owners": merchants,
            "field": "merchant_id",
            "user_code": format_user_code(code),
        }
        if step == "decide":
            decision = form.get("decision")
            if decision == "deny":
                conn.execute("UPDATE device_codes SET status = 'denied' WHERE device_code = ?", (row["device_code"],))
                return _with_cookie(
                    _message("Request denied", "Denied. The terminal will not be connected.", tone="ok"), session
                )
            chosen = form.get("merchant_id")
            allowed = {m["id"]: m["name"] for m in merchants}
            if decision == "approve" and chosen in allowed:
                conn.execute(
                    "UPDATE device_codes SET status = 'approved', merchant_id = ?, username = ? WHERE device_code = ?",
                    (chosen, session.username, row["device_code"]),
                )
                done = _page("device/connected.html", title="Device connected", merchant=allowed[chosen])
                return _with_cookie(done, session)
            page = _choice_page("/device", hidden, **prompt, error="Choose one of your merchants.", status=400)
            return _with_cookie(page, session)
        if not merchants:
            return _with_cookie(
                _message("No merchant", "This user has no merchant to connect.", tone="error", status=400), session
            )
        return _with_cookie(_choice_page("/device", hidden, **prompt), session)


# --- authorization-code flow --------------------------------------------------------------------------------


@dataclass
class AuthRequest:
    client_id: str
    client_name: str
    redirect_uri: str
    registered_redirect: bool
    scope: str
    state: str | None
    code_challenge: str | None = None


def _redirect_allowed(uri: str, registered: Sequence[str]) -> bool:
    """Exact match, or the same loopback URL on any port (RFC 8252 §7.3)."""
    if uri in registered:
        return True
    parts = urlsplit(uri)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        return False
    for candidate in registered:
        other = urlsplit(candidate)
        if (other.scheme, other.hostname, other.path) == (parts.scheme, parts.hostname, parts.path):
            return True
    return False


class AuthorizeProblem(Exception):
    """A bad authorization request: shown as a page when the redirect target cannot be trusted."""


def _auth_request(
    conn: sqlite3.Connection, params: Mapping[str, str], kind: str
) -> tuple[AuthRequest, dict[str, str] | None]:
    """The validated request, and the error to redirect with (RFC 6749 §4.1.2.1) when one applies."""
    client_id = params.get("client_id", "")
    client = conn.execute("SELECT * FROM clients WHERE client_id = ?", (client_id,)).fetchone()
    if client is None:
        raise AuthorizeProblem("The application asking for access is unknown (client_id).")
    registered = json.loads(client["redirect_uris"])
    redirect_uri = params.get("redirect_uri") or (registered[0] if registered else "")
    if not redirect_uri or not _redirect_allowed(redirect_uri, registered):
        raise AuthorizeProblem("The redirect address is not registered for this application (redirect_uri).")
    error = None
    if params.get("response_type") != "code":
        error = {"error": "unsupported_response_type"}
    scope = POS_SCOPE
    try:
        scope = _scope_of(params.get("scope"), POS_SCOPE)
    except OAuthError as exc:
        error = error or {"error": exc.error, "error_description": exc.description}
    challenge = params.get("code_challenge") or None
    pkce = _pkce_problem(challenge, params.get("code_challenge_method"), public=client["client_secret"] is None)
    error = error or ({"error": "invalid_request", "error_description": pkce} if pkce else None)
    request = AuthRequest(
        client_id=client_id,
        client_name=client["name"],
        redirect_uri=redirect_uri,
        registered_redirect=bool(params.get("redirect_uri")),
        scope=scope,
        state=params.get("state"),
        code_challenge=challenge,
    )
    return request, error


def _pkce_problem(challenge: str | None, method: str | None, *, public: bool) -> str | None:
    """Why the request's PKCE parameters are refused (RFC 7636 §4.4.1), or None: S256 only, and a public
    client, which has no secret to prove at the token endpoint, must use it (RFC 9700 §2.1.1)."""
    if challenge is None:
        if method:
            return "code_challenge_method without code_challenge"
        return "A public client must use PKCE: send code_challenge with code_challenge_method=S256" if public else None
    if method != "S256":
        return "code_challenge_method must be S256 (plain is not accepted)"
    if len(challenge) != 43 or not PKCE_VALUE.fullmatch(challenge):
        return "code_challenge must be the 43-character BASE64URL of a SHA-256"
    return None


def _redirect(auth: AuthRequest, values: Mapping[str, str]) -> RedirectResponse:
    parts = urlsplit(auth.redirect_uri)
    query = parse_qsl(parts.query, keep_blank_values=True)
    query.extend(values.items())
    if auth.state is not None:
        query.append(("state", auth.state))
    return RedirectResponse(urlunsplit(parts._replace(query=urlencode(query))), status_code=303)


def _auth_hidden(auth: AuthRequest, session: WebSession, params: Mapping[str, str]) -> dict[str, str | None]:
    return {
        "csrf_token": session.csrf,
        "client_id": auth.client_id,
        "response_type": "code",
        "redirect_uri": params.get("redirect_uri"),
        "scope": params.get("scope"),
        "state": auth.state,
        "code_challenge": auth.code_challenge,
        "code_challenge_method": params.get("code_challenge_method"),
    }


def _authorize_page(
    conn: sqlite3.Connection,
    request: Request,
    session: WebSession,
    kind: str,
    params: Mapping[str, str],
    *,
    error: str | None = None,
    status: int = 200,
) -> Response:
    auth, _ = _auth_request(conn, params, kind)
    action = f"/authorize/{kind}"
    hidden = _auth_hidden(auth, session, params)
    if session.username is None:
        return _with_cookie(_login_page(action, hidden, error, client_name=auth.client_name, status=status), session)
    owners = _owners(conn, session.username, kind)
    if not owners:
        message = f"User {session.username} has no {kind} to grant access to."
        return _with_cookie(_message("Nothing to authorize", message, tone="error", status=400), session)
    page = _choice_page(
        action,
        hidden,
        title="Grant access",
        requester=auth.client_name,
        kind=kind,
        scope=auth.scope,
        owners=owners,
        field="owner_id",
        error=error,
        status=status,
    )
    return _with_cookie(page, session)


AUTHORIZE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **HTML_RESPONSES,
    303: {"description": "Back to redirect_uri with grant_type, code and state (or error and state)"},
}


def _authorize_get(request: Request, kind: str) -> Response:
    sandbox = sandbox_of(request)
    params = dict(request.query_params)
    with sandbox.db.tx() as conn:
        session = _session(request, conn, sandbox.clock.now_ms())
        try:
            auth, error = _auth_request(conn, params, kind)
        except AuthorizeProblem as exc:
            return _with_cookie(_message("Cannot authorize", str(exc), tone="error", status=400), session)
        if error:
            return _redirect(auth, error)
        return _authorize_page(conn, request, session, kind, params)


async def _authorize_post(request: Request, kind: str) -> Response:
    sandbox = sandbox_of(request)
    form = await _form(request)
    with sandbox.db.tx() as conn:
        now = sandbox.clock.now_ms()
        session = _session(request, conn, now)
        if not _csrf_ok(session, form):
            return _expired_form(session)
        try:
            auth, error = _auth_request(conn, form, kind)
        except AuthorizeProblem as exc:
            return _with_cookie(_message("Cannot authorize", str(exc), tone="error", status=400), session)
        if error:
            return _redirect(auth, error)
        step = form.get("step")
        if step == "login":
            failure = _login(conn, sandbox, request, session, form, now)
            if failure:
                return _authorize_page(conn, request, session, kind, form, error=failure, status=400)
            return _authorize_page(conn, request, session, kind, form)
        if step != "decide" or session.username is None:
            return _authorize_page(conn, request, session, kind, form)
        if form.get("decision") == "deny":
            return _redirect(auth, {"error": "access_denied", "error_description": "The user denied access"})
        owners = {o["id"] for o in _owners(conn, session.username, kind)}
        owner_id = form.get("owner_id")
        if form.get("decision") != "approve" or owner_id not in owners:
            return _authorize_page(conn, request, session, kind, form, error=f"Choose one of your {kind}s.", status=400)
        code = new_secret()
        conn.execute(
            "INSERT INTO auth_codes(code, client_id, redirect_uri, scope, owner_type, owner_id, created_at, expires_at,"
            " code_challenge, code_challenge_method) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                secret_digest(code),
                auth.client_id,
                auth.redirect_uri if auth.registered_redirect else None,
                auth.scope,
                kind,
                owner_id,
                now,
                now + sandbox.settings.auth_code_ttl * 1000,
                auth.code_challenge,
                "S256" if auth.code_challenge else None,
            ),
        )
        return _redirect(auth, {"grant_type": "authorization_code", "code": code})


AUTHORIZE_PARAMS = (
    "client_id",
    "response_type",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
)
AUTHORIZE_QUERY = [
    {"name": name, "in": "query", "required": name in ("client_id", "response_type"), "schema": {"type": "string"}}
    for name in AUTHORIZE_PARAMS
]
AUTHORIZE_FORM = {
    "requestBody": {
        "content": {
            FORM: {
                "schema": {
                    "type": "object",
                    "properties": {
                        name: {"type": "string"}
                        for name in (
                            "csrf_token",
                            "step",
                            *AUTHORIZE_PARAMS,
                            "username",
                            "password",
                            "owner_id",
                            "decision",
                        )
                    },
                }
            }
        }
    }
}


@router.get(
    "/authorize/merchant",
    response_class=HTMLResponse,
    responses=AUTHORIZE_RESPONSES,
    openapi_extra={"parameters": AUTHORIZE_QUERY},
)
def authorize_merchant(request: Request) -> Response:
    """Authorization-code flow for one merchant: sign in, pick the merchant, approve; back with a code."""
    return _authorize_get(request, "merchant")


@router.post(
    "/authorize/merchant", response_class=HTMLResponse, responses=AUTHORIZE_RESPONSES, openapi_extra=AUTHORIZE_FORM
)
async def authorize_merchant_submit(request: Request) -> Response:
    return await _authorize_post(request, "merchant")


@router.get(
    "/authorize/organization",
    response_class=HTMLResponse,
    responses=AUTHORIZE_RESPONSES,
    openapi_extra={"parameters": AUTHORIZE_QUERY},
)
def authorize_organization(request: Request) -> Response:
    """Authorization-code flow for an organization (a group of merchants)."""
    return _authorize_get(request, "organization")


@router.post(
    "/authorize/organization", response_class=HTMLResponse, responses=AUTHORIZE_RESPONSES, openapi_extra=AUTHORIZE_FORM
)
async def authorize_organization_submit(request: Request) -> Response:
    return await _authorize_post(request, "organization")
