"""Sandbox control surface (contract section 8): not part of the service, loopback only.

Demo data, customers and check-ins, token minting, device approve/deny, the
clock, settings, tips and fault injection, so tests and demos can drive every
path of the service without a browser or a real customer.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from pos_terminal.sandbox import pos
from pos_terminal.sandbox.clock import iso
from pos_terminal.sandbox.faults import MODES, Fault
from pos_terminal.sandbox.pos import CHECKIN_QUERY, Customer, customer_of, problems
from pos_terminal.sandbox.problems import FieldError, ProblemError, not_found, validation_failed
from pos_terminal.sandbox.security import KNOWN_SCOPES, issue_tokens, sandbox_of
from pos_terminal.sandbox.server_guard import loopback_only
from pos_terminal.sandbox.state import ClockLimit, Sandbox, move_funds, new_id
from pos_terminal.sandbox.text import TextChecked
from pos_terminal.sandbox.wire import INT32_MAX, TEN_YEARS, Boolean, DateTime, Integral, Numeric

router = APIRouter(prefix="/sandbox", tags=["Sandbox control"], dependencies=[Depends(loopback_only)])


class _In(TextChecked):
    model_config = ConfigDict(extra="forbid")


class Merchant(BaseModel):
    id: str
    name: str
    organizationId: str | None
    storeId: str | None


class Store(BaseModel):
    """One row of the store-to-merchant mapping: an ordering platform's store is one merchant."""

    storeId: str
    merchantId: str


class StoreMapping(_In):
    merchantId: str


class NewCustomer(_In):
    firstName: str = Field(min_length=1)
    lastName: str = Field(min_length=1)
    memberNo: str | None = None
    balance: Annotated[int, Field(ge=0, le=INT32_MAX), Integral] = 100_000
    card: Literal["ok", "declined", "insufficient_funds"] = "ok"
    gender: str | None = None
    dob: DateTime | None = None
    notes: str | None = None


class SandboxCustomer(BaseModel):
    customerId: str
    firstName: str
    lastName: str
    memberNo: str | None
    balance: int
    held: int
    card: str


class LedgerEntry(BaseModel):
    kind: Literal["reserve", "release", "charge", "refund", "topup", "adjust", "debit"]
    amount: int
    balanceAfter: int
    reference: str | None
    at: str


class NewCheckin(_In):
    merchantId: str
    customerId: str


class MintToken(_In):
    merchantId: str | None = None
    organizationId: str | None = None
    scope: str = Field(default="posapi", min_length=1)
    expiresIn: (
        Annotated[int, Field(ge=0, le=TEN_YEARS, description="Seconds; 0: a token that never expires"), Integral] | None
    ) = None
    refresh: Boolean = False


class TokenResponse(BaseModel):
    access_token: str
    token_type: str
    expires_in: int | None = None
    scope: str
    resource_owner_type: str
    refresh_token: str | None = None


class DeviceApprove(_In):
    userCode: str
    merchantId: str | None = None


class DeviceDeny(_In):
    userCode: str


class ClockAdvance(_In):
    advanceSeconds: Annotated[float, Field(ge=0, le=TEN_YEARS), Numeric]


class ClockState(BaseModel):
    now: str
    offsetSeconds: float


class FaultSpec(_In):
    method: str = Field(min_length=1, description="HTTP method, or * for any")
    path: str = Field(min_length=1, description="Request path; * matches any run of characters")
    mode: Literal["drop_before", "drop_after", "error_before", "error_after", "delay", "rate_limit"]
    times: Annotated[int, Field(ge=1, le=1000), Integral] = 1
    delayMs: Annotated[int, Field(ge=0, le=120_000), Integral] = 0


class FaultOut(BaseModel):
    method: str
    path: str
    mode: str
    times: int
    delayMs: int


class SettingsOut(BaseModel):
    autoCancelSeconds: int
    tokenTtl: int
    deviceInterval: int
    deviceExpiresIn: int
    location: bool
    feeBasisPoints: int
    loyaltyPercent: int
    rotateRefreshTokens: bool


class SettingsPatch(_In):
    autoCancelSeconds: Annotated[int, Field(ge=1, le=7 * 86_400), Integral] | None = None
    tokenTtl: (
        Annotated[int, Field(ge=0, le=TEN_YEARS, description="Seconds; 0: tokens that never expire"), Integral] | None
    ) = None
    deviceInterval: Annotated[int, Field(ge=0, le=3_600), Integral] | None = None
    deviceExpiresIn: Annotated[int, Field(ge=1, le=86_400), Integral] | None = None
    location: Boolean | None = None
    feeBasisPoints: Annotated[int, Field(ge=0, le=10_000), Integral] | None = None
    loyaltyPercent: Annotated[int, Field(ge=0, le=100), Integral] | None = None
    rotateRefreshTokens: Boolean | None = Field(
        default=None, description="A refresh answers with a new refresh token; reusing a spent one revokes the grant"
    )


class Tip(_In):
    tipAmount: Annotated[int, Field(ge=0, le=INT32_MAX), Integral]


SETTING_NAMES = {
    "autoCancelSeconds": "auto_cancel_seconds",
    "tokenTtl": "token_ttl",
    "deviceInterval": "device_interval",
    "deviceExpiresIn": "device_expires_in",
    "location": "location",
    "feeBasisPoints": "fee_basis_points",
    "loyaltyPercent": "loyalty_percent",
    "rotateRefreshTokens": "rotate_refresh_tokens",
}


def _customer(sandbox: Sandbox, customer_id: str) -> dict[str, Any]:
    with sandbox.db.tx() as conn:
        pos.expire_authorized(conn, sandbox)
        row = conn.execute("SELECT * FROM customers WHERE customer_id = ?", (customer_id,)).fetchone()
    if row is None:
        raise not_found(f"Customer {customer_id}")
    return {
        "customerId": row["customer_id"],
        "firstName": row["first_name"],
        "lastName": row["last_name"],
        "memberNo": row["member_no"],
        "balance": row["balance"],
        "held": row["held"],
        "card": row["card"],
    }


def _merchant_exists(conn: Any, merchant_id: str) -> None:
    if conn.execute("SELECT 1 FROM merchants WHERE id = ?", (merchant_id,)).fetchone() is None:
        raise not_found(f"Merchant {merchant_id}")


@router.get("/merchants", response_model=list[Merchant])
def list_merchants(request: Request) -> list[dict[str, Any]]:
    with sandbox_of(request).db.tx() as conn:
        rows = conn.execute("SELECT * FROM merchants ORDER BY name").fetchall()
    return [
        {"id": r["id"], "name": r["name"], "organizationId": r["organization_id"], "storeId": r["store_id"]}
        for r in rows
    ]


@router.get("/stores", response_model=list[Store])
def list_stores(request: Request) -> list[dict[str, Any]]:
    """The store-to-merchant mapping that ``orderStoreId`` of a web payment goes through."""
    with sandbox_of(request).db.tx() as conn:
        rows = conn.execute(
            "SELECT store_id, id FROM merchants WHERE store_id IS NOT NULL ORDER BY store_id"
        ).fetchall()
    return [{"storeId": r["store_id"], "merchantId": r["id"]} for r in rows]


@router.put("/stores/{store_id}", response_model=Store, responses=problems(400, 404))
def map_store(request: Request, store_id: str, body: StoreMapping) -> dict[str, Any]:
    """Set up ``store_id`` for a merchant; the merchant's previous store, if any, is no longer mapped."""
    if not store_id.strip() or len(store_id) > 64:
        raise ProblemError(400, "BAD_REQUEST", "A store id is 1 to 64 characters")
    with sandbox_of(request).db.tx() as conn:
        _merchant_exists(conn, body.merchantId)
        conn.execute("UPDATE merchants SET store_id = NULL WHERE store_id = ?", (store_id,))
        conn.execute("UPDATE merchants SET store_id = ? WHERE id = ?", (store_id, body.merchantId))
    return {"storeId": store_id, "merchantId": body.merchantId}


@router.delete("/stores/{store_id}", status_code=204, responses=problems(404))
def unmap_store(request: Request, store_id: str) -> Response:
    """Remove the mapping: web payments for ``store_id`` are refused until it is set up again."""
    with sandbox_of(request).db.tx() as conn:
        if not conn.execute("UPDATE merchants SET store_id = NULL WHERE store_id = ?", (store_id,)).rowcount:
            raise not_found(f"Store {store_id}")
    return Response(status_code=204)


@router.post("/customers", status_code=201, response_model=SandboxCustomer, responses=problems(400))
def create_customer(request: Request, body: NewCustomer) -> dict[str, Any]:
    sandbox = sandbox_of(request)
    customer_id = new_id()
    with sandbox.db.tx() as conn:
        conn.execute(
            "INSERT INTO customers(customer_id, first_name, last_name, gender, dob, member_no, notes, balance, card)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)",
            (customer_id, body.firstName, body.lastName, body.gender, body.dob, body.memberNo, body.notes, body.card),
        )
        move_funds(conn, customer_id, "topup", body.balance, reference="sandbox", at=sandbox.clock.now_ms())
    return _customer(sandbox, customer_id)


@router.get("/customers/{customer_id}", response_model=SandboxCustomer, responses=problems(404))
def get_customer(request: Request, customer_id: str) -> dict[str, Any]:
    return _customer(sandbox_of(request), customer_id)


@router.get("/customers/{customer_id}/ledger", response_model=list[LedgerEntry], responses=problems(404))
def customer_ledger(request: Request, customer_id: str) -> list[dict[str, Any]]:
    """Every movement of the customer's money, oldest first."""
    sandbox = sandbox_of(request)
    _customer(sandbox, customer_id)
    with sandbox.db.tx() as conn:
        rows = conn.execute("SELECT * FROM ledger WHERE customer_id = ? ORDER BY id", (customer_id,)).fetchall()
    return [
        {
            "kind": r["kind"],
            "amount": r["amount"],
            "balanceAfter": r["balance_after"],
            "reference": r["reference"],
            "at": iso(r["at"]),
        }
        for r in rows
    ]


@router.post("/checkins", status_code=201, response_model=Customer, responses=problems(400, 404, 409))
def check_in(request: Request, body: NewCheckin) -> dict[str, Any]:
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        _merchant_exists(conn, body.merchantId)
        if conn.execute("SELECT 1 FROM customers WHERE customer_id = ?", (body.customerId,)).fetchone() is None:
            raise not_found(f"Customer {body.customerId}")
        live = conn.execute(
            f"{CHECKIN_QUERY} WHERE k.merchant_id = ? AND k.customer_id = ? AND k.checked_out_at IS NULL",
            (body.merchantId, body.customerId),
        ).fetchone()
        if live is not None:
            return customer_of(live)
        # the next number after the merchant's highest (demo data numbers across merchants, so a count collides)
        number = conn.execute(
            "SELECT COALESCE(MAX(CAST(check_in_number AS INTEGER)), 100) - 100 FROM checkins WHERE merchant_id = ?",
            (body.merchantId,),
        ).fetchone()[0]
        check_in_id = new_id()
        conn.execute(
            "INSERT INTO checkins(check_in_id, merchant_id, customer_id, check_in_number, check_in_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (check_in_id, body.merchantId, body.customerId, str(101 + number), sandbox.clock.now_ms()),
        )
        row = conn.execute(f"{CHECKIN_QUERY} WHERE k.check_in_id = ?", (check_in_id,)).fetchone()
    return customer_of(row)


@router.delete("/checkins/{check_in_id}", status_code=204, responses=problems(404))
def check_out(request: Request, check_in_id: str) -> Response:
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        updated = conn.execute(
            "UPDATE checkins SET checked_out_at = ? WHERE check_in_id = ? AND checked_out_at IS NULL",
            (sandbox.clock.now_ms(), check_in_id),
        ).rowcount
    if not updated:
        raise not_found(f"Live check-in {check_in_id}")
    return Response(status_code=204)


@router.post(
    "/tokens",
    status_code=201,
    response_model=TokenResponse,
    response_model_exclude_none=True,
    responses=problems(400, 404),
)
def mint_token(request: Request, body: MintToken) -> dict[str, Any]:
    """A token response (2.1) without the browser flow: a manually created token."""
    sandbox = sandbox_of(request)
    if (body.merchantId is None) == (body.organizationId is None):
        raise ProblemError(400, "BAD_REQUEST", "Give exactly one of merchantId and organizationId")
    unknown = [s for s in body.scope.split() if s not in KNOWN_SCOPES]
    if unknown or not body.scope.split():
        raise ProblemError(400, "BAD_REQUEST", f"Unknown scope: {' '.join(unknown) or '(empty)'}")
    with sandbox.db.tx() as conn:
        if body.merchantId is not None:
            _merchant_exists(conn, body.merchantId)
            owner_type, owner_id = "merchant", body.merchantId
        else:
            if conn.execute("SELECT 1 FROM organizations WHERE id = ?", (body.organizationId,)).fetchone() is None:
                raise not_found(f"Organization {body.organizationId}")
            owner_type, owner_id = "organization", str(body.organizationId)
        return issue_tokens(
            conn,
            sandbox,
            client_id=None,
            owner_type=owner_type,
            owner_id=owner_id,
            scope=" ".join(body.scope.split()),
            with_refresh=body.refresh,
            expires_in=body.expiresIn,
            grant_id=new_id(),
        )


def _pending_device(conn: Any, sandbox: Sandbox, user_code: str) -> Any:
    normalized = "".join(ch for ch in user_code.upper() if ch.isalnum())
    row = conn.execute(
        "SELECT * FROM device_codes WHERE user_code = ? AND status = 'pending' AND expires_at > ?",
        (normalized, sandbox.clock.now_ms()),
    ).fetchone()
    if row is None:
        raise not_found(f"Pending device code {user_code}")
    return row


@router.post("/device/approve", status_code=204, responses=problems(400, 404))
def device_approve(request: Request, body: DeviceApprove) -> Response:
    """Approve a pending device code as the signed-in person would (merchant defaults to the demo one)."""
    sandbox = sandbox_of(request)
    merchant_id = body.merchantId or "mer-cafe"
    with sandbox.db.tx() as conn:
        _merchant_exists(conn, merchant_id)
        row = _pending_device(conn, sandbox, body.userCode)
        conn.execute(
            "UPDATE device_codes SET status = 'approved', merchant_id = ?, username = 'sandbox' WHERE device_code = ?",
            (merchant_id, row["device_code"]),
        )
    return Response(status_code=204)


@router.post("/device/deny", status_code=204, responses=problems(400, 404))
def device_deny(request: Request, body: DeviceDeny) -> Response:
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        row = _pending_device(conn, sandbox, body.userCode)
        conn.execute("UPDATE device_codes SET status = 'denied' WHERE device_code = ?", (row["device_code"],))
    return Response(status_code=204)


def _clock_state(sandbox: Sandbox) -> dict[str, Any]:
    return {"now": iso(sandbox.clock.now_ms()), "offsetSeconds": sandbox.clock.offset_ms / 1000}


@router.get("/clock", response_model=ClockState)
def get_clock(request: Request) -> dict[str, Any]:
    return _clock_state(sandbox_of(request))


@router.post("/clock", response_model=ClockState, responses=problems(400, 422))
def advance_clock(request: Request, body: ClockAdvance) -> dict[str, Any]:
    """Move the sandbox's clock forward; overdue authorized transactions are canceled at once."""
    sandbox = sandbox_of(request)
    try:
        sandbox.advance_clock(body.advanceSeconds)
    except ClockLimit as exc:
        raise validation_failed([FieldError(field="advanceSeconds", message=str(exc))]) from None
    with sandbox.db.tx() as conn:
        pos.expire_authorized(conn, sandbox)
    return _clock_state(sandbox)


@router.get("/faults", response_model=list[FaultOut])
def list_faults(request: Request) -> list[dict[str, Any]]:
    return [f.as_json() for f in sandbox_of(request).faults.list()]


@router.post("/faults", status_code=201, response_model=FaultOut, responses=problems(400))
def arm_fault(request: Request, body: FaultSpec) -> dict[str, Any]:
    assert body.mode in MODES
    fault = Fault(method=body.method.upper(), path=body.path, mode=body.mode, times=body.times, delay_ms=body.delayMs)
    sandbox_of(request).faults.arm(fault)
    return fault.as_json()


@router.delete("/faults", status_code=204)
def disarm_faults(request: Request) -> Response:
    sandbox_of(request).faults.clear()
    return Response(status_code=204)


def _settings(sandbox: Sandbox) -> dict[str, Any]:
    return {wire: getattr(sandbox.settings, attr) for wire, attr in SETTING_NAMES.items()}


@router.get("/settings", response_model=SettingsOut)
def get_settings(request: Request) -> dict[str, Any]:
    """The sandbox's published knobs, including its fee rate and loyalty benefit."""
    return _settings(sandbox_of(request))


@router.patch("/settings", response_model=SettingsOut, responses=problems(400))
def patch_settings(request: Request, body: SettingsPatch) -> dict[str, Any]:
    sandbox = sandbox_of(request)
    for wire, value in body.model_dump(exclude_none=True).items():
        setattr(sandbox.settings, SETTING_NAMES[wire], value)
    return _settings(sandbox)


@router.post(
    "/transactions/{transaction_id}/tip",
    response_model=pos.Transaction,
    responses=problems(400, 402, 404, 409),
)
def add_tip(request: Request, transaction_id: str, body: Tip) -> dict[str, Any]:
    """The customer sets a tip in the app while the transaction is authorized; it is reserved with the charge."""
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        pos.expire_authorized(conn, sandbox)
        row = conn.execute(
            "SELECT t.*, c.balance FROM transactions t JOIN customers c ON c.customer_id = t.customer_id"
            " WHERE t.transaction_id = ?",
            (transaction_id,),
        ).fetchone()
        if row is None:
            raise not_found(f"Transaction {transaction_id}")
        if row["state"] != "authorized":
            raise ProblemError(
                409, "INVALID_STATE_TRANSITION", f"A tip can only be added while authorized, not {row['state']}"
            )
        difference = body.tipAmount - row["tip_amount"]
        if difference > row["balance"]:
            raise ProblemError(402, "PAYMENT_DECLINED", "The customer has insufficient funds for this tip")
        now = sandbox.clock.now_ms()
        if difference:
            kind = "reserve" if difference > 0 else "release"
            move_funds(conn, row["customer_id"], kind, abs(difference), reference=transaction_id, at=now)
        conn.execute(
            "UPDATE transactions SET tip_amount = ?, fee_amount = ?, updated = ? WHERE transaction_id = ?",
            (body.tipAmount, pos.fee_for(sandbox, row["charged_amount"] + body.tipAmount), now, transaction_id),
        )
        return pos.record_of(pos.load_transaction(conn, row["merchant_id"], transaction_id))


@router.get("/transactions/{transaction_id}", response_model=pos.Transaction, responses=problems(404))
def peek_transaction(request: Request, transaction_id: str) -> dict[str, Any]:
    """Any merchant's transaction, for tests and demos."""
    sandbox = sandbox_of(request)
    with sandbox.db.tx() as conn:
        pos.expire_authorized(conn, sandbox)
        row = conn.execute(
            "SELECT merchant_id FROM transactions WHERE transaction_id = ?", (transaction_id,)
        ).fetchone()
        if row is None:
            raise not_found(f"Transaction {transaction_id}")
        return pos.record_of(pos.load_transaction(conn, row["merchant_id"], transaction_id))
