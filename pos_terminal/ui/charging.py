"""The charge of the open check, as the cashier's screen drives it: charge, verify, complete or cancel.

:class:`Charging` belongs to the cashier's view and works its ticket and its charge status: it sends the
charge, asks about a charge being verified on the presenter's back-off schedule (sooner on "Check now"),
completes or cancels an authorized one (a cancel once a manager approved), reads an authorized transaction
again every few seconds, and says each second what the screen waits for. The texts are the presenter's
(:mod:`pos_terminal.ui.cashier_presenter`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.people import Approval, Guarded
from pos_terminal.domain.sale import FINISHED, LOCKED, Phase
from pos_terminal.errors import UserError
from pos_terminal.ui import cashier_presenter as say
from pos_terminal.ui.approval_dialog import ManagerPrompt, with_approval
from pos_terminal.ui.cashier_presenter import CHECK

if TYPE_CHECKING:
    import asyncio

    from pos_terminal.domain.money import MoneyFormat
    from pos_terminal.services.register import OpenCheck, Register
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.charge_status import ChargeStatus
    from pos_terminal.ui.tasks import Messages, Tasks
    from pos_terminal.ui.ticket import Ticket

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QWidget

PENDING_REFRESH_SECONDS = 2  # while a complete or cancel waits to be confirmed, the transaction is read this often
REFRESH_SECONDS = 15  # an authorized transaction is read this often (auto-cancel, a change made elsewhere)


class CheckScreen(Protocol):
    """What the charge uses of the cashier's screen that holds it: the terminal and its register and money, the
    ticket and the charge status it renders into, the screen's messages and tasks, the check shown again, why an
    entry is refused, and where a manager's approval being asked for is kept."""

    prompt: ManagerPrompt | None

    @property
    def terminal(self) -> Terminal | None: ...
    @property
    def register(self) -> Register: ...
    @property
    def money(self) -> MoneyFormat: ...
    @property
    def ticket(self) -> Ticket: ...
    @property
    def charge_status(self) -> ChargeStatus: ...
    @property
    def messages(self) -> Messages: ...
    @property
    def tasks(self) -> Tasks: ...
    def show_check(self) -> None: ...
    def entry_refused(self) -> UserError | None: ...


class Charging(QObject):
    """The charge of the cashier's open check; its work runs as the view's tasks ("charge", "verify", "state",
    "refresh-tx").

    Signals: ``open_shift_requested()`` the big button (or F8) pressed while no shift is open."""

    open_shift_requested = Signal()

    def __init__(self, view: CheckScreen, parent: QWidget) -> None:
        """``parent`` is the widget a manager's approval is asked for over."""
        super().__init__(parent)
        self.view = view
        self.dialogs = parent
        self.waiting_since: float | None = None  # when the request the screen waits on went out
        self._verify_now: asyncio.Event | None = None  # set by "Check now" while a charge is verified
        self.next_verify_at: float | None = None
        self.changing = ""  # "complete" or "cancel" while that request is out
        self.offering_shift = False  # the big button opens a shift: none is open, and a charge needs one
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self.on_tick)
        self._ticks = 0

    def resume(self) -> None:
        """A terminal was attached: its open check's charge goes on where it stood."""
        view = self.view
        self._tick.start()
        if view.register.current.phase is Phase.VERIFYING:
            view.tasks.run(self._verify_until_settled(), key="verify")
        elif view.register.current.transaction_id:
            view.tasks.run(self._refresh_transaction(), key="refresh-tx")

    def stop(self) -> None:
        self._tick.stop()

    # --- rendering -----------------------------------------------------------------------------------

    def render_offer(self, state: OpenCheck) -> None:
        """The big button does the next thing: charge (or finish a cash sale), complete or cancel, a new check."""
        terminal = self.view.terminal
        refused = None  # why the till refuses a charge now: asked only of a check that could be charged
        if terminal is not None and state.phase not in LOCKED and state.phase not in FINISHED:
            refused = terminal.till.charge_refused()
        no_shift = False
        if refused is not None:
            from pos_terminal.services.shifts import NoShiftOpen  # loaded with the terminal

            no_shift = isinstance(refused, NoShiftOpen)
        offer = say.offer(
            state,
            self.view.money.format,
            changing=self.changing,
            refused=refused.text() if refused is not None else None,
            no_shift=no_shift,
            fit=self.view.ticket.fit_name,
        )
        if offer.page is say.ButtonPage.CHARGE:
            self.offering_shift = offer.offering_shift
        self.view.ticket.render_offer(offer)

    def render_status(self, state: OpenCheck) -> None:
        self.view.charge_status.show_state(state, self.view.money, self.changing)
        self.render_waits()

    def render_waits(self) -> None:
        """What the screen waits for and for how long, the countdown, and what happens next; every second."""
        view = self.view
        if view.terminal is None:
            return
        register = view.register
        state = register.current
        since = time.monotonic() - self.waiting_since if self.waiting_since is not None else 0.0
        pending_for, pending = None, "change"
        if state.phase is Phase.AUTHORIZED and state.pending and not self.changing:
            made = register.pending_since()
            pending_for = (utcnow() - made).total_seconds() if made else None
            pending = say.pending_target(register.pending_targets())
        verifying = None
        if state.phase is Phase.VERIFYING:
            next_in = None
            if self.next_verify_at is not None:
                next_in = max(0, round(self.next_verify_at - time.monotonic()))
            verifying = say.Verifying(register.verify_window(), utcnow(), next_in, register.charge_accepted())
        wait, next_step = say.wait_texts(
            state, changing=self.changing, since=since, pending_for=pending_for, pending=pending, verifying=verifying
        )
        view.charge_status.show_waits(register.seconds_left(), wait, next_step)

    # --- charging ------------------------------------------------------------------------------------

    def charge(self) -> None:
        """F8 or the big button: charge the customer the balance, or finish a check the cash pays in full."""
        view = self.view
        if view.terminal is None:
            return
        state = view.register.current
        self.render_offer(state)  # a shift opened or closed elsewhere (the command line) changes the offer
        if self.offering_shift:  # a cash sale too: its cash goes into a shift's drawer
            self.open_shift_requested.emit()
            return
        if state.editable and state.check.paid_in_full:
            self.finish_cash_sale()
            return
        ticket = view.ticket
        if not ticket.charge_button.isEnabled() or ticket.action_area.currentIndex() != say.ButtonPage.CHARGE:
            refused = view.entry_refused()
            if refused is not None and state.phase in LOCKED:
                view.messages.show_error(refused, topic=CHECK)
            elif ticket.reason.text():
                view.messages.show_error(ticket.reason.text(), topic=CHECK)
            return
        ticket.charge_button.setEnabled(False)
        self.waiting_since = time.monotonic()
        view.tasks.run(self._charge(), key="charge", on_error=self._charge_refused)

    def finish_cash_sale(self) -> None:
        try:
            self.view.register.finish_cash_sale()
        except UserError as exc:
            self.view.messages.show_error(exc, topic=CHECK)
            return
        self.view.show_check()
        self.view.ticket.new_check_button.setFocus()

    def _charge_refused(self, error: UserError) -> None:
        # The check first, then the sentence: showing a check whose phase moved on clears what was said about the
        # check before, and the refusal said before it was cleared with it, unseen.
        self.view.show_check()
        self.view.messages.show_error(error, topic=CHECK)

    async def _charge(self) -> None:
        state = await self.view.register.charge()
        self.view.show_check()
        if state.phase is Phase.VERIFYING:
            await self._verify_until_settled()
        elif state.phase is Phase.AUTHORIZED:
            self.view.ticket.complete_button.setFocus()

    def check_now(self) -> None:
        """Ask the service about the charge being verified now rather than at the next look."""
        if self._verify_now is not None:
            self._verify_now.set()

    async def _verify_until_settled(self) -> None:
        import asyncio  # the loop runs by now

        view = self.view
        self._verify_now = self._verify_now or asyncio.Event()
        delays = say.verify_delays()
        verifying = view.terminal is not None and view.register.current.phase is Phase.VERIFYING
        try:
            while verifying:
                delay = next(delays)
                self.next_verify_at = None
                try:
                    state = await view.register.verify()
                except UserError as exc:
                    view.charge_status.charge_message.setText(f"{exc.sentence} Still verifying…")
                    state = view.register.current
                view.show_check()
                verifying = view.terminal is not None and state.phase is Phase.VERIFYING
                if verifying:
                    self.next_verify_at = time.monotonic() + delay
                    self.render_waits()
                    self._verify_now.clear()
                    with contextlib.suppress(TimeoutError):  # "Check now" cuts the pause short
                        await asyncio.wait_for(self._verify_now.wait(), delay)
        finally:
            self.next_verify_at = None
        if view.terminal is not None and view.register.current.phase is Phase.AUTHORIZED:
            view.ticket.complete_button.setFocus()

    def complete(self) -> None:
        view = self.view
        if view.terminal is None or view.register.current.phase is not Phase.AUTHORIZED:
            return
        self._change("complete", self._complete())

    def cancel_transaction(self) -> None:
        """Cancel the authorized transaction: the customer was charged, so a cashier needs a manager."""
        view = self.view
        terminal = view.terminal
        state = view.register.current if terminal is not None else None
        if terminal is None or state is None or state.phase is not Phase.AUTHORIZED or not state.transaction_id:
            return
        view.prompt = with_approval(
            self.dialogs,
            terminal.till,
            Guarded.CANCEL_CHARGED,
            say.cancel_question(state, view.money.format),
            self._start_cancel,
            subject=state.transaction_id,
            back_to=view.ticket.table,
        )

    def _start_cancel(self, approval: Approval | None) -> None:
        if self.view.terminal is None or self.view.register.current.phase is not Phase.AUTHORIZED:
            return
        self._change("cancel", self._cancel(approval))

    def _change(self, what: str, work: Coroutine[Any, Any, None]) -> None:
        """Complete or cancel: the screen says which it waits for, and for how long, until the answer."""
        self.changing = what
        self.waiting_since = time.monotonic()
        self.view.ticket.complete_button.setEnabled(False)
        self.view.ticket.cancel_button.setEnabled(False)
        self.view.tasks.run(work, key="state", on_error=self._charge_refused)
        self.render_status(self.view.register.current)

    async def _complete(self) -> None:
        try:
            await self.view.register.complete()
        finally:
            self.changing = ""
        self.view.show_check()
        if self.view.register.current.phase is Phase.COMPLETE:
            self.view.ticket.new_check_button.setFocus()

    async def _cancel(self, approval: Approval | None = None) -> None:
        try:
            await self.view.register.cancel(approval=approval)
        finally:
            self.changing = ""
        self.view.show_check()

    # --- every second --------------------------------------------------------------------------------

    def on_tick(self) -> None:
        self._ticks += 1
        self.render_waits()
        view = self.view
        if view.terminal is None or view.register.current.phase is not Phase.AUTHORIZED:
            return
        every = PENDING_REFRESH_SECONDS if view.register.current.pending else REFRESH_SECONDS
        if self._ticks % every == 0 and not self.changing:
            self.refresh_transaction()

    def refresh_transaction(self) -> None:
        """Read the open check's transaction again (its state may have moved) and show it."""
        if self.view.terminal is not None:
            self.view.tasks.run(self._refresh_transaction(), key="refresh-tx", on_error=lambda _: None)

    async def _refresh_transaction(self) -> None:
        await self.view.register.refresh_transaction()
        self.view.show_check()
