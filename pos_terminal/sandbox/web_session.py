"""The authorization service's browser side: cookie sessions, CSRF, rate limits and the shared pages.

Every page sits on a cookie session with a CSRF token in each form; wrong user codes and wrong passwords
are rate limited per session and per address.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from pos_terminal.sandbox.oauth import OAuthError, read_params, same_secret
from pos_terminal.sandbox.pages import render
from pos_terminal.sandbox.state import Sandbox, new_secret

SESSION_COOKIE = "sandbox_session"
SESSION_SECONDS = 3600


@dataclass
class WebSession:
    session_id: str
    csrf: str
    username: str | None
    fresh: bool


def open_session(request: Request, conn: sqlite3.Connection, now: int) -> WebSession:
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


def with_cookie(response: Response, session: WebSession) -> Response:
    if session.fresh:
        response.set_cookie(
            SESSION_COOKIE, session.session_id, max_age=SESSION_SECONDS, httponly=True, samesite="lax", path="/"
        )
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Frame-Options"] = "DENY"
    return response


def csrf_ok(session: WebSession, form: Mapping[str, str]) -> bool:
    sent = form.get("csrf_token", "")
    return not session.fresh and bool(sent) and same_secret(sent, session.csrf)


def _client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def attempt_buckets(kind: str, request: Request, session: WebSession) -> list[str]:
    return [f"{kind}:session:{session.session_id}", f"{kind}:address:{_client_address(request)}"]


def wait_seconds(conn: sqlite3.Connection, sandbox: Sandbox, buckets: Sequence[str], now: int) -> int:
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


def record_failure(conn: sqlite3.Connection, buckets: Sequence[str], now: int) -> None:
    for bucket in buckets:
        conn.execute("INSERT INTO attempts(bucket, at) VALUES (?, ?)", (bucket, now))


async def read_form(request: Request) -> dict[str, str]:
    try:
        return await read_params(request)
    except OAuthError:
        return {}


def auth_page(
    template: str, *, status: int = 200, headers: Mapping[str, str] | None = None, **context: Any
) -> Response:
    """A page of the authorization service: ``templates/<template>`` on the shared layout."""
    return render(template, status=status, headers=headers, **context)


def message_page(title: str, message: str, *, tone: str, status: int = 200, **extra: Any) -> Response:
    return auth_page("auth/message.html", status=status, title=title, message=message, tone=tone, hint=None, **extra)


def login_page(
    action: str,
    hidden: Mapping[str, str | None],
    error: str | None = None,
    *,
    client_name: str | None = None,
    status: int = 200,
) -> Response:
    return auth_page(
        "auth/login.html",
        status=status,
        title="Sign in",
        action=action,
        hidden=hidden,
        error=error,
        client_name=client_name,
    )


def choice_page(
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
    return auth_page(
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


def owners_of(conn: sqlite3.Connection, username: str, kind: str) -> list[sqlite3.Row]:
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


def sign_in(
    conn: sqlite3.Connection, sandbox: Sandbox, request: Request, session: WebSession, form: Mapping[str, str], now: int
) -> str | None:
    """Sign the session in; the error sentence when that fails."""
    buckets = attempt_buckets("login", request, session)
    wait = wait_seconds(conn, sandbox, buckets, now)
    if wait:
        return f"Too many failed sign-ins. Try again in {wait} seconds."
    username = form.get("username", "").strip()
    if not _check_password(conn, username, form.get("password", "")):
        record_failure(conn, buckets, now)
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


def expired_form(session: WebSession) -> Response:
    page = message_page(
        "This form has expired",
        "The page was open too long or came from elsewhere. Go back, reload it and try again.",
        tone="error",
        status=403,
    )
    return with_cookie(page, session)
