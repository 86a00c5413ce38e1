"""Manager's reports: the end-of-day (or shift) report and receipts, and the audit of every copy made.

:meth:`Reports.order` asks the summary route for the range, lists the transactions
that could have been completed in it (``created`` from ``start - lookback``, see
:mod:`pos_terminal.domain.report`) and reads the day's audit entries: a
:class:`ReportOrder`, what the report is made of, as read. :meth:`ReportOrder.made`
recomputes the figures and returns one immutable
:class:`~pos_terminal.domain.report.EndOfDayReport`; a disagreement is part of the
report, never dropped. The window has it made in its report child
(:mod:`pos_terminal.reports.worker`), the command line here (:meth:`Reports.end_of_day`).
Turning it into PDF is the business of :mod:`pos_terminal.reports`; printing, of the
window or the command line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar, overload

from pos_terminal.api.client import Listing, PosClient
from pos_terminal.api.models import Summary, Transaction, TransactionRow
from pos_terminal.domain.audit_words import audit_sentence
from pos_terminal.domain.check import Check
from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.details import StoreDetails
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.packing import packed_rows, unpacked_rows
from pos_terminal.domain.report import (
    DEFAULT_LOOKBACK,
    AuditRow,
    CashReceipt,
    CashSaleRow,
    EndOfDayReport,
    ModifierRow,
    Receipt,
    ReceiptLine,
    ReportScope,
    TimeRange,
    TxRow,
    build_report,
)
from pos_terminal.domain.store_day import TillShift, store_day
from pos_terminal.domain.summary import SummaryFigures
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import AuditEntry, CashSale, Journal

if TYPE_CHECKING:
    from pos_terminal.services.store_sync import StoreSync
    from pos_terminal.store.database import StoreDayRecords

Output = Literal["printed", "saved"]


class NoReceipt(UserError):
    """A receipt is asked for a transaction that has none (authorized or canceled)."""

    hint = "Receipts exist for completed or refunded transactions."


class Repeated:
    """One text object for each text a report repeats: terminal ids, customers' names, audit actions and actors.

    Read from the service's answer or the journal, every row brings its own copy of each (some 55 bytes apiece),
    so a day's report held thousands of copies of a few words: 600 sales and their audit entries held 970 KB, and
    676 KB with each text once. The report is the largest thing the window holds at its highest peak of the day
    (docs/memory.md)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    @overload
    def __call__(self, text: str) -> str: ...
    @overload
    def __call__(self, text: None) -> None: ...
    def __call__(self, text: str | None) -> str | None:
        return text if text is None else self._seen.setdefault(text, text)


def tx_row(t: Transaction | TransactionRow, same: Repeated) -> TxRow:
    return TxRow(
        transaction_id=t.transaction_id,
        state=t.state,
        terminal_id=same(t.terminal_id),
        created=t.created,
        completed=t.completed,
        updated=t.updated,
        customer=same(t.customer.display_name) if t.customer else "",
        total=t.total,
        charge_amount=t.charge_amount,
        charged_amount=t.amount_charged,
        tip_amount=t.tip_amount,
        fee_amount=t.fee_amount,
        ref_id=t.ref_id,
    )


Entry = TypeVar("Entry")


def _drained(entries: list[Entry]) -> Iterator[Entry]:
    """The entries of ``entries`` in order, each let go of as it is taken (the list is empty after)."""
    entries.reverse()
    while entries:
        yield entries.pop()


def figures(s: Summary) -> SummaryFigures:
    return SummaryFigures(s.terminal_id, count=s.count, total=s.total, fees=s.fees, payout=s.payout, tips=s.tips)


def audit_row(entry: AuditEntry, money: Callable[[int], str] | None, same: Repeated) -> AuditRow:
    """The entry as a report prints it: a sentence of who did what (:func:`audit_sentence`), amounts in cents written
    by ``money`` when given."""
    sentence = audit_sentence(entry.action, entry.actor, entry.detail, money)
    return AuditRow(entry.at, same(entry.action), same(entry.actor), same(entry.terminal_id), sentence)


def cash_sale_row(sale: CashSale) -> CashSaleRow:
    return CashSaleRow(sale.at, sale.terminal_id, sale.customer, sale.total, sale.paid, sale.change)


Step = Callable[[EndOfDayReport], EndOfDayReport]


@dataclass(frozen=True, slots=True)
class ReportOrder:
    """Everything a report is made of, as read: the service's summary and listing, the journal's audit entries and
    cash sales, and the steps that finish it (a shift's drawer, the store's day).

    The window hands it to its report child, which makes the report there (:meth:`made`): the day's listing stays
    the bytes the service sent and the audit entries are packed as they are read, so the day's rows are never built
    in the window's process. A day's report built there was the highest passing peak of small objects the window
    reached, and each new height kept the window's memory higher for the rest of the day (docs/memory.md).
    Everything in it pickles: its steps are module functions or partials of them.
    """

    terminal_id: str
    scope: ReportScope
    region: str
    production: bool
    period: TimeRange
    generated_at: datetime
    reported: tuple[SummaryFigures, ...]
    listing: Listing
    audit: bytes  # the AuditRows, packed (packed_rows)
    cash_sales: tuple[CashSaleRow, ...]
    merchant: str | None
    lookback: timedelta
    logo: bytes | None = None
    steps: tuple[Step, ...] = ()
    currency: str | None = None  # what its amounts are counted in when it is not the till's to say: the store's

    def then(self, step: Step) -> ReportOrder:
        """The same order, with ``step`` applied to its report once made."""
        return replace(self, steps=(*self.steps, step))

    def made(self) -> EndOfDayReport:
        """The report: the listing read as rows one by one (each let go of once it is the report's), reconciled."""
        same = Repeated()
        listed = _drained(self.listing.read(TransactionRow))
        report = build_report(
            terminal_id=self.terminal_id,
            scope=self.scope,
            region=self.region,
            production=self.production,
            period=self.period,
            generated_at=self.generated_at,
            reported=self.reported,
            listed=[tx_row(t, same) for t in listed],
            audit=[_same_texts(row, same) for row in unpacked_rows(self.audit)],
            merchant=self.merchant,
            lookback=self.lookback,
            cash_sales=self.cash_sales,
        )
        if self.logo is not None:
            report = replace(report, logo=self.logo)
        for step in self.steps:
            report = step(report)
        return report


def _same_texts(row: AuditRow, same: Repeated) -> AuditRow:
    """``row`` with the texts the day repeats held once (packed, each row arrives with copies of its own)."""
    return AuditRow(row.at, same(row.action), same(row.actor), same(row.terminal_id), row.detail)


class Filed(Protocol):
    """What a copy of a report is filed under in the audit log: a report, or what the window keeps of one."""

    @property
    def scope(self) -> ReportScope: ...
    @property
    def range(self) -> TimeRange: ...
    @property
    def reconciled(self) -> bool: ...


def _with_the_store_day(
    records: StoreDayRecords, money: Callable[[int], str] | None, period: TimeRange, report: EndOfDayReport
) -> EndOfDayReport:
    """``report`` (the merged one) with the store's day from ``records``: every till's shifts and drawers, cash sales,
    sales per person across the tills, and the store's audit log in place of this till's."""
    shifts = [
        TillShift(
            terminal_id=str(s["terminal_id"]),
            opened_at=s["opened_at"],
            opened_by=str(s["opened_by"]),
            opening_float=int(s["opening_float"]),
            closed_at=s["closed_at"],
            closed_by=s["closed_by"],
            counted=s["counted_cash"],
            expected=s["expected_cash"],
        )
        for s in records.shifts
    ]
    day = store_day(
        info=records.info,
        tills=[str(t["terminal_id"]) for t in records.tills],
        shifts=shifts,
        cash_sales=records.cash_sales,
        audit=records.audit,
        transactions=report.transactions,
        start=period.start,
        end=period.end,
    )
    cash = [
        CashSaleRow(c["at"], str(c["terminal_id"]), c["customer"], int(c["total"]), int(c["paid"]), int(c["change"]))
        for c in records.cash_sales
    ]
    same = Repeated()
    audit = [
        audit_row(
            AuditEntry(a["at"], str(a["action"]), a["actor"], str(a["terminal_id"]), dict(a["detail"] or {})),
            money,
            same,
        )
        for a in records.audit
    ]
    day = replace(day, currency=records.currency)
    return replace(report, store=day, cash_sales=tuple(cash), audit=tuple(audit), merchant=day.name or report.merchant)


class Reports:
    """Reports for the merchant the client is signed in to, made on terminal ``terminal_id``.

    ``region`` and ``production`` name the service on paper ("SANDBOX" when not production);
    ``actor`` is who made the report, written to the audit log with every copy.
    """

    def __init__(
        self,
        client: PosClient,
        journal: Journal,
        *,
        terminal_id: str,
        region: str,
        production: bool,
        merchant: str | None = None,
        actor: str | Callable[[], str | None] | None = None,
        lookback: timedelta = DEFAULT_LOOKBACK,
        now: Clock = utcnow,
        money: Callable[[int], str] | None = None,
        details: Callable[[], StoreDetails | None] = lambda: None,
        money_in: Callable[[str], Callable[[int], str]] | None = None,
    ) -> None:
        """``merchant``: the name on paper; else the store's name from ``details`` (read at each copy: another
        till may change it), else none. ``money_in(currency)`` formats cents of ``currency`` as ``money`` formats
        the till's: the store's day is written in the store's currency."""
        self.client = client
        self.journal = journal
        self.terminal_id = terminal_id
        self.region = region
        self.production = production
        self.merchant = merchant
        self._actor = actor
        self.lookback = lookback
        self.now = now
        self.money = money
        self.money_in = money_in
        self.details = details

    @property
    def actor(self) -> str | None:
        """Who makes the copy, asked when it is made (the person at the till changes through a day)."""
        return self._actor() if callable(self._actor) else self._actor

    def _merchant(self, details: StoreDetails | None) -> str | None:
        return self.merchant or (details.name if details is not None else None)

    # --- ranges, from the terminal's clock ------------------------------------------------------------------

    def today(self) -> TimeRange:
        return TimeRange.today(self.now())

    def yesterday(self) -> TimeRange:
        return TimeRange.yesterday(self.now())

    def shift(self, since: datetime) -> TimeRange:
        return TimeRange.shift(since, self.now())

    # --- the report -----------------------------------------------------------------------------------------

    async def store_day(self, period: TimeRange, store: StoreSync) -> EndOfDayReport:
        """The store's day over ``period``, made here (see :meth:`store_order`)."""
        return (await self.store_order(period, store)).made()

    async def store_order(self, period: TimeRange, store: StoreSync) -> ReportOrder:
        """The store's day over ``period``: the service's merged summary reconciled against every transaction of the
        merchant, and from the store database every till's shifts and drawers, cash sales, and sales per person
        across the tills. The store database must be reached (a till's own copy holds only its own records)."""
        order = await self.order(period, ReportScope.merged())
        records = await store.day(period.start, period.end)
        money = self.money
        if records.currency is not None and self.money_in is not None:
            money = self.money_in(records.currency)
        return replace(order.then(partial(_with_the_store_day, records, money, period)), currency=records.currency)

    async def end_of_day(self, period: TimeRange, scope: ReportScope | None = None) -> EndOfDayReport:
        """The report of ``period`` for ``scope`` (this terminal by default), made here (see :meth:`order`)."""
        return (await self.order(period, scope)).made()

    async def order(self, period: TimeRange, scope: ReportScope | None = None) -> ReportOrder:
        """What the report of ``period`` for ``scope`` (this terminal by default) is made of, read now."""
        scope = scope or ReportScope.terminal(self.terminal_id)
        generated_at = self.now()
        summary = await self.client.summary(period.start, period.end, terminal_id=scope.terminal_id, merge=scope.merge)
        reported = tuple(figures(s) for s in (summary if isinstance(summary, list) else [summary]))
        start, end = period.listing_window(self.lookback)
        listing = await self.client.transaction_listing(start, end, terminal_id=scope.terminal_id)
        same = Repeated()
        audit = packed_rows(
            audit_row(e, self.money, same) for e in self.journal.audit.each_between(period.start, period.end)
        )
        cash = self.journal.cash_sales.between(period.start, period.end) if scope.covers(self.terminal_id) else []
        details = self.details()
        return ReportOrder(
            terminal_id=self.terminal_id,
            scope=scope,
            region=self.region,
            production=self.production,
            period=period,
            generated_at=generated_at,
            reported=reported,
            listing=listing,
            audit=audit,
            cash_sales=tuple(cash_sale_row(c) for c in cash if scope.covers(c.terminal_id)),
            merchant=self._merchant(details),
            lookback=self.lookback,
            logo=details.logo if details is not None else None,
        )

    # --- receipts -------------------------------------------------------------------------------------------

    async def receipt(self, transaction_id: str) -> Receipt:
        """The receipt of a completed or refunded transaction, as the service has it now."""
        return self.receipt_of(await self.client.get_transaction(transaction_id))

    def receipt_of(self, t: Transaction) -> Receipt:
        if t.state not in (TxState.COMPLETE, TxState.REFUNDED):
            raise NoReceipt(f"Transaction {t.transaction_id} is {t.state}, so it has no receipt.")
        store = self.details()
        return Receipt(
            transaction_id=t.transaction_id,
            state=t.state,
            terminal_id=t.terminal_id,
            when=t.completed or t.created,
            customer=t.customer.display_name if t.customer else "",
            member_no=t.customer.member_no if t.customer else None,
            items=tuple(ReceiptLine(i.name or i.id or "Item", i.quantity, i.amount) for i in t.items),
            discounts=tuple(ModifierRow(d.name or d.id or "Discount", d.amount) for d in t.discounts),
            item_total=t.item_total,
            discount_total=t.discount_total or 0,
            total=t.total,
            tax=t.tax,
            payments=tuple(ModifierRow(p.method or "Payment", p.amount) for p in t.payments),
            charge_amount=t.charge_amount,
            modifiers=tuple(ModifierRow(m.name or m.id or "Adjustment", m.amount) for m in t.modifiers),
            charged_amount=t.amount_charged,
            tip_amount=t.tip_amount,
            region=self.region,
            production=self.production,
            ref_id=t.ref_id,
            merchant=self._merchant(store),
            printed_at=self.now(),
            head=store.head_lines() if store is not None else (),
            foot=store.foot_lines() if store is not None else (),
            logo=store.logo if store is not None else None,
        )

    def cash_receipt_of(self, check: Check, customer: str | None) -> CashReceipt:
        """The receipt of a cash sale finished now: ``check`` is paid in full in cash, ``customer`` its name."""
        store = self.details()
        totals = check.totals()
        return CashReceipt(
            when=self.now(),
            terminal_id=self.terminal_id,
            customer=customer or "",
            items=tuple(ReceiptLine(i.name, i.quantity, i.amount) for i in check.items),
            discounts=tuple(ModifierRow(d.discount.name or "Discount", d.amount) for d in check.priced_discounts()),
            total=totals.total,
            tax=totals.tax,
            paid=totals.payments,
            change=totals.change_due,
            region=self.region,
            production=self.production,
            merchant=self._merchant(store),
            head=store.head_lines() if store is not None else (),
            foot=store.foot_lines() if store is not None else (),
        )

    def receipt_of_cash_sale(self, sale: CashSale) -> CashReceipt:
        """The receipt of a cash sale the journal keeps, as it was when it was taken (its time, its till)."""
        from pos_terminal.domain.check_json import check_from_json

        try:
            check = check_from_json(sale.check)
        except (UserError, KeyError, TypeError, ValueError) as exc:
            raise UserError(
                f"The check of the cash sale of {sale.at:%Y-%m-%d %H:%M} cannot be read.",
                hint="The sale stays in the shift's figures; its receipt cannot be made again.",
            ) from exc
        return replace(self.cash_receipt_of(check, sale.customer), when=sale.at, terminal_id=sale.terminal_id)

    # --- the audit of copies --------------------------------------------------------------------------------

    def record_report(self, report: Filed, output: Output, *, where: str, layout: str) -> None:
        """Write "report printed" or "report saved" to the audit log (call it once the copy exists)."""
        self.journal.audit.record(
            f"report {output}",
            actor=self.actor,
            terminal_id=self.terminal_id,
            detail={
                "scope": report.scope.label,
                "from": report.range.start.isoformat(),
                "to": report.range.end.isoformat(),
                "layout": layout,
                "where": where,
                "reconciled": report.reconciled,
            },
        )

    def record_cash_receipt(self, sale: CashSale, output: Output, *, where: str) -> None:
        """Write "receipt printed" or "receipt saved" of a cash sale (it has no transaction) to the audit log."""
        self.journal.audit.record(
            f"receipt {output}",
            actor=self.actor,
            terminal_id=self.terminal_id,
            detail={"cashSale": sale.uid, "at": sale.at.isoformat(), "where": where},
        )

    def record_receipt(self, receipt: Receipt, output: Output, *, where: str) -> None:
        """Write "receipt printed" or "receipt saved" to the audit log."""
        self.journal.audit.record(
            f"receipt {output}",
            actor=self.actor,
            terminal_id=self.terminal_id,
            detail={"transactionId": receipt.transaction_id, "state": str(receipt.state), "where": where},
        )
