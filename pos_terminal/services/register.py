"""The cashier's open check: the check on screen, its customer and its charge, kept in the journal.

Every change is saved at once, so a crash or a power cut restores exactly what
the cashier saw, including a charge in flight. The charge's ``refId`` is chosen
and saved *before* the create leaves, so after a restart the register knows
which intent (and which transaction) belongs to the check on screen.

The register says where the check stands as one :class:`Phase`; the window only
shows it. It does no arithmetic of its own: the figures come from the domain's
:class:`Check`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any, Protocol

from pydantic import ValidationError

from pos_terminal.api.errors import ApiError
from pos_terminal.api.models import Customer, Transaction
from pos_terminal.domain.check import Check, Totals
from pos_terminal.domain.check_json import check_from_json
from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.lifecycle import Action, TxState
from pos_terminal.domain.people import Approval, discount_share_bp
from pos_terminal.domain.sale import (
    EDITABLE,
    FINISHED,
    LOCKED,
    CheckFinished,
    CheckLocked,
    NoCustomer,
    NotPaidInFull,
    Phase,
)
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import CreateAnswer, Journal
from pos_terminal.services.checkout import (
    TRANSIENT,
    ChangeStatus,
    ChargeFailed,
    ChargeStatus,
    Checkout,
    new_ref_id,
)
from pos_terminal.services.directory import History

log = logging.getLogger(__name__)

OPEN_CHECK_VERSION = 1


_PHASE_OF_STATE = {
    TxState.AUTHORIZED: Phase.AUTHORIZED,
    TxState.COMPLETE: Phase.COMPLETE,
    TxState.CANCELED: Phase.CANCELED,
    TxState.REFUNDED: Phase.REFUNDED,
}


_PHASE_OF_CHARGE = {
    ChargeStatus.FAILED: Phase.FAILED,
    ChargeStatus.NOT_FOUND: Phase.UNCONFIRMED,
    ChargeStatus.VERIFYING: Phase.VERIFYING,
}


@dataclass(frozen=True)
class OpenCheck:
    """Everything the cashier's screen shows about the current check."""

    check: Check = field(default_factory=Check)
    customer: Customer | None = None
    phase: Phase = Phase.BUILDING
    ref_id: str | None = None
    transaction_id: str | None = None
    transaction: Transaction | None = None
    message: str | None = None
    pending: bool = False  # a complete or cancel is kept in the outbox, not confirmed yet
    discount_approved_bp: int = 0  # the discounts' share of the items a manager approved for this check

    @cached_property
    def totals(self) -> Totals:
        """Worked out once per state: the screen reads them several times a render."""
        return self.check.totals()

    @property
    def editable(self) -> bool:
        return self.phase in EDITABLE

    @property
    def unfinished(self) -> bool:
        """Being built with something on it (a customer, a line): starting another would throw it away."""
        check = self.check
        return self.editable and bool(self.customer or check.items or check.discounts or check.payments)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": OPEN_CHECK_VERSION,
            "check": self.check.to_json(),
            "customer": self.customer.model_dump(by_alias=True, mode="json") if self.customer else None,
            "phase": str(self.phase),
            "refId": self.ref_id,
            "transactionId": self.transaction_id,
            "message": self.message,
            "discountApprovedBp": self.discount_approved_bp,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OpenCheck:
        customer = data.get("customer")
        return cls(
            check=check_from_json(data["check"]),
            customer=Customer.model_validate(customer) if customer else None,
            phase=Phase(data.get("phase", Phase.BUILDING)),
            ref_id=data.get("refId"),
            transaction_id=data.get("transactionId"),
            message=data.get("message"),
            discount_approved_bp=int(data.get("discountApprovedBp") or 0),
        )

    @classmethod
    def kept_in(cls, journal: Journal) -> OpenCheck | None:
        """The check the journal keeps open, None when none is; :class:`UnreadableCheck` when it cannot be read."""
        data = journal.open_check.load()
        if not data:
            return None
        try:
            return cls.from_json(data)
        except (UserError, ValidationError, KeyError, TypeError, ValueError) as exc:
            raise UnreadableCheck() from exc


class UnreadableCheck(UserError):
    sentence = "The check saved before the restart could not be read."


@dataclass(frozen=True)
class Restored:
    """What :meth:`Register.restore` found, for the message the cashier sees after a restart."""

    check_restored: bool  # a check still being built or charged is back (a finished one shows, but is not news)
    charge_in_flight: bool
    unreadable: bool = False

    @property
    def sentence(self) -> str | None:
        if self.unreadable:
            return "The check saved before the restart could not be read; a new check was started."
        if self.charge_in_flight:
            return "The terminal restarted during a charge; it was restored and is being checked with the service."
        if self.check_restored:
            return "The check open before the restart was restored."
        return None


class DiscountGuard(Protocol):
    """Whether the check's discounts need a manager (:class:`~pos_terminal.services.till.Till`)."""

    def before_discount(
        self,
        share_bp: int,
        approved_bp: int,
        approval: Approval | None,
        *,
        amount: int = 0,
        percent_bp: int = 0,
        fixed: int = 0,
    ) -> int:
        """The share approved for the check now (``amount`` cents off, typed as ``percent_bp`` of the items and
        ``fixed`` cents); a UserError when a manager must approve it first."""
        ...


class Register:
    """The open check and its charge; each change is saved before the caller hears of it."""

    def __init__(
        self,
        journal: Journal,
        checkout: Checkout,
        history: History,
        *,
        auto_cancel_hint: timedelta = timedelta(seconds=300),
        now: Clock = utcnow,
    ) -> None:
        self.journal = journal
        self.checkout = checkout
        self.history = history
        self.auto_cancel_hint = auto_cancel_hint
        self.now = now
        self.current = OpenCheck()
        self._listeners: list[Callable[[OpenCheck], None]] = []
        self._restore_listeners: list[Callable[[OpenCheck], None]] = []
        self.guard: DiscountGuard | None = None

    def on_change(self, listener: Callable[[OpenCheck], None]) -> None:
        """Call ``listener`` after every saved change (the screen shows "charging" while the create is out)."""
        self._listeners.append(listener)

    def on_restore(self, listener: Callable[[OpenCheck], None]) -> None:
        """Call ``listener`` with the check found at :meth:`restore`: where it stood before the restart, which is
        no change (a charge restored authorized and then found complete is; one restored complete is not)."""
        self._restore_listeners.append(listener)

    def _tell(self, state: OpenCheck) -> OpenCheck:
        for listener in list(self._listeners):
            listener(state)
        return state

    # --- keeping it -------------------------------------------------------------------------

    def _keep(self, state: OpenCheck) -> OpenCheck:
        check = state.check
        if (
            state.phase is Phase.BUILDING
            and state.customer is None
            and not (check.items or check.discounts or check.payments)
        ):
            self.journal.open_check.clear()
            self.current = state
            return self._tell(state)
        self.journal.open_check.save(state.to_json())
        self.current = state
        return self._tell(state)

    def restore(self) -> Restored:
        """Load the check that was open when the terminal stopped."""
        try:
            state = OpenCheck.kept_in(self.journal)
        except UnreadableCheck:
            log.warning("the saved open check is unreadable; starting a new one")
            self.journal.open_check.clear()
            self.current = OpenCheck()
            return Restored(check_restored=False, charge_in_flight=False, unreadable=True)
        if state is None:
            return Restored(check_restored=False, charge_in_flight=False)
        if state.phase is Phase.CHARGING:
            state = replace(state, phase=Phase.VERIFYING)
        self.current = state
        for listener in list(self._restore_listeners):
            listener(state)
        return Restored(check_restored=state.phase not in FINISHED, charge_in_flight=state.phase in LOCKED)

    # --- building ---------------------------------------------------------------------------

    def edit(self, change: Callable[[Check], Check], *, approval: Approval | None = None) -> OpenCheck:
        """Apply one change to the check (add, remove, quantity...); refused once it is being charged, once it is
        finished (the next sale starts with a new check, never with a line added to the last one), and when it
        takes the discounts above the limit without a manager's ``approval``."""
        state = self.current
        if state.phase in FINISHED:
            raise CheckFinished()
        if not state.editable:
            raise CheckLocked()
        check = change(state.check)
        approved = self._discount_approved(check, state.discount_approved_bp, approval)
        return self._keep(
            replace(state, check=check, phase=Phase.BUILDING, message=None, ref_id=None, discount_approved_bp=approved)
        )

    def _discount_approved(self, check: Check, approved_bp: int, approval: Approval | None) -> int:
        if self.guard is None:
            return approved_bp
        totals = check.totals()
        return self.guard.before_discount(
            discount_share_bp(totals.item_total, totals.discount_total),
            approved_bp,
            approval,
            amount=-totals.discount_total,
            percent_bp=sum(d.percent_bp or 0 for d in check.discounts),
            fixed=-sum(d.amount or 0 for d in check.discounts),
        )

    def choose_customer(self, customer: Customer | None) -> OpenCheck:
        state = self.current
        if state.phase in LOCKED:
            raise CheckLocked()
        if state.phase in FINISHED:
            state = OpenCheck()
        return self._keep(replace(state, customer=customer, phase=Phase.BUILDING, message=None, ref_id=None))

    def new_check(self) -> OpenCheck:
        if self.current.phase in LOCKED:
            raise CheckLocked(
                "The transaction of this check is still open.", hint="Complete or cancel it before a new check."
            )
        return self._keep(OpenCheck())

    # --- paid in cash -----------------------------------------------------------------------

    def finish_cash_sale(self) -> OpenCheck:
        """Record a check the cash taken pays in full: kept in the journal (and the audit log) for the shift.

        The service is never asked: it takes no charge of zero (contract section 7), and no customer's
        account is touched. The check stays on screen, finished, until a new one is started.
        """
        state = self.current
        if not state.editable:
            raise CheckLocked() if state.phase in LOCKED else CheckFinished()
        if not state.check.paid_in_full:
            state.check.validate()  # a broken line is named first
            raise NotPaidInFull()
        if self.checkout.guard is not None:
            # as a charge: the cash goes into a shift's drawer, taken by the person at the till
            self.checkout.guard.before_charge()
        totals = state.totals
        customer = state.customer.display_name if state.customer else None
        sale = self.journal.cash_sales.record(
            terminal_id=self.checkout.terminal_id,
            customer=customer,
            total=totals.total,
            tax=totals.tax,
            paid=totals.payments,
            check=state.check.to_json(),
            actor=self.checkout.actor,
        )
        self.journal.audit.record(
            "cash sale",
            actor=self.checkout.actor,
            terminal_id=self.checkout.terminal_id,
            detail={"total": sale.total, "paid": sale.paid, "change": sale.change},
        )
        return self._keep(replace(state, phase=Phase.PAID_IN_CASH, message=None, ref_id=None))

    # --- charging ---------------------------------------------------------------------------

    async def charge(self) -> OpenCheck:
        """Charge the customer for the check; ends authorized, verifying or failed, never twice."""
        state = self.current
        if state.phase in LOCKED:
            raise CheckLocked("This check is already being charged.", hint="Wait for its outcome.")
        if state.customer is None:
            raise NoCustomer()
        customer = state.customer
        state.check.validate()
        self._discount_approved(state.check, state.discount_approved_bp, None)
        if self.checkout.guard is not None:
            # refused before the check shows "charging": nothing was sent, and nothing flickers on the screen
            self.checkout.guard.before_charge()
        ref_id = new_ref_id()
        state = self._keep(replace(state, phase=Phase.CHARGING, ref_id=ref_id, message=None))
        try:
            outcome = await self.checkout.charge(state.check, customer, ref_id=ref_id)
        except ChargeFailed as exc:
            return self._keep(replace(state, phase=Phase.FAILED, message=exc.text()))
        except UserError:
            self._keep(replace(state, phase=Phase.BUILDING, ref_id=None))
            raise
        return await self._settled(outcome.status, outcome.transaction_id, outcome.message)

    async def verify(self) -> OpenCheck:
        """One reconciliation step for a charge whose outcome is unknown."""
        state = self.current
        if state.phase is not Phase.VERIFYING or not state.ref_id:
            return state
        if self.journal.intents.get(state.ref_id) is None:
            message = "The charge never left this terminal; nothing was charged."
            return self._keep(replace(state, phase=Phase.FAILED, message=message))
        outcome = await self.checkout.verify(state.ref_id)
        return await self._settled(outcome.status, outcome.transaction_id, outcome.message)

    async def _settled(self, status: ChargeStatus, transaction_id: str | None, message: str | None) -> OpenCheck:
        """The check after its charge's outcome: authorized, not charged, not confirmed, or still verifying."""
        if status is ChargeStatus.AUTHORIZED and transaction_id:
            return await self._authorized(transaction_id)
        phase = _PHASE_OF_CHARGE.get(status, Phase.VERIFYING)
        return self._keep(replace(self.current, phase=phase, message=message))

    async def _authorized(self, transaction_id: str) -> OpenCheck:
        state = self._keep(replace(self.current, phase=Phase.AUTHORIZED, transaction_id=transaction_id, message=None))
        return await self.refresh_transaction(state)

    async def refresh_transaction(self, state: OpenCheck | None = None) -> OpenCheck:
        """Read the check's transaction now (its state may have moved: auto-cancel, another terminal)."""
        state = state or self.current
        if not state.transaction_id:
            return state
        before = self.current
        try:
            transaction = await self.history.get(state.transaction_id)
        except (*TRANSIENT, ApiError) as exc:
            log.info("could not read %s: %s", state.transaction_id, exc.sentence)
            return state
        if self.current is not before:
            # the check moved on while the read was out (a complete landed): what was read is older than that
            return self.current
        phase = _PHASE_OF_STATE.get(transaction.state, state.phase)
        self.checkout.confirm_seen(transaction)
        pending = bool(self._pending_for(state.transaction_id))
        # "kept and will be sent again" says nothing true any more once the kept change went through
        message = None if state.pending and not pending else state.message
        canceled_here = state.pending and not pending and str(TxState.CANCELED) in self._asked_for(state)
        if phase is Phase.CANCELED and state.phase is Phase.AUTHORIZED and not canceled_here:
            message = "The transaction was canceled (it was left open too long, or canceled elsewhere)."
        return self._keep(replace(state, transaction=transaction, phase=phase, pending=pending, message=message))

    def _asked_for(self, state: OpenCheck) -> set[str]:
        """The states this terminal asked the check's transaction to move to (its outbox, sent or not)."""
        if not state.transaction_id:
            return set()
        return set(self.journal.outbox.asked_states(state.transaction_id))

    def charge_accepted(self) -> bool:
        """The charge being verified was taken by the service (only its transaction's id is still sought)."""
        state = self.current
        intent = self.journal.intents.get(state.ref_id) if state.phase is Phase.VERIFYING and state.ref_id else None
        return intent is not None and intent.create_answer is CreateAnswer.ACCEPTED

    def verify_window(self) -> tuple[datetime, datetime] | None:
        """For a charge being verified: when it was sent, and when the terminal gives up looking for it (from
        then on, if the service still has no record of it, it is declared not charged)."""
        state = self.current
        intent = self.journal.intents.get(state.ref_id) if state.phase is Phase.VERIFYING and state.ref_id else None
        if intent is None:
            return None
        return intent.created_at, intent.created_at + self.checkout.verify_window

    def seconds_left(self) -> int | None:
        """Time before the authorized transaction is canceled automatically (None when unknown).

        The service's ``created`` is by the service's clock, so it is counted down on the service's clock.
        """
        transaction = self.current.transaction
        if self.current.phase is not Phase.AUTHORIZED or transaction is None or transaction.created is None:
            return None
        deadline = transaction.created + self.auto_cancel_hint
        service_now = self.now() + (self.checkout.client.clock_offset or timedelta(0))
        return max(0, int((deadline - service_now).total_seconds()))

    async def complete(self) -> OpenCheck:
        return await self._change(Action.COMPLETE)

    async def cancel(self, *, approval: Approval | None = None) -> OpenCheck:
        """Cancel the authorized transaction (the customer's money is held: a cashier needs a manager)."""
        return await self._change(Action.CANCEL, approval)

    async def _change(self, action: Action, approval: Approval | None = None) -> OpenCheck:
        state = self.current
        if state.phase is not Phase.AUTHORIZED or not state.transaction_id:
            raise UserError(f"There is no authorized transaction to {action}.")
        outcome = await self.checkout.change_state(state.transaction_id, action, approval=approval)
        if outcome.status is ChangeStatus.DONE:
            phase = _PHASE_OF_STATE[outcome.transaction.state if outcome.transaction else action.target]
            close_call = outcome.close_call_seconds
            message = None if close_call is None else f"Only {close_call} s were left before automatic cancellation."
            transaction = outcome.transaction or state.transaction
            return self._keep(replace(state, phase=phase, transaction=transaction, pending=False, message=message))
        if outcome.status is ChangeStatus.PENDING:
            return self._keep(replace(state, pending=True, message=outcome.message))
        refreshed = await self.refresh_transaction(replace(state, message=outcome.message))
        return self._keep(replace(refreshed, message=outcome.message))

    def pending_since(self) -> datetime | None:
        """When the oldest change of the open check's transaction still waiting in the outbox was made."""
        transaction_id = self.current.transaction_id
        waiting = [e.created_at for e in self.journal.outbox.pending() if e.transaction_id == transaction_id]
        return min(waiting) if waiting and transaction_id else None

    def pending_targets(self) -> list[str]:
        """The states the open check's transaction waits to be moved to (kept in the outbox), oldest first."""
        transaction_id = self.current.transaction_id
        return self._pending_for(transaction_id) if transaction_id else []

    def _pending_for(self, transaction_id: str) -> list[str]:
        return [e.target_state for e in self.journal.outbox.pending() if e.transaction_id == transaction_id]
