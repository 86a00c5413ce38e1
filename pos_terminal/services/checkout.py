"""Charging a customer exactly once, and driving the transaction through its states.

The journal records a charge *intent* with a unique ``refId`` before the create
request leaves. The transaction id then comes from the answer's body, its
``Location``, or reconciliation: listing this terminal's transactions and
picking the one with that ``refId``. When the outcome is unknown (timeout,
dropped connection, 5xx) the intent is *verifying*: no second create is sent
while the first may still land, and any duplicate found is canceled before
anything is completed.

Once the create may have done its work, an intent ends in one of two ways only:
journaled with its transaction id, or verifying. Nothing read afterwards (the
transaction, the list) can make it failed: a failed read leaves it verifying.
An intent whose create got no answer and that a *successful* listing still does
not show once the verify window has passed is declared not found; if it lands
later anyway, it is canceled (:meth:`Checkout.cancel_late_landings`). Only a
create the service refused, or one that never left, is "not charged".

Complete, cancel and refund are idempotent by the spec, so they go through the
journal's outbox and are re-sent until the service confirms them.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

from pos_terminal.api.client import PosClient
from pos_terminal.api.errors import (
    ApiError,
    InvalidStateTransition,
    NotFound,
    OutcomeUnknown,
    RateLimited,
    ServerError,
    ServiceUnreachable,
)
from pos_terminal.api.models import CreateTransactionRequest, Customer, Transaction, TransactionRef
from pos_terminal.domain.check import Check, lines_of
from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.lifecycle import Action, TxState
from pos_terminal.domain.people import Approval
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import ChargeIntent, CreateAnswer, IntentStatus, Journal, OutboxEntry

log = logging.getLogger(__name__)

TRANSIENT = (OutcomeUnknown, ServiceUnreachable, ServerError, RateLimited)
SEARCH_MARGIN = timedelta(hours=1)  # around a search window, for clocks that drift and answers that take long
NOT_FOUND_YET = (
    "The service still shows no record of this charge. If it turns up later, the terminal cancels it at once, "
    "so charging this check again never holds the customer's money twice."
)
ACCEPTED_NO_ID = "The service took the charge without saying its transaction id; the terminal is looking it up."


def new_ref_id() -> str:
    """A unique reference for one charge of one check; the key of reconciliation."""
    return f"pos-{uuid.uuid4().hex}"


class ChargeInProgress(UserError):
    sentence = "A charge is still being verified on this terminal."
    hint = "Wait until it is settled before charging again; no customer is charged twice."


class ChargeFailed(UserError):
    """The service definitely did not create the transaction: its sentence, and what to do next (the refusal's own
    advice where it has some, such as asking the customer to pay another way)."""

    hint = "Fix what the message says and charge again."


class AlreadyCharged(UserError):
    """An earlier charge of the very same check, for the same customer, still holds their money."""

    hint = "Complete or cancel that transaction first; the customer's money is held once already."

    def __init__(self, transaction_id: str, customer: str) -> None:
        self.transaction_id = transaction_id
        super().__init__(f"This check was charged already: transaction {transaction_id} for {customer} is authorized.")


class ChargeStatus(StrEnum):
    AUTHORIZED = "authorized"
    VERIFYING = "verifying"
    FAILED = "failed"  # the service refused the create, or it never left: nothing was charged
    NOT_FOUND = "not found"  # no answer, and no record of it within the verify window; a late one is canceled


@dataclass(frozen=True)
class ChargeOutcome:
    """Where one charge stands: authorized (with its id), still verifying, or failed (with why)."""

    ref_id: str
    status: ChargeStatus
    transaction_id: str | None = None
    transaction: Transaction | None = None
    message: str | None = None
    duplicates_canceled: tuple[str, ...] = ()


class ChangeStatus(StrEnum):
    DONE = "done"
    PENDING = "pending"
    REFUSED = "refused"


@dataclass(frozen=True)
class StateChangeOutcome:
    transaction_id: str
    target: TxState
    status: ChangeStatus
    transaction: Transaction | None = None
    message: str | None = None
    # a complete sent with less than the warning margin left before automatic cancellation: the seconds left
    close_call_seconds: int | None = None


@dataclass
class ResumeReport:
    charges: list[ChargeOutcome] = field(default_factory=list)
    state_changes: list[StateChangeOutcome] = field(default_factory=list)
    late_duplicates_canceled: list[str] = field(default_factory=list)

    @property
    def anything(self) -> bool:
        return bool(self.charges or self.state_changes or self.late_duplicates_canceled)


class Guard(Protocol):
    """Who may charge and change states (:class:`~pos_terminal.services.till.Till`); raises a UserError when not."""

    def before_charge(self) -> None: ...

    def before_change(self, action: Action, transaction_id: str, approval: Approval | None) -> str | None:
        """The manager who approved the change, when it needed one."""
        ...


class Checkout:
    """Charges, state changes and their recovery after a crash, for one terminal.

    ``actor`` is the person at the till, written with each charge and state change; ``guard`` (the till)
    says whether they may. Resuming and re-sending what is already decided are the terminal's own acts.
    """

    def __init__(
        self,
        client: PosClient,
        journal: Journal,
        *,
        terminal_id: str | None,
        actor: str | None = None,
        verify_window: timedelta = timedelta(seconds=90),
        auto_cancel_hint: timedelta = timedelta(seconds=300),
        warn_before_auto_cancel: timedelta = timedelta(seconds=30),
        now: Clock = utcnow,
    ) -> None:
        self.client = client
        self.journal = journal
        self.terminal_id = terminal_id
        self.actor = actor
        self.verify_window = verify_window
        self.auto_cancel_hint = auto_cancel_hint
        self.warn_before_auto_cancel = warn_before_auto_cancel
        self.now = now
        self._lock = asyncio.Lock()
        self._sending: set[int] = set()  # outbox entries whose request is out now
        self.guard: Guard | None = None

    # --- charging ---------------------------------------------------------------------------

    async def charge(
        self, check: Check, customer: Customer, *, ref_id: str | None = None, again: bool = False
    ) -> ChargeOutcome:
        """Create the transaction for ``check``; never sends a second create for one intent.

        ``ref_id`` lets a caller remember the reference before anything is recorded (the open check
        keeps it, so a restart finds the charge of the check on screen); one is made up otherwise.
        An earlier charge of the very same check for the same customer that still holds their money is
        refused (:class:`AlreadyCharged`) unless ``again``: a retry after a lost answer or a killed command
        must not hold the money twice.
        """
        async with self._lock:
            if self.journal.intents.unfinished():
                raise ChargeInProgress()
            if self.guard is not None:
                self.guard.before_charge()
            check.validate()
            ref_id = ref_id or new_ref_id()
            if self.journal.intents.get(ref_id) is not None:
                raise UserError("This check has already been charged.", hint="Start a new check to charge again.")
            if not again:
                await self._refuse_a_second_hold(check, customer)
            customer_ref = customer.model_dump(by_alias=True, exclude_none=True, mode="json")
            body = check.charge_request(customer=customer_ref, ref_id=ref_id, terminal_id=self.terminal_id)
            request = CreateTransactionRequest.model_validate(body)
            with self.journal.writing():  # the intent and its audit entry, in one sync to disk
                self.journal.intents.record(
                    ref_id=ref_id,
                    terminal_id=self.terminal_id,
                    customer=customer_ref,
                    check=check.to_json(),
                    request=body,
                    actor=self.actor,
                )
                self.journal.audit.record(
                    "charge",
                    actor=self.actor,
                    terminal_id=self.terminal_id,
                    detail={"refId": ref_id, "chargeAmount": body["chargeAmount"], "customerId": customer.customer_id},
                )
            try:
                result = await self.client.create_transaction(request)
            except OutcomeUnknown as exc:
                # what the transport said (a timeout, a connection closed, a 5xx), for whoever reads the log
                log.warning(
                    "create for %s has an unknown outcome: %s (%s)", ref_id, exc.sentence, exc.detail or exc.status
                )
                self.journal.intents.update(ref_id, status=IntentStatus.VERIFYING, error=exc.text())
                return await self._verify(ref_id)
            except ApiError as exc:
                # an error answer that is not a 5xx (those are OutcomeUnknown), or a request that never left; the
                # audit log says so beside its "charge", which a reader would otherwise take for a hold
                with self.journal.writing():
                    self.journal.intents.update(
                        ref_id, status=IntentStatus.FAILED, error=exc.text(), create_answer=CreateAnswer.REFUSED
                    )
                    self.journal.audit.record(
                        "charge refused",
                        actor=self.actor,
                        terminal_id=self.terminal_id,
                        detail={"refId": ref_id, "why": exc.sentence},
                    )
                raise ChargeFailed(exc.sentence, hint=exc.hint) from exc
            if result.transaction_id:
                # journaled with its id before any further request: nothing that follows can lose it
                return await self._created(ref_id, result.transaction_id, None)
            self.journal.intents.update(
                ref_id, status=IntentStatus.VERIFYING, error=None, create_answer=CreateAnswer.ACCEPTED
            )
            return await self._verify(ref_id)

    async def _refuse_a_second_hold(self, check: Check, customer: Customer) -> None:
        """Raise :class:`AlreadyCharged` when an earlier charge of this check for this customer may still be
        authorized: by the journal's last word on it, confirmed by a read (a read that fails refuses too)."""
        since = self.now() - self.auto_cancel_hint - self.verify_window
        lines = check.lines()
        for transaction_id, saved in self.journal.intents.charged_checks(customer.customer_id, since=since):
            if lines_of(saved) != lines:
                continue
            try:
                transaction = await self.client.get_transaction(transaction_id)
            except (*TRANSIENT, ApiError) as exc:
                log.info("could not read %s before charging its check again: %s", transaction_id, exc.sentence)
                raise AlreadyCharged(transaction_id, customer.display_name) from exc
            self._remember(transaction)
            if transaction.state is TxState.AUTHORIZED:
                raise AlreadyCharged(transaction_id, customer.display_name)

    async def verify(self, ref_id: str) -> ChargeOutcome:
        """Reconcile one intent by its ``refId``."""
        async with self._lock:
            return await self._verify(ref_id)

    async def settle(self, ref_id: str, *, within: timedelta | None = None, poll: float = 1.0) -> ChargeOutcome:
        """Verify until the intent is settled, or for ``within`` at most (by default the verify window from
        now): an intent still verifying then stays so, for the next resume, and is returned as it stands."""
        give_up = self.now() + (self.verify_window if within is None else within)
        outcome = await self.verify(ref_id)
        delay = poll
        while outcome.status is ChargeStatus.VERIFYING and self.now() < give_up:
            await asyncio.sleep(min(delay, max(0.0, (give_up - self.now()).total_seconds())))
            delay = min(delay * 2, 10.0)
            outcome = await self.verify(ref_id)
        return outcome

    async def _verify(self, ref_id: str) -> ChargeOutcome:
        intent = self._intent(ref_id)
        if intent.status is IntentStatus.CREATED and intent.transaction_id:
            return ChargeOutcome(ref_id, ChargeStatus.AUTHORIZED, intent.transaction_id)
        if intent.status in (IntentStatus.FAILED, IntentStatus.RESOLVED):
            status = ChargeStatus.FAILED if intent.nothing_created else ChargeStatus.NOT_FOUND
            return ChargeOutcome(ref_id, status, message=intent.error)
        try:
            found = await self._find_by_ref(intent)
        except (*TRANSIENT, ApiError) as exc:
            # a failed look says nothing of the charge: it stays verifying, whatever the window
            self.journal.intents.update(ref_id, status=IntentStatus.VERIFYING, error=exc.text())
            return ChargeOutcome(ref_id, ChargeStatus.VERIFYING, message=f"{exc.sentence} Still verifying.")
        if found:
            keep, *duplicates = found
            return await self._created(ref_id, keep.transaction_id, keep, duplicates)
        if intent.create_answer is CreateAnswer.ACCEPTED:
            self.journal.intents.update(ref_id, status=IntentStatus.VERIFYING)
            return ChargeOutcome(ref_id, ChargeStatus.VERIFYING, message=ACCEPTED_NO_ID)
        if self.now() - intent.created_at < self.verify_window:
            self.journal.intents.update(ref_id, status=IntentStatus.VERIFYING)
            return ChargeOutcome(
                ref_id, ChargeStatus.VERIFYING, message="The charge is being verified with the service."
            )
        # Not found is all the terminal knows: the create may still land. The terminal keeps looking for it until
        # the service would have canceled it on its own, and cancels it if it comes (cancel_late_landings).
        self.journal.intents.update(ref_id, status=IntentStatus.FAILED, error=NOT_FOUND_YET)
        return ChargeOutcome(ref_id, ChargeStatus.NOT_FOUND, message=NOT_FOUND_YET)

    async def _created(
        self,
        ref_id: str,
        transaction_id: str,
        transaction: Transaction | None,
        duplicates: list[Transaction] | None = None,
    ) -> ChargeOutcome:
        state = transaction.state if transaction else TxState.AUTHORIZED
        with self.journal.writing():  # the intent settled and the transaction known, together
            self.journal.intents.update(ref_id, status=IntentStatus.CREATED, transaction_id=transaction_id)
            self.journal.transactions.remember(
                transaction_id=transaction_id,
                ref_id=ref_id,
                state=str(state),
                record=_record(transaction),
            )
        canceled = [await self._cancel_duplicate(ref_id, duplicate) for duplicate in duplicates or ()]
        return ChargeOutcome(
            ref_id,
            ChargeStatus.AUTHORIZED,
            transaction_id,
            transaction,
            duplicates_canceled=tuple(c for c in canceled if c),
        )

    async def _cancel_duplicate(self, ref_id: str, duplicate: Transaction) -> str | None:
        """Cancel a second transaction for one intent; only an authorized one can be."""
        log.warning("duplicate transaction %s for %s: canceling it", duplicate.transaction_id, ref_id)
        self.journal.transactions.remember(
            transaction_id=duplicate.transaction_id,
            ref_id=ref_id,
            state=str(duplicate.state),
            record=_record(duplicate),
        )
        self.journal.audit.record(
            "cancel",
            actor=self.actor,
            terminal_id=self.terminal_id,
            detail={"transactionId": duplicate.transaction_id, "reason": "duplicate", "refId": ref_id},
        )
        if duplicate.state is not TxState.AUTHORIZED:
            return None
        entry = self.journal.outbox.enqueue(duplicate.transaction_id, str(TxState.CANCELED))
        await self._deliver(entry)
        return duplicate.transaction_id

    async def _find_by_ref(self, intent: ChargeIntent) -> list[Transaction]:
        """This terminal's transactions carrying the intent's ``refId``, oldest first, each read whole."""
        listed = await self._list_since(intent.created_at, intent.terminal_id)
        matches = [t for t in listed if t.ref_id == intent.ref_id]
        matches.sort(key=lambda t: (t.created or intent.created_at, t.transaction_id))
        return [await self.client.get_transaction(t.transaction_id) for t in matches]

    def _search_window(self, since: datetime) -> tuple[datetime, datetime]:
        """From ``since`` to now, by this terminal's clock and by the service's, whichever reaches further.

        The service stamps ``created`` by its own clock and lists by it: a service an hour or more ahead would
        hide a transaction from a window built from the terminal's clock alone. Its clock is known from the
        ``Date`` of its answers.
        """
        skew = self.client.clock_offset or timedelta(0)
        now = self.now()
        return min(since, since + skew) - SEARCH_MARGIN, max(now, now + skew) + SEARCH_MARGIN

    async def _list_since(self, since: datetime, terminal_id: str | None) -> list[TransactionRef]:
        """The transactions of ``terminal_id`` over :meth:`_search_window`; when the listing's own answer shows
        the service's clock further off than the window allowed for, once more over the corrected window.

        Read as references (id, ``refId`` and creation: some 250 bytes a sale, a third of a report's row): the
        window spans an hour and more of the till's sales, and a search looks only at their ``refId``; the few it
        finds are read whole by the caller. Whole records of the hour made a passing peak of some 9.5 KB of small
        objects per sale at every search, which grew with the day's sales and left the interpreter's memory higher
        after each (docs/memory.md)."""
        start, end = self._search_window(since)
        listed = await self.client.list_transaction_refs(start, end, terminal_id=terminal_id)
        wider_start, wider_end = self._search_window(since)
        if wider_start < start or wider_end > end:
            listed = await self.client.list_transaction_refs(wider_start, wider_end, terminal_id=terminal_id)
        return listed

    def _intent(self, ref_id: str) -> ChargeIntent:
        intent = self.journal.intents.get(ref_id)
        if intent is None:
            raise UserError(f"No charge with reference {ref_id} is known on this terminal.")
        return intent

    # --- state changes ----------------------------------------------------------------------

    async def change_state(
        self, transaction_id: str, action: Action, *, approval: Approval | None = None
    ) -> StateChangeOutcome:
        """Complete, cancel or refund: kept in the outbox first, then sent; pending when the service cannot
        confirm yet, and re-sent until it does. Nothing read before the request can lose the change.

        A cancel or a refund by a cashier needs a manager's ``approval`` (the guard says so before anything
        is kept)."""
        approved_by = self.guard.before_change(action, transaction_id, approval) if self.guard is not None else None
        detail: dict[str, Any] = {"transactionId": transaction_id}
        if approved_by is not None:
            detail["approvedBy"] = approved_by
        with self.journal.writing():  # the change to send and its audit entry, in one sync to disk
            entry = self.journal.outbox.enqueue(
                transaction_id, str(action.target), actor=self.actor, approved_by=approved_by
            )
            self.journal.audit.record(str(action), actor=self.actor, terminal_id=self.terminal_id, detail=detail)
        self._sending.add(entry.id)  # from now on: the outbox's re-sending passes leave it to this call
        try:
            close_call = self._close_call(transaction_id) if action is Action.COMPLETE else None
            return replace(await self._send(entry), close_call_seconds=close_call)
        finally:
            self._sending.discard(entry.id)

    def service_now(self) -> datetime:
        """Now by the service's clock, as far as its answers' ``Date`` tell (the terminal's clock until one does)."""
        return self.now() + (self.client.clock_offset or timedelta(0))

    def seconds_to_auto_cancel(self, transaction_id: str) -> int | None:
        """Seconds before the service cancels the authorized transaction on its own, from what the journal knows
        (no request: a complete never waits for a read); None when the journal knows nothing of it.

        The service's ``created`` is compared with the service's clock; the terminal's own record of when it sent
        the create, with the terminal's clock.
        """
        known = self.journal.transactions.get(transaction_id)
        if known is None:
            return None
        created = _created(known.record)
        if created is not None:
            left = created + self.auto_cancel_hint - self.service_now()
        elif known.ref_id is not None and (intent := self.journal.intents.get(known.ref_id)) is not None:
            left = intent.created_at + self.auto_cancel_hint - self.now()
        else:
            return None
        return max(0, int(left.total_seconds()))

    def _close_call(self, transaction_id: str) -> int | None:
        """Seconds left before automatic cancellation when under the warning margin; None when not, or unknown."""
        left = self.seconds_to_auto_cancel(transaction_id)
        return left if left is not None and left < self.warn_before_auto_cancel.total_seconds() else None

    async def flush_outbox(self) -> list[StateChangeOutcome]:
        """Re-send every pending state change, oldest first; stop a transaction's queue at its first pending."""
        outcomes: list[StateChangeOutcome] = []
        blocked: set[str] = set()
        for entry in self.journal.outbox.pending():
            if entry.transaction_id in blocked or entry.id in self._sending:
                continue
            if not self.journal.outbox.is_pending(entry.id):  # another pass finished it while this one was sending
                continue
            outcome = await self._deliver(entry)
            outcomes.append(outcome)
            if outcome.status is ChangeStatus.PENDING:
                blocked.add(entry.transaction_id)
        return outcomes

    async def resend_until_confirmed(
        self, *, first_delay: float = 2.0, max_delay: float = 30.0
    ) -> AsyncIterator[list[StateChangeOutcome]]:
        """Re-send the outbox, backing off, until the service has confirmed or refused every change in it;
        yields what each pass sent.

        A complete kept pending must not wait for the next start: the service cancels an authorized
        transaction on its own after a few minutes, and the customer would walk out uncharged.
        """
        delay = first_delay
        while self.journal.outbox.pending():
            await asyncio.sleep(delay)
            yield await self.flush_outbox()
            delay = min(delay * 2, max_delay)

    async def _deliver(self, entry: OutboxEntry) -> StateChangeOutcome:
        self._sending.add(entry.id)
        try:
            return await self._send(entry)
        finally:
            self._sending.discard(entry.id)

    async def _send(self, entry: OutboxEntry) -> StateChangeOutcome:
        target = TxState(entry.target_state)
        try:
            transaction = await self.client.set_state(entry.transaction_id, target)
        except InvalidStateTransition as exc:
            return await self._refused(entry, target, exc)
        except NotFound as exc:
            self.journal.outbox.drop(entry.id, exc.text())
            return StateChangeOutcome(entry.transaction_id, target, ChangeStatus.REFUSED, message=exc.sentence)
        except (*TRANSIENT, ApiError) as exc:
            self.journal.outbox.record_attempt(entry.id, exc.text())
            return StateChangeOutcome(
                entry.transaction_id,
                target,
                ChangeStatus.PENDING,
                message=f"{exc.sentence} The change is kept and will be sent again.",
            )
        with self.journal.writing():  # the change confirmed and the transaction's new state, together
            self.journal.outbox.confirm(entry.id, str(transaction.state))
            self._remember(transaction)
        return StateChangeOutcome(entry.transaction_id, target, ChangeStatus.DONE, transaction)

    async def _refused(self, entry: OutboxEntry, target: TxState, exc: InvalidStateTransition) -> StateChangeOutcome:
        try:
            transaction = await self.client.get_transaction(entry.transaction_id)
        except (*TRANSIENT, ApiError) as read_error:
            self.journal.outbox.record_attempt(entry.id, read_error.text())
            return StateChangeOutcome(entry.transaction_id, target, ChangeStatus.PENDING, message=read_error.sentence)
        self._remember(transaction)
        if transaction.state is target:
            self.journal.outbox.confirm(entry.id, str(transaction.state))
            return StateChangeOutcome(entry.transaction_id, target, ChangeStatus.DONE, transaction)
        message = _refusal_sentence(transaction.state, target) or exc.sentence
        self.journal.outbox.drop(entry.id, message)
        return StateChangeOutcome(entry.transaction_id, target, ChangeStatus.REFUSED, transaction, message)

    def confirm_seen(self, transaction: Transaction) -> int:
        """A read shows that pending changes of ``transaction`` took effect (their answer was lost): confirm
        them from the read instead of waiting for the next re-send; returns how many. A change whose request
        is out right now is left to that request."""
        confirmed = 0
        for entry in self.journal.outbox.pending():
            if (
                entry.transaction_id == transaction.transaction_id
                and entry.id not in self._sending
                and entry.target_state == str(transaction.state)
            ):
                self.journal.outbox.confirm(entry.id, str(transaction.state))
                confirmed += 1
        return confirmed

    def _remember(self, transaction: Transaction) -> None:
        known = self.journal.transactions.get(transaction.transaction_id)
        if known is not None or transaction.ref_id:
            self.journal.transactions.remember(
                transaction_id=transaction.transaction_id,
                ref_id=transaction.ref_id,
                state=str(transaction.state),
                record=_record(transaction),
            )

    # --- recovery ---------------------------------------------------------------------------

    async def resume(self) -> ResumeReport:
        """Finish what a crash or a network failure left: verify intents, cancel late landings, flush the outbox."""
        report = ResumeReport()
        async with self._lock:
            for intent in self.journal.intents.unfinished():
                report.charges.append(await self._verify(intent.ref_id))
            report.late_duplicates_canceled = await self._cancel_late_landings()
        report.state_changes = await self.flush_outbox()
        return report

    async def watch_late_landings(self, *, every: float = 10.0) -> AsyncIterator[list[str]]:
        """While a charge declared not found may still land, look for it every ``every`` seconds and cancel it
        when it does; yields the ids each look canceled. Ends once the service would have canceled any such
        charge on its own: a cashier told to charge again must not wait for the next start for the first to go."""
        while self.watching_for_late_landings():
            await asyncio.sleep(every)
            yield await self.cancel_late_landings()

    def watching_for_late_landings(self) -> bool:
        """Whether a charge declared not found may still land (until the service would cancel it on its own)."""
        return bool(self._not_found_intents())

    async def cancel_late_landings(self) -> list[str]:
        """Look for charges declared not found that landed after all, and cancel them; the ids canceled."""
        async with self._lock:
            return await self._cancel_late_landings()

    def _not_found_intents(self) -> list[ChargeIntent]:
        horizon = self.now() - self.auto_cancel_hint - self.verify_window
        return [
            i for i in self.journal.intents.failed(since=horizon) if i.transaction_id is None and not i.nothing_created
        ]

    async def _cancel_late_landings(self) -> list[str]:
        """A charge declared not found may still have landed later: cancel it, the cashier was told to go on."""
        failed = self._not_found_intents()
        if not failed:
            return []
        try:
            listed = await self._list_since(min(i.created_at for i in failed), self.terminal_id)
        except (*TRANSIENT, ApiError) as exc:
            log.warning("could not look for late landings: %s", exc.sentence)
            return []
        by_ref: dict[str, list[TransactionRef]] = {}
        for row in listed:
            if row.ref_id:
                by_ref.setdefault(row.ref_id, []).append(row)
        canceled: list[str] = []
        for intent in failed:
            landed = by_ref.get(intent.ref_id, [])
            for row in landed:
                try:
                    transaction = await self.client.get_transaction(row.transaction_id)
                except (*TRANSIENT, ApiError) as exc:
                    log.warning("could not read the late landing %s: %s", row.transaction_id, exc.sentence)
                    return canceled  # the intent stays not found: the next look finds it again
                result = await self._cancel_duplicate(intent.ref_id, transaction)
                if result:
                    canceled.append(result)
            if landed:
                self.journal.intents.update(intent.ref_id, status=IntentStatus.RESOLVED, error=intent.error)
        return canceled


def _record(transaction: Transaction | None) -> dict[str, Any] | None:
    return None if transaction is None else transaction.model_dump(by_alias=True, mode="json")


def _created(record: Mapping[str, Any] | None) -> datetime | None:
    """When the service created the transaction of a journal record (by its clock), when the record says."""
    if not record or not record.get("created"):
        return None
    try:
        return Transaction.model_validate(record).created
    except ValueError:
        return None


def _refusal_sentence(state: TxState, target: TxState) -> str | None:
    sentences: Mapping[tuple[TxState, TxState], str] = {
        (TxState.CANCELED, TxState.COMPLETE): "The transaction was canceled before it could be completed.",
        (TxState.REFUNDED, TxState.COMPLETE): "The transaction has already been refunded.",
        (TxState.AUTHORIZED, TxState.REFUNDED): "Only a completed transaction can be refunded.",
        (TxState.CANCELED, TxState.REFUNDED): "A canceled transaction cannot be refunded; nothing was charged.",
        (TxState.COMPLETE, TxState.CANCELED): "A completed transaction cannot be canceled; refund it instead.",
        (TxState.REFUNDED, TxState.CANCELED): "The transaction has already been refunded.",
    }
    return sentences.get((state, target))
