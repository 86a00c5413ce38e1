"""Payments API v5: nonces, charging with a nonce, refunds; and the SDK's approval as a control route.

In the real service a customer approves an order in the mobile app and the SDK
hands the web page a nonce. Here ``POST /sandbox/nonces`` plays that part: it
checks the customer's test card and funds (a refusal is what the SDK callback
would receive as ``err``) and returns a single-use, short-lived nonce tied to
the order's amount and merchant. ``POST /v5/transactions`` then charges it;
``POST /v5/transaction/{id}/refund`` returns the money once.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import ConfigDict, Field

from pos_terminal.sandbox.clock import iso
from pos_terminal.sandbox.pos import problems
from pos_terminal.sandbox.problems import FieldError, ProblemError, not_found
from pos_terminal.sandbox.security import (
    READ_SCOPE,
    SUBMIT_SCOPE,
    Principal,
    authenticate,
    merchant_ids_of,
    require_scope,
    sandbox_of,
)
from pos_terminal.sandbox.server_guard import loopback_only
from pos_terminal.sandbox.state import Sandbox, move_funds, new_id, new_secret
from pos_terminal.sandbox.text import TextChecked
from pos_terminal.sandbox.wire import INT32_MAX, INT32_MIN, Boolean, Integral

router = APIRouter(prefix="/v5", tags=["Payments API v5"])
control_router = APIRouter(prefix="/sandbox", tags=["Sandbox control"], dependencies=[Depends(loopback_only)])

Int32 = Annotated[int, Field(ge=INT32_MIN, le=INT32_MAX, json_schema_extra={"format": "int32"}), Integral]
# bounds of one field sit in its type: a second ``Field(ge=...)`` on the attribute would not override the first
Cents = Annotated[int, Field(ge=0, le=INT32_MAX, json_schema_extra={"format": "int32"}), Integral]
Count = Annotated[int, Field(ge=1, le=INT32_MAX, json_schema_extra={"format": "int32"}), Integral]
Caller = Annotated[Principal, Depends(authenticate)]
AUTH_PROBLEMS = (401, 403, 429)
# the sandbox script's "fixed customer"
DEFAULT_CUSTOMER = "cus-ava"
# the test cards the emulated app offers; ``ok`` approves, the others are refused as ``err`` in the SDK callback
TestCard = Literal["ok", "declined", "insufficient_funds", "expired"]


class _Wire(TextChecked):
    model_config = ConfigDict(extra="ignore")


class MerchantRef(_Wire):
    id: str
    name: str


class ClientRef(_Wire):
    id: str | None = None


class PaymentCustomer(_Wire):
    id: str
    firstName: str
    lastName: str
    photo: str | None = None


class PaymentItem(_Wire):
    name: str
    quantity: Int32
    amount: Int32
    tax: Int32 | None = None


class PaymentTransaction(_Wire):
    """Payments transaction (2.4)."""

    id: str
    createdAt: str
    updatedAt: str
    completedAt: str | None = None
    refundedAt: str | None = None
    merchant: MerchantRef
    client: ClientRef
    total: int
    tax: int
    customer: PaymentCustomer
    items: list[PaymentItem]


class NonceResource(_Wire):
    """Nonce resource (2.3)."""

    nonce: str
    transaction: PaymentTransaction


class Charge(_Wire):
    """Body of ``POST /v5/transactions``."""

    nonce: str = Field(min_length=1)
    submit: Boolean
    total: Int32
    tax: Int32
    merchantId: str | None = None


class OrderItem(_Wire):
    """Order item (2.2): metadata only, never checked against the total."""

    name: str = Field(min_length=1, max_length=200)
    quantity: Count
    amount: Cents
    tax: Cents | None = None


class Order(_Wire):
    """The order (2.2) the customer approves, plus who approves it and with which test card."""

    orderStoreId: str | None = Field(default=None, min_length=1, max_length=64)
    merchantId: str | None = None
    customerId: str = DEFAULT_CUSTOMER
    clientId: str | None = None
    orderRef: str | None = Field(default=None, max_length=64)
    title: str | None = Field(default=None, max_length=200)
    total: Count
    tax: Cents = 0
    items: list[OrderItem] = Field(default_factory=list, max_length=200)
    card: TestCard | None = Field(default=None, description="Test card the customer pays with; default: their own")


class Refusal(ProblemError):
    """The customer cannot pay: 402 ``PAYMENT_DECLINED``; ``reason`` is the SDK's error code."""

    def __init__(self, reason: str, sentence: str) -> None:
        super().__init__(402, "PAYMENT_DECLINED", sentence)
        self.reason = reason


def _transaction(conn: sqlite3.Connection, payment_id: str) -> dict[str, Any]:
    row = conn.execute(
        "SELECT p.*, m.name AS merchant_name, c.first_name, c.last_name, c.photo FROM payments p"
        " JOIN merchants m ON m.id = p.merchant_id JOIN customers c ON c.customer_id = p.customer_id"
        " WHERE p.id = ?",
        (payment_id,),
    ).fetchone()
    return {
        "id": row["id"],
        "createdAt": iso(row["created_at"]),
        "updatedAt": iso(row["updated_at"]),
        "completedAt": iso(row["completed_at"]),
        "refundedAt": iso(row["refunded_at"]),
        "merchant": {"id": row["merchant_id"], "name": row["merchant_name"]},
        "client": {"id": row["client_id"]},
        "total": row["total"],
        "tax": row["tax"],
        "customer": {
            "id": row["customer_id"],
            "firstName": row["first_name"],
            "lastName": row["last_name"],
            "photo": row["photo"],
        },
        "items": json.loads(row["items"]),
    }


def _nonce(conn: sqlite3.Connection, sandbox: Sandbox, principal: Principal, nonce: str) -> sqlite3.Row:
    """A usable nonce the principal may act on: 404 unknown (or another's), 409 used, 410 expired."""
    row = conn.execute(
        "SELECT n.*, p.merchant_id FROM nonces n JOIN payments p ON p.id = n.payment_id WHERE n.nonce = ?", (nonce,)
    ).fetchone()
    if row is None or row["merchant_id"] not in merchant_ids_of(conn, principal):
        raise not_found("Nonce")
    if row["used_at"] is not None:
        raise ProblemError(409, "NONCE_USED", "The nonce was already used; a nonce charges once")
    if row["expires_at"] <= sandbox.clock.now_ms():
        raise ProblemError(410, "NONCE_EXPIRED", "The nonce has expired; ask the customer to approve again")
    found: sqlite3.Row = row
    return found


@router.get("/nonces/{nonce}", response_model=NonceResource, responses=problems(400, *AUTH_PROBLEMS, 404, 409, 410))
def get_nonce(request: Request, principal: Caller, nonce: str) -> dict[str, Any]:
    """The transaction behind a nonce, before charging it."""
    require_scope(principal, READ_SCOPE)
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        row = _nonce(conn, sandbox, principal, nonce)
        return {"nonce": row["nonce"], "transaction": _transaction(conn, row["payment_id"])}


@router.post(
    "/transactions",
    response_model=PaymentTransaction,
    responses=problems(400, *AUTH_PROBLEMS, 402, 404, 409, 410, 422),
)
def charge(request: Request, principal: Caller, body: Charge) -> dict[str, Any]:
    """Charge the order behind a nonce; ``total``, ``tax`` and ``merchantId`` must confirm it.

    ``submit: false`` only confirms the details: nothing is charged and the nonce stays usable.
    """
    require_scope(principal, SUBMIT_SCOPE)
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        row = _nonce(conn, sandbox, principal, body.nonce)
        payment = conn.execute("SELECT * FROM payments WHERE id = ?", (row["payment_id"],)).fetchone()
        mismatches = [
            FieldError(field=name, message=f"{sent} does not match the approved {truth}")
            for name, sent, truth in (
                ("total", body.total, payment["total"]),
                ("tax", body.tax, payment["tax"]),
                ("merchantId", body.merchantId, payment["merchant_id"]),
            )
            if sent is not None and sent != truth
        ]
        if mismatches:
            detail = "; ".join(f"{e.field}: {e.message}" for e in mismatches)
            raise ProblemError(422, "TRANSACTION_MISMATCH", detail, errors=mismatches)
        if not body.submit:
            return _transaction(conn, payment["id"])
        customer = conn.execute(
            "SELECT card, balance FROM customers WHERE customer_id = ?", (payment["customer_id"],)
        ).fetchone()
        if customer["card"] == "declined":
            raise ProblemError(402, "PAYMENT_DECLINED", "The customer's card was declined")
        if customer["card"] == "insufficient_funds" or customer["balance"] < payment["total"]:
            raise ProblemError(402, "PAYMENT_DECLINED", "The customer has insufficient funds for this charge")
        now = sandbox.clock.now_ms()
        conn.execute("UPDATE nonces SET used_at = ? WHERE nonce = ?", (now, body.nonce))
        conn.execute(
            "UPDATE payments SET completed_at = ?, updated_at = ?, client_id = COALESCE(client_id, ?) WHERE id = ?",
            (now, now, principal.client_id, payment["id"]),
        )
        move_funds(conn, payment["customer_id"], "debit", payment["total"], reference=payment["id"], at=now)
        return _transaction(conn, payment["id"])


@router.post(
    "/transaction/{transaction_id}/refund",
    response_model=PaymentTransaction,
    responses=problems(*AUTH_PROBLEMS, 404, 409, 400),
)
def refund(request: Request, principal: Caller, transaction_id: str) -> dict[str, Any]:
    """Refund a charged transaction, once; a second refund is 400 ``ALREADY_REFUNDED`` (published)."""
    require_scope(principal, SUBMIT_SCOPE)
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        payment = conn.execute("SELECT * FROM payments WHERE id = ?", (transaction_id,)).fetchone()
        if payment is None or payment["merchant_id"] not in merchant_ids_of(conn, principal):
            raise not_found(f"Transaction {transaction_id}")
        if payment["refunded_at"] is not None:
            raise ProblemError(400, "ALREADY_REFUNDED", "The transaction already has a refund")
        if payment["completed_at"] is None:
            raise ProblemError(409, "INVALID_STATE_TRANSITION", "The transaction was never charged; nothing to refund")
        now = sandbox.clock.now_ms()
        conn.execute("UPDATE payments SET refunded_at = ?, updated_at = ? WHERE id = ?", (now, now, transaction_id))
        move_funds(conn, payment["customer_id"], "refund", payment["total"], reference=transaction_id, at=now)
        return _transaction(conn, transaction_id)


def merchant_for(conn: sqlite3.Connection, order: Order) -> sqlite3.Row:
    """The merchant the order charges: its store through the store-to-merchant mapping, or a merchant id."""
    if order.merchantId is not None:
        merchant = conn.execute("SELECT id, name FROM merchants WHERE id = ?", (order.merchantId,)).fetchone()
        if merchant is None:
            raise not_found(f"Merchant {order.merchantId}")
    elif order.orderStoreId is not None:
        merchant = conn.execute("SELECT id, name FROM merchants WHERE store_id = ?", (order.orderStoreId,)).fetchone()
        if merchant is None:
            raise not_found(f"A merchant for store {order.orderStoreId}")
    else:
        error = FieldError(field="orderStoreId", message="is required")
        raise ProblemError(400, "BAD_REQUEST", "Give orderStoreId (or merchantId)", errors=[error])
    found: sqlite3.Row = merchant
    return found


def check_order(order: Order) -> None:
    """Rules of 2.2 that a field alone cannot say: tax is part of the total, and of each item's amount."""
    errors = (
        [FieldError(field="tax", message="is included in total and cannot exceed it")]
        if order.tax > order.total
        else []
    )
    errors += [
        FieldError(field=f"items[{index}].tax", message="is included in amount and cannot exceed it")
        for index, item in enumerate(order.items)
        if item.tax is not None and item.tax > item.amount
    ]
    if errors:
        raise ProblemError(422, "VALIDATION_FAILED", f"{errors[0].field} {errors[0].message}", errors=errors)


def approve(conn: sqlite3.Connection, sandbox: Sandbox, order: Order) -> dict[str, Any]:
    """The customer approves ``order`` in the app: a nonce resource (2.3), or :class:`Refusal`."""
    merchant = merchant_for(conn, order)
    check_order(order)
    customer = conn.execute("SELECT card, balance FROM customers WHERE customer_id = ?", (order.customerId,)).fetchone()
    if customer is None:
        raise not_found(f"Customer {order.customerId}")
    card = order.card or customer["card"]
    if card == "declined":
        raise Refusal("CARD_DECLINED", "The customer's card was declined")
    if card == "expired":
        raise Refusal("CARD_EXPIRED", "The customer's card has expired")
    if card == "insufficient_funds" or customer["balance"] < order.total:
        raise Refusal("INSUFFICIENT_FUNDS", "The customer has insufficient funds for this order")
    now = sandbox.clock.now_ms()
    payment_id = new_id()
    conn.execute(
        "INSERT INTO payments(id, merchant_id, customer_id, client_id, order_ref, title, total, tax, items,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            payment_id,
            merchant["id"],
            order.customerId,
            order.clientId,
            order.orderRef,
            order.title,
            order.total,
            order.tax,
            json.dumps([item.model_dump(exclude_none=True) for item in order.items]),
            now,
            now,
        ),
    )
    nonce = new_secret(24)
    conn.execute(
        "INSERT INTO nonces(nonce, payment_id, expires_at) VALUES (?, ?, ?)",
        (nonce, payment_id, now + sandbox.settings.nonce_ttl * 1000),
    )
    return {"nonce": nonce, "transaction": _transaction(conn, payment_id)}


@control_router.post("/nonces", status_code=201, response_model=NonceResource, responses=problems(400, 402, 404, 422))
def approve_order(request: Request, order: Order) -> dict[str, Any]:
    """The customer approves ``order`` in the app (the SDK's ``payment``): a nonce, or the refusal as 402."""
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        return approve(conn, sandbox, order)
