"""The SDK's published surface (4.3) in a real browser, on an integrator's page of another origin.

The page is served by a loopback site on its own port, as an integrator's development
server would be; the sandbox script and the SDK come from the sandbox, at each of the
SDK's addresses (current and pinned, normal and minified).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.browser.conftest import LoopbackSite, Snap

SHEET = "iframe[name^=wps-sheet]"
SERVICE_SCOPES = "service-api:transaction.read service-api:transaction.submit"
ADDRESSES = [f"{v}/{name}" for v in ("current", "v1.0.0") for name in ("web-payments.js", "web-payments.min.js")]
ORDER = {"orderStoreId": "store-bistro", "orderRef": "T-1", "title": "Table 4", "total": 3000, "tax": 273}
# starts a payment; its callback's outcome is kept for the test to read
PAY = """order => { window.outcome = new Promise(resolve => WebPayments.payment(order, (err, result) =>
    resolve(err ? {code: err.code, message: err.message, field: err.field || null, name: err.name} : result))) }"""


def shop_page(site: LoopbackSite, *scripts: str) -> str:
    """An integrator's checkout page at ``site`` loading ``scripts``; its address."""
    tags = "".join(f"<script src='{src}'></script>" for src in scripts)
    site.pages["/checkout"] = f"<!doctype html><html><head><title>Shop</title>{tags}</head><body><h1>Shop</h1>"
    return f"{site.url}/checkout"


def pay(page: Any, order: Any) -> dict[str, Any]:
    page.evaluate(PAY, order)
    outcome: dict[str, Any] = page.evaluate("() => window.outcome")
    return outcome


@pytest.mark.parametrize("address", ADDRESSES)
def test_every_address_serves_the_whole_sdk(
    page: Any, sandbox: SandboxServer, client: httpx.Client, site: LoopbackSite, address: str
) -> None:
    page.goto(shop_page(site, f"{sandbox.url}/sdk/current/sandbox.js", f"{sandbox.url}/sdk/{address}"))
    customer = page.evaluate(
        "() => [WebPayments.getFirstName(), WebPayments.getLastName(), WebPayments.getEmail(),"
        " WebPayments.getGender(), WebPayments.getPhone(), WebPayments.version]"
    )
    assert customer == ["Ava", "Nguyen", "ava.nguyen@example.com", "female", "+61412345678", "1.0.0"]

    page.evaluate(PAY, ORDER)
    sheet = page.frame_locator(SHEET)
    assert sheet.locator(".payee").text_content() == "Pay Quayside Bistro", "store-bistro maps to the bistro"
    sheet.locator("button[value=approve]").click()
    nonce = page.evaluate("() => window.outcome")["nonce"]

    token = client.post("/sandbox/tokens", json={"organizationId": "org-harbour", "scope": SERVICE_SCOPES}).json()
    read = httpx.get(f"{sandbox.url}/v5/nonces/{nonce}", headers={"Authorization": f"Bearer {token['access_token']}"})
    assert read.status_code == 200, read.text
    transaction = read.json()["transaction"]
    assert (transaction["total"], transaction["tax"], transaction["merchant"]["id"]) == (3000, 273, "mer-bistro")


SOUP = {"name": "Soup", "quantity": 1, "amount": 100}
INVALID = [
    pytest.param(None, "order", id="not-an-object"),
    pytest.param({**ORDER, "orderStoreId": ""}, "orderStoreId", id="no-store"),
    pytest.param({**ORDER, "total": 0}, "total", id="zero-total"),
    pytest.param({**ORDER, "total": 12.5}, "total", id="fractional-total"),
    pytest.param({**ORDER, "total": 2**31}, "total", id="beyond-int32"),
    pytest.param({**ORDER, "tax": 3001}, "tax", id="tax-above-total"),
    pytest.param({**ORDER, "items": "soup"}, "items", id="items-not-a-list"),
    pytest.param({**ORDER, "items": [{**SOUP, "quantity": 0}]}, "items[0].quantity", id="no-quantity"),
    pytest.param({**ORDER, "items": [{**SOUP, "tax": 101}]}, "items[0].tax", id="item-tax-above-amount"),
]


@pytest.mark.parametrize(("order", "field"), INVALID)
def test_an_invalid_order_is_refused_before_the_customer_sees_it(
    page: Any, sandbox: SandboxServer, site: LoopbackSite, order: Any, field: str
) -> None:
    minified = f"{sandbox.url}/sdk/current/web-payments.min.js"
    page.goto(shop_page(site, f"{sandbox.url}/sdk/current/sandbox.js", minified))
    outcome = pay(page, order)
    assert (outcome["code"], outcome["field"], outcome["name"]) == ("INVALID_ORDER", field, "PaymentError")
    assert field in outcome["message"]
    assert page.locator(SHEET).count() == 0


def test_store_mapping_decides_the_merchant(
    page: Any, sandbox: SandboxServer, client: httpx.Client, site: LoopbackSite
) -> None:
    page.goto(shop_page(site, f"{sandbox.url}/sdk/current/sandbox.js", f"{sandbox.url}/sdk/current/web-payments.js"))
    unmapped = pay(page, {**ORDER, "orderStoreId": "store-17"})
    assert unmapped["code"] == "UNKNOWN_STORE"
    assert unmapped["message"] == "No merchant is set up for store store-17; the payment cannot be made."

    client.put("/sandbox/stores/store-17", json={"merchantId": "mer-cafe"}).raise_for_status()
    page.evaluate(PAY, {**ORDER, "orderStoreId": "store-17"})
    assert page.frame_locator(SHEET).locator(".payee").text_content() == "Pay Harbour Café"


def test_programming_errors_throw_and_one_payment_waits_at_a_time(
    page: Any, sandbox: SandboxServer, site: LoopbackSite
) -> None:
    page.goto(shop_page(site, f"{sandbox.url}/sdk/current/sandbox.js", f"{sandbox.url}/sdk/current/web-payments.js"))
    thrown = page.evaluate(
        "() => [() => WebPayments.payment({}), () => WebPayments.complete(5)]"
        ".map(act => { try { act(); return null } catch (e) { return e.name } })"
    )
    assert thrown == ["TypeError", "TypeError"]
    page.evaluate(PAY, ORDER)
    page.frame_locator(SHEET).locator("button[value=approve]").wait_for()
    second = page.evaluate(
        "order => new Promise(resolve => WebPayments.payment(order, err => resolve(err.code)))", ORDER
    )
    assert second == "PAYMENT_IN_PROGRESS"
    page.locator(".wps-head button").click()
    first = page.evaluate("() => window.outcome")
    assert first["code"] == "PAYMENT_REJECTED", "closing the sheet rejects the payment"


def test_complete_shows_a_close_button_and_close_closes(page: Any, sandbox: SandboxServer, site: LoopbackSite) -> None:
    page.goto(shop_page(site, f"{sandbox.url}/sdk/current/sandbox.js", f"{sandbox.url}/sdk/current/web-payments.js"))
    page.evaluate("() => WebPayments.complete('Your table will be served shortly.')")
    done = page.locator(".wps-done")
    assert done.text_content() == "Your table will be served shortly.Close"
    done.get_by_role("button", name="Close").click()
    page.get_by_text("The app closed this page (sandbox).").wait_for()
    page.reload()
    page.evaluate("() => WebPayments.close()")
    page.get_by_role("status").wait_for()


def test_without_the_app_there_is_no_customer_and_no_payment(
    page: Any, sandbox: SandboxServer, site: LoopbackSite
) -> None:
    page.goto(shop_page(site, f"{sandbox.url}/sdk/current/web-payments.js"))
    assert page.evaluate("() => [WebPayments.getFirstName(), WebPayments.getPhone()]") == [None, None]
    outcome = pay(page, ORDER)
    assert outcome["code"] == "APP_UNAVAILABLE"
    page.evaluate("() => { WebPayments.complete(); WebPayments.close() }")


def test_the_sandbox_script_works_only_against_the_sandbox(
    page: Any, sandbox: SandboxServer, client: httpx.Client, site: LoopbackSite, snap: Snap
) -> None:
    """A copy served from elsewhere finds no sandbox; next to an SDK from elsewhere it refuses too."""
    site.files["/sdk/current/sandbox.js"] = client.get("/sdk/current/sandbox.js").content
    site.files["/sdk/current/web-payments.js"] = client.get("/sdk/current/web-payments.js").content
    page.goto(shop_page(site, f"{site.url}/sdk/current/sandbox.js", f"{site.url}/sdk/current/web-payments.js"))
    warning = page.get_by_role("alert")
    warning.wait_for()
    assert warning.text_content().startswith(f"This sandbox script works only against the sandbox, and {site.url}")
    outcome = pay(page, ORDER)
    assert outcome["code"] == "SANDBOX_ONLY"
    snap(page, "sandbox-script-elsewhere")

    page.goto(shop_page(site, f"{sandbox.url}/sdk/current/sandbox.js", f"{site.url}/sdk/current/web-payments.js"))
    outcome = pay(page, ORDER)
    assert outcome["code"] == "SANDBOX_ONLY"
    assert f"loads the SDK from {site.url}" in outcome["message"]
    assert page.locator(SHEET).count() == 0
