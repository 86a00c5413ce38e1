"""What the cashier's screen says and offers for each state of the open check, with no widget: the big button's
label, whether it can be pressed and why not, the status line after each outcome, the waits and what comes next,
and the back-off of a charge being verified."""

from __future__ import annotations

import itertools
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from pos_terminal.api.models import Customer, Transaction
from pos_terminal.domain.check import CASH, Check, Item, Payment
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.sale import Phase
from pos_terminal.services.register import OpenCheck
from pos_terminal.ui import cashier_presenter as say
from pos_terminal.ui.cashier_presenter import ButtonPage, MiddlePage, Offer, Verifying

MONEY = MoneyFormat("en_US", "USD").format
ZOE = Customer(customer_id="c-1", first_name="Zoë", last_name="Quigley", member_no="M-7")
TEA = Item("Tea", quantity=2, unit_price=225, tax_rate_bp=1000)


def open_check(
    *items: Item, customer: Customer | None = ZOE, cash: int = 0, phase: Phase = Phase.BUILDING, **more: object
) -> OpenCheck:
    check = Check()
    for item in items:
        check = check.add_item(item)
    if cash:
        check = check.add_payment(Payment(CASH, cash))
    return OpenCheck(check=check, customer=customer, phase=phase, **more)  # type: ignore[arg-type]


def charged(state: str, charged: int, loyalty: int | None = None) -> Transaction:
    return Transaction.model_validate(
        {
            "transactionId": "tx-1",
            "state": state,
            "chargeAmount": charged + (loyalty or 0),
            "chargedAmount": charged,
            "modifiedAmount": loyalty,
        }
    )


# --- the big button ---------------------------------------------------------------------------------


def test_an_empty_check_cannot_be_charged_and_says_what_to_add() -> None:
    assert say.offer(open_check(customer=None), MONEY) == Offer(
        ButtonPage.CHARGE, "Charge", enabled=False, reason="Add an item to the check."
    )


def test_a_check_without_a_customer_says_how_to_find_one_or_take_cash() -> None:
    offer = say.offer(open_check(TEA, customer=None), MONEY)
    assert (offer.text, offer.enabled) == ("Charge", False)
    assert offer.reason == "Choose the customer to charge (F2 to find them), or take cash for all of it (F6)."


def test_a_check_with_a_customer_is_charged_its_balance_to_that_customer() -> None:
    offer = say.offer(open_check(TEA), MONEY, fit=lambda name: name[:3] + "…")
    assert offer == Offer(ButtonPage.CHARGE, "Charge $4.50\nto Zoë…", enabled=True, reason="")


def test_a_check_the_cash_pays_is_finished_as_a_cash_sale_with_its_change() -> None:
    assert say.offer(open_check(TEA, cash=500), MONEY).text == "Finish cash sale\nchange due $0.50"
    assert say.offer(open_check(TEA, cash=450), MONEY).text == "Finish cash sale\nno change due"


def test_a_check_that_breaks_a_rule_says_the_first_problem() -> None:
    offer = say.offer(open_check(Item("Tea", quantity=0, unit_price=225)), MONEY)
    assert not offer.enabled and offer.reason == open_check(Item("Tea", quantity=0)).check.problems()[0].sentence


def test_without_a_shift_the_button_opens_one_and_says_why() -> None:
    refused = "No shift is open on this terminal. Open a shift first: count the float in the drawer."
    charge = say.offer(open_check(TEA), MONEY, refused=refused, no_shift=True)
    assert charge == Offer(ButtonPage.CHARGE, "Open a shift\n(a charge needs one)", True, refused, True)
    sale = say.offer(open_check(TEA, cash=450), MONEY, refused=refused, no_shift=True)
    assert (sale.text, sale.enabled, sale.offering_shift) == ("Open a shift\n(a sale needs one)", True, True)


def test_another_refusal_of_the_till_keeps_the_charge_label_and_disables_it() -> None:
    offer = say.offer(open_check(TEA), MONEY, refused="Someone else is at the till.")
    assert offer == Offer(ButtonPage.CHARGE, "Charge $4.50\nto Zoë Quigley", False, "Someone else is at the till.")


def test_a_charge_that_ended_without_a_transaction_says_why_above_the_button() -> None:
    failed = say.offer(open_check(TEA, phase=Phase.FAILED, message="The card was declined."), MONEY)
    assert (failed.enabled, failed.reason) == (True, "The card was declined."), "a refusal says so once"
    lost = say.offer(open_check(TEA, phase=Phase.FAILED, message="The service cannot be reached."), MONEY)
    assert lost.reason == "Not charged: The service cannot be reached."
    unconfirmed = say.offer(open_check(TEA, phase=Phase.UNCONFIRMED, message="No answer."), MONEY)
    assert unconfirmed.reason == "Not confirmed: No answer."


@pytest.mark.parametrize(
    ("phase", "text"), [(Phase.CHARGING, "Charging…"), (Phase.VERIFYING, "Verifying with the service…")]
)
def test_while_a_charge_is_out_the_button_says_so_and_cannot_be_pressed(phase: Phase, text: str) -> None:
    assert say.offer(open_check(TEA, phase=phase), MONEY) == Offer(ButtonPage.CHARGE, text, enabled=False)


def test_an_authorized_charge_offers_complete_or_cancel_unless_a_change_is_out() -> None:
    authorized = open_check(TEA, phase=Phase.AUTHORIZED, transaction_id="tx-1")
    assert say.offer(authorized, MONEY) == Offer(ButtonPage.DECIDE, enabled=True)
    assert not say.offer(authorized, MONEY, changing="complete").enabled
    assert not say.offer(open_check(TEA, phase=Phase.AUTHORIZED, pending=True), MONEY).enabled


@pytest.mark.parametrize("phase", [Phase.COMPLETE, Phase.CANCELED, Phase.REFUNDED, Phase.PAID_IN_CASH])
def test_a_finished_check_offers_the_next_one(phase: Phase) -> None:
    assert say.offer(open_check(TEA, phase=phase), MONEY) == Offer(ButtonPage.NEXT)
    assert say.middle_page(open_check(TEA, phase=phase)) is MiddlePage.STATUS


# --- the texts --------------------------------------------------------------------------------------


def test_the_ticket_names_the_customer_and_a_members_number() -> None:
    assert say.customer_text(None) == "No customer chosen (F2 to find one)"
    assert say.customer_text(ZOE) == "Zoë Quigley · member M-7"
    assert say.customer_text(Customer(customer_id="c-2", first_name="Al")) == "Al"


def test_the_status_line_after_each_outcome() -> None:
    assert [say.phase_text(open_check(phase=phase)) for phase in Phase] == [say.PHASE_TEXT[p] for p in Phase]
    authorized = open_check(TEA, phase=Phase.AUTHORIZED)
    assert say.phase_text(authorized, "complete") == "Completing…"
    assert say.phase_text(authorized, "cancel") == "Canceling…"
    assert say.phase_text(open_check(TEA, phase=Phase.AUTHORIZED, pending=True)) == "Authorized — sending…"
    assert say.phase_role(open_check(phase=Phase.FAILED)) == "reason"
    assert say.phase_role(open_check(phase=Phase.COMPLETE)) == "phase"


def test_the_summary_says_what_was_charged_or_paid() -> None:
    assert say.summary_text(open_check(TEA), MONEY) == "$4.50 to Zoë Quigley"
    assert say.summary_text(open_check(TEA, customer=None), MONEY) == ""
    cash = open_check(TEA, cash=500, phase=Phase.PAID_IN_CASH)
    assert say.summary_text(cash, MONEY) == "$4.50 paid in cash. Change due $0.50."
    complete = open_check(TEA, phase=Phase.COMPLETE, transaction=charged("complete", 400, loyalty=50))
    assert say.summary_text(complete, MONEY) == "Charged $4.00 to Zoë Quigley (member's benefit $0.50)"
    assert say.balance_line(complete, MONEY) == ("Charged", "$4.00", 50)
    refunded = open_check(TEA, phase=Phase.REFUNDED, transaction=charged("refunded", 450))
    assert say.balance_line(refunded, MONEY) == ("Refunded", "$4.50", 0)
    assert say.balance_line(open_check(TEA, cash=500), MONEY) == ("Change due", "$0.50", 0)
    assert say.balance_line(open_check(TEA), MONEY) == ("Balance", "$4.50", 0)


def test_the_transaction_line_and_the_countdown() -> None:
    assert say.transaction_text(open_check(transaction_id="tx-9")) == "Transaction tx-9"
    verifying = open_check(phase=Phase.VERIFYING)
    assert say.transaction_text(verifying) == "No second charge will be sent while this one is being verified."
    assert say.transaction_text(open_check()) == ""
    assert say.countdown_text(None) == ""
    assert say.countdown_text(125) == "Canceled automatically in 2:05 unless completed"


def test_the_charge_message_is_shown_once() -> None:
    assert say.charge_message_shown(open_check(phase=Phase.AUTHORIZED, message="Held."))
    assert not say.charge_message_shown(open_check(phase=Phase.FAILED, message="Declined."))  # the reason says it


def test_what_the_screen_waits_for_and_what_comes_next() -> None:
    assert say.wait_texts(open_check(TEA, phase=Phase.CHARGING), since=4.2) == (
        "Waiting for the service to authorize the charge (4 s).",
        "",
    )
    authorized = open_check(TEA, phase=Phase.AUTHORIZED)
    assert say.wait_texts(authorized, changing="cancel", since=65) == (
        "Waiting for the service to confirm the cancel (1 min 05 s).",
        "",
    )
    assert say.wait_texts(authorized) == (
        "",
        "Complete (F9) charges the customer; Cancel (Shift+F9) releases the amount.",
    )
    pending = open_check(TEA, phase=Phase.AUTHORIZED, pending=True)
    wait, _ = say.wait_texts(pending, pending_for=3, pending=say.pending_target(["canceled"]))
    assert wait.startswith("The service has not confirmed the cancel yet (3 s); the terminal sends it again")
    assert say.wait_texts(open_check(TEA, phase=Phase.COMPLETE)) == ("", "New check (Ctrl+N) starts the next sale.")
    assert "New check (Ctrl+N)" in say.wait_texts(open_check(TEA, phase=Phase.PAID_IN_CASH))[1]
    assert say.wait_texts(open_check(TEA)) == ("", "")


def test_a_charge_being_verified_says_when_it_was_sent_and_what_happens_next() -> None:
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    window = (now - timedelta(seconds=7), now + timedelta(minutes=2))
    assert say.verify_texts(Verifying(None, now)) == ("Verifying the charge with the service.", "")
    wait, after = say.verify_texts(Verifying(window, now, next_in=4))
    assert wait == "Verifying the charge with the service: sent 7 s ago."
    assert after.startswith("The terminal asks the service again in 4 s (Check now asks at once). If the service")
    assert after.endswith("No second charge is sent meanwhile.")
    accepted = say.verify_texts(Verifying(window, now, accepted=True))[1]
    assert accepted == (
        "The service took the charge; the terminal is finding its transaction. No second charge is sent meanwhile."
    )
    late = say.verify_texts(Verifying(window, now + timedelta(minutes=3)))[1]
    assert late.startswith("If the service has no record of it at the next look")


def test_a_charge_being_verified_is_asked_about_ever_less_often_up_to_ten_seconds() -> None:
    assert list(itertools.islice(say.verify_delays(), 7)) == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0, 10.0]


def test_the_questions_name_the_charge() -> None:
    authorized = open_check(TEA, phase=Phase.AUTHORIZED)
    assert say.cancel_question(authorized, MONEY) == "Cancel the charge of $4.50 to Zoë Quigley?"
    assert say.charge_under_way(authorized, MONEY) == (
        "The charge of $4.50 to Zoë Quigley is authorized, neither completed nor canceled."
    )
    assert say.charge_under_way(open_check(TEA, phase=Phase.CHARGING), MONEY) == (
        "The charge of $4.50 to Zoë Quigley is being sent to the service."
    )
    assert say.charge_under_way(open_check(TEA), MONEY) is None


def test_the_presenter_loads_without_qt() -> None:
    """It is worked out apart from the widgets: importing it loads neither Qt nor the terminal's services."""
    code = (
        "import sys, pos_terminal.ui.cashier_presenter;"
        "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'pos_terminal.services'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
