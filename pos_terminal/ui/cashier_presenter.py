"""What the cashier's screen says and offers for an open check, worked out without Qt.

The widgets (:mod:`pos_terminal.ui.cashier_view` and its parts) ask this module and render what it answers:
what the big button offers, whether it can be pressed and why not, the status line of a charge after each
outcome, what the screen waits for and what happens next, and how often a charge being verified is asked
about again. Everything here is a plain function of the open check and a few facts the view passes in
(the time waited, the terminal's money format), so it is tested with no widget at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum
from typing import TYPE_CHECKING

from pos_terminal.domain.sale import FINISHED, LOCKED, UNCHARGED, Phase
from pos_terminal.ui.actions import Act, key

if TYPE_CHECKING:
    from pos_terminal.api.models import Customer
    from pos_terminal.services.register import OpenCheck

Format = Callable[[int], str]  # cents to text: the terminal's one money format
CHECK = "check"  # the topic of messages about the open check: they go once the check moves on

PHASE_TEXT = {
    Phase.BUILDING: "",
    Phase.CHARGING: "Charging…",
    Phase.VERIFYING: "Verifying with the service…",
    Phase.AUTHORIZED: "Authorized",
    Phase.COMPLETE: "Complete",
    Phase.CANCELED: "Canceled",
    Phase.REFUNDED: "Refunded",
    Phase.PAID_IN_CASH: "Paid in cash",
    Phase.FAILED: "Not charged",
    Phase.UNCONFIRMED: "Not confirmed",
}

VERIFY_FIRST_DELAY = 1.0
VERIFY_MAX_DELAY = 10.0


class MiddlePage(IntEnum):
    """The pages of the middle column: the sale (products and keypad), or where the charge stands."""

    SALE = 0
    STATUS = 1


class ButtonPage(IntEnum):
    """The pages of the ticket's button area."""

    CHARGE = 0
    DECIDE = 1
    NEXT = 2


def verify_delays() -> Iterator[float]:
    """The pauses between looks at a charge being verified: one second, doubled each time, ten at most."""
    delay = VERIFY_FIRST_DELAY
    while True:
        yield delay
        delay = min(delay * 2, VERIFY_MAX_DELAY)


def waited(seconds: float) -> str:
    """How long something has lasted, as a cashier reads it: "4 s", "1 min 05 s"."""
    whole = int(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60:02d} s"


def middle_page(state: OpenCheck) -> MiddlePage:
    return MiddlePage.SALE if state.editable else MiddlePage.STATUS


def customer_text(customer: Customer | None) -> str:
    """The ticket's header: the customer chosen, with a member's number."""
    if customer is None:
        return f"No customer chosen ({key(Act.FIND_CUSTOMER)} to find one)"
    return f"{customer.display_name}" + (f" · member {customer.member_no}" if customer.member_no else "")


@dataclass(frozen=True)
class Offer:
    """What the ticket's button area shows.

    ``text`` is the charge button's label (None: left as it is); ``reason`` the line above the buttons, why the
    check cannot be charged or how its last charge ended ("": none; None: hidden, as the check is charged or
    finished); ``offering_shift`` the charge button opens a shift, as none is open and the sale needs one."""

    page: ButtonPage
    text: str | None = None
    enabled: bool = True
    reason: str | None = None
    offering_shift: bool = False


def offer(
    state: OpenCheck,
    money: Format,
    *,
    changing: str = "",
    refused: str | None = None,
    no_shift: bool = False,
    fit: Callable[[str], str] = lambda name: name,
) -> Offer:
    """The big button does the next thing: charge (or finish a cash sale), complete or cancel, a new check.

    ``changing`` is "complete" or "cancel" while that request is out; ``refused`` why the till refuses a charge
    now (a cash sale needs a shift, say), ``no_shift`` when that is because no shift is open; ``fit`` shortens a
    customer's name to the button's width."""
    if state.phase is Phase.AUTHORIZED:
        return Offer(ButtonPage.DECIDE, enabled=not (state.pending or bool(changing)))
    if state.phase in FINISHED:
        return Offer(ButtonPage.NEXT)
    if state.phase in LOCKED:
        return Offer(ButtonPage.CHARGE, PHASE_TEXT[state.phase], enabled=False)
    check = state.check
    cash_pays = bool(check.items) and check.paid_in_full
    text: str | None = None
    blocked = ""  # why the big button cannot do anything yet
    offering_shift = False
    if refused is not None:  # a cash sale as a charge: its cash belongs in a shift's drawer
        blocked = refused
        offering_shift = no_shift
    elif cash_pays:
        change = state.totals.change_due
        text = "Finish cash sale\n" + (f"change due {money(change)}" if change else "no change due")
    elif not check.items:
        blocked = "Add an item to the check."
    elif problems := check.problems():
        blocked = problems[0].sentence
    elif state.customer is None:
        blocked = (
            f"Choose the customer to charge ({key(Act.FIND_CUSTOMER)} to find them), "
            f"or take cash for all of it ({key(Act.CASH)})."
        )
    if offering_shift:
        needs = "a sale needs one" if cash_pays else "a charge needs one"
        text = f"Open a shift\n({needs})"
    elif refused is not None or not cash_pays:
        amount = money(max(0, state.totals.charge_amount))
        name = state.customer.display_name if state.customer else ""
        text = f"Charge {amount}\nto {fit(name)}" if name else "Charge"
    reason = blocked
    if not blocked and state.phase in UNCHARGED and state.message:
        reason = uncharged_reason(state.phase, state.message)
    return Offer(ButtonPage.CHARGE, text, not blocked or offering_shift, reason, offering_shift)


# a refusal that says so itself ("The payment was declined: …") is not prefixed with "Not charged:" as well
_SAYS_NOT_CHARGED = ("declined", "nothing was charged", "not charged")


def uncharged_reason(phase: Phase, message: str) -> str:
    """Why a charge ended without a transaction, said once: the service's refusal where it says so itself, else
    the phase and the message."""
    if phase is Phase.FAILED and any(words in message.lower() for words in _SAYS_NOT_CHARGED):
        return message
    return f"{PHASE_TEXT[phase]}: {message}"


def balance_line(state: OpenCheck, money: Format) -> tuple[str, str, int]:
    """The last line of the totals, its figure, and the loyalty the service took off (0: none to show)."""
    totals, transaction = state.totals, state.transaction
    if state.phase in (Phase.COMPLETE, Phase.REFUNDED) and transaction is not None:
        # what the customer paid, after what the service took off (a member's loyalty), not what was asked
        name = "Charged" if state.phase is Phase.COMPLETE else "Refunded"
        return name, money(transaction.amount_charged), transaction.modified_amount or 0
    if state.phase is Phase.CANCELED:
        # the charge was released: nothing is left to pay, and the customer's account was charged nothing
        return "Charged", money(0), 0
    if totals.change_due:
        return "Change due", money(totals.change_due), 0
    return "Balance", money(totals.left_to_pay if totals.total >= 0 else totals.balance), 0


def phase_text(state: OpenCheck, changing: str = "") -> str:
    """The status line of the charge: where it stands after each outcome."""
    if state.phase is Phase.AUTHORIZED and changing:
        return "Completing…" if changing == "complete" else "Canceling…"
    if state.phase is Phase.AUTHORIZED and state.pending:
        return "Authorized — sending…"
    return PHASE_TEXT[state.phase]


def phase_role(state: OpenCheck) -> str:
    """A charge that ended without a transaction is said as a reason, the others as a phase."""
    return "reason" if state.phase in UNCHARGED else "phase"


def summary_text(state: OpenCheck, money: Format) -> str:
    """The amount and the customer, under the status line."""
    totals, customer, transaction = state.totals, state.customer, state.transaction
    if state.phase is Phase.PAID_IN_CASH:
        change = f"Change due {money(totals.change_due)}" if totals.change_due else "No change due"
        return f"{money(totals.total)} paid in cash. {change}."
    if state.phase in (Phase.COMPLETE, Phase.REFUNDED) and transaction is not None:
        loyalty = f" (member's benefit {money(transaction.modified_amount)})" if transaction.modified_amount else ""
        who = f" to {customer.display_name}" if customer else ""
        return f"Charged {money(transaction.amount_charged)}{who}{loyalty}"
    if customer is not None:
        return f"{money(max(0, totals.charge_amount))} to {customer.display_name}"
    return ""


def transaction_text(state: OpenCheck) -> str:
    if state.transaction_id:
        return f"Transaction {state.transaction_id}"
    if state.phase is Phase.VERIFYING:
        return "No second charge will be sent while this one is being verified."
    return ""


def charge_message_shown(state: OpenCheck) -> bool:
    """The service's message of the charge shows on the status page, unless the reason line says it already."""
    return bool(state.message) and state.phase not in UNCHARGED


def countdown_text(seconds_left: int | None) -> str:
    """The time before the service cancels an authorized charge by itself; "" when none runs."""
    if seconds_left is None:
        return ""
    return f"Canceled automatically in {seconds_left // 60}:{seconds_left % 60:02d} unless completed"


@dataclass(frozen=True)
class Verifying:
    """What the terminal knows of a charge being verified.

    ``window`` is when the charge was sent and when the terminal stops waiting for it (None: not known);
    ``next_in`` the seconds to the next look (None: a look is under way); ``accepted`` the service took the
    charge and its transaction is being found."""

    window: tuple[datetime, datetime] | None
    now: datetime
    next_in: int | None = None
    accepted: bool = False


def verify_texts(verifying: Verifying) -> tuple[str, str]:
    """What the screen waits for while a charge is verified, and what happens next."""
    if verifying.window is None:
        return "Verifying the charge with the service.", ""
    sent, gives_up = verifying.window
    now = verifying.now
    wait = f"Verifying the charge with the service: sent {waited((now - sent).total_seconds())} ago."
    again = ""
    if verifying.next_in is not None:
        again = f"The terminal asks the service again in {verifying.next_in} s (Check now asks at once). "
    if verifying.accepted:
        after = "The service took the charge; the terminal is finding its transaction."
    elif now < gives_up:
        until = gives_up.astimezone().strftime("%H:%M:%S")
        after = (
            f"If the service still has no record of it at {until}, the check can be charged again, and the "
            "terminal cancels this charge should it turn up."
        )
    else:
        after = (
            "If the service has no record of it at the next look, the check can be charged again, and the "
            "terminal cancels this charge should it turn up."
        )
    return wait, f"{again}{after} No second charge is sent meanwhile."


def pending_target(targets: list[str]) -> str:
    """The change of an authorized transaction that waits in the outbox, as a cashier names it."""
    return {"complete": "complete", "canceled": "cancel"}.get(targets[0], "change") if targets else "change"


def wait_texts(
    state: OpenCheck,
    *,
    changing: str = "",
    since: float = 0.0,
    pending_for: float | None = None,
    pending: str = "change",
    verifying: Verifying | None = None,
) -> tuple[str, str]:
    """What the screen waits for and for how long, and what happens next.

    ``since`` is how long the request the screen waits on has been out; ``pending_for`` how long a complete or
    cancel has waited in the outbox (None: not known), ``pending`` which of them it is; ``verifying`` what is
    known of a charge being verified."""
    wait, next_step = "", ""
    if state.phase is Phase.CHARGING:
        wait = f"Waiting for the service to authorize the charge ({waited(since)})."
    elif state.phase is Phase.VERIFYING:
        if verifying is not None:
            wait, next_step = verify_texts(verifying)
    elif state.phase is Phase.AUTHORIZED and changing:
        wait = f"Waiting for the service to confirm the {changing} ({waited(since)})."
    elif state.phase is Phase.AUTHORIZED and state.pending:
        for_how_long = f" ({waited(pending_for)})" if pending_for is not None else ""
        wait = (
            f"The service has not confirmed the {pending} yet{for_how_long}; the terminal "
            "sends it again until it does and reads the transaction every few seconds."
        )
    elif state.phase is Phase.AUTHORIZED:
        next_step = (
            f"Complete ({key(Act.COMPLETE)}) charges the customer; Cancel ({key(Act.CANCEL_TX)}) releases the amount."
        )
    elif state.phase is Phase.PAID_IN_CASH:
        next_step = (
            "Kept on this terminal for the shift's report; nothing was sent to the service and no customer "
            f"account was touched. New check ({key(Act.NEW_CHECK)}) starts the next sale."
        )
    elif state.phase in FINISHED:
        next_step = f"New check ({key(Act.NEW_CHECK)}) starts the next sale."
    return wait, next_step


def cancel_question(state: OpenCheck, money: Format) -> str:
    """What a manager is asked before an authorized charge is canceled."""
    whose = f" to {state.customer.display_name}" if state.customer else ""
    return f"Cancel the charge of {money(state.totals.charge_amount)}{whose}?"


def charge_under_way(state: OpenCheck, money: Format) -> str | None:
    """What the open check's charge is doing, said in a sentence; None when nothing is under way."""
    amount = money(max(0, state.totals.charge_amount))
    whose = f" to {state.customer.display_name}" if state.customer else ""
    if state.phase in (Phase.CHARGING, Phase.VERIFYING):
        return f"The charge of {amount}{whose} is being sent to the service."
    if state.phase is Phase.AUTHORIZED:
        return f"The charge of {amount}{whose} is authorized, neither completed nor canceled."
    return None
