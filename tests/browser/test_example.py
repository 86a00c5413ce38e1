"""The example ordering page in a real browser: connect, order, approve in the sandbox app, charge, refund.

The sandbox serves the page, the SDK, the sandbox script and the back end; the back end
charges over real HTTP with the organization token the browser's sign-in gave it.
Money is checked in the customer's balance through the control surface.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.browser.conftest import Snap

EXAMPLE = "/examples/ordering/"
SHEET = "iframe[name^=wps-sheet]"


def balance(client: httpx.Client, customer_id: str = "cus-ava") -> int:
    return int(client.get(f"/sandbox/customers/{customer_id}").json()["balance"])


def connect(page: Any, sandbox: SandboxServer, snap: Snap | None = None) -> None:
    """The organization's owner connects the shop: sign in, pick the organization, approve."""
    page.goto(f"{sandbox.url}{EXAMPLE}")
    if snap:
        snap(page, "ordering-not-connected")
    page.click("#connect")
    page.wait_for_url("**/authorize/organization?**")
    if snap:
        snap(page, "authorize-organization-sign-in")
    page.fill("#username", "demo")
    page.fill("#password", "demo")
    page.click("button[type=submit]")
    page.get_by_text("Harbour Hospitality Group").wait_for()
    scopes = [code.text_content() for code in page.locator("code.scope").all()]
    assert scopes == ["service-api:transaction.read", "service-api:transaction.submit"]
    if snap:
        snap(page, "authorize-organization-approve")
    page.click("button[value=approve]")
    page.wait_for_url(f"**{EXAMPLE}")
    page.get_by_text("The shop is connected").wait_for()


def choose(page: Any, **quantities: int) -> None:
    for item, quantity in quantities.items():
        for _ in range(quantity):
            page.click(f"li[data-item={item.replace('_', '-')}] .more")


def test_guest_pays_and_the_back_end_charges_then_refunds_once(
    page: Any, sandbox: SandboxServer, client: httpx.Client, snap: Snap
) -> None:
    before = balance(client)
    connect(page, sandbox, snap)

    choose(page, bagel=1, flat_white=2)
    assert page.input_value("#name") == "Ava Nguyen", "the SDK fills in the guest checkout"
    assert page.input_value("#email") == "ava.nguyen@example.com"
    assert page.input_value("#phone") == "+61412345678"
    assert page.text_content("#total") == "$21.50"
    assert page.text_content("#pay") == "Pay $21.50"
    snap(page, "ordering-checkout")

    page.click("#pay")
    sheet = page.frame_locator(SHEET)
    sheet.get_by_text("Harbour Café").wait_for()
    assert sheet.locator(".amount").text_content() == "$21.50"
    assert "Ava Nguyen" in sheet.locator("dl.order").text_content()
    snap(page, "approval-sheet", at=SHEET)
    assert balance(client) == before, "nothing is charged before the customer approves"

    sheet.locator("button[value=approve]").click()
    page.locator("#outcome.ok").wait_for()
    outcome = page.text_content("#outcome")
    assert outcome.startswith("Order A-1001 is paid. Transaction ")
    steps = page.locator("#steps li")
    assert steps.count() == 2
    assert steps.nth(0).locator("pre").first.text_content().startswith("GET http")
    assert "/v5/nonces/" in steps.nth(0).text_content()
    submit = steps.nth(1).text_content()
    assert "POST http" in submit and "/v5/transactions" in submit
    assert '"merchantId": "mer-cafe"' in submit and '"total": 2150' in submit and '"tax": 196' in submit
    assert [s.text_content() for s in page.locator("#steps .status").all()] == ["200", "200"]
    assert "Bearer …" in submit, "the token is never shown"
    assert balance(client) == before - 2150
    page.get_by_text("Thank you! Order A-1001 is paid.").wait_for()
    snap(page, "ordering-paid", at="#result")

    page.click("#refund")
    page.get_by_text("Order A-1001 is refunded.").wait_for()
    assert page.locator("#refund").is_hidden(), "an order is refunded once"
    assert "/v5/transaction/" in page.locator("#steps li").nth(2).text_content()
    assert balance(client) == before
    snap(page, "ordering-refunded", at="#steps li:last-child")


REFUSALS = [
    pytest.param(None, "PAYMENT_REJECTED", "The customer rejected the payment.", id="rejected"),
    pytest.param("declined", "CARD_DECLINED", "The customer's card was declined.", id="declined"),
    pytest.param(
        "insufficient_funds",
        "INSUFFICIENT_FUNDS",
        "The customer has insufficient funds for this order.",
        id="insufficient-funds",
    ),
    pytest.param("expired", "CARD_EXPIRED", "The customer's card has expired.", id="expired-card"),
]


@pytest.mark.parametrize(("card", "code", "sentence"), REFUSALS)
def test_each_refusal_reaches_the_callback_as_an_error(
    page: Any, sandbox: SandboxServer, client: httpx.Client, card: str | None, code: str, sentence: str
) -> None:
    before = balance(client)
    page.goto(f"{sandbox.url}{EXAMPLE}")
    page.evaluate(
        """() => { window.outcome = new Promise(resolve => WebPayments.payment(
               {orderStoreId: "store-cafe", total: 1200, tax: 109, items: [{name: "Soup", quantity: 1, amount: 1200}]},
               (err, result) => resolve({
                   err: err && {code: err.code, message: err.message, isError: err instanceof Error},
                   result: result === undefined ? "none" : result}))) }"""
    )
    sheet = page.frame_locator(SHEET)
    if card is None:
        sheet.locator("button[value=reject]").click()
    else:
        sheet.locator(f"input[value={card}]").check()
        sheet.locator("button[value=approve]").click()
    outcome = page.evaluate("() => window.outcome")
    assert outcome == {"err": {"code": code, "message": sentence, "isError": True}, "result": "none"}
    assert page.locator(SHEET).count() == 0, "the sheet closes"
    assert balance(client) == before


def test_a_refusal_is_shown_next_to_the_pay_button(page: Any, sandbox: SandboxServer, snap: Snap) -> None:
    page.goto(f"{sandbox.url}{EXAMPLE}")
    choose(page, croissant=1)
    page.click("#pay")
    sheet = page.frame_locator(SHEET)
    sheet.locator("input[value=expired]").check()
    sheet.locator("button[value=approve]").click()
    error = page.locator("#payment-error")
    error.wait_for()
    assert error.text_content() == "The customer's card has expired. (CARD_EXPIRED)"
    assert page.text_content("#pay") == "Pay $5.20", "the guest can try again"
    snap(page, "ordering-refused")


def test_checkout_errors_stand_next_to_their_fields(page: Any, sandbox: SandboxServer, snap: Snap) -> None:
    page.goto(f"{sandbox.url}{EXAMPLE}")
    choose(page, croissant=2)
    page.fill("#name", "")
    page.fill("#email", "ava at example")
    page.click("#pay")
    page.locator("#email-error").wait_for()
    assert page.text_content("#name-error") == "Enter your name."
    assert page.get_attribute("#email", "aria-invalid") == "true"
    assert page.locator("#phone-error").is_hidden()
    assert page.locator(SHEET).count() == 0, "nothing is asked of the customer for a bad checkout"
    snap(page, "ordering-checkout-errors")
