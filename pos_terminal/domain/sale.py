"""Where the check on screen stands (:class:`Phase`) and the rules that follow from it.

The register (services) decides the phase; the cashier's screen and the customer display only show it.
They live here, apart from the register and its HTTP and storage, so the screens that show a phase can
be built and painted before any of that is loaded.
"""

from __future__ import annotations

from enum import StrEnum

from pos_terminal.errors import UserError


class Phase(StrEnum):
    """Where the check on screen stands; exactly one at a time."""

    BUILDING = "building"
    CHARGING = "charging"
    VERIFYING = "verifying"
    AUTHORIZED = "authorized"
    COMPLETE = "complete"
    CANCELED = "canceled"
    REFUNDED = "refunded"
    PAID_IN_CASH = "paid in cash"  # paid in full before any charge: kept in the journal, never sent
    FAILED = "failed"  # the service refused the charge, or it never left: nothing was charged
    # the charge got no answer and the service showed no record of it in time: the check can be charged again,
    # and if the first charge turns up after all, the terminal cancels it
    UNCONFIRMED = "unconfirmed"


LOCKED = frozenset({Phase.CHARGING, Phase.VERIFYING, Phase.AUTHORIZED})
FINISHED = frozenset({Phase.COMPLETE, Phase.CANCELED, Phase.REFUNDED, Phase.PAID_IN_CASH})
EDITABLE = frozenset({Phase.BUILDING, Phase.FAILED, Phase.UNCONFIRMED})
UNCHARGED = frozenset({Phase.FAILED, Phase.UNCONFIRMED})  # a charge ended without a transaction to show


class NoCustomer(UserError):
    sentence = "Choose the customer to charge first."
    hint = "Pick a name in the list of checked-in customers."


class CheckLocked(UserError):
    sentence = "The check cannot be changed while its charge is under way."
    hint = "Complete or cancel the transaction, or start a new check."


class CheckFinished(UserError):
    sentence = "This check is finished."
    hint = "Start a new check (Ctrl+N) for the next sale."


class NotPaidInFull(UserError):
    sentence = "The cash taken does not cover the check."
    hint = "Charge the customer the balance, or take more cash."
