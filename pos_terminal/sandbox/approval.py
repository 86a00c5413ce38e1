"""The approval sheet of the emulated mobile app: what the customer sees when a page asks them to pay.

The sandbox script (``static/sdk/*/sandbox.js``) posts the SDK's order into a frame
at ``POST /sandbox/app/approvals``. The answer is the sheet: the merchant, the
amount, the order, a choice of test cards, Approve and Reject. Its decision goes
to ``POST /sandbox/app/approvals/{id}``, whose answer hands the outcome (a nonce,
or an error with the SDK's code) back to the page that asked, by ``postMessage``
to that page's origin only. Like ``POST /sandbox/nonces``, it is part of the
control surface: loopback callers only, and not in the OpenAPI document.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import ValidationError

from pos_terminal.sandbox.pages import render
from pos_terminal.sandbox.payments import Order, Refusal, approve, check_order, merchant_for
from pos_terminal.sandbox.problems import ProblemError
from pos_terminal.sandbox.security import sandbox_of
from pos_terminal.sandbox.server_guard import loopback_only
from pos_terminal.sandbox.state import new_secret

router = APIRouter(prefix="/sandbox/app", include_in_schema=False, dependencies=[Depends(loopback_only)])

# How long a sheet may stay open before its decision is refused.
SHEET_SECONDS = 600
ORIGIN = re.compile(r"https?://[A-Za-z0-9.\-\[\]:]+")
# value, what the customer sees, what it does in the sandbox
TEST_CARDS = (
    ("ok", "Visa •••• 4242", "approves"),
    ("declined", "Mastercard •••• 0002", "declined"),
    ("insufficient_funds", "Visa •••• 9995", "no funds"),
    ("expired", "Amex •••• 0069", "expired"),
)
CARD_VALUES = {value for value, _, _ in TEST_CARDS}
ORDER_FIELDS = ("orderStoreId", "orderRef", "title", "total", "tax", "items")  # the order of 2.2
SHEET_HEADERS = {"Cache-Control": "no-store"}


@dataclass(frozen=True)
class PendingApproval:
    """An order shown on a sheet, waiting for the customer's decision."""

    order: Order
    origin: str
    expires_at: int


class PendingApprovals:
    """Open sheets by id; in memory, since a sheet does not outlive the page that opened it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, PendingApproval] = {}

    def open(self, approval: PendingApproval, now: int) -> str:
        key = new_secret(18)
        with self._lock:
            self._open = {k: v for k, v in self._open.items() if v.expires_at > now}
            self._open[key] = approval
        return key

    def take(self, key: str, now: int) -> PendingApproval | None:
        """The sheet's approval, once: a second decision on the same sheet finds nothing."""
        with self._lock:
            approval = self._open.pop(key, None)
        return approval if approval is not None and approval.expires_at > now else None


def _approvals(request: Request) -> PendingApprovals:
    approvals: PendingApprovals = request.state.approvals
    return approvals


def _origin(value: Any) -> str | None:
    """The asking page's origin, or None when the form does not carry a plain one."""
    return value if isinstance(value, str) and ORIGIN.fullmatch(value) else None


def _outcome(origin: str | None, reply: dict[str, Any], *, status: int = 200) -> Response:
    """The page that hands ``reply`` to the page at ``origin`` and says what happened."""
    error = reply.get("error")
    if error is None:
        title, message, tone = "Payment approved", "Approved. Returning to the shop…", "ok"
    else:
        title, message, tone = "Payment not approved", error["message"], "error"
    return render(
        "app/outcome.html",
        status=status,
        headers=SHEET_HEADERS,
        title=title,
        message=message,
        tone=tone,
        origin=origin,
        reply=json.dumps(reply),
    )


def _failure(origin: str | None, code: str, message: str, field: str | None = None, *, status: int = 200) -> Response:
    error = {"code": code, "message": message}
    if field is not None:
        error["field"] = field
    return _outcome(origin, {"error": error}, status=status)


def _field_of(error: ValidationError) -> str:
    first = error.errors()[0]
    text = ""
    for part in first.get("loc", ()):
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "order"


@router.post("/approvals")
async def open_sheet(request: Request) -> Response:
    """The sheet for the order in the form's ``order`` (JSON), asked for by the page at ``origin``."""
    sandbox = sandbox_of(request)
    form = await request.form()
    origin = _origin(form.get("origin"))
    if origin is None:
        return _failure(None, "APP_ERROR", "The app did not say which page asked for this payment.", status=400)
    try:
        sent = json.loads(str(form.get("order", "")))
        # the page chooses the order only: who pays, and with which card, is the app's
        order = Order.model_validate({name: sent[name] for name in ORDER_FIELDS if name in sent})
    except ValidationError as exc:  # a ValueError too: caught first
        field = _field_of(exc)
        return _failure(origin, "INVALID_ORDER", f"The order's {field} is not valid.", field)
    except (ValueError, TypeError):
        return _failure(origin, "INVALID_ORDER", "The order is not a JSON object.", "order")
    with sandbox.db.tx() as conn:
        try:
            merchant = merchant_for(conn, order)
            check_order(order)
        except ProblemError as exc:
            problem = exc.problem
            if problem.status == 404:
                message = f"No merchant is set up for store {order.orderStoreId}; the payment cannot be made."
                return _failure(origin, "UNKNOWN_STORE", message, "orderStoreId")
            field = problem.errors[0].field if problem.errors else "order"
            return _failure(origin, "INVALID_ORDER", f"The order's {field} {problem.errors[0].message}.", field)
        customer = conn.execute(
            "SELECT first_name, last_name FROM customers WHERE customer_id = ?", (order.customerId,)
        ).fetchone()
    now = sandbox.clock.now_ms()
    key = _approvals(request).open(PendingApproval(order, origin, now + SHEET_SECONDS * 1000), now)
    return render(
        "app/approval.html",
        headers=SHEET_HEADERS,
        title="Approve payment",
        action=f"/sandbox/app/approvals/{key}",
        origin=origin,
        merchant=merchant["name"],
        order=order,
        customer=f"{customer['first_name']} {customer['last_name']}",
        cards=TEST_CARDS,
    )


@router.post("/approvals/{key}")
async def decide(request: Request, key: str) -> Response:
    """Approve (with the chosen test card) or reject the order on sheet ``key``."""
    sandbox = sandbox_of(request)
    form = await request.form()
    approval = _approvals(request).take(key, sandbox.clock.now_ms())
    if approval is None:
        origin = _origin(form.get("origin"))
        return _failure(origin, "APPROVAL_EXPIRED", "The payment prompt is no longer open; ask again.", status=410)
    if form.get("decision") != "approve":
        return _failure(approval.origin, "PAYMENT_REJECTED", "The customer rejected the payment.")
    card = form.get("card")
    order = approval.order.model_copy(update={"card": card if card in CARD_VALUES else "ok"})
    with sandbox.db.tx() as conn:
        try:
            approved = approve(conn, sandbox, order)
        except Refusal as refusal:
            return _failure(approval.origin, refusal.reason, f"{refusal.problem.detail}.")
    return _outcome(approval.origin, {"nonce": approved["nonce"]})
