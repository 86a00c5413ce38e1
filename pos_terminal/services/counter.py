"""The counter's receipt printer and cash drawer, driven by the register and by the manager.

- **Receipts and reports** go to the print queue in the journal first, then to the
  ESC/POS printer. A printer that cannot print (away, offline, out of paper, cover
  open) is said in one sentence; the slip stays queued, the printer is asked again
  every ``retry_seconds`` (or at once with :meth:`Counter.retry_now`) and the slip is
  printed once it is back, or the cashier cancels it. A receipt is printed for every
  charge completed at this terminal, every refund made here (:meth:`Counter.refunded`) and
  every cash sale, when ``print_receipts`` is set. A charge restored after a restart counts
  from where it stood then (:meth:`Counter.restored`): one found complete after it gets its
  receipt, one complete before it no second one.
- **The cash drawer** opens when a check with cash taken is charged (authorized), when a
  cash sale is finished, and when :meth:`Counter.open_drawer` is called (a manager's
  no-sale opening: the approval is the caller's business, and who approved goes to the
  audit log with the opening). Every opening, and every one that failed, is in the audit log.

The printer blocks (sockets, USB); its calls run in a worker thread, one at a time. The
service runs its own work when asked: ``on_work`` names what starts :meth:`Counter.drain`
(the window runs it as one of its tasks), so nothing here outlives the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from datetime import tzinfo
from typing import TYPE_CHECKING

from pydantic import ValidationError

from pos_terminal.api.models import Transaction
from pos_terminal.config import DeviceSettings
from pos_terminal.domain.check import Check, is_cash
from pos_terminal.domain.sale import Phase
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import Journal, PrintJob, PrintStatus
from pos_terminal.services.register import OpenCheck

if TYPE_CHECKING:  # slips, reports and the printer load with the first slip, not with the till (pos_terminal.app)
    from pos_terminal.devices.escpos import EscPosPrinter
    from pos_terminal.domain.report import CashReceipt, EndOfDayReport, Receipt
    from pos_terminal.domain.slip import Slip

log = logging.getLogger(__name__)

RETRY_SECONDS = 10.0
PRINTER = "printer"  # the kinds of problem a listener hears of
DRAWER = "drawer"


class NoDrawer(UserError):
    sentence = "No cash drawer is set up at this terminal."
    hint = "Set up the receipt printer and its cash drawer in the settings."


class NoReceiptPrinter(UserError):
    sentence = "No receipt printer is set up at this terminal."
    hint = "Set one up in the settings, or print on a system printer."


def check_devices(devices: DeviceSettings) -> DeviceSettings:
    """The device settings as the settings page and ``config set`` accept them; one sentence when not."""
    from pos_terminal.devices.escpos import PrinterAddress, check_profile

    if devices.receipt_printer.strip():
        PrinterAddress.parse(devices.receipt_printer)
    check_profile(devices.printer_profile)
    if devices.cash_drawer and not devices.receipt_printer.strip():
        raise NoDrawer("A cash drawer needs the receipt printer it hangs on.", hint="Give the printer's address.")
    return devices


def printer_of(devices: DeviceSettings) -> EscPosPrinter | None:
    """The receipt printer the settings name, or None when there is none."""
    if not devices.receipt_printer.strip():
        return None
    from pos_terminal.devices.escpos import EscPosPrinter, PrinterAddress

    return EscPosPrinter(PrinterAddress.parse(devices.receipt_printer), profile=devices.printer_profile)


class Counter:
    """The printer queue and the drawer of one terminal.

    ``receipt_of`` turns a completed transaction into its receipt (:meth:`Reports.receipt_of`); ``money``
    formats cents on paper. Listeners: :meth:`on_problem` hears ``(PRINTER, sentence)`` when the printer cannot
    print and ``(PRINTER, None)`` once everything queued is printed, ``(DRAWER, …)`` alike for the drawer;
    :meth:`on_queue` hears the slips waiting after every change of the queue.
    """

    def __init__(
        self,
        journal: Journal,
        printer: EscPosPrinter | None,
        *,
        money: Callable[[int], str],
        receipt_of: Callable[[Transaction], Receipt] | None = None,
        cash_receipt_of: Callable[[Check, str | None], CashReceipt] | None = None,
        cash_drawer: bool = False,
        print_receipts: bool = True,
        terminal_id: str | None = None,
        actor: str | None = None,
        retry_seconds: float = RETRY_SECONDS,
        tz: tzinfo | None = None,
    ) -> None:
        self.journal = journal
        self.printer = printer
        self.money = money
        self.receipt_of = receipt_of
        self.cash_receipt_of = cash_receipt_of
        self.cash_drawer = cash_drawer and printer is not None
        self.print_receipts = print_receipts
        self.terminal_id = terminal_id
        self.actor = actor
        self.retry_seconds = retry_seconds
        self.tz = tz
        self._kicks: deque[tuple[str, str | None]] = deque()
        self._device = asyncio.Lock()
        self._retry: asyncio.TimerHandle | None = None
        self._run_me: Callable[[], None] | None = None
        self._problem_listeners: list[Callable[[str, str | None], None]] = []
        self._queue_listeners: list[Callable[[list[PrintJob]], None]] = []
        self._last_phase: Phase | None = None
        self.problem: str | None = None

    # --- wiring ---------------------------------------------------------------------------------------------

    def on_work(self, run: Callable[[], None] | None) -> None:
        """``run`` starts :meth:`drain` (unless it runs already) whenever there is something to do."""
        self._run_me = run
        if run is not None and (self._kicks or self.journal.prints.queued()):
            run()

    def on_problem(self, listener: Callable[[str, str | None], None]) -> None:
        self._problem_listeners.append(listener)

    def on_queue(self, listener: Callable[[list[PrintJob]], None]) -> None:
        self._queue_listeners.append(listener)

    def close(self) -> None:
        """Stop asking the printer again; what is queued stays in the journal for the next start."""
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        self._run_me = None
        self._problem_listeners.clear()
        self._queue_listeners.clear()

    def _wake(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self._run_me is not None:
            self._run_me()

    def _say(self, kind: str, problem: str | None) -> None:
        if kind == PRINTER:
            self.problem = problem
        for listener in list(self._problem_listeners):
            listener(kind, problem)

    def _tell_queue(self) -> None:
        jobs = self.queued()
        for listener in list(self._queue_listeners):
            listener(jobs)

    # --- what the register does -----------------------------------------------------------------------------

    def restored(self, state: OpenCheck) -> None:
        """The register's check as it stood before a restart: what it does next is measured from there."""
        self._last_phase = state.phase

    def on_register_change(self, state: OpenCheck) -> None:
        """Open the drawer when cash was taken (charged, or a cash sale); queue the receipt of a completed charge
        and of a cash sale."""
        before, self._last_phase = self._last_phase, state.phase
        if state.phase is before:
            return
        cash = any(is_cash(payment.method) for payment in state.check.payments)
        if state.phase is Phase.PAID_IN_CASH:
            if self.cash_drawer:
                self._kicks.append(("cash sale", None))
                self._wake()
            cash_receipt_of = self.cash_receipt_of
            if self.printer is not None and self.print_receipts and cash_receipt_of is not None:
                customer = state.customer.display_name if state.customer else None
                self.queue_cash_receipt(cash_receipt_of(state.check, customer))
        elif state.phase is Phase.AUTHORIZED and before in (Phase.CHARGING, Phase.VERIFYING) and cash:
            if self.cash_drawer:
                self._kicks.append(("cash payment", None))
                self._wake()
        elif state.phase is Phase.COMPLETE and before is Phase.AUTHORIZED and state.transaction is not None:
            self._customers_slip(state.transaction)

    def refunded(self, transaction: Transaction) -> None:
        """A refund made here: the customer's slip of it, as a completed charge gets its receipt."""
        self._customers_slip(transaction)

    def _customers_slip(self, transaction: Transaction) -> None:
        """The receipt of ``transaction`` as it stands (complete, or refunded), when this counter prints them."""
        if self.printer is None or not self.print_receipts or self.receipt_of is None:
            return
        try:
            self.queue_receipt(self.receipt_of(transaction))
        except UserError as exc:
            log.info("no receipt for %s: %s", transaction.transaction_id, exc.sentence)

    # --- the print queue ------------------------------------------------------------------------------------

    def queue_receipt(self, receipt: Receipt) -> PrintJob:
        from pos_terminal.domain.slip import receipt_slip

        return self.queue(receipt_slip(receipt, self.money, self.tz))

    def queue_cash_receipt(self, receipt: CashReceipt) -> PrintJob:
        from pos_terminal.domain.slip import cash_receipt_slip

        return self.queue(cash_receipt_slip(receipt, self.money, self.tz))

    def queue_report(self, report: EndOfDayReport) -> PrintJob:
        from pos_terminal.domain.slip import report_slip

        return self.queue(report_slip(report, self.money, self.tz))

    def queue(self, slip: Slip) -> PrintJob:
        """Keep ``slip`` in the journal's print queue and have it printed; NoReceiptPrinter when there is none."""
        if self.printer is None:
            raise NoReceiptPrinter()
        job = self.journal.prints.queue(kind=str(slip.kind), title=slip.title, body=slip.to_json())
        self._tell_queue()
        self._wake()
        return job

    def queued(self) -> list[PrintJob]:
        return self.journal.prints.queued()

    def cancel(self, job_id: int) -> bool:
        """The cashier gives a queued slip up; False when it had been printed (or canceled) already."""
        canceled = self.journal.prints.finish(job_id, PrintStatus.CANCELED)
        if canceled:
            self.journal.audit.record(
                "print canceled", actor=self.actor, terminal_id=self.terminal_id, detail={"job": job_id}
            )
        self._tell_queue()
        if not self.queued() and self.problem is not None:
            self._say(PRINTER, None)
        return canceled

    def retry_now(self) -> None:
        """Ask the printer again now rather than at the next try."""
        self._wake()

    # --- the drawer -----------------------------------------------------------------------------------------

    async def open_drawer(self, reason: str, approved_by: str | None = None) -> None:
        """Kick the drawer open now; ``approved_by`` is the manager who allowed an opening without a sale.

        Written to the audit log either way ("drawer opened" or "drawer not opened", with the reason and
        who approved); DrawerNotOpened with one sentence when the printer cannot be reached.
        """
        if not self.cash_drawer or self.printer is None:
            raise NoDrawer()
        from pos_terminal.devices.escpos import DrawerNotOpened

        printer = self.printer
        detail = {"reason": reason, **({"approvedBy": approved_by} if approved_by else {})}
        try:
            async with self._device:
                await asyncio.to_thread(printer.kick_drawer)
        except DrawerNotOpened as exc:
            self.journal.audit.record(
                "drawer not opened",
                actor=self.actor,
                terminal_id=self.terminal_id,
                detail={**detail, "error": exc.sentence},
            )
            raise
        self.journal.audit.record("drawer opened", actor=self.actor, terminal_id=self.terminal_id, detail=detail)

    # --- the work -------------------------------------------------------------------------------------------

    async def drain(self) -> None:
        """Open the drawer as asked, then print what is queued, oldest first, until the queue is empty or the
        printer cannot print (then it is asked again in ``retry_seconds``)."""
        while self._kicks:
            reason, approved_by = self._kicks.popleft()
            try:
                await self.open_drawer(reason, approved_by)
            except UserError as exc:
                self._say(DRAWER, exc.text())
            else:
                self._say(DRAWER, None)
        printer = self.printer
        if printer is None:
            return
        from pos_terminal.devices.escpos import PrinterNotReady
        from pos_terminal.domain.slip import Slip, SlipKind

        while jobs := self.journal.prints.queued():
            job = jobs[0]
            try:
                slip = Slip.from_json(job.body)
            except (KeyError, TypeError, ValueError, ValidationError):
                log.warning("print job %s is unreadable; canceled", job.id)
                self.journal.prints.finish(job.id, PrintStatus.CANCELED)
                continue
            try:
                async with self._device:
                    await asyncio.to_thread(printer.print_slip, slip)
            except PrinterNotReady as exc:
                self.journal.prints.failed(job.id, exc.sentence)
                waiting = len(jobs)
                self._say(
                    PRINTER,
                    f"{exc.sentence} {counted(waiting, 'slip')} waiting; printed when it is back.",
                )
                self._tell_queue()
                self._retry_later()
                return
            if self.journal.prints.finish(job.id, PrintStatus.PRINTED) and job.kind == SlipKind.RECEIPT:
                self.journal.audit.record(
                    "receipt printed",
                    actor=self.actor,
                    terminal_id=self.terminal_id,
                    detail={"title": job.title, "where": f"receipt printer {printer.address}"},
                )
            self._tell_queue()
        if self.problem is not None:
            self._say(PRINTER, None)

    def _retry_later(self) -> None:
        with contextlib.suppress(RuntimeError):  # no running loop: the next start prints what is queued
            loop = asyncio.get_running_loop()
            if self._retry is not None:
                self._retry.cancel()
            self._retry = loop.call_later(self.retry_seconds, self._wake)
