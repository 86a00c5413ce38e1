"""An ordering page's back end, written as an integrator should write one (README: "Web payments").

The page (``templates/examples/ordering/index.html`` with ``static/assets/ordering.js``)
sells a small menu to a guest. It asks this back end for an order, has the customer
approve it through the SDK, and sends the nonce here. This back end talks to the
service as any integrator's server does, over HTTP:

1. Once, an organization connects the shop through the authorization-code flow
   (4.1, with ``state`` and PKCE) for the scopes ``service-api:transaction.read``
   and ``service-api:transaction.submit``; the tokens stay on the server.
2. For each order: ``GET /v5/nonces/{nonce}`` reads the transaction behind the
   nonce and checks it is this order; ``POST /v5/transactions`` charges it,
   confirming ``total``, ``tax`` and ``merchantId``.
3. On request, ``POST /v5/transaction/{id}/refund`` refunds it, once.

Every call's request and answer goes back to the page, which shows them. Nothing
here touches the sandbox's database: all it knows came over HTTP. It keeps its
orders and its connection in memory; a real shop keeps them in its database, the
tokens encrypted.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import re
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from pos_terminal.sandbox.pages import render

router = APIRouter(prefix="/examples/ordering", include_in_schema=False)

# --- the shop's settings: what an integrator keeps in its configuration ----------------------------------------

CLIENT_ID = "ordering-example"  # issued by the service's support, one pair per environment
CLIENT_SECRET = "ordering-example-secret"  # noqa: S105 - the sandbox's published credential; keep a real one secret
SCOPE = "service-api:transaction.read service-api:transaction.submit"
STORE_ID = "store-cafe"  # the shop's own id of the store; the service maps it to a merchant
MERCHANT_ID = "mer-cafe"  # the merchant that store maps to: every charge confirms it
STATE_COOKIE = "ordering_login"
TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class MenuItem:
    id: str
    name: str
    price: int  # cents, tax included
    tax: int  # cents included in price


MENU = (
    MenuItem("flat-white", "Flat white", 450, 41),
    MenuItem("croissant", "Almond croissant", 520, 47),
    MenuItem("bagel", "Salmon bagel", 1250, 114),
)
MENU_BY_ID = {item.id: item for item in MENU}
MAX_QUANTITY = 20
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
PHONE = re.compile(r"\+[1-9][0-9]{1,14}")


# --- the shop's state --------------------------------------------------------------------------------------------


@dataclass
class Connection:
    """The organization's tokens: never sent to a browser, never logged."""

    access_token: str
    refresh_token: str | None

    def __repr__(self) -> str:
        return "Connection(<tokens hidden>)"


@dataclass
class ShopOrder:
    ref: str
    lines: list[tuple[MenuItem, int]]
    customer: dict[str, str]
    status: str = "new"  # new, paid, refunded
    transaction_id: str | None = None

    @property
    def total(self) -> int:
        return sum(item.price * quantity for item, quantity in self.lines)

    @property
    def tax(self) -> int:
        return sum(item.tax * quantity for item, quantity in self.lines)

    def for_sdk(self) -> dict[str, Any]:
        """The order (2.2) the page hands to ``WebPayments.payment``."""
        count = sum(quantity for _, quantity in self.lines)
        return {
            "orderStoreId": STORE_ID,
            "orderRef": self.ref,
            "title": f"Order {self.ref}, {count} item{'s' if count != 1 else ''}",
            "total": self.total,
            "tax": self.tax,
            "items": [
                {"name": item.name, "quantity": quantity, "amount": item.price * quantity, "tax": item.tax * quantity}
                for item, quantity in self.lines
            ],
        }


@dataclass
class Shop:
    """Everything the example back end remembers, for one sandbox."""

    connection: Connection | None = None
    logins: dict[str, str] = field(default_factory=dict)  # state -> PKCE verifier, while a sign-in is under way
    orders: dict[str, ShopOrder] = field(default_factory=dict)
    numbers: itertools.count[int] = field(default_factory=lambda: itertools.count(1001))
    lock: threading.Lock = field(default_factory=threading.Lock)


def _shop(request: Request) -> Shop:
    shop: Shop = request.state.ordering
    return shop


def service_url(request: Request) -> str:
    """Where the service is. The sandbox serves this example, so it is the same address;
    a real back end reads the sandbox's or production's address from its settings."""
    return str(request.base_url).rstrip("/")


def _redirect_uri(request: Request) -> str:
    return f"{service_url(request)}/examples/ordering/callback"


# --- talking to the service, keeping each step for the page ------------------------------------------------------


class Steps:
    """Each call's request and answer, as the page shows them (the token masked)."""

    def __init__(self) -> None:
        self.shown: list[dict[str, Any]] = []

    def add(self, title: str, response: httpx.Response, body: dict[str, Any] | None) -> None:
        try:
            answer: Any = response.json()
        except ValueError:
            answer = response.text
        headers = {"Authorization": "Bearer …"} if "authorization" in response.request.headers else {}
        self.shown.append(
            {
                "title": title,
                "request": {
                    "method": response.request.method,
                    "url": str(response.request.url),
                    "headers": headers,
                    "body": body,
                },
                "response": {"status": response.status_code, "body": answer},
            }
        )


async def _token(http: httpx.AsyncClient, form: dict[str, str]) -> httpx.Response:
    """``POST /v1/token`` as a confidential client (client_id and client_secret in the body, as 4.1 shows)."""
    return await http.post("/v1/token", data={**form, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET})


async def _call(
    shop: Shop, http: httpx.AsyncClient, steps: Steps, title: str, method: str, path: str, body: dict[str, Any] | None
) -> httpx.Response:
    """A payments API call with the organization's token; after a 401, one refresh and one more try."""
    connection = shop.connection
    assert connection is not None
    response = await http.request(
        method, path, json=body, headers={"Authorization": f"Bearer {connection.access_token}"}
    )
    steps.add(title, response, body)
    if response.status_code != 401 or connection.refresh_token is None:
        return response
    refreshed = await _token(http, {"grant_type": "refresh_token", "refresh_token": connection.refresh_token})
    if refreshed.status_code != 200:
        shop.connection = None
        return response
    # the refresh answer has no refresh_token: the shop keeps the one it has
    connection.access_token = refreshed.json()["access_token"]
    response = await http.request(
        method, path, json=body, headers={"Authorization": f"Bearer {connection.access_token}"}
    )
    steps.add(f"{title} (after renewing the token)", response, body)
    return response


def _problem(response: httpx.Response) -> str:
    """The service's sentence for a refused call."""
    try:
        body = response.json()
    except ValueError:
        return f"The service answered {response.status_code}."
    detail = body.get("detail") if isinstance(body, dict) else None
    return str(detail or body.get("title") or f"The service answered {response.status_code}.")


def _answer(status: int, message: str, steps: Steps, **extra: Any) -> JSONResponse:
    return JSONResponse({"message": message, "steps": steps.shown, **extra}, status_code=status)


# --- pages: the shop, and connecting an organization ---------------------------------------------------------------


@router.get("/")
def shop_page(request: Request, problem: str | None = None) -> Response:
    """The ordering page: the menu, guest checkout with the SDK, the result with every step."""
    sdk = f"{service_url(request)}/sdk/current"
    return render(
        "examples/ordering/index.html",
        title="Harbour Café: order ahead",
        connected=_shop(request).connection is not None,
        problem=problem,
        menu=MENU,
        sandbox_script=f"{sdk}/sandbox.js",
        sdk_script=f"{sdk}/web-payments.js",
        headers={"Cache-Control": "no-store"},
    )


@router.get("/connect")
def connect(request: Request) -> Response:
    """Start the authorization-code flow for an organization: ``state`` against forgery, PKCE against theft."""
    state = secrets.token_urlsafe(24)
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    shop = _shop(request)
    with shop.lock:
        shop.logins[state] = verifier
    query = urlencode(
        {
            "client_id": CLIENT_ID,
            "response_type": "code",
            "redirect_uri": _redirect_uri(request),
            "scope": SCOPE,
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    response = RedirectResponse(f"{service_url(request)}/authorize/organization?{query}", status_code=303)
    response.set_cookie(STATE_COOKIE, state, httponly=True, samesite="lax", path="/examples/ordering", max_age=600)
    return response


@router.get("/callback")
async def callback(request: Request) -> Response:
    """Back from the authorization page: check ``state``, exchange the code, keep the tokens."""
    shop = _shop(request)
    params = request.query_params
    state = params.get("state", "")
    with shop.lock:
        verifier = shop.logins.pop(state, None)
    if verifier is None or not secrets.compare_digest(state, request.cookies.get(STATE_COOKIE, "")):
        return _back(problem="The sign-in answer does not belong to this browser. Connect again.")
    if params.get("error") or not params.get("code"):
        return _back(problem="The organization did not grant access. Connect again to retry.")
    async with httpx.AsyncClient(base_url=service_url(request), timeout=TIMEOUT_SECONDS) as http:
        exchanged = await _token(
            http,
            {
                "grant_type": "authorization_code",
                "code": params["code"],
                "redirect_uri": _redirect_uri(request),
                "code_verifier": verifier,
            },
        )
    tokens = exchanged.json() if exchanged.status_code == 200 else {}
    granted = set(str(tokens.get("scope", "")).split())
    if "access_token" not in tokens or not set(SCOPE.split()) <= granted:
        return _back(problem="The service did not grant the payments scopes. Connect again.")
    shop.connection = Connection(tokens["access_token"], tokens.get("refresh_token"))
    return _back()


@router.post("/disconnect")
def disconnect(request: Request) -> Response:
    """Forget the organization's tokens (5.2: an application offers a disconnect)."""
    _shop(request).connection = None
    return _back()


def _back(problem: str | None = None) -> Response:
    query = f"?{urlencode({'problem': problem})}" if problem else ""
    response = RedirectResponse(f"/examples/ordering/{query}", status_code=303)
    response.delete_cookie(STATE_COOKIE, path="/examples/ordering")
    return response


# --- the page's API: an order, its payment, its refund -------------------------------------------------------------


async def _json(request: Request) -> dict[str, Any] | None:
    """The body as a JSON object; only ``application/json`` is accepted, which a cross-site form cannot send."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return None
    try:
        body = await request.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _checkout_errors(customer: Any) -> dict[str, str]:
    """Guest checkout: a name to call out, and a valid e-mail address and phone number when given."""
    if not isinstance(customer, dict):
        return {"name": "Enter your name."}
    errors = {}
    name = customer.get("name")
    if not isinstance(name, str) or not name.strip():
        errors["name"] = "Enter your name."
    elif len(name) > 100:
        errors["name"] = "Use at most 100 characters."
    email = customer.get("email") or ""
    if not isinstance(email, str) or (email and not EMAIL.fullmatch(email)):
        errors["email"] = "Enter an e-mail address like name@example.com, or leave it empty."
    phone = customer.get("phone") or ""
    if not isinstance(phone, str) or (phone and not PHONE.fullmatch(phone.replace(" ", ""))):
        errors["phone"] = "Enter the number with its country code, like +61 412 345 678, or leave it empty."
    return errors


@router.post("/api/orders")
async def create_order(request: Request) -> JSONResponse:
    """An order from the menu for the guest: the amounts come from the menu here, never from the page."""
    body = await _json(request)
    if body is None:
        return JSONResponse({"message": "Send the order as JSON."}, status_code=400)
    lines: list[tuple[MenuItem, int]] = []
    for line in body.get("lines") or []:
        item = MENU_BY_ID.get(str(line.get("id"))) if isinstance(line, dict) else None
        quantity = line.get("quantity") if isinstance(line, dict) else None
        if item is None or not isinstance(quantity, int) or not 0 < quantity <= MAX_QUANTITY:
            return JSONResponse({"message": "The order has an item that is not on the menu."}, status_code=422)
        lines.append((item, quantity))
    if not lines:
        return JSONResponse({"message": "Choose something from the menu first."}, status_code=422)
    errors = _checkout_errors(body.get("customer"))
    if errors:
        return JSONResponse({"message": "Check the details you entered.", "errors": errors}, status_code=422)
    shop = _shop(request)
    with shop.lock:
        ref = f"A-{next(shop.numbers)}"
        order = ShopOrder(ref, lines, {k: str(v) for k, v in body["customer"].items() if v})
        shop.orders[ref] = order
    return JSONResponse({"order": order.for_sdk()}, status_code=201)


@router.post("/api/orders/{ref}/payment")
async def pay(request: Request, ref: str) -> JSONResponse:
    """Charge the order with the customer's nonce: read the transaction behind it, then submit."""
    shop = _shop(request)
    order = shop.orders.get(ref)
    body = await _json(request)
    steps = Steps()
    if order is None or body is None or not isinstance(body.get("nonce"), str):
        return _answer(404, "There is no such order to pay.", steps)
    if shop.connection is None:
        return _answer(409, "The shop is not connected to the service; connect it first.", steps)
    if order.status != "new":
        return _answer(409, f"Order {ref} is already {order.status}.", steps)
    nonce = body["nonce"]
    async with httpx.AsyncClient(base_url=service_url(request), timeout=TIMEOUT_SECONDS) as http:
        title = "Read the transaction behind the nonce"
        read = await _call(shop, http, steps, title, "GET", f"/v5/nonces/{nonce}", None)
        if read.status_code != 200:
            return _answer(502, f"The payment could not be read: {_problem(read)}", steps)
        approved = read.json()["transaction"]
        if (approved["total"], approved["tax"], approved["merchant"]["id"]) != (order.total, order.tax, MERCHANT_ID):
            return _answer(409, "The approved payment is not for this order; nothing was charged.", steps)
        charge = {"nonce": nonce, "submit": True, "total": order.total, "tax": order.tax, "merchantId": MERCHANT_ID}
        submitted = await _call(shop, http, steps, "Charge: submit the nonce", "POST", "/v5/transactions", charge)
    if submitted.status_code != 200:
        return _answer(502, f"The payment was not taken: {_problem(submitted)}", steps)
    transaction = submitted.json()
    order.status, order.transaction_id = "paid", transaction["id"]
    return _answer(200, f"Order {ref} is paid.", steps, transaction=transaction)


@router.post("/api/orders/{ref}/refund")
async def refund(request: Request, ref: str) -> JSONResponse:
    """Refund a paid order, once."""
    shop = _shop(request)
    order = shop.orders.get(ref)
    steps = Steps()
    if order is None or order.transaction_id is None:
        return _answer(404, "There is no paid order to refund.", steps)
    if order.status == "refunded":
        return _answer(409, f"Order {ref} was already refunded.", steps)
    if shop.connection is None:
        return _answer(409, "The shop is not connected to the service; connect it first.", steps)
    path = f"/v5/transaction/{order.transaction_id}/refund"
    async with httpx.AsyncClient(base_url=service_url(request), timeout=TIMEOUT_SECONDS) as http:
        refunded = await _call(shop, http, steps, "Refund the transaction", "POST", path, None)
    if refunded.status_code != 200:
        return _answer(502, f"The refund was refused: {_problem(refunded)}", steps)
    order.status = "refunded"
    return _answer(200, f"Order {ref} is refunded.", steps, transaction=refunded.json())
