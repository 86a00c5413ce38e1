"""The till: who is at it now, what they may do alone, and a manager's approval when they may not.

People sign in at the till with a name and a PIN, on top of the terminal's device
sign-in. Switching person locks the till and keeps the open check; so does the idle
lock. A cashier who tries a :class:`~pos_terminal.domain.people.Guarded` act gets
:class:`~pos_terminal.domain.people.ApprovalNeeded`; a manager's PIN at the prompt
(:meth:`Till.approve`) gives a one-time :class:`~pos_terminal.domain.people.Approval`
for that act, which the act then presents. Each approval is in the audit log with
both names, and so is the act it allowed.

The till is the guard of the checkout (charges, cancels, refunds) and of the open
check (discounts above the limit): the rules hold whatever calls them, the window or
the command line. A terminal with nobody added guards nothing.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.lifecycle import Action
from pos_terminal.domain.people import (
    Approval,
    ApprovalNeeded,
    DiscountNeedsApproval,
    Guarded,
    Person,
    Role,
    discount_needs_approval,
    may,
)
from pos_terminal.domain.sale import LOCKED
from pos_terminal.domain.shift import DrawerCount, Shift
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import Journal
from pos_terminal.services.shifts import APPROVAL, NoShiftOpen, Shifts
from pos_terminal.services.staff import Staff

log = logging.getLogger(__name__)


class NoPersonAtTill(UserError):
    sentence = "Nobody is signed in at the till."
    hint = "Sign in with your name and PIN."


class NotAManager(UserError):
    hint = "Ask a manager to enter their own PIN."


class FirstManagerExists(UserError):
    sentence = "This terminal already has people."
    hint = "A manager adds the next ones."


class ShiftBusy(UserError):
    """A charge of the shift is not settled: its cash and its person would belong to no shift."""

    sentence = "A charge of this terminal is still under way."
    hint = "Complete or cancel it first, then close the shift."


_GUARDED_ACTION = {Action.CANCEL: Guarded.CANCEL_CHARGED, Action.REFUND: Guarded.REFUND}


class Till:
    """The person at the till of one terminal, and what they may do."""

    def __init__(
        self,
        staff: Staff,
        shifts: Shifts,
        journal: Journal,
        *,
        terminal_id: str | None,
        discount_limit_bp: int = 1000,
        idle_lock_seconds: int = 300,
        now: Clock = utcnow,
    ) -> None:
        self.staff = staff
        self.shifts = shifts
        self.journal = journal
        self.terminal_id = terminal_id
        self.discount_limit_bp = discount_limit_bp
        self.idle_lock_seconds = idle_lock_seconds
        self.now = now
        self.current: Person | None = None
        self._granted: dict[str, Approval] = {}
        self._listeners: list[Callable[[Person | None], None]] = []

    # --- who is at the till -------------------------------------------------------------------------------------

    def on_change(self, listener: Callable[[Person | None], None]) -> None:
        """Call ``listener`` with the person at the till each time it changes (None: the till is locked)."""
        self._listeners.append(listener)

    def _set(self, person: Person | None) -> None:
        self.current = person
        self._granted.clear()
        for listener in list(self._listeners):
            listener(person)

    @property
    def guarding(self) -> bool:
        """Whether people work this terminal (until the first is added, nothing is guarded)."""
        return self.staff.has_people()

    @property
    def actor(self) -> str | None:
        return self.current.name if self.current else None

    async def create_first_manager(self, name: str, pin: str) -> Person:
        """The first start: the first person is a manager, and is signed in at once."""
        if self.guarding:
            raise FirstManagerExists()
        person = await self.staff.add(name, Role.MANAGER, pin, by=None)
        self._signed_in(person, how="first manager")
        return person

    async def sign_in(self, name: str, pin: str, *, how: str = "till") -> Person:
        person = await self.staff.verify(name, pin)
        self._signed_in(person, how=how)
        return person

    async def set_pin_and_sign_in(self, name: str, pin: str, *, how: str = "till") -> Person:
        """A person whose PIN a manager reset chooses their new one, and is at the till with it."""
        person = await self.staff.set_own_pin(name, pin)
        self._signed_in(person, how=how)
        return person

    def _signed_in(self, person: Person, *, how: str) -> None:
        self.journal.audit.record(
            "person signed in", actor=person.name, terminal_id=self.terminal_id, detail={"via": how}
        )
        self._set(person)

    def resume(self, person_id: int) -> Person | None:
        """The same person again after the terminal was rebuilt in this process (new settings); None when they
        are no longer active, and the till stays locked."""
        person = self.staff.book.get(person_id)
        if person is None or not person.active:
            return None
        self._set(person)
        return person

    def lock(self, reason: str = "switch person") -> None:
        """Nobody at the till until the next person signs in; the open check and its charge stay as they are."""
        if self.current is None:
            return
        self.journal.audit.record(
            "till locked", actor=self.current.name, terminal_id=self.terminal_id, detail={"why": reason}
        )
        self._set(None)

    def idle_lock_due(self, idle_seconds: float) -> bool:
        """Whether the till has been left alone longer than the idle lock allows (0: never locks)."""
        return self.current is not None and 0 < self.idle_lock_seconds <= idle_seconds

    # --- what they may do ---------------------------------------------------------------------------------------

    def may(self, act: Guarded) -> bool:
        """Whether the person at the till may do ``act`` without a manager's approval."""
        if not self.guarding:
            return True
        return self.current is not None and may(self.current.role, act)

    async def approve(
        self,
        act: Guarded,
        manager: str,
        pin: str,
        *,
        subject: str | None = None,
    ) -> Approval:
        """A manager's PIN, entered at the prompt, approves ``act`` once (for ``subject`` when given)."""
        person = await self.staff.verify(manager, pin)
        if person.role is not Role.MANAGER:
            raise NotAManager(f"{person.name} is not a manager.")
        approval = Approval(
            act=act,
            manager=person.name,
            asked_by=self.actor,
            at=self.now(),
            subject=subject,
            token=uuid.uuid4().hex,
        )
        self._granted[approval.token] = approval
        self.journal.audit.record(
            APPROVAL,
            actor=self.actor,
            terminal_id=self.terminal_id,
            detail={"act": str(act), "manager": person.name, "subject": subject},
        )
        return approval

    def require(self, act: Guarded, approval: Approval | None = None, *, subject: str | None = None) -> str | None:
        """Nothing when the person at the till may do ``act``; the approving manager's name when ``approval``
        covers it (it is then used up); otherwise :class:`ApprovalNeeded`."""
        if self.may(act):
            return None
        if approval is not None:
            granted = self._granted.pop(approval.token, None)
            if granted is not None and granted.covers(act, subject, self.now()):
                return granted.manager
        raise ApprovalNeeded(act, subject)

    def perform(self, act: Guarded, approval: Approval | None, action: str, detail: dict[str, Any]) -> str | None:
        """Check ``act`` and write ``action`` to the audit log with who did it and who approved it."""
        approved_by = self.require(act, approval)
        if approved_by is not None:
            detail = {**detail, "approvedBy": approved_by}
        self.journal.audit.record(action, actor=self.actor, terminal_id=self.terminal_id, detail=detail)
        return approved_by

    def no_sale(self, approval: Approval | None = None) -> str | None:
        """May the drawer open without a sale? The approving manager's name, if one approved. The opening itself
        goes to the audit log from the drawer (:meth:`Counter.open_drawer`), with that name."""
        return self.require(Guarded.NO_SALE, approval)

    # --- the guard of the checkout and the open check -----------------------------------------------------------

    def charge_refused(self) -> UserError | None:
        """Why nobody may charge now (nobody at the till, no shift open), or None: the screen says it before the
        cashier tries, with the same sentence the charge itself is refused with."""
        if not self.guarding:
            return None
        if self.current is None:
            return NoPersonAtTill()
        if self.shifts.current() is None:
            return NoShiftOpen()
        return None

    def before_charge(self) -> None:
        """A charge needs a person at the till and an open shift, once people work this terminal."""
        if (refused := self.charge_refused()) is not None:
            raise refused

    def before_change(self, action: Action, transaction_id: str, approval: Approval | None) -> str | None:
        """Cancel and refund need a manager: the approving manager's name, or :class:`ApprovalNeeded`."""
        act = _GUARDED_ACTION.get(action)
        if act is None:
            return None
        return self.require(act, approval, subject=transaction_id)

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
        """Discounts worth ``share_bp`` of the items (``amount`` cents off), typed as ``percent_bp`` of the items
        and ``fixed`` cents: what is approved for the check now; above the limit without a manager's approval,
        :class:`DiscountNeedsApproval` says what was typed and how much it takes off."""
        if not discount_needs_approval(share_bp, self.discount_limit_bp, approved_bp):
            return approved_bp
        try:
            self.require(Guarded.DISCOUNT, approval)
        except ApprovalNeeded:
            raise DiscountNeedsApproval(share_bp, amount, percent_bp=percent_bp, fixed=fixed) from None
        return share_bp

    # --- shifts -------------------------------------------------------------------------------------------------

    def _person(self) -> Person:
        if self.current is None:
            raise NoPersonAtTill()
        return self.current

    def open_shift(self, opening_float: int) -> Shift:
        return self.shifts.open(opening_float, by=self._person().name)

    def close_shift(self, count: DrawerCount, approval: Approval | None = None) -> Shift:
        """Close the open shift with the cash counted; not while a charge of this terminal is under way (its cash
        and its person would belong to no shift), whoever asks: the window or the command line."""
        shift = self.shifts.require_open()
        if (busy := self.charge_under_way()) is not None:
            raise busy
        approved_by = self.require(Guarded.CLOSE_SHIFT, approval, subject=str(shift.id))
        by = self.actor or approved_by
        if by is None:
            raise NoPersonAtTill()
        return self.shifts.close(count, by=by)

    def charge_under_way(self) -> ShiftBusy | None:
        """A charge not settled, whoever made it (the window's open check, the command line's ``charge``): a
        create whose outcome is not known yet, a transaction the journal last knew as authorized (neither
        completed nor canceled), or the open check being charged. None when every charge is settled."""
        if self.journal.intents.unfinished():
            return ShiftBusy(
                "A charge of this terminal is still being verified with the service.",
                hint="Wait until it is known whether it went through (pos-terminal status shows it), "
                "then complete or cancel it before closing the shift.",
            )
        if authorized := self.journal.intents.authorized_charges():
            sent = {entry.transaction_id for entry in self.journal.outbox.pending()}
            waiting = [transaction_id for transaction_id in authorized if transaction_id not in sent]
            if not waiting:
                return ShiftBusy(
                    f"The service has not confirmed the complete or cancel of {authorized[0]} yet.",
                    hint="The terminal sends it again until it does; close the shift once it is confirmed.",
                )
            more = f" and {counted(len(waiting) - 1, 'other')}" if len(waiting) > 1 else ""
            return ShiftBusy(
                f"The charge {waiting[0]}{more} is still authorized, neither completed nor canceled.",
                hint="Complete or cancel it first, then close the shift.",
            )
        saved = self.journal.open_check.load() or {}
        if saved.get("phase") in {str(phase) for phase in LOCKED}:
            return ShiftBusy()
        return None

    # --- people -------------------------------------------------------------------------------------------------

    def _manager_for(self, approval: Approval | None) -> str | None:
        return self.require(Guarded.MANAGE_PEOPLE, approval) or self.actor

    def catalog_manager(self, approval: Approval | None = None) -> str | None:
        """Who changes the catalog or the store's details: the manager at the till, or the one who approved
        (their name goes to the audit log); NotAManager's sentence for anyone else."""
        return self.require(Guarded.MANAGE_CATALOG, approval) or self.actor

    async def add_person(self, name: str, role: Role, pin: str, approval: Approval | None = None) -> Person:
        return await self.staff.add(name, role, pin, by=self._manager_for(approval))

    async def reset_pin(self, name: str, pin: str | None = None, approval: Approval | None = None) -> Person:
        """Without ``pin`` the person chooses a new one at their next sign-in (a manager never knows it)."""
        return await self.staff.reset_pin(name, pin, by=self._manager_for(approval))

    def unlock(self, name: str, approval: Approval | None = None) -> Person:
        return self.staff.unlock(name, by=self._manager_for(approval))

    def enable(self, name: str, approval: Approval | None = None) -> Person:
        return self.staff.enable(name, by=self._manager_for(approval))

    async def rename(self, name: str, new_name: str, approval: Approval | None = None) -> Person:
        person = await self.staff.rename(name, new_name, by=self._manager_for(approval))
        if self.current is not None and self.current.id == person.id:
            self._set(person)
        return person

    def set_role(self, name: str, role: Role, approval: Approval | None = None) -> Person:
        person = self.staff.set_role(name, role, by=self._manager_for(approval))
        if self.current is not None and self.current.id == person.id:
            self._set(person)  # what the person at the till may do changes at once
        return person

    def disable(self, name: str, approval: Approval | None = None) -> Person:
        by = self._manager_for(approval)
        person = self.staff.disable(name, by=by)
        if self.current is not None and self.current.id == person.id:
            self.lock("disabled")
        return person
