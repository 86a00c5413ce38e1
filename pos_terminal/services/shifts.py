"""Shifts: opened with a counted float, an X report at any time, closed with a counted drawer and its Z report.

The drawer's figures come from this terminal's journal, so they hold without the
service: the cash paid on checks completed in the shift (the check body of each
charge intent holds its payments), the cash given back on refunds made in it, and
the float. :meth:`Shifts.completed_checks` is the one place the shift's sales are
gathered; :func:`~pos_terminal.domain.shift.expected_cash` is the one sum.

The service's side of an X or Z report is the end-of-day report
(:class:`~pos_terminal.services.reports.Reports`) over exactly the shift's time,
reconciled against the listed transactions as any report is.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING

from pydantic import ValidationError

from pos_terminal.api.models import Transaction
from pos_terminal.domain.check_json import check_from_json
from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.money import in_int32
from pos_terminal.domain.shift import (
    ApprovalRow,
    CancelKind,
    CancelRow,
    CompletedCheck,
    DrawerCount,
    RefundRow,
    Shift,
    ShiftReportKind,
    ShiftSection,
    cash_paid,
    expected_cash,
    sales_per_person,
)
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import Journal
from pos_terminal.journal.staff import ChangeRow, ShiftBook

if TYPE_CHECKING:  # the reports load when one is made, not at the till's start
    from pos_terminal.domain.report import EndOfDayReport
    from pos_terminal.services.reports import ReportOrder, Reports

APPROVAL = "approval"
DRAWER_OPENED = "drawer opened"  # by the counter, with the reason ("no sale", "cash sale" ...)
NO_SALE = "no sale"


class NoShiftOpen(UserError):
    sentence = "No shift is open on this terminal."
    hint = "Open a shift first: count the float in the drawer."


class NoSuchShift(UserError):
    hint = "pos-terminal shift list shows the shifts of this terminal."


class Shifts:
    """The shifts of one terminal (its journal)."""

    def __init__(self, journal: Journal, *, terminal_id: str | None, now: Clock = utcnow) -> None:
        self.journal = journal
        self.book = ShiftBook(journal)
        self.terminal_id = terminal_id
        self.now = now

    # --- which shift -------------------------------------------------------------------------------------------

    def current(self) -> Shift | None:
        """The open shift, if any: one left open yesterday or across a crash is still this one."""
        return self.book.current()

    def require_open(self) -> Shift:
        shift = self.current()
        if shift is None:
            raise NoShiftOpen()
        return shift

    def all(self) -> list[Shift]:
        """Newest first."""
        return self.book.all()

    def resolve(self, which: str) -> Shift:
        """``current``, ``last`` (the last closed) or a shift's number."""
        key = which.strip().lower()
        if key == "current":
            return self.require_open()
        if key == "last":
            shift = self.book.last_closed()
            if shift is None:
                raise NoSuchShift("No shift has been closed on this terminal yet.")
            return shift
        if not key.isdigit():
            raise NoSuchShift(f"“{which}” is not a shift.", hint="Give current, last or a shift's number.")
        found = self.book.get(int(key))
        if found is None:
            raise NoSuchShift(f"There is no shift {key} on this terminal.")
        return found

    # --- opening and closing -----------------------------------------------------------------------------------

    def open(self, opening_float: int, *, by: str) -> Shift:
        """Open a shift with the float counted in the drawer; refused while one is open."""
        if opening_float < 0 or not in_int32(opening_float):
            raise UserError("The float cannot be negative or that large.", hint="Count the cash in the drawer.")
        shift = self.book.open(self.terminal_id, by, opening_float, self.journal.now())
        self.journal.audit.record(
            "shift opened",
            actor=by,
            terminal_id=self.terminal_id,
            detail={"shift": shift.id, "openingFloat": opening_float},
        )
        return shift

    def close(self, count: DrawerCount, *, by: str) -> Shift:
        """Close the open shift with the cash counted; what the drawer should hold is worked out and kept."""
        shift = self.require_open()
        at = self.journal.now()
        drawer = self.section(shift, until=at).drawer
        closed = self.book.close(shift.id, by, count, drawer.expected, at)
        self.journal.audit.record(
            "shift closed",
            actor=by,
            terminal_id=self.terminal_id,
            detail={
                "shift": shift.id,
                "countedCash": count.total,
                "expectedCash": drawer.expected,
                "overShort": count.total - drawer.expected,
            },
        )
        return closed

    # --- what happened in it -----------------------------------------------------------------------------------

    def completed_checks(self, since: datetime, until: datetime) -> list[CompletedCheck]:
        """The checks completed in ``[since, until)`` on this terminal, with the cash paid on each: the shift's
        sales, and the one source of the cash taken (a sale recorded without a transaction belongs here too)."""
        checks = []
        for row in self.book.completed_checks(since, until):
            check = check_from_json(row.check)
            totals = check.totals()
            checks.append(
                CompletedCheck(
                    ref_id=row.ref_id,
                    transaction_id=row.transaction_id,
                    person=row.actor,
                    completed_at=row.completed_at,
                    total=totals.total,
                    cash=cash_paid(row.check.get("payments") or ()),
                    due=totals.charge_amount,  # what the service charged is its listing's: ShiftSection.with_charged
                )
            )
        for sale in self.journal.cash_sales.between(since, until, terminal_id=self.terminal_id):
            checks.append(
                CompletedCheck(
                    ref_id=f"cash-sale-{sale.id}",
                    transaction_id=None,  # paid in full in cash: the service never saw it
                    person=sale.actor,
                    completed_at=sale.at,
                    total=sale.total,
                    cash=sale.paid - sale.change,
                    due=0,
                    charged=0,
                )
            )
        checks.sort(key=lambda c: c.completed_at)
        return checks

    def refunds(self, since: datetime, until: datetime) -> list[RefundRow]:
        """Refunds sent from this terminal and confirmed in the range; each gives back the cash paid on its check."""
        rows = []
        for row in self.book.confirmed_changes(str(TxState.REFUNDED), since, until):
            record = _transaction(row)
            payments = (row.check or {}).get("payments") if row.check else (row.record or {}).get("payments")
            rows.append(
                RefundRow(
                    transaction_id=row.transaction_id,
                    person=row.actor,
                    approved_by=row.approved_by,
                    at=row.at,
                    refunded=record.amount_charged if record is not None else 0,
                    cash=cash_paid(payments or ()),
                )
            )
        return rows

    def cancellations(self, since: datetime, until: datetime) -> list[CancelRow]:
        return [
            CancelRow(
                transaction_id=row.transaction_id,
                person=row.actor,
                approved_by=row.approved_by,
                at=row.at,
                kind=CancelKind.BY_PERSON if row.actor is not None else CancelKind.DUPLICATE,
            )
            for row in self.book.confirmed_changes(str(TxState.CANCELED), since, until)
        ]

    def approvals(self, since: datetime, until: datetime) -> list[ApprovalRow]:
        rows = []
        for entry in self.journal.audit.between(since, until, action=APPROVAL):
            detail = entry.detail
            subject = detail.get("subject")
            rows.append(
                ApprovalRow(
                    at=entry.at,
                    act=str(detail.get("act", "")),
                    asked_by=entry.actor,
                    manager=str(detail.get("manager", "")),
                    subject=subject if isinstance(subject, str) else None,
                )
            )
        return rows

    def section(self, shift: Shift, *, until: datetime | None = None) -> ShiftSection:
        """The shift's part of its report: to its close (Z), or until ``until``/now while it is open (X)."""
        end = shift.closed_at or until or self.now()
        end = max(end, shift.opened_at + timedelta(microseconds=1))
        since = shift.opened_at
        sales = self.completed_checks(since, end)
        refunds = self.refunds(since, end)
        kind = ShiftReportKind.X if shift.is_open else ShiftReportKind.Z
        return ShiftSection(
            shift=shift,
            kind=kind,
            until=end,
            drawer=expected_cash(shift.opening_float, sales, refunds),
            sales=tuple(sales),
            people=sales_per_person(sales, refunds),
            refunds=tuple(refunds),
            cancellations=tuple(self.cancellations(since, end)),
            approvals=tuple(self.approvals(since, end)),
            no_sales=sum(
                e.detail.get("reason") == NO_SALE for e in self.journal.audit.between(since, end, action=DRAWER_OPENED)
            ),
            pending_changes=self.book.unconfirmed_at(end),
        )

    async def report(self, reports: Reports, shift: Shift) -> EndOfDayReport:
        """The X (open) or Z (closed) report, made here (see :meth:`order`)."""
        return (await self.order(reports, shift)).made()

    async def order(self, reports: Reports, shift: Shift) -> ReportOrder:
        """What the X (open) or Z (closed) report is made of: the service's summary over exactly the shift's time,
        reconciled against the listed transactions, with the shift's drawer, people, refunds, cancellations and
        approvals."""
        from pos_terminal.domain.report import RangeKind, ReportScope, TimeRange, with_shift

        end = shift.closed_at or reports.now()
        period = TimeRange(shift.opened_at, max(end, shift.opened_at + timedelta(microseconds=1)), RangeKind.SHIFT)
        scope = ReportScope.terminal(shift.terminal_id or reports.terminal_id)
        order = await reports.order(period, scope)
        return order.then(partial(with_shift, section=self.section(shift, until=period.end)))


def _transaction(row: ChangeRow) -> Transaction | None:
    if row.record is None:
        return None
    try:
        return Transaction.model_validate(row.record)
    except ValidationError:
        return None
