"""The SDK's addresses, its committed minified build, the approval sheet's routes and the pages' escaping.

What a browser does with these is in ``tests/browser``; here they are plain HTTP over loopback.
The minified build is committed (so the package serves it with no build step) and must be
exactly what ``rjsmin`` makes of the source: ``make minify`` rewrites it after a change.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import rjsmin

from pos_terminal.sandbox import SandboxServer
from pos_terminal.sandbox.sdk import FILES, SDK_DIR, releases
from tests.sandbox.helpers import advance, assert_problem

ORIGIN = "http://127.0.0.1:8000"
ORDER = {"orderStoreId": "store-cafe", "orderRef": "A-7", "total": 1_250, "tax": 114}


@pytest.mark.parametrize("release", releases())
def test_the_minified_build_is_rjsmin_of_the_source(release: str) -> None:
    source = (SDK_DIR / release / "web-payments.js").read_text(encoding="utf-8")
    built = (SDK_DIR / release / "web-payments.min.js").read_text(encoding="utf-8")
    assert built == rjsmin.jsmin(source, keep_bang_comments=True), f"run make minify ({release})"
    assert f'var VERSION = "{release[1:]}";' in source, "the version inside is the folder's"
    assert len(built) < 0.75 * len(source)


def test_current_is_the_newest_release_and_pinned_addresses_stay(client: httpx.Client) -> None:
    newest = releases()[-1]
    assert client.get("/sdk/environment").json() == {
        "environment": "sandbox",
        "current": newest,
        "releases": list(releases()),
    }
    for name in FILES:
        current = client.get(f"/sdk/current/{name}")
        pinned = client.get(f"/sdk/{newest}/{name}")
        assert current.status_code == pinned.status_code == 200
        assert current.content == pinned.content == (SDK_DIR / newest / name).read_bytes()
        assert current.headers["content-type"] == "text/javascript; charset=utf-8"
        assert current.headers["access-control-allow-origin"] == "*"
        assert current.headers["cache-control"] == "public, max-age=300"
        assert pinned.headers["cache-control"] == "public, max-age=31536000, immutable"


@pytest.mark.parametrize("path", ["/sdk/v0.0.1/web-payments.js", "/sdk/current/other.js", "/sdk/current/..%2Fx"])
def test_anything_else_under_sdk_is_404(client: httpx.Client, path: str) -> None:
    assert_problem(client.get(path), 404, "NOT_FOUND")


def test_templates_and_static_files_are_package_data() -> None:
    """Every file the pages need is matched by pyproject's package-data, so a wheel carries it."""
    import tomllib

    root = Path(__file__).parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    package = root / "pos_terminal"
    shipped = {p for pattern in patterns["pos_terminal"] for p in package.glob(pattern) if p.is_file()}
    needed = {p for folder in ("templates", "static") for p in (package / "sandbox" / folder).rglob("*") if p.is_file()}
    assert needed, "the sandbox has pages"
    assert needed <= shipped, sorted(str(p.relative_to(package)) for p in needed - shipped)


# --- the approval sheet ------------------------------------------------------------------------------------------


def reply_of(page: httpx.Response) -> dict[str, Any]:
    """What the outcome page hands to the asking page."""
    found = re.search(r"data-reply='([^']*)'", page.text)
    assert found, page.text
    reply: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return reply


def open_sheet(client: httpx.Client, order: Any = ORDER, origin: str = ORIGIN) -> httpx.Response:
    return client.post("/sandbox/app/approvals", data={"order": json.dumps(order), "origin": origin})


def sheet_action(page: httpx.Response) -> str:
    found = re.search(r"action='(/sandbox/app/approvals/[^']+)'", page.text)
    assert found, page.text
    return found.group(1)


def test_the_sheet_escapes_what_the_page_sent(client: httpx.Client) -> None:
    sheet = open_sheet(client, {**ORDER, "title": "<script>alert(1)</script>", "orderRef": "a'b"})
    assert sheet.status_code == 200
    assert "<script>alert" not in sheet.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in sheet.text
    assert "a&#39;b" in sheet.text
    assert "$12.50" in sheet.text and "Harbour Café" in sheet.text and "Ava Nguyen" in sheet.text
    assert f"data-origin='{ORIGIN}'" in sheet.text


def test_approve_hands_back_a_nonce_once(client: httpx.Client) -> None:
    action = sheet_action(open_sheet(client))
    approved = reply_of(client.post(action, data={"decision": "approve", "card": "ok", "origin": ORIGIN}))
    assert set(approved) == {"nonce"}
    again = client.post(action, data={"decision": "approve", "card": "ok", "origin": ORIGIN})
    assert again.status_code == 410
    assert reply_of(again)["error"]["code"] == "APPROVAL_EXPIRED"


@pytest.mark.parametrize(
    ("form", "code"),
    [
        ({"decision": "reject"}, "PAYMENT_REJECTED"),
        ({"decision": "approve", "card": "declined"}, "CARD_DECLINED"),
        ({"decision": "approve", "card": "insufficient_funds"}, "INSUFFICIENT_FUNDS"),
        ({"decision": "approve", "card": "expired"}, "CARD_EXPIRED"),
    ],
)
def test_refusals_carry_the_sdk_code(client: httpx.Client, form: dict[str, str], code: str) -> None:
    outcome = client.post(sheet_action(open_sheet(client)), data=form)
    assert reply_of(outcome)["error"]["code"] == code
    assert f"data-origin='{ORIGIN}'" in outcome.text, "the answer goes to the page that asked, only"


def test_a_sheet_left_open_expires_by_the_sandbox_clock(client: httpx.Client) -> None:
    action = sheet_action(open_sheet(client))
    advance(client, 601)
    assert reply_of(client.post(action, data={"decision": "approve"}))["error"]["code"] == "APPROVAL_EXPIRED"


@pytest.mark.parametrize(
    ("order", "code", "field"),
    [
        ({**ORDER, "orderStoreId": "store-17"}, "UNKNOWN_STORE", "orderStoreId"),
        ({**ORDER, "tax": 2_000}, "INVALID_ORDER", "tax"),
        ({**ORDER, "total": "12.50"}, "INVALID_ORDER", "total"),
        ("not json", "INVALID_ORDER", "order"),
    ],
)
def test_an_order_the_app_refuses_never_shows_a_sheet(client: httpx.Client, order: Any, code: str, field: str) -> None:
    data = {"order": order if isinstance(order, str) else json.dumps(order), "origin": ORIGIN}
    error = reply_of(client.post("/sandbox/app/approvals", data=data))["error"]
    assert (error["code"], error["field"]) == (code, field)


def test_a_sheet_needs_the_asking_pages_origin(client: httpx.Client) -> None:
    for origin in ("", "*", "javascript:alert(1)", "http://127.0.0.1/path"):
        refused = open_sheet(client, origin=origin)
        assert refused.status_code == 400
        assert "data-origin" not in refused.text


# --- the example's back end, without a browser -------------------------------------------------------------------


def test_the_example_prices_orders_itself_and_checks_the_guest(sandbox: SandboxServer, client: httpx.Client) -> None:
    api = f"{sandbox.url}/examples/ordering/api/orders"
    guest = {"name": "Ava Nguyen", "email": "", "phone": "+61 412 345 678"}
    created = httpx.post(api, json={"lines": [{"id": "bagel", "quantity": 2}], "customer": guest})
    assert created.status_code == 201, created.text
    order = created.json()["order"]
    assert (order["orderStoreId"], order["total"], order["tax"]) == ("store-cafe", 2_500, 228)
    assert order["items"] == [{"name": "Salmon bagel", "quantity": 2, "amount": 2_500, "tax": 228}]

    wrong = httpx.post(api, json={"lines": [{"id": "bagel", "quantity": 1}], "customer": {"email": "x@", "phone": "1"}})
    assert wrong.status_code == 422
    assert set(wrong.json()["errors"]) == {"name", "email", "phone"}
    assert httpx.post(api, json={"lines": [{"id": "caviar", "quantity": 1}], "customer": guest}).status_code == 422
    assert httpx.post(api, data={"lines": "x"}).status_code == 400, "only JSON: a cross-site form cannot post here"
    not_connected = httpx.post(f"{api}/{order['orderRef']}/payment", json={"nonce": "x"})
    assert not_connected.status_code == 409
    assert not_connected.json()["message"] == "The shop is not connected to the service; connect it first."


def test_the_page_cannot_choose_who_pays_or_how(client: httpx.Client) -> None:
    sheet = open_sheet(client, {**ORDER, "customerId": "cus-liam", "merchantId": "mer-bistro", "card": "declined"})
    assert "Ava Nguyen" in sheet.text and "Harbour Café" in sheet.text
    approved = reply_of(client.post(sheet_action(sheet), data={"decision": "approve", "card": "ok"}))
    assert "nonce" in approved
