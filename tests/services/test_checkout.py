"""Charging against the sandbox with faults on every step: one effect, never two.

For each fault mode on create, a check ends with exactly one authorized
transaction, or none with a clear reason; for complete, cancel and refund the
customer's balance moves once. Time is moved on the terminal's clock and the
sandbox's, never slept away.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from pos_terminal.domain.check import Check, Discount, Item, Payment
from pos_terminal.domain.lifecycle import Action, TxState
from pos_terminal.domain.sale import Phase
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import IntentStatus
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.checkout import (
    AlreadyCharged,
    ChangeStatus,
    ChargeFailed,
    ChargeInProgress,
    ChargeStatus,
)
from pos_terminal.services.terminal import Terminal
from tests.conftest import ledger_kinds, new_checked_in_customer, transactions_of
from tests.helpers.http import http_client
from tests.helpers.services import arm, customer_model
from tests.services.conftest import FakeClock


def coffee_check() -> Check:
    return (
        Check()
        .add_item(Item(name="Flat white", quantity=2, unit_price=550, tax_rate_bp=1000))
        .add_item(Item(name="Croissant", quantity=1, unit_price=650, tax_rate_bp=1000))
        .add_discount(Discount(name="Staff", percent_bp=1000))
        .add_payment(Payment(method="cash", amount=500))
    )


async def test_charge_complete_refund_happy_path(terminal: Terminal, client: httpx.Client) -> None:
    who = new_checked_in_customer(client)
    check = coffee_check()
    outcome = await terminal.checkout.charge(check, await customer_model(terminal, who["customerId"]))
    assert outcome.status is ChargeStatus.AUTHORIZED
    assert outcome.transaction_id
    record = client.get(f"/sandbox/transactions/{outcome.transaction_id}").json()
    assert record["state"] == "authorized"
    assert record["chargeAmount"] == check.totals().charge_amount
    assert record["refId"] == outcome.ref_id
    assert record["terminalId"] == "LANE-1"

    done = await terminal.checkout.change_state(outcome.transaction_id, Action.COMPLETE)
    assert done.status is ChangeStatus.DONE
    assert done.close_call_seconds is None, "five minutes were left"
    refunded = await terminal.checkout.change_state(outcome.transaction_id, Action.REFUND)
    assert refunded.status is ChangeStatus.DONE
    assert refunded.transaction is not None and refunded.transaction.state is TxState.REFUNDED
    assert ledger_kinds(client, who["customerId"]) == ["reserve", "charge", "refund"]
    assert client.get(f"/sandbox/customers/{who['customerId']}").json()["balance"] == who["balance"]
    known = terminal.journal.transactions.get(outcome.transaction_id)
    assert known is not None and known.state == "refunded"
    actions = [e.action for e in terminal.journal.audit.between(*_today())]
    assert actions[-3:] == ["charge", "complete", "refund"]


def _today() -> tuple[Any, Any]:
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    return now - timedelta(days=1), now + timedelta(days=1)


async def test_refused_charge_is_failed_with_the_services_sentence(terminal: Terminal, client: httpx.Client) -> None:
    who = new_checked_in_customer(client, card="declined")
    with pytest.raises(ChargeFailed, match="declined"):
        await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert transactions_of(client, who["customerId"]) == []
    assert terminal.journal.intents.unfinished() == []
    # the audit log's "charge" is followed by why nothing was held
    charge, refused = [e for e in terminal.journal.audit.between(*_today()) if e.action.startswith("charge")]
    assert (charge.action, refused.action) == ("charge", "charge refused")
    assert refused.detail["refId"] == charge.detail["refId"] and "declined" in refused.detail["why"]


async def test_invalid_check_is_refused_before_anything_is_sent(terminal: Terminal, client: httpx.Client) -> None:
    who = new_checked_in_customer(client)
    with pytest.raises(UserError):
        await terminal.checkout.charge(Check(), await customer_model(terminal, who["customerId"]))
    assert terminal.journal.intents.unfinished() == []


@pytest.mark.parametrize("mode", ["drop_after", "error_after"])
async def test_create_that_landed_without_an_answer_is_found_by_ref_id(
    mode: str, terminal: Terminal, client: httpx.Client
) -> None:
    who = new_checked_in_customer(client)
    arm(client, "POST", "/v4/transactions", mode)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.status is ChargeStatus.AUTHORIZED
    standing = transactions_of(client, who["customerId"])
    assert [t["transactionId"] for t in standing] == [outcome.transaction_id]
    assert standing[0]["state"] == "authorized"
    intent = terminal.journal.intents.get(outcome.ref_id)
    assert intent is not None and intent.status is IntentStatus.CREATED


@pytest.mark.parametrize("mode", ["drop_before", "error_before"])
async def test_create_that_never_landed_fails_after_the_verify_window(
    mode: str, terminal: Terminal, client: httpx.Client, terminal_clock: FakeClock
) -> None:
    who = new_checked_in_customer(client)
    customer = await customer_model(terminal, who["customerId"])
    arm(client, "POST", "/v4/transactions", mode)
    outcome = await terminal.checkout.charge(coffee_check(), customer)
    assert outcome.status is ChargeStatus.VERIFYING
    with pytest.raises(ChargeInProgress):
        await terminal.checkout.charge(coffee_check(), customer)
    terminal_clock.advance(terminal.checkout.verify_window.total_seconds() + 1)
    settled = await terminal.checkout.verify(outcome.ref_id)
    assert settled.status is ChargeStatus.NOT_FOUND
    # the terminal cannot know the create will never land: it says what it knows, and keeps looking
    assert settled.message and "still shows no record of this charge" in settled.message
    assert "nothing was charged" not in settled.message.lower()
    assert terminal.checkout.watching_for_late_landings()
    assert transactions_of(client, who["customerId"]) == []
    assert client.get(f"/sandbox/customers/{who['customerId']}").json()["balance"] == who["balance"]


@pytest.mark.parametrize("mode", ["drop_after", "error_after"])
async def test_a_service_clock_hours_ahead_does_not_hide_a_charge_that_landed(
    mode: str, terminal: Terminal, client: httpx.Client
) -> None:
    client.post("/sandbox/clock", json={"advanceSeconds": 3 * 3600}).raise_for_status()
    who = new_checked_in_customer(client)
    customer = await customer_model(terminal, who["customerId"])  # an answer dated by the service's clock
    assert terminal.client.clock_offset is not None and terminal.client.clock_offset.total_seconds() > 3 * 3600 - 5
    arm(client, "POST", "/v4/transactions", mode)
    outcome = await terminal.checkout.charge(coffee_check(), customer)
    assert outcome.status is ChargeStatus.AUTHORIZED, outcome.message
    assert [t["transactionId"] for t in transactions_of(client, who["customerId"])] == [outcome.transaction_id]


async def test_a_service_clock_that_moves_ahead_mid_charge_is_followed(
    terminal: Terminal, client: httpx.Client
) -> None:
    who = new_checked_in_customer(client)
    customer = await customer_model(terminal, who["customerId"])
    assert terminal.client.clock_offset is not None and abs(terminal.client.clock_offset.total_seconds()) < 5
    client.post("/sandbox/clock", json={"advanceSeconds": 5 * 3600}).raise_for_status()
    arm(client, "POST", "/v4/transactions", "drop_after")
    outcome = await terminal.checkout.charge(coffee_check(), customer)
    # the first listing, over the terminal's hours, shows the service's clock: the second one finds it
    assert outcome.status is ChargeStatus.AUTHORIZED, outcome.message


async def test_a_service_clock_hours_ahead_costs_history_one_request_a_listing(
    terminal: Terminal, client: httpx.Client
) -> None:
    """Each answer measures the skew a little differently; once known, it no longer moves the range asked for, so
    a listing is read once (it was read twice, every time, with any skew)."""
    client.post("/sandbox/clock", json={"advanceSeconds": 3 * 3600}).raise_for_status()
    listings: list[str] = []

    async def seen(request: httpx.Request) -> None:
        if request.url.path == "/v4/transactions":
            listings.append(str(request.url.params.get("from")))

    terminal.http.event_hooks["request"].append(seen)
    now = datetime.now(UTC)
    await terminal.history.rows(now - timedelta(hours=1), now, None)  # the first answer teaches the skew
    learned = len(listings)
    for _ in range(3):
        await asyncio.sleep(0.05)  # the next answers are dated a little later
        await terminal.history.rows(now - timedelta(hours=1), now, None)
    assert len(listings) - learned == 3, listings
    assert len(set(listings[learned:])) == 1


async def test_delayed_create_is_verified_once_it_lands(
    sandbox: SandboxServer, terminal: Terminal, client: httpx.Client
) -> None:
    who = new_checked_in_customer(client)
    arm(client, "POST", "/v4/transactions", "delay", delayMs=3000)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.status is ChargeStatus.VERIFYING
    wait_for(lambda: len(transactions_of(client, who["customerId"])) == 1, timeout=15)
    settled = await terminal.checkout.verify(outcome.ref_id)
    assert settled.status is ChargeStatus.AUTHORIZED
    assert [t["transactionId"] for t in transactions_of(client, who["customerId"])] == [settled.transaction_id]


async def landing_after_its_window(terminal: Terminal, client: httpx.Client, clock: FakeClock) -> dict[str, Any]:
    """A charge whose create lands after the verify window: declared not found first (the customer, returned)."""
    who = new_checked_in_customer(client)
    arm(client, "POST", "/v4/transactions", "delay", delayMs=3000)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    clock.advance(terminal.checkout.verify_window.total_seconds() + 1)
    assert (await terminal.checkout.verify(outcome.ref_id)).status is ChargeStatus.NOT_FOUND
    return who


async def test_late_landing_after_a_declared_failure_is_canceled_on_resume(
    terminal: Terminal, client: httpx.Client, terminal_clock: FakeClock
) -> None:
    who = await landing_after_its_window(terminal, client, terminal_clock)
    wait_for(lambda: len(transactions_of(client, who["customerId"])) == 1, timeout=15)
    report = await terminal.checkout.resume()
    [late] = transactions_of(client, who["customerId"])
    assert report.late_duplicates_canceled == [late["transactionId"]]
    assert late["state"] == "canceled"
    assert client.get(f"/sandbox/customers/{who['customerId']}").json()["balance"] == who["balance"]


async def test_without_location_the_id_comes_from_reconciliation(
    make_sandbox: Callable[..., SandboxServer], open_terminal: Callable[..., Any]
) -> None:
    server = make_sandbox(location=False)
    terminal = await open_terminal(server)
    with http_client(base_url=server.url) as http:
        who = new_checked_in_customer(http)
        outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
        assert outcome.status is ChargeStatus.AUTHORIZED
        assert [t["transactionId"] for t in transactions_of(http, who["customerId"])] == [outcome.transaction_id]


@pytest.mark.parametrize("mode", ["drop_before", "drop_after", "error_before", "error_after", "delay", "rate_limit"])
@pytest.mark.parametrize("action", [Action.COMPLETE, Action.CANCEL])
async def test_state_change_under_fault_has_one_effect(
    mode: str, action: Action, terminal: Terminal, client: httpx.Client
) -> None:
    who = new_checked_in_customer(client)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.transaction_id
    arm(client, "PATCH", f"/v4/transactions/{outcome.transaction_id}", mode, delayMs=3000)
    first = await terminal.checkout.change_state(outcome.transaction_id, action)
    if first.status is not ChangeStatus.DONE:
        assert first.status is ChangeStatus.PENDING
        assert len(terminal.journal.outbox.pending()) == 1
        if mode == "delay":
            wait_for(lambda: not client.get("/sandbox/faults").json(), timeout=15)
        outcomes = await terminal.checkout.flush_outbox()
        assert [o.status for o in outcomes] == [ChangeStatus.DONE]
    assert terminal.journal.outbox.pending() == []
    [record] = transactions_of(client, who["customerId"])
    assert record["state"] == str(action.target)
    expected = ["reserve", "charge"] if action is Action.COMPLETE else ["reserve", "release"]
    assert ledger_kinds(client, who["customerId"]) == expected


@pytest.mark.parametrize("mode", ["drop_after", "error_after", "drop_before"])
async def test_refund_under_fault_refunds_once(mode: str, terminal: Terminal, client: httpx.Client) -> None:
    who = new_checked_in_customer(client)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.transaction_id
    assert (await terminal.checkout.change_state(outcome.transaction_id, Action.COMPLETE)).status is ChangeStatus.DONE
    arm(client, "PATCH", f"/v4/transactions/{outcome.transaction_id}", mode)
    first = await terminal.checkout.change_state(outcome.transaction_id, Action.REFUND)
    if first.status is ChangeStatus.PENDING:
        await terminal.checkout.flush_outbox()
    assert ledger_kinds(client, who["customerId"]) == ["reserve", "charge", "refund"]
    assert client.get(f"/sandbox/customers/{who['customerId']}").json()["balance"] == who["balance"]


async def test_complete_after_auto_cancel_is_refused_with_a_sentence(terminal: Terminal, client: httpx.Client) -> None:
    who = new_checked_in_customer(client)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.transaction_id
    client.post("/sandbox/clock", json={"advanceSeconds": 301})
    result = await terminal.checkout.change_state(outcome.transaction_id, Action.COMPLETE)
    assert result.status is ChangeStatus.REFUSED
    assert result.message == "The transaction was canceled before it could be completed."
    assert terminal.journal.outbox.pending() == []


async def test_completing_close_to_auto_cancel_warns(
    terminal: Terminal, client: httpx.Client, terminal_clock: FakeClock
) -> None:
    who = new_checked_in_customer(client)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.transaction_id
    terminal_clock.advance(290)
    done = await terminal.checkout.change_state(outcome.transaction_id, Action.COMPLETE)
    assert done.status is ChangeStatus.DONE
    assert done.close_call_seconds is not None and done.close_call_seconds <= 10


async def test_a_complete_is_one_request_with_nothing_read_before_it(terminal: Terminal, client: httpx.Client) -> None:
    """The warning about automatic cancellation comes from the journal: a slow read never holds up a complete."""
    who = new_checked_in_customer(client)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.transaction_id
    arm(client, "GET", f"/v4/transactions/{outcome.transaction_id}", "delay", delayMs=30_000)
    done = await asyncio.wait_for(terminal.checkout.change_state(outcome.transaction_id, Action.COMPLETE), 5)
    assert done.status is ChangeStatus.DONE and done.close_call_seconds is None
    assert len(client.get("/sandbox/faults").json()) == 1, "nothing read the transaction"
    assert terminal.checkout.seconds_to_auto_cancel(outcome.transaction_id) in range(280, 301)


async def test_a_complete_is_kept_when_the_transaction_cannot_be_read(terminal: Terminal, client: httpx.Client) -> None:
    """The read before the complete used to come first: three failed reads and the sale was never completed."""
    who = new_checked_in_customer(client)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.transaction_id
    path = f"/v4/transactions/{outcome.transaction_id}"
    for method in ("GET", "PATCH"):  # the read and the complete itself, each past every retry
        fault = {"method": method, "path": path, "mode": "error_before", "times": 5}
        client.post("/sandbox/faults", json=fault).raise_for_status()
    result = await terminal.checkout.change_state(outcome.transaction_id, Action.COMPLETE)
    assert result.status is ChangeStatus.PENDING
    assert [e.target_state for e in terminal.journal.outbox.pending()] == ["complete"]

    client.delete("/sandbox/faults").raise_for_status()  # the service is back
    [flushed] = await terminal.checkout.flush_outbox()
    assert flushed.status is ChangeStatus.DONE
    assert client.get(f"/sandbox/transactions/{outcome.transaction_id}").json()["state"] == "complete"
    assert terminal.journal.outbox.pending() == []


async def test_a_change_is_sent_once_while_the_outbox_is_being_resent(terminal: Terminal, client: httpx.Client) -> None:
    """A complete waits on its read while the window's re-sending pass runs: that pass used to send the new
    entry too, and the second confirmation found nothing pending (KeyError in the soak)."""
    who = new_checked_in_customer(client)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.transaction_id
    path = f"/v4/transactions/{outcome.transaction_id}"
    arm(client, "GET", path, "delay", delayMs=800)  # the read before the complete
    complete = asyncio.ensure_future(terminal.checkout.change_state(outcome.transaction_id, Action.COMPLETE))
    await asyncio.sleep(0)  # the call runs up to its read: the change is in the outbox
    assert [e.target_state for e in terminal.journal.outbox.pending()] == ["complete"]
    passes = [await terminal.checkout.flush_outbox(), await terminal.checkout.flush_outbox()]
    done = await complete
    assert done.status is ChangeStatus.DONE, done.message
    assert passes == [[], []], "the re-sending pass sent a change another call was sending"
    assert terminal.journal.outbox.pending() == []
    assert ledger_kinds(client, who["customerId"]).count("charge") == 1


def wait_for(condition: Callable[[], bool], timeout: float) -> None:
    """Wait on a condition of the sandbox (a delayed request landing), with a deadline."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


async def test_a_read_that_was_out_while_the_check_completed_does_not_reopen_it(
    terminal: Terminal, client: httpx.Client
) -> None:
    """The periodic read answered "authorized" before the complete landed, was applied after it, and
    showed a finished sale as open again. The read is real; only its answer is held back."""
    who = new_checked_in_customer(client)
    register = terminal.register
    register.choose_customer(await customer_model(terminal, who["customerId"]))
    register.edit(lambda _: coffee_check())
    assert (await register.charge()).phase is Phase.AUTHORIZED

    read_done, release = asyncio.Event(), asyncio.Event()
    real_get = terminal.history.get

    async def slow_get(transaction_id: str) -> Any:
        transaction = await real_get(transaction_id)  # read while still authorized ...
        read_done.set()
        await release.wait()  # ... and answered only after the complete
        return transaction

    terminal.history.get = slow_get  # type: ignore[method-assign]
    refresh = asyncio.ensure_future(register.refresh_transaction())
    await read_done.wait()
    terminal.history.get = real_get  # type: ignore[method-assign]
    assert (await register.complete()).phase is Phase.COMPLETE
    release.set()
    await refresh
    assert register.current.phase is Phase.COMPLETE


async def test_a_listing_moves_the_journals_states_of_this_terminals_transactions(
    terminal: Terminal, client: httpx.Client, pos: httpx.Client
) -> None:
    who = new_checked_in_customer(client)
    outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    assert outcome.transaction_id
    pos.patch(f"/transactions/{outcome.transaction_id}", json={"state": "complete"}).raise_for_status()  # elsewhere
    now = terminal.checkout.now()
    rows = await terminal.history.rows(now - timedelta(hours=1), now + timedelta(hours=1), "LANE-1")
    assert [(r.transaction_id, r.state) for r in rows] == [(outcome.transaction_id, TxState.COMPLETE)]
    known = terminal.journal.transactions.get(outcome.transaction_id)
    assert known is not None and known.state == "complete"


# --- a charge that may have been made is never forgotten, and never made twice ---------------------------------------


async def test_an_accepted_create_whose_id_cannot_be_found_stays_verifying_past_the_window(
    make_sandbox: Callable[..., SandboxServer], open_terminal: Callable[..., Any], terminal_clock: FakeClock
) -> None:
    """A 201 without an id, then the list never shows it: the charge exists, so it is never declared not found."""
    server = make_sandbox(location=False)
    terminal: Terminal = await open_terminal(server)
    with http_client(base_url=server.url) as http:
        who = new_checked_in_customer(http)
        arm(http, "GET", "/v4/transactions", "error_before", times=30)
        outcome = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
        assert outcome.status is ChargeStatus.VERIFYING
        intent = terminal.journal.intents.get(outcome.ref_id)
        assert intent is not None and intent.create_answer == "accepted"
        terminal_clock.advance(terminal.checkout.verify_window.total_seconds() * 10)
        later = await terminal.checkout.verify(outcome.ref_id)
        assert later.status is ChargeStatus.VERIFYING, later
        with pytest.raises(ValueError, match="cannot fail"):
            terminal.journal.intents.update(outcome.ref_id, status=IntentStatus.FAILED, error="a bug")
        http.delete("/sandbox/faults").raise_for_status()
        found = await terminal.checkout.verify(outcome.ref_id)
        assert found.status is ChargeStatus.AUTHORIZED
        assert [t["transactionId"] for t in transactions_of(http, who["customerId"])] == [found.transaction_id]


async def test_settle_gives_up_after_its_time_and_leaves_the_charge_verifying(
    terminal: Terminal, client: httpx.Client, terminal_clock: FakeClock
) -> None:
    who = new_checked_in_customer(client)
    arm(client, "POST", "/v4/transactions", "drop_after")
    arm(client, "GET", "/v4/transactions", "error_before", times=1000)
    customer = await customer_model(terminal, who["customerId"])
    outcome = await terminal.checkout.charge(coffee_check(), customer)
    assert outcome.status is ChargeStatus.VERIFYING
    terminal_clock.advance(terminal.checkout.verify_window.total_seconds() + 1)  # failed looks say nothing
    settled = await terminal.checkout.settle(outcome.ref_id, within=timedelta(seconds=0.5), poll=0.1)
    assert settled.status is ChargeStatus.VERIFYING
    assert settled.message and "Still verifying" in settled.message
    assert [i.ref_id for i in terminal.journal.intents.unfinished()] == [outcome.ref_id]
    with pytest.raises(ChargeInProgress):
        await terminal.checkout.charge(coffee_check(), customer)
    client.delete("/sandbox/faults").raise_for_status()
    assert (await terminal.checkout.verify(outcome.ref_id)).status is ChargeStatus.AUTHORIZED
    assert len(transactions_of(client, who["customerId"])) == 1


async def test_the_same_check_is_not_charged_again_while_its_first_charge_holds_the_money(
    terminal: Terminal, client: httpx.Client
) -> None:
    who = new_checked_in_customer(client)
    customer = await customer_model(terminal, who["customerId"])
    first = await terminal.checkout.charge(coffee_check(), customer)
    assert first.transaction_id
    with pytest.raises(AlreadyCharged, match=f"transaction {first.transaction_id} for Test Customer is authorized"):
        await terminal.checkout.charge(coffee_check(), customer)  # the same lines, read again with new line ids
    # a read that fails cannot tell: refused too
    arm(client, "GET", f"/v4/transactions/{first.transaction_id}", "error_before", times=3)
    with pytest.raises(AlreadyCharged):
        await terminal.checkout.charge(coffee_check(), customer)
    assert len(transactions_of(client, who["customerId"])) == 1
    # another check, or another customer, is another sale
    other = await terminal.checkout.charge(coffee_check().add_item(Item(name="Tea", unit_price=300)), customer)
    assert other.status is ChargeStatus.AUTHORIZED
    someone = new_checked_in_customer(client)
    elsewhere = await terminal.checkout.charge(coffee_check(), await customer_model(terminal, someone["customerId"]))
    assert elsewhere.status is ChargeStatus.AUTHORIZED
    # once the first is completed (or canceled), the same check is a new sale; on purpose, it may be held twice
    assert (await terminal.checkout.change_state(first.transaction_id, Action.COMPLETE)).status is ChangeStatus.DONE
    repeat = await terminal.checkout.charge(coffee_check(), customer)
    assert repeat.status is ChargeStatus.AUTHORIZED
    twice = await terminal.checkout.charge(coffee_check(), customer, again=True)
    assert twice.status is ChargeStatus.AUTHORIZED
    assert len(transactions_of(client, who["customerId"])) == 4


async def test_a_refused_create_is_not_looked_for_as_a_late_landing(terminal: Terminal, client: httpx.Client) -> None:
    who = new_checked_in_customer(client, card="declined")
    with pytest.raises(ChargeFailed):
        await terminal.checkout.charge(coffee_check(), await customer_model(terminal, who["customerId"]))
    [intent] = terminal.journal.intents.failed(since=datetime.now(UTC) - timedelta(minutes=1))
    assert intent.nothing_created
    assert not terminal.checkout.watching_for_late_landings()


async def test_a_late_landing_is_canceled_while_the_terminal_runs(
    terminal: Terminal, client: httpx.Client, terminal_clock: FakeClock
) -> None:
    """The window watches for it every few seconds: a cashier told to charge again must not wait for a restart."""
    who = await landing_after_its_window(terminal, client, terminal_clock)
    watch = terminal.checkout.watch_late_landings(every=0.1)
    canceled: list[str] = []
    while not canceled:
        canceled = await anext(watch)
    await watch.aclose()
    [late] = transactions_of(client, who["customerId"])
    assert canceled == [late["transactionId"]] and late["state"] == "canceled"
    assert not terminal.checkout.watching_for_late_landings()
