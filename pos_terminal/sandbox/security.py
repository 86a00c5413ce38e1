"""Credentials: issuing tokens, and finding who a POS or payments request acts for.

POS API v4 takes ``Authorization: Bearer <token>`` with scope ``posapi`` or the
legacy ``X-Api-Token`` header; the token is tied to one merchant. The payments
API takes an organization (or merchant) token with the ``service-api:*`` scopes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from pos_terminal.sandbox.db import secret_digest
from pos_terminal.sandbox.problems import ProblemError
from pos_terminal.sandbox.state import Sandbox, new_secret

POS_SCOPE = "posapi"
READ_SCOPE = "service-api:transaction.read"
SUBMIT_SCOPE = "service-api:transaction.submit"
KNOWN_SCOPES = (POS_SCOPE, READ_SCOPE, SUBMIT_SCOPE)

bearer_scheme = HTTPBearer(auto_error=False, description="Access token from the authorization service")
api_token_scheme = APIKeyHeader(
    name="X-Api-Token", auto_error=False, description="Legacy header; accepted, not recommended"
)


@dataclass(frozen=True)
class Principal:
    """Who a request acts for."""

    owner_type: str
    owner_id: str
    scopes: frozenset[str]
    client_id: str | None


def sandbox_of(request: Request) -> Sandbox:
    sandbox: Sandbox = request.state.sandbox
    return sandbox


def issue_tokens(
    conn: sqlite3.Connection,
    sandbox: Sandbox,
    *,
    client_id: str | None,
    owner_type: str,
    owner_id: str,
    scope: str,
    with_refresh: bool,
    expires_in: int | None = None,
    grant_id: str | None = None,
    refresh_scope: str | None = None,
) -> dict[str, Any]:
    """Store a new access token (and refresh token) and return the token response (2.1).

    ``expires_in`` of ``0`` makes a token that never expires, so the response omits it. The
    database keeps only the tokens' digests. A refresh token carries ``refresh_scope`` (default
    ``scope``): a refresh asking for less gets a narrower access token, never a narrower grant.
    """
    now = sandbox.clock.now_ms()
    ttl = sandbox.settings.token_ttl if expires_in is None else expires_in
    access = new_secret()
    conn.execute(
        "INSERT INTO access_tokens(access_token, client_id, owner_type, owner_id, scope, issued_at, expires_at,"
        " grant_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            secret_digest(access),
            client_id,
            owner_type,
            owner_id,
            scope,
            now,
            now + ttl * 1000 if ttl else None,
            grant_id,
        ),
    )
    response: dict[str, Any] = {
        "access_token": access,
        "token_type": "bearer",
        "scope": scope,
        "resource_owner_type": owner_type,
    }
    if ttl:
        response["expires_in"] = ttl
    if with_refresh:
        refresh = new_secret()
        conn.execute(
            "INSERT INTO refresh_tokens(refresh_token, client_id, owner_type, owner_id, scope, issued_at, grant_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (secret_digest(refresh), client_id, owner_type, owner_id, refresh_scope or scope, now, grant_id),
        )
        response["refresh_token"] = refresh
    return response


def _unauthorized(detail: str, *, bad_token: bool) -> ProblemError:
    challenge = 'Bearer error="invalid_token"' if bad_token else 'Bearer realm="sandbox"'
    return ProblemError(401, "UNAUTHORIZED", detail, headers={"WWW-Authenticate": challenge})


async def authenticate(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(bearer_scheme)],
    api_token: Annotated[str | None, Security(api_token_scheme)],
) -> Principal:
    """The principal behind the request's credential, or 401.

    ``async`` so that FastAPI runs it on the server's loop: a sync dependency goes to a worker thread and back,
    which cost each request more than this one indexed read does.
    """
    token = bearer.credentials if bearer is not None else api_token
    if not token:
        raise _unauthorized("No access token: send Authorization: Bearer <token>", bad_token=False)
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        row = conn.execute(
            "SELECT owner_type, owner_id, scope, expires_at, revoked, client_id FROM access_tokens"
            " WHERE access_token = ?",
            (secret_digest(token),),
        ).fetchone()
    if row is None or row["revoked"]:
        raise _unauthorized("The access token is not valid", bad_token=True)
    if row["expires_at"] is not None and row["expires_at"] <= sandbox.clock.now_ms():
        raise _unauthorized("The access token has expired", bad_token=True)
    return Principal(row["owner_type"], row["owner_id"], frozenset(row["scope"].split()), row["client_id"])


async def pos_merchant(principal: Annotated[Principal, Depends(authenticate)]) -> str:
    """The merchant a POS API request acts for; the token needs scope ``posapi``."""
    if POS_SCOPE not in principal.scopes:
        raise ProblemError(403, "INSUFFICIENT_SCOPE", "The token lacks the posapi scope")
    if principal.owner_type != "merchant":
        raise ProblemError(403, "INSUFFICIENT_SCOPE", "POS API tokens must belong to one merchant")
    return principal.owner_id


def require_scope(principal: Principal, scope: str) -> None:
    if scope not in principal.scopes:
        raise ProblemError(403, "INSUFFICIENT_SCOPE", f"The token lacks the {scope} scope")


def merchant_ids_of(conn: sqlite3.Connection, principal: Principal) -> set[str]:
    """Merchants a payments API principal may act on: its merchant, or its organization's."""
    if principal.owner_type == "merchant":
        return {principal.owner_id}
    rows = conn.execute("SELECT id FROM merchants WHERE organization_id = ?", (principal.owner_id,)).fetchall()
    return {r["id"] for r in rows}
