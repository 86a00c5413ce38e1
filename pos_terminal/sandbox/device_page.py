"""The device flow's verification page, ``/device``: a person types the terminal's user code, signs in,
and approves or denies it for one of their merchants. Codes are single-use and short-lived."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from pos_terminal.sandbox.oauth import USER_CODE_LENGTH, format_user_code, normalize_user_code, page_form
from pos_terminal.sandbox.security import sandbox_of
from pos_terminal.sandbox.web_session import (
    HTML_RESPONSES,
    WebSession,
    attempt_buckets,
    auth_page,
    choice_page,
    csrf_ok,
    expired_form,
    login_page,
    message_page,
    open_session,
    owners_of,
    read_form,
    record_failure,
    sign_in,
    wait_seconds,
    with_cookie,
)

router = APIRouter(tags=["authorization service"])


def _code_page(session: WebSession, user_code: str, error: str | None = None, *, status: int = 200) -> Response:
    return auth_page(
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
        session = open_session(request, conn, sandbox.clock.now_ms())
    return with_cookie(_code_page(session, user_code[:12]), session)


@router.post(
    "/device",
    response_class=HTMLResponse,
    responses=HTML_RESPONSES,
    openapi_extra=page_form("csrf_token", "step", "user_code", "username", "password", "merchant_id", "decision"),
)
async def device_submit(request: Request) -> Response:
    """One step of the verification page: the code, the sign-in, then approve or deny for a merchant."""
    sandbox = sandbox_of(request)
    form = await read_form(request)
    with sandbox.db.tx() as conn:
        now = sandbox.clock.now_ms()
        session = open_session(request, conn, now)
        if not csrf_ok(session, form):
            return expired_form(session)
        shown = form.get("user_code", "")
        code = normalize_user_code(shown)
        # The limit comes before the look-up: once an address or a session has guessed wrong too often,
        # the right code gets the same 429 as a wrong one, so the answer tells a guesser nothing.
        buckets = attempt_buckets("user_code", request, session)
        wait = wait_seconds(conn, sandbox, buckets, now)
        if wait:
            page = message_page(
                "Too many attempts",
                f"Too many wrong codes. Try again in {wait} seconds.",
                tone="error",
                status=429,
                headers={"Retry-After": str(wait)},
            )
            return with_cookie(page, session)
        row = None
        if len(code) == USER_CODE_LENGTH:
            row = conn.execute(
                "SELECT * FROM device_codes WHERE user_code = ? AND status = 'pending' AND expires_at > ?", (code, now)
            ).fetchone()
        if row is None:
            record_failure(conn, buckets, now)
            error = "That code is not valid or has expired. Check the terminal and type it again."
            return with_cookie(_code_page(session, shown[:12], error, status=400), session)
        hidden = {"csrf_token": session.csrf, "user_code": format_user_code(code)}
        step = form.get("step")
        if step == "login":
            failure = sign_in(conn, sandbox, request, session, form, now)
            if failure:
                return with_cookie(login_page("/device", hidden, failure, status=400), session)
        if session.username is None:
            return with_cookie(login_page("/device", hidden), session)
        merchants = owners_of(conn, session.username, "merchant")
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
                return with_cookie(
                    message_page("Request denied", "Denied. The terminal will not be connected.", tone="ok"), session
                )
            chosen = form.get("merchant_id")
            allowed = {m["id"]: m["name"] for m in merchants}
            if decision == "approve" and chosen in allowed:
                conn.execute(
                    "UPDATE device_codes SET status = 'approved', merchant_id = ?, username = ? WHERE device_code = ?",
                    (chosen, session.username, row["device_code"]),
                )
                done = auth_page("device/connected.html", title="Device connected", merchant=allowed[chosen])
                return with_cookie(done, session)
            page = choice_page("/device", hidden, **prompt, error="Choose one of your merchants.", status=400)
            return with_cookie(page, session)
        if not merchants:
            return with_cookie(
                message_page("No merchant", "This user has no merchant to connect.", tone="error", status=400), session
            )
        return with_cookie(choice_page("/device", hidden, **prompt), session)
