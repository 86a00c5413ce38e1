"""The authorization service's machine endpoints: metadata, device authorization and the token endpoint.

``POST /v1/device_authorization`` and ``POST /v1/token`` speak RFC 6749/8628 JSON (errors ``{"error",
"error_description"}``, 400 or 401 for ``invalid_client``) and take JSON or form bodies. The token endpoint
serves the device-code, authorization-code (with PKCE) and refresh-token grants.
"""

from __future__ import annotations

import base64
import hashlib
import sqlite3
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from pos_terminal.sandbox.db import secret_digest
from pos_terminal.sandbox.oauth import (
    DEVICE_GRANT,
    PKCE_VALUE,
    OAuthError,
    authenticate_client,
    body_doc,
    client_credentials,
    format_user_code,
    need,
    new_user_code,
    oauth_errors,
    public_base,
    read_params,
    same_secret,
    scope_of,
)
from pos_terminal.sandbox.security import KNOWN_SCOPES, POS_SCOPE, issue_tokens, sandbox_of
from pos_terminal.sandbox.state import Sandbox, new_secret

router = APIRouter(tags=["authorization service"])

# a client that waits exactly ``interval`` may arrive a little early on a busy machine
POLL_TOLERANCE_MS = 250


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
    base = public_base(request)
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


@router.post(
    "/v1/device_authorization",
    response_model=DeviceAuthorizationResponse,
    responses=oauth_errors(400, 401),
    openapi_extra=body_doc(
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
        params = await read_params(request)
        client_id, secret = client_credentials(request, params)
        with sandbox.db.tx() as conn:
            client = authenticate_client(conn, client_id, secret)
            scope = scope_of(params.get("scope"), POS_SCOPE)
            now = sandbox.clock.now_ms()
            device_code = new_secret()
            user_code = new_user_code(conn)
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
    verification_uri = f"{public_base(request)}/device"
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
    responses=oauth_errors(400, 401),
    openapi_extra=body_doc(
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
        params = await read_params(request)
        need(params, "grant_type")
        grant = params["grant_type"]
        client_id, secret = client_credentials(request, params)
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
    client = authenticate_client(conn, client_id, secret)
    return grants[grant](conn, sandbox, params, client["client_id"])


def _device_grant(
    conn: sqlite3.Connection, sandbox: Sandbox, params: Mapping[str, str], client_id: str
) -> dict[str, Any]:
    need(params, "device_code")
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
    need(params, "code", "redirect_uri")
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
    need(params, "refresh_token")
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
        asked = scope_of(params["scope"], POS_SCOPE).split()
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
