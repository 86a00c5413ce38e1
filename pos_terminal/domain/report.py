"""The end-of-day report as data: time range presets, scope, figures and their reconciliation.

Pure: no I/O, no formatting of money (the renderers and the screen take a
:class:`~pos_terminal.domain.money.MoneyFormat`). :func:`build_report` joins what
the service said (summary records) with what the terminal listed (transaction
records, as :class:`TxRow`) and the journal's audit entries of the period.

Two different time filters meet here (contract section 1): the summary route
counts transactions whose ``completed`` lies in the range, the list route
returns those whose ``created`` does. A transaction completed in the range was
created at most one auto-cancel interval before it was completed (after that it
would have been canceled), so the terminal lists ``created`` in
``[start - lookback, end)`` with a generous lookback (:data:`DEFAULT_LOOKBACK`,
24 hours: the auto-cancel interval of a real deployment is not published) and
then filters on ``completed`` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from enum import StrEnum
from typing import Any, Literal

from pos_terminal.domain.check import is_cash
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.shift import ShiftSection
from pos_terminal.domain.store_day import StoreDay
from pos_terminal.domain.summary import FIGURES, SummaryFigures, TxFacts, differences, recompute
from pos_terminal.errors import UserError

DEFAULT_LOOKBACK = timedelta(hours=24)


Layout = Literal["a4", "roll"]  # paper: an A4 page, or the 80 mm roll of a receipt printer


class ReportRangeError(UserError):
    """A report range that cannot be used."""

    hint = "Choose a start before the end."


# --- time ranges ---------------------------------------------------------------------------------------------


def _aware(moment: datetime, what: str) -> datetime:
    if moment.tzinfo is None:
        raise ValueError(f"{what} must be timezone-aware")
    return moment.astimezone(UTC)


def local_midnight(day: date, tz: tzinfo | None = None) -> datetime:
    """The start of ``day`` in ``tz`` (the system's local time when ``None``), in UTC.

    With ``tz`` ``None`` the naive midnight goes through the system's own rules, so a day that
    starts on the other side of a daylight-saving change still starts at its own midnight.
    """
    midnight = datetime.combine(day, time())
    local = midnight.astimezone() if tz is None else midnight.replace(tzinfo=tz)
    return local.astimezone(UTC)


def _today(now: datetime, tz: tzinfo | None) -> date:
    return (now.astimezone() if tz is None else now.astimezone(tz)).date()


class RangeKind(StrEnum):
    TODAY = "today"
    YESTERDAY = "yesterday"
    SHIFT = "shift"
    CUSTOM = "custom"


@dataclass(frozen=True, slots=True)
class TimeRange:
    """``[start, end)`` in UTC, and which preset made it (for the title)."""

    start: datetime
    end: datetime
    kind: RangeKind = RangeKind.CUSTOM

    def __post_init__(self) -> None:
        object.__setattr__(self, "start", _aware(self.start, "start"))
        object.__setattr__(self, "end", _aware(self.end, "end"))
        if not self.start < self.end:
            raise ReportRangeError("The range ends before it starts.")  # History's as well as a report's

    def __contains__(self, moment: object) -> bool:
        return isinstance(moment, datetime) and self.start <= moment < self.end

    @classmethod
    def today(cls, now: datetime, tz: tzinfo | None = None) -> TimeRange:
        """From local midnight until ``now``."""
        return cls(local_midnight(_today(now, tz), tz), now, RangeKind.TODAY)

    @classmethod
    def yesterday(cls, now: datetime, tz: tzinfo | None = None) -> TimeRange:
        """The whole of yesterday, local midnight to local midnight (23 or 25 hours across a DST change)."""
        today = _today(now, tz)
        return cls(local_midnight(today - timedelta(days=1), tz), local_midnight(today, tz), RangeKind.YESTERDAY)

    @classmethod
    def shift(cls, since: datetime, now: datetime) -> TimeRange:
        """This shift: from the moment it started until ``now``."""
        if since.tzinfo is None:
            raise ValueError("since must be timezone-aware")
        if since >= now:
            raise ReportRangeError("The shift cannot start in the future.", hint="Choose a start time before now.")
        return cls(since, now, RangeKind.SHIFT)

    @classmethod
    def custom(cls, start: datetime, end: datetime) -> TimeRange:
        return cls(start, end, RangeKind.CUSTOM)

    def listing_window(self, lookback: timedelta = DEFAULT_LOOKBACK) -> tuple[datetime, datetime]:
        """The ``created`` range to list so that every transaction *completed* in the range is among them."""
        return self.start - lookback, self.end


# --- scope ---------------------------------------------------------------------------------------------------


class ScopeKind(StrEnum):
    TERMINAL = "terminal"  # one terminal: this one or another
    ALL = "all"  # every terminal, one row each
    MERGED = "merged"  # every terminal merged into one row (merge=true)


@dataclass(frozen=True, slots=True)
class ReportScope:
    kind: ScopeKind
    terminal_id: str | None = None

    def __post_init__(self) -> None:
        if (self.kind is ScopeKind.TERMINAL) != bool(self.terminal_id):
            raise ValueError("a terminal scope names exactly one terminal, the others none")

    @classmethod
    def terminal(cls, terminal_id: str) -> ReportScope:
        return cls(ScopeKind.TERMINAL, terminal_id)

    @classmethod
    def all(cls) -> ReportScope:
        return cls(ScopeKind.ALL)

    @classmethod
    def merged(cls) -> ReportScope:
        return cls(ScopeKind.MERGED)

    @property
    def merge(self) -> bool:
        return self.kind is ScopeKind.MERGED

    @property
    def label(self) -> str:
        if self.kind is ScopeKind.TERMINAL:
            return f"Terminal {self.terminal_id}"
        return "All terminals, one row each" if self.kind is ScopeKind.ALL else "All terminals, merged"

    def covers(self, terminal_id: str | None) -> bool:
        return self.kind is not ScopeKind.TERMINAL or terminal_id == self.terminal_id


# --- rows ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ModifierRow:
    name: str
    amount: int


@dataclass(frozen=True, slots=True)
class TxRow:
    """One transaction as the report shows it (from a record 2.7)."""

    transaction_id: str
    state: TxState
    terminal_id: str | None
    created: datetime | None
    completed: datetime | None
    updated: datetime | None
    customer: str
    total: int
    charge_amount: int
    charged_amount: int
    tip_amount: int = 0
    fee_amount: int = 0
    ref_id: str | None = None

    @property
    def facts(self) -> TxFacts:
        return TxFacts(
            terminal_id=self.terminal_id,
            state=self.state,
            completed=self.completed,
            total=self.total,
            charge_amount=self.charge_amount,
            tip_amount=self.tip_amount,
            fee_amount=self.fee_amount,
        )

    @property
    def changed(self) -> datetime | None:
        """When it last changed (a refund or a cancellation carries no time of its own)."""
        return self.updated or self.completed or self.created

    @property
    def charged(self) -> int | None:
        """What the customer paid through the service; ``None`` while authorized or once canceled (the funds
        were only reserved, and a cancel releases them, whatever ``chargedAmount`` the record carries)."""
        return self.charged_amount if self.state in (TxState.COMPLETE, TxState.REFUNDED) else None

    @property
    def fee(self) -> int:
        """The service's fee, which only a charge that went through carries."""
        return self.fee_amount if self.state in (TxState.COMPLETE, TxState.REFUNDED) else 0


@dataclass(frozen=True, slots=True)
class AuditRow:
    at: datetime
    action: str
    actor: str | None
    terminal_id: str | None
    detail: str


@dataclass(frozen=True, slots=True)
class CashSaleRow:
    """A check paid in full in cash at this terminal: the service never saw it (it takes no charge of zero)."""

    at: datetime
    terminal_id: str | None
    customer: str | None
    total: int
    paid: int
    change: int


@dataclass(frozen=True, slots=True)
class FigureRow:
    """One terminal's (or the merged) figures: what the service reported and what the transactions give."""

    terminal_id: str | None
    reported: SummaryFigures | None  # None: the service sent no record for it
    recomputed: SummaryFigures

    @property
    def shown(self) -> SummaryFigures:
        """The service's figures (the report's numbers); zeros when it sent none."""
        return self.reported or SummaryFigures(self.terminal_id)

    @property
    def mismatched(self) -> tuple[str, ...]:
        """The figures (``count``, ``total`` …) where the two disagree."""
        shown = self.shown
        return tuple(name for name in FIGURES if getattr(shown, name) != getattr(self.recomputed, name))

    @property
    def matches(self) -> bool:
        return not self.mismatched


def _sum(terminal_id: str | None, records: Iterable[SummaryFigures]) -> SummaryFigures:
    records = list(records)
    return SummaryFigures(
        terminal_id,
        **{name: sum(getattr(r, name) for r in records) for name in FIGURES},
    )


def _terminal_order(terminal_id: str | None) -> tuple[bool, str]:
    return (terminal_id is not None, terminal_id or "")


# --- the report ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EndOfDayReport:
    """Everything printed on an end-of-day (or shift) report; amounts in cents, times in UTC."""

    terminal_id: str  # the terminal that made the report
    scope: ReportScope
    region: str
    production: bool
    range: TimeRange
    generated_at: datetime
    reported: tuple[SummaryFigures, ...]  # as the summary route sent them
    recomputed: tuple[SummaryFigures, ...]  # from the listed transactions (contract section 5)
    rows: tuple[FigureRow, ...]
    total: FigureRow
    transactions: tuple[TxRow, ...]  # created, completed or changed in the range, or still authorized
    audit: tuple[AuditRow, ...]
    merchant: str | None = None
    lookback: timedelta = DEFAULT_LOOKBACK
    cash_sales: tuple[CashSaleRow, ...] = ()  # this terminal's, from its journal; not in the service's figures
    shift: ShiftSection | None = None  # an X or Z report: the range is the shift's, and its drawer and people
    store: StoreDay | None = None  # the store's day: every till's shifts and drawers, and people across tills
    logo: bytes | None = field(default=None, repr=False)  # the store's logo (a grey PNG), above its name on paper

    @property
    def cash_total(self) -> int:
        """What the cash sales came to (the cash kept: change handed back is not counted)."""
        return sum(sale.total for sale in self.cash_sales)

    @property
    def reconciled(self) -> bool:
        return all(row.matches for row in self.rows) and self.total.matches and not self.differences()

    def differences(self, money: Any = str) -> list[str]:
        """One sentence per disagreement; ``money`` formats cents (``MoneyFormat.format``)."""
        return differences(self.reported, self.recomputed, money=money)

    @property
    def counted(self) -> tuple[TxRow, ...]:
        """The transactions the summary counts: complete, completed in the range."""
        return tuple(t for t in self.transactions if t.state is TxState.COMPLETE and t.completed in self.range)

    @property
    def open_authorized(self) -> tuple[TxRow, ...]:
        """Authorized and never completed (nor canceled) when the report was made."""
        return tuple(t for t in self.transactions if t.state is TxState.AUTHORIZED)

    @property
    def refunds(self) -> tuple[TxRow, ...]:
        return tuple(t for t in self.transactions if t.state is TxState.REFUNDED)

    @property
    def cancellations(self) -> tuple[TxRow, ...]:
        return tuple(t for t in self.transactions if t.state is TxState.CANCELED)

    def filename(self, layout: Layout, tz: tzinfo | None = None) -> str:
        """A file name that says what the report is: ``report-LANE-1-2026-11-23-0000-a4.pdf`` (local start)."""
        who = self.scope.terminal_id or ("store" if self.store else "merged" if self.scope.merge else "all")
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in who)
        start = self.range.start.astimezone() if tz is None else self.range.start.astimezone(tz)
        if self.shift is not None:
            kind = str(self.shift.kind).lower()
            return f"{kind}-report-{safe}-shift-{self.shift.shift.id}-{start:%Y-%m-%d-%H%M}-{layout}.pdf"
        return f"report-{safe}-{start:%Y-%m-%d-%H%M}-{layout}.pdf"

    @property
    def title(self) -> str:
        if self.shift is not None:
            return self.shift.title
        if self.store is not None:
            return {
                RangeKind.TODAY: "The store's day (so far today)",
                RangeKind.YESTERDAY: "The store's day (yesterday)",
            }.get(self.range.kind, "The store's report")
        return {
            RangeKind.TODAY: "End-of-day report (so far today)",
            RangeKind.YESTERDAY: "End-of-day report (yesterday)",
            RangeKind.SHIFT: "Shift report",
            RangeKind.CUSTOM: "Summary report",
        }[self.range.kind]

    def as_json(self) -> dict[str, Any]:
        """Plain JSON values (cents, ISO 8601 UTC) for ``--json`` and for files."""

        def figures(f: SummaryFigures | None) -> dict[str, Any] | None:
            if f is None:
                return None
            return {"terminalId": f.terminal_id, **{name: getattr(f, name) for name in FIGURES}}

        def row(r: FigureRow) -> dict[str, Any]:
            return {
                "terminalId": r.terminal_id,
                "reported": figures(r.reported),
                "recomputed": figures(r.recomputed),
                "mismatched": list(r.mismatched),
            }

        def when(moment: datetime | None) -> str | None:
            return None if moment is None else moment.astimezone(UTC).isoformat().replace("+00:00", "Z")

        def tx(t: TxRow) -> dict[str, Any]:
            return {
                "transactionId": t.transaction_id,
                "state": str(t.state),
                "terminalId": t.terminal_id,
                "created": when(t.created),
                "completed": when(t.completed),
                "updated": when(t.updated),
                "customer": t.customer,
                "total": t.total,
                "chargeAmount": t.charge_amount,
                "chargedAmount": t.charged_amount,
                "tipAmount": t.tip_amount,
                "feeAmount": t.fee_amount,
                "refId": t.ref_id,
            }

        return {
            "title": self.title,
            "merchant": self.merchant,
            "terminalId": self.terminal_id,
            "scope": {"kind": str(self.scope.kind), "terminalId": self.scope.terminal_id},
            "region": self.region,
            "production": self.production,
            "from": when(self.range.start),
            "to": when(self.range.end),
            "generatedAt": when(self.generated_at),
            "rows": [row(r) for r in self.rows],
            "total": row(self.total),
            "reconciled": self.reconciled,
            "differences": self.differences(),
            "transactions": [tx(t) for t in self.transactions],
            "openAuthorized": [t.transaction_id for t in self.open_authorized],
            "refunds": [t.transaction_id for t in self.refunds],
            "cancellations": [t.transaction_id for t in self.cancellations],
            "audit": [
                {
                    "at": when(a.at),
                    "action": a.action,
                    "actor": a.actor,
                    "terminalId": a.terminal_id,
                    "detail": a.detail,
                }
                for a in self.audit
            ],
            "cashSales": [
                {
                    "at": when(c.at),
                    "terminalId": c.terminal_id,
                    "customer": c.customer,
                    "total": c.total,
                    "paid": c.paid,
                    "change": c.change,
                }
                for c in self.cash_sales
            ],
            "shift": None if self.shift is None else self.shift.as_json(),
            "store": None if self.store is None else self.store.as_json(),
        }


def with_shift(report: EndOfDayReport, *, section: ShiftSection) -> EndOfDayReport:
    """``report`` as the X or Z report of ``section``'s shift: each person's charged is what the service charged on
    their checks, as the report's transactions list it (a refunded one included)."""
    charged = {t.transaction_id: t.charged for t in report.transactions if t.charged is not None}
    return replace(report, shift=section.with_charged(charged))


def _relevant(t: TxRow, period: TimeRange) -> bool:
    if t.state is TxState.AUTHORIZED:
        return True  # open now, whenever it started: the manager must see it
    return t.created in period or t.completed in period or t.changed in period


def build_report(
    *,
    terminal_id: str,
    scope: ReportScope,
    region: str,
    production: bool,
    period: TimeRange,
    generated_at: datetime,
    reported: Sequence[SummaryFigures],
    listed: Iterable[TxRow],
    audit: Iterable[AuditRow] = (),
    merchant: str | None = None,
    lookback: timedelta = DEFAULT_LOOKBACK,
    cash_sales: Iterable[CashSaleRow] = (),
) -> EndOfDayReport:
    """Recompute the figures from ``listed`` and pair them with ``reported``, terminal by terminal.

    ``listed`` may hold more than the range and other terminals (the listing window is wider);
    only what the scope and range cover is used. A transaction seen twice (overlapping lists)
    counts once.
    """
    unique: dict[str, TxRow] = {}
    for t in listed:
        if scope.covers(t.terminal_id):
            unique[t.transaction_id] = t
    rows_in_scope = list(unique.values())
    recomputed = recompute(
        (t.facts for t in rows_in_scope), period.start, period.end, scope.merge, terminal_id=scope.terminal_id
    )
    theirs: Mapping[str | None, SummaryFigures] = {r.terminal_id: r for r in reported}
    ours: Mapping[str | None, SummaryFigures] = {r.terminal_id: r for r in recomputed}
    if scope.merge:
        merged_reported = reported[0] if reported else None
        merged_ours = recomputed[0] if recomputed else SummaryFigures(None)
        rows: tuple[FigureRow, ...] = (FigureRow(None, merged_reported, merged_ours),)
        total = rows[0]
    else:
        keys = set(theirs) | set(ours)
        if scope.kind is ScopeKind.TERMINAL:
            keys.add(scope.terminal_id)
        rows = tuple(
            FigureRow(key, theirs.get(key), ours.get(key, SummaryFigures(key)))
            for key in sorted(keys, key=_terminal_order)
        )
        if scope.kind is ScopeKind.TERMINAL:
            total = rows[0]
        else:
            total = FigureRow(None, _sum(None, (r.shown for r in rows)), _sum(None, (r.recomputed for r in rows)))
    shown = sorted(
        (t for t in rows_in_scope if _relevant(t, period)),
        key=lambda t: (t.created or t.completed or period.start, t.transaction_id),
    )
    return EndOfDayReport(
        terminal_id=terminal_id,
        scope=scope,
        region=region,
        production=production,
        range=period,
        generated_at=_aware(generated_at, "generated_at"),
        reported=tuple(reported),
        recomputed=tuple(recomputed),
        rows=rows,
        total=total,
        transactions=tuple(shown),
        audit=tuple(sorted(audit, key=lambda a: a.at)),
        merchant=merchant,
        lookback=lookback,
        cash_sales=tuple(sorted((c for c in cash_sales if c.at in period), key=lambda c: c.at)),
    )


@dataclass(frozen=True, slots=True)
class ReceiptLine:
    name: str
    quantity: int
    amount: int


@dataclass(frozen=True, slots=True)
class Receipt:
    """What an 80 mm receipt shows of one transaction; amounts in cents, times in UTC."""

    transaction_id: str
    state: TxState
    terminal_id: str | None
    when: datetime | None  # completed, else created
    customer: str
    member_no: str | None
    items: tuple[ReceiptLine, ...]
    discounts: tuple[ModifierRow, ...]
    item_total: int
    discount_total: int
    total: int
    tax: int | None
    payments: tuple[ModifierRow, ...]  # paid before the charge, e.g. cash
    charge_amount: int
    modifiers: tuple[ModifierRow, ...]  # loyalty and other service adjustments
    charged_amount: int
    tip_amount: int
    region: str
    production: bool
    ref_id: str | None = None
    merchant: str | None = None
    printed_at: datetime | None = None
    extra: Mapping[str, str] = field(default_factory=dict)
    head: tuple[str, ...] = ()  # under the store's name: its address, tax number, receipt header
    foot: tuple[str, ...] = ()  # the store's receipt footer
    logo: bytes | None = field(default=None, repr=False)  # the store's logo (a grey PNG), above its name

    @property
    def loyalty_adjustment(self) -> int:
        """What the service's benefits changed: chargedAmount − chargeAmount (≤ 0 for a discount)."""
        return self.charged_amount - self.charge_amount

    @property
    def paid_in_total(self) -> int:
        """What left the customer's account: the amount charged and the tip on top of it."""
        return self.charged_amount + self.tip_amount

    def refunded_words(self, money: Callable[[int], str]) -> str:
        """What went back, for the top of a refunded receipt: to the account, and the cash handed back with it."""
        cash = sum(p.amount for p in self.payments if is_cash(p.name))
        if not cash:
            return f"{money(self.charged_amount)} returned to the customer"
        return f"{money(self.charged_amount)} returned to the customer's account, {money(cash)} in cash"


@dataclass(frozen=True, slots=True)
class CashReceipt:
    """What the receipt of a cash sale shows: a check paid in full in cash, never sent to the service (it has no
    transaction, so no QR code); amounts in cents, times in UTC."""

    when: datetime
    terminal_id: str | None
    customer: str
    items: tuple[ReceiptLine, ...]
    discounts: tuple[ModifierRow, ...]
    total: int
    tax: int
    paid: int  # the cash taken
    change: int  # handed back
    region: str
    production: bool
    merchant: str | None = None
    head: tuple[str, ...] = ()
    foot: tuple[str, ...] = ()
