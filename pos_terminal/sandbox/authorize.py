"""The authorization-code flow's pages, ``/authorize/merchant`` and ``/authorize/organization``: sign in,
choose whom to grant access for, approve; back to the client's redirect address with a code (or an error)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from pos_terminal.sandbox.db import secret_digest
from pos_terminal.sandbox.oauth import PKCE_VALUE, OAuthError, page_form, scope_of
from pos_terminal.sandbox.security import POS_SCOPE, sandbox_of
from pos_terminal.sandbox.state import new_secret
from pos_terminal.sandbox.web_session import (
    HTML_RESPONSES,
    WebSession,
    choice_page,
    csrf_ok,
    expired_form,
    login_page,
    message_page,
    open_session,
    owners_of,
    read_form,
    sign_in,
    with_cookie,
)

router = APIRouter(tags=["authorization service"])


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
        scope = scope_of(params.get("scope"), POS_SCOPE)
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
        return with_cookie(login_page(action, hidden, error, client_name=auth.client_name, status=status), session)
    owners = owners_of(conn, session.username, kind)
    if not owners:
        message = f"User {session.username} has no {kind} to grant access to."
        return with_cookie(message_page("Nothing to authorize", message, tone="error", status=400), session)
    page = choice_page(
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
    return with_cookie(page, session)


AUTHORIZE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **HTML_RESPONSES,
    303: {"description": "Back to redirect_uri with grant_type, code and state (or error and state)"},
}


def _authorize_get(request: Request, kind: str) -> Response:
    sandbox = sandbox_of(request)
    params = dict(request.query_params)
    with sandbox.db.tx() as conn:
        session = open_session(request, conn, sandbox.clock.now_ms())
        try:
            auth, error = _auth_request(conn, params, kind)
        except AuthorizeProblem as exc:
            return with_cookie(message_page("Cannot authorize", str(exc), tone="error", status=400), session)
        if error:
            return _redirect(auth, error)
        return _authorize_page(conn, request, session, kind, params)


async def _authorize_post(request: Request, kind: str) -> Response:
    sandbox = sandbox_of(request)
    form = await read_form(request)
    with sandbox.db.tx() as conn:
        now = sandbox.clock.now_ms()
        session = open_session(request, conn, now)
        if not csrf_ok(session, form):
            return expired_form(session)
        try:
            auth, error = _auth_request(conn, form, kind)
        except AuthorizeProblem as exc:
            return with_cookie(message_page("Cannot authorize", str(exc), tone="error", status=400), session)
        if error:
            return _redirect(auth, error)
        step = form.get("step")
        if step == "login":
            failure = sign_in(conn, sandbox, request, session, form, now)
            if failure:
                return _authorize_page(conn, request, session, kind, form, error=failure, status=400)
            return _authorize_page(conn, request, session, kind, form)
        if step != "decide" or session.username is None:
            return _authorize_page(conn, request, session, kind, form)
        if form.get("decision") == "deny":
            return _redirect(auth, {"error": "access_denied", "error_description": "The user denied access"})
        owners = {o["id"] for o in owners_of(conn, session.username, kind)}
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
AUTHORIZE_FORM = page_form("csrf_token", "step", *AUTHORIZE_PARAMS, "username", "password", "owner_id", "decision")


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
