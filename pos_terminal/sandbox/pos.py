"""POS API v4 (contract section 1): customers, transactions, state changes, summaries."""

from __future__ import annotations

import json
import sqlite3
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from pos_terminal.sandbox.clock import iso, parse_iso_ms
from pos_terminal.sandbox.problems import PROBLEM_JSON, Problem, ProblemError, not_found, validation_failed
from pos_terminal.sandbox.rules import MAX_REF_LENGTH, check_errors
from pos_terminal.sandbox.security import pos_merchant, sandbox_of
from pos_terminal.sandbox.state import Sandbox, move_funds, new_id
from pos_terminal.sandbox.text import TextChecked
from pos_terminal.sandbox.wire import DateTime, Int32, QueryBoolean

Time = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
DATE_TIME: dict[str, Any] = {"json_schema_extra": {"format": "date-time"}}
MerchantId = Annotated[str, Depends(pos_merchant)]


def problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for problem-details answers."""
    return {
        status: {"model": Problem, "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}}
        for status in statuses
    }


AUTH_PROBLEMS = (400, 401, 403, 429)


class _Wire(TextChecked):
    model_config = ConfigDict(extra="ignore")


class Customer(_Wire):
    """POS customer (2.5)."""

    customerId: str | None = None
    firstName: str | None = None
    lastName: str | None = None
    gender: str | None = None
    dob: Time | None = None
    memberNo: str | None = None
    checkInId: str | None = None
    checkInNumber: str | None = None
    checkInDate: Time | None = None
    notes: str | None = None


class CustomerRef(Customer):
    """The customer of a create request: the check-in it names must be live. Its times are checked,
    since the transaction's record answers them back."""

    customerId: str
    checkInId: str
    dob: DateTime | None = None
    checkInDate: DateTime | None = None


class Item(_Wire):
    id: str | None = None
    name: str
    quantity: Int32
    amount: Int32
    tax: Int32 | None = None


class Discount(_Wire):
    id: str | None = None
    name: str
    amount: Int32
    tax: Int32 | None = None


class Payment(_Wire):
    method: str
    amount: Int32


class Modifier(_Wire):
    name: str
    amount: Int32
    tax: Int32


class CreateTransaction(_Wire):
    """Fields sent when creating a transaction (2.6)."""

    pointsEarned: Int32 | None = None
    refId: Annotated[str | None, Field(json_schema_extra={"maxLength": MAX_REF_LENGTH})] = None
    terminalId: Annotated[str | None, Field(json_schema_extra={"maxLength": MAX_REF_LENGTH})] = None
    chargeAmount: Int32
    itemTotal: Int32
    itemTax: Int32 | None = None
    discountTotal: Int32 | None = None
    discountTax: Int32 | None = None
    total: Int32
    tax: Int32 | None = None
    balance: Int32
    customer: CustomerRef
    # at least one: a rule of the check (422 naming items, contract section 7), written for clients here
    items: Annotated[list[Item], Field(json_schema_extra={"minItems": 1})]
    discounts: list[Discount] | None = None
    payments: list[Payment] | None = None


class Created(BaseModel):
    state: Literal["authorized"]


class Transaction(_Wire):
    """Full transaction record (2.7)."""

    transactionId: str
    state: Literal["authorized", "complete", "canceled", "refunded"]
    created: Time
    updated: Time
    completed: Time | None = None
    refId: str | None = None
    terminalId: str | None = None
    chargeAmount: Int32
    itemTotal: Int32
    itemTax: Int32 | None = None
    discountTotal: Int32 | None = None
    discountTax: Int32 | None = None
    total: Int32
    tax: Int32 | None = None
    balance: Int32
    customer: Customer
    items: list[Item]
    discounts: list[Discount] | None = None
    payments: list[Payment] | None = None
    tipAmount: Int32
    modifiedAmount: Int32
    chargedAmount: Int32
    feeAmount: Int32
    modifiers: list[Modifier]


class StateChange(_Wire):
    state: Literal["canceled", "complete", "refunded"]


class Summary(BaseModel):
    """Summary record (2.8), contract section 5."""

    terminalId: str | None
    total: int
    fees: int
    payout: int
    tips: int
    count: int
    from_: Time = Field(alias="from")
    to: Time

    model_config = ConfigDict(populate_by_name=True)


router = APIRouter(prefix="/v4", tags=["POS API v4"])

# --- shared with the admin routes ----------------------------------------------------------

TRANSITIONS = {("authorized", "complete"), ("authorized", "canceled"), ("complete", "refunded")}
RECORD_COLUMNS = (
    "transaction_id, state, created, updated, completed, terminal_id, ref_id, charge_amount,"
    " charged_amount, fee_amount, tip_amount, customer_id, record"
)


def expire_authorized(conn: sqlite3.Connection, sandbox: Sandbox) -> int:
    """Cancel every authorized transaction whose auto-cancel time has come; returns how many."""
    rows = conn.execute(
        "SELECT transaction_id, customer_id, charged_amount, tip_amount, auto_cancel_at FROM transactions"
        " WHERE state = 'authorized' AND auto_cancel_at <= ?",
        (sandbox.clock.now_ms(),),
    ).fetchall()
    for row in rows:
        conn.execute(
            "UPDATE transactions SET state = 'canceled', updated = ? WHERE transaction_id = ?",
            (row["auto_cancel_at"], row["transaction_id"]),
        )
        move_funds(
            conn,
            row["customer_id"],
            "release",
            row["charged_amount"] + row["tip_amount"],
            reference=row["transaction_id"],
            at=row["auto_cancel_at"],
        )
    return len(rows)


def record_of(row: sqlite3.Row) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(row["record"])
    record.update(
        transactionId=row["transaction_id"],
        state=row["state"],
        created=iso(row["created"]),
        updated=iso(row["updated"]),
        completed=iso(row["completed"]),
        tipAmount=row["tip_amount"],
        chargedAmount=row["charged_amount"],
        modifiedAmount=row["charged_amount"] - row["charge_amount"],
        feeAmount=row["fee_amount"],
    )
    return record


def load_transaction(conn: sqlite3.Connection, merchant_id: str, transaction_id: str) -> sqlite3.Row:
    row: sqlite3.Row | None = conn.execute(
        f"SELECT {RECORD_COLUMNS} FROM transactions WHERE transaction_id = ? AND merchant_id = ?",  # noqa: S608
        (transaction_id, merchant_id),
    ).fetchone()
    if row is None:
        raise not_found(f"Transaction {transaction_id}")
    return row


def fee_for(sandbox: Sandbox, amount: int) -> int:
    """The sandbox's published fee: ``fee_basis_points`` of what is charged, rounded half up."""
    return (amount * sandbox.settings.fee_basis_points + 5_000) // 10_000


def change_state(
    sandbox: Sandbox, conn: sqlite3.Connection, merchant_id: str, transaction_id: str, wanted: str
) -> sqlite3.Row:
    """Apply one transition of the state table; repeating the current state changes nothing."""
    expire_authorized(conn, sandbox)
    row = load_transaction(conn, merchant_id, transaction_id)
    current = row["state"]
    if wanted == current:
        return row
    if (current, wanted) not in TRANSITIONS:
        raise ProblemError(
            409,
            "INVALID_STATE_TRANSITION",
            f"A transaction that is {current} cannot be set to {wanted}",
        )
    now = sandbox.clock.now_ms()
    amount = row["charged_amount"] + row["tip_amount"]
    kind = {"complete": "charge", "canceled": "release", "refunded": "refund"}[wanted]
    move_funds(conn, row["customer_id"], kind, amount, reference=transaction_id, at=now)
    conn.execute(
        "UPDATE transactions SET state = ?, updated = ?, completed = COALESCE(?, completed) WHERE transaction_id = ?",
        (wanted, now, now if wanted == "complete" else None, transaction_id),
    )
    return load_transaction(conn, merchant_id, transaction_id)


def customer_of(row: sqlite3.Row) -> dict[str, Any]:
    """A check-in joined with its customer, as the POS customer (2.5)."""
    return {
        "customerId": row["customer_id"],
        "firstName": row["first_name"],
        "lastName": row["last_name"],
        "gender": row["gender"],
        "dob": row["dob"],
        "memberNo": row["member_no"],
        "checkInId": row["check_in_id"],
        "checkInNumber": row["check_in_number"],
        "checkInDate": iso(row["check_in_at"]),
        "notes": row["notes"],
    }


CHECKIN_QUERY = (
    "SELECT k.check_in_id, k.check_in_number, k.check_in_at, c.* FROM checkins k"
    " JOIN customers c ON c.customer_id = k.customer_id"
)


def _time(name: str, value: str | None, default: int | None = None) -> int:
    if value is None:
        if default is None:
            raise ProblemError(400, "BAD_REQUEST", f"{name} is required", errors=[])
        return default
    try:
        ms = parse_iso_ms(value)
        iso(ms)  # answered back in summaries: must lie within the calendar once in UTC
        return ms
    except (ValueError, OverflowError):
        raise ProblemError(400, "BAD_REQUEST", f"{name} is not an ISO 8601 date-time: {value!r}") from None


# --- routes ---------------------------------------------------------------------------------


@router.get("/customers", response_model=list[Customer], responses=problems(*AUTH_PROBLEMS))
def list_customers(request: Request, merchant_id: MerchantId) -> list[dict[str, Any]]:
    """Customers checked in at the token's merchant, most recent check-in first."""
    with sandbox_of(request).db.tx() as conn:
        rows = conn.execute(
            f"{CHECKIN_QUERY} WHERE k.merchant_id = ? AND k.checked_out_at IS NULL ORDER BY k.check_in_at DESC",
            (merchant_id,),
        ).fetchall()
    return [customer_of(r) for r in rows]


@router.get("/transactions", response_model=list[Transaction], responses=problems(*AUTH_PROBLEMS))
def list_transactions(
    request: Request,
    merchant_id: MerchantId,
    from_: Annotated[str, Query(alias="from", description="ISO 8601 UTC, inclusive (on created)", **DATE_TIME)],
    to: Annotated[str, Query(description="ISO 8601 UTC, exclusive", **DATE_TIME)],
    terminalId: Annotated[str | None, Query()] = None,
) -> list[dict[str, Any]]:
    start, end = _time("from", from_), _time("to", to)
    sandbox = sandbox_of(request)
    sql = f"SELECT {RECORD_COLUMNS} FROM transactions WHERE merchant_id = ? AND created >= ? AND created < ?"  # noqa: S608
    args: list[Any] = [merchant_id, start, end]
    if terminalId is not None:
        sql += " AND terminal_id = ?"
        args.append(terminalId)
    with sandbox.db.tx() as conn:
        expire_authorized(conn, sandbox)
        rows = conn.execute(sql + " ORDER BY created, transaction_id", args).fetchall()
    return [record_of(r) for r in rows]


@router.post(
    "/transactions",
    status_code=201,
    response_model=Created,
    responses={
        201: {"headers": {"Location": {"description": "Address of the new transaction", "schema": {"type": "string"}}}},
        **problems(*AUTH_PROBLEMS, 402, 409, 422),
    },
)
def create_transaction(
    request: Request, response: Response, merchant_id: MerchantId, body: CreateTransaction
) -> dict[str, str]:
    """Charge a checked-in customer: reserves their funds; the transaction starts authorized."""
    errors = check_errors(body)
    if errors:
        raise validation_failed(errors)
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        checkin = conn.execute(
            f"{CHECKIN_QUERY} WHERE k.check_in_id = ? AND k.merchant_id = ? AND k.customer_id = ?"
            " AND k.checked_out_at IS NULL",
            (body.customer.checkInId, merchant_id, body.customer.customerId),
        ).fetchone()
        if checkin is None:
            raise ProblemError(
                409,
                "CUSTOMER_NOT_CHECKED_IN",
                f"Customer {body.customer.customerId} has no live check-in {body.customer.checkInId} at this merchant",
            )
        modifiers = _loyalty(sandbox, checkin, body)
        charged = body.chargeAmount + sum(m["amount"] for m in modifiers)
        _authorize_card(checkin, charged)
        now = sandbox.clock.now_ms()
        transaction_id = new_id()
        record = body.model_dump(mode="json", exclude={"pointsEarned"})
        record["customer"] = {**customer_of(checkin), **body.customer.model_dump(exclude_none=True)}
        record["modifiers"] = modifiers
        conn.execute(
            "INSERT INTO transactions(transaction_id, merchant_id, customer_id, terminal_id, ref_id, state, created,"
            " updated, auto_cancel_at, charge_amount, charged_amount, fee_amount, total, record)"
            " VALUES (?, ?, ?, ?, ?, 'authorized', ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                transaction_id,
                merchant_id,
                checkin["customer_id"],
                body.terminalId,
                body.refId,
                now,
                now,
                now + sandbox.settings.auto_cancel_seconds * 1000,
                body.chargeAmount,
                charged,
                fee_for(sandbox, charged),
                body.total,
                json.dumps(record),
            ),
        )
        move_funds(conn, checkin["customer_id"], "reserve", charged, reference=transaction_id, at=now)
    if sandbox.settings.location:
        response.headers["Location"] = str(request.url_for("get_transaction", transaction_id=transaction_id))
    return {"state": "authorized"}


def _loyalty(sandbox: Sandbox, checkin: sqlite3.Row, body: CreateTransaction) -> list[dict[str, Any]]:
    """Members get ``loyalty_percent`` off what is charged, with the matching share of tax."""
    if not checkin["member_no"] or sandbox.settings.loyalty_percent <= 0:
        return []
    benefit = (body.chargeAmount * sandbox.settings.loyalty_percent + 50) // 100
    if benefit <= 0:
        return []
    lines_tax = sum(i.tax or 0 for i in body.items) + sum(d.tax or 0 for d in body.discounts or ())
    tax = body.tax if body.tax is not None else lines_tax
    tax_share = (2 * benefit * tax + body.total) // (2 * body.total) if body.total else 0
    tax_share = min(max(tax_share, 0), benefit)  # tax is included in the benefit: 0 <= share <= benefit
    return [{"name": f"Member reward {sandbox.settings.loyalty_percent}%", "amount": -benefit, "tax": -tax_share}]


def _authorize_card(checkin: sqlite3.Row, amount: int) -> None:
    if checkin["card"] == "declined":
        raise ProblemError(402, "PAYMENT_DECLINED", "The customer's card was declined")
    if checkin["card"] == "insufficient_funds" or checkin["balance"] < amount:
        raise ProblemError(402, "PAYMENT_DECLINED", "The customer has insufficient funds for this charge")


@router.get("/transactions/{transaction_id}", response_model=Transaction, responses=problems(*AUTH_PROBLEMS, 404))
def get_transaction(request: Request, merchant_id: MerchantId, transaction_id: str) -> dict[str, Any]:
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        expire_authorized(conn, sandbox)
        return record_of(load_transaction(conn, merchant_id, transaction_id))


@router.patch(
    "/transactions/{transaction_id}",
    response_model=Transaction,
    responses=problems(*AUTH_PROBLEMS, 404, 409),
)
def update_state(request: Request, merchant_id: MerchantId, transaction_id: str, body: StateChange) -> dict[str, Any]:
    """Complete, cancel or refund; repeating the current state succeeds with no effect."""
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        return record_of(change_state(sandbox, conn, merchant_id, transaction_id, body.state))


@router.get(
    "/summary",
    response_model=list[Summary] | Summary,
    responses=problems(*AUTH_PROBLEMS),
    response_model_by_alias=True,
)
def summary(
    request: Request,
    merchant_id: MerchantId,
    from_: Annotated[str, Query(alias="from", description="ISO 8601 UTC, inclusive (on completed)", **DATE_TIME)],
    to: Annotated[str | None, Query(description="ISO 8601 UTC, exclusive; now when absent", **DATE_TIME)] = None,
    terminalId: Annotated[str | None, Query()] = None,
    merge: Annotated[QueryBoolean, Query(description="true: one record for all terminals")] = False,
) -> list[dict[str, Any]] | dict[str, Any]:
    """Completed transactions in [from, to), one record per terminal or merged into one."""
    sandbox = sandbox_of(request)
    start = _time("from", from_)
    end = _time("to", to, default=sandbox.clock.now_ms())
    group = "NULL" if merge else "terminal_id"
    sql = (
        f"SELECT {group} AS terminal_id, COUNT(*) AS count, COALESCE(SUM(total), 0) AS total,"  # noqa: S608
        " COALESCE(SUM(fee_amount), 0) AS fees, COALESCE(SUM(tip_amount), 0) AS tips,"
        " COALESCE(SUM(charge_amount), 0) AS charges FROM transactions"
        " WHERE merchant_id = ? AND state = 'complete' AND completed >= ? AND completed < ?"
    )
    args: list[Any] = [merchant_id, start, end]
    if terminalId is not None:
        sql += " AND terminal_id = ?"
        args.append(terminalId)
    if not merge:
        sql += " GROUP BY terminal_id ORDER BY terminal_id IS NOT NULL, terminal_id"
    with sandbox.db.tx() as conn:
        expire_authorized(conn, sandbox)
        rows = conn.execute(sql, args).fetchall()
    records = [
        {
            "terminalId": terminalId if merge else r["terminal_id"],
            "count": r["count"],
            "total": r["total"],
            "fees": r["fees"],
            "tips": r["tips"],
            "payout": r["charges"] + r["tips"] - r["fees"],
            "from": iso(start),
            "to": iso(end),
        }
        for r in rows
    ]
    return records[0] if merge else records
