"""What an end-of-day (or shift, or store) report says, decided once for every way it is shown.

:func:`report_document` turns an :class:`~pos_terminal.domain.report.EndOfDayReport` into a
:class:`ReportDocument`: the title and the header's facts, then an ordered list of
:class:`Section` s, each a heading and typed blocks (label and value :class:`Pairs`, a
:class:`Table` with columns, the :class:`Figures`, a :class:`Verdict` that matches or not, a
:class:`Note`), every amount and time already in words. The renderers only lay it out: the A4
and roll PDFs (:mod:`pos_terminal.reports.end_of_day`), the receipt printer's slip
(:func:`pos_terminal.domain.slip.report_slip`), plain text (:mod:`pos_terminal.domain.report_text`)
and the screen. A section marked ``wide`` (the table of every transaction) needs a page's width
and is left to the A4 page; every other section appears in every renderer.

Pure: no I/O, no Qt, no reportlab.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from enum import StrEnum

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.report import EndOfDayReport, FigureRow, Layout, ReportScope, TimeRange, TxRow
from pos_terminal.domain.shift import (
    EXPECTED_NOTE,
    PersonSales,
    ShiftSection,
    change_tables,
    drawer_lines,
    drawer_pieces,
    drawer_verdict,
    person_lines,
    shift_notes,
    shift_times,
)
from pos_terminal.domain.store_day import StoreDay
from pos_terminal.domain.summary import SummaryFigures
from pos_terminal.domain.words import counted

Money = Callable[[int], str]

# What the two amounts of a charge are called, in every report: before the member's benefit, and after it.
DUE_AND_CHARGED = (
    "Due: the check's total less the cash paid at the till, what the service was asked to charge, before the "
    "member's benefit. Charged: what the service charged the customer's account, after the member's benefit."
)

# The figures in the order a report prints them, and the name each is printed under.
FIGURE_NAMES: tuple[tuple[str, str], ...] = (
    ("count", "Count"),
    ("total", "Total"),
    ("tips", "Tips"),
    ("fees", "Fees"),
    ("payout", "Payout"),
)


class Status(StrEnum):
    """How a checked part of the report stands; a renderer colours it (green, red)."""

    MATCHES = "matches"
    MISMATCH = "mismatch"


class Tone(StrEnum):
    BODY = "body"  # a sentence of the report
    SMALL = "small"  # fine print: what a figure means
    WARNING = "warning"  # must be seen: bold, red on paper


class SectionKey(StrEnum):
    """Which part of the report a section is (the screen and the tests look sections up by it)."""

    SHIFT = "shift"
    DRAWER = "drawer"
    PEOPLE = "people"
    SHIFT_REFUNDS = "shift refunds"
    SHIFT_CANCELLATIONS = "shift cancellations"
    APPROVALS = "approvals"
    SHIFT_NOTES = "shift notes"
    STORE = "store"
    STORE_SHIFTS = "store shifts"
    STORE_PEOPLE = "store people"
    FIGURES = "figures"
    RECONCILIATION = "reconciliation"
    OPEN_AUTHORIZED = "open authorized"
    REFUNDS = "refunds"
    CANCELLATIONS = "cancellations"
    CASH_SALES = "cash sales"
    TRANSACTIONS = "transactions"
    AUDIT = "audit"


@dataclass(frozen=True, slots=True)
class Pair:
    """A label and its value (a value of ``""``: a line of its own)."""

    label: str
    value: str = ""
    strong: bool = False  # bold: the count, a person's name
    sum: bool = False  # the line of a sum: a rule above it


@dataclass(frozen=True, slots=True)
class Pairs:
    rows: tuple[Pair, ...]
    amounts: bool = False  # the values are amounts: right-aligned
    small: bool = False  # a detail of the lines above (the count by denomination)


@dataclass(frozen=True, slots=True)
class Table:
    """Columns and a row per entry. A narrow paper shows each row as pairs: ``narrow`` when the report words
    them its own way, else each column's name and value."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    widths: tuple[float, ...]  # each column's share of a wide page
    right: tuple[int, ...] = ()  # amount columns
    ids: tuple[int, ...] = ()  # columns of transaction ids: printed whole, small, on a wide page
    wrap: tuple[int, ...] = ()  # columns of sentences: on a wide page they go on in the rows under, never cut
    empty: str = "None."  # said instead when there is no row
    narrow: tuple[tuple[Pair, ...], ...] | None = None

    def narrow_rows(self, beside: int) -> tuple[tuple[Pair, ...], ...]:
        """Each row as pairs; a value longer than ``beside`` characters (a transaction id) gets a line of its own."""
        if self.narrow is not None:
            return self.narrow
        return tuple(
            tuple(
                Pair(name, value) if len(value) <= beside else Pair(f"{name}: {value}")
                for name, value in zip(self.head, row, strict=True)
                if value
            )
            for row in self.rows
        )


@dataclass(frozen=True, slots=True)
class FigureLine:
    """One terminal's (or the total's) figures as the service reported them, and what the transactions give."""

    label: str
    values: tuple[str, ...]  # in the order of FIGURE_NAMES
    recomputed: tuple[str, ...]
    mismatched: tuple[str, ...]  # the figures (``count``, ``total`` …) that disagree
    reported: bool  # the service sent a record for it
    strong: bool = False  # the total, or the only line

    @property
    def matches(self) -> bool:
        return not self.mismatched

    @property
    def check(self) -> str:
        return "✓ matches" if self.matches else "✗ MISMATCH"

    def value(self, name: str) -> str:
        return self.values[[key for key, _ in FIGURE_NAMES].index(name)]


@dataclass(frozen=True, slots=True)
class Figures:
    lines: tuple[FigureLine, ...]
    total: FigureLine | None = None  # under the lines when there are several
    empty: str = ""  # said when there are several terminals and none has a figure

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for _, name in FIGURE_NAMES)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A check's outcome: a headline and the sentences that explain it, coloured by ``status``."""

    status: Status
    headline: str
    lines: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Note:
    text: str
    tone: Tone = Tone.BODY


Block = Pairs | Table | Figures | Verdict | Note


@dataclass(frozen=True, slots=True)
class Section:
    key: SectionKey
    heading: str  # "" for a few lines under the section before
    blocks: tuple[Block, ...]
    count: int | None = None  # the entries it lists, shown after the heading
    short: str = ""  # its name in a line of counts (the screen)
    amount: str = ""  # what its entries come to, when that is said beside the count
    status: Status | None = None
    wide: bool = False  # needs a page's width: on A4 only

    @property
    def title(self) -> str:
        return self.heading if self.count is None else f"{self.heading} ({self.count})"


@dataclass(frozen=True, slots=True)
class ReportDocument:
    title: str
    merchant: str | None
    sandbox: str | None  # the banner of a report on test data
    facts: tuple[Pair, ...]
    sections: tuple[Section, ...]
    scope: str
    period: str  # "start – end", local time
    made: str  # when it was made, local time
    service: str
    logo: bytes | None = None

    def section(self, key: SectionKey) -> Section | None:
        return next((s for s in self.sections if s.key is key), None)

    def sections_on(self, *, wide: bool) -> tuple[Section, ...]:
        """The sections a page shows: all on a wide one, all but the ``wide`` ones on a narrow one."""
        return self.sections if wide else tuple(s for s in self.sections if not s.wide)


SANDBOX_BANNER = "SANDBOX — test data from the sandbox service, not real money"


def local(moment: datetime | None, tz: tzinfo | None, pattern: str = "%Y-%m-%d %H:%M") -> str:
    """A UTC moment in local time (the system's zone when ``tz`` is ``None``)."""
    if moment is None:
        return ""
    return (moment.astimezone() if tz is None else moment.astimezone(tz)).strftime(pattern)


def zone_name(moment: datetime, tz: tzinfo | None) -> str:
    """``"AEDT, UTC+11:00"``: which local time the report speaks."""
    shown = moment.astimezone() if tz is None else moment.astimezone(tz)
    offset = shown.strftime("%z")
    utc = f"UTC{offset[:3]}:{offset[3:]}" if offset else "UTC"
    name = shown.tzname() or ""
    return utc if not name or name.startswith(("UTC", "+", "-")) else f"{name}, {utc}"


def terminal_label(terminal_id: str | None, merged: bool = False) -> str:
    if merged:
        return "All terminals"
    return terminal_id if terminal_id is not None else "(no terminal id)"


def report_document(
    report: EndOfDayReport, money: Money, tz: tzinfo | None = None, *, listings: bool = True
) -> ReportDocument:
    """What ``report`` says, in words: amounts by ``money`` (``MoneyFormat.format``), times in ``tz``.

    Without ``listings`` the lists of transactions, refunds, cancellations, cash sales and audit entries keep their
    counts and amounts but not their rows: what the screen shows beside the PDF, without a day's worth of words made
    and dropped at each report (the window's memory, docs/memory.md)."""
    return _Words(report, money, tz, listings=listings).document()


@dataclass(frozen=True, slots=True)
class ReportFace:
    """What the window keeps of a report made in its child process: the screen's words (the counts of the lists, not
    their rows), and what a copy is named and filed under. The rows are the PDF's."""

    scope: ReportScope
    range: TimeRange
    generated_at: datetime
    title: str
    reconciled: bool
    shift: ShiftSection | None
    open_authorized: tuple[str, ...]  # the ids of the transactions still only authorized
    document: ReportDocument
    names: tuple[tuple[Layout, str], ...]  # each layout's file name

    @classmethod
    def of(cls, report: EndOfDayReport, money: Money) -> ReportFace:
        return cls(
            scope=report.scope,
            range=report.range,
            generated_at=report.generated_at,
            title=report.title,
            reconciled=report.reconciled,
            shift=report.shift,
            open_authorized=tuple(t.transaction_id for t in report.open_authorized),
            document=report_document(report, money, listings=False),
            names=(("a4", report.filename("a4")), ("roll", report.filename("roll"))),
        )

    def filename(self, layout: Layout) -> str:
        return dict(self.names)[layout]


class _Words:
    """One wording of a report: how to write money and time."""

    def __init__(self, report: EndOfDayReport, money: Money, tz: tzinfo | None, *, listings: bool = True) -> None:
        self.report = report
        self.money = money
        self.tz = tz
        self.listings = listings
        # Times of one day print as HH:MM; a range over several days adds the date. The range's end is not in it:
        # a day from midnight to midnight is one day.
        start, last = report.range.start, max(report.range.start, report.range.end - timedelta(microseconds=1))
        days = {local(m, tz, "%Y-%m-%d") for m in (start, last)} | {
            local(t.created, tz, "%Y-%m-%d") for t in report.transactions if t.created
        }
        self.dated = len(days) > 1
        self.pattern = "%m-%d %H:%M" if self.dated else "%H:%M"

    def time(self, moment: datetime | None) -> str:
        return local(moment, self.tz, self.pattern)

    def document(self) -> ReportDocument:
        r = self.report
        zone = zone_name(r.range.start, self.tz)
        service = f"{r.region}{'' if r.production or 'sandbox' in r.region.lower() else ' (sandbox)'}"
        facts = (
            Pair("Merchant", r.merchant or "The signed-in merchant"),
            Pair("Report for", r.scope.label),
            Pair("Made on", f"Terminal {r.terminal_id}"),
            Pair("Service", service),
            Pair("From", f"{local(r.range.start, self.tz)} ({zone})"),
            Pair("To", f"{local(r.range.end, self.tz)} (not included)"),
            Pair("Generated", local(r.generated_at, self.tz, "%Y-%m-%d %H:%M:%S")),
        )
        sections: list[Section] = []
        if r.shift is not None:
            sections += self.shift(r.shift)
        if r.store is not None:
            sections += self.store(r.store)
        sections += [self.figures(), self.reconciliation()]
        sections += [
            self.tx_list(SectionKey.OPEN_AUTHORIZED, "Authorized, never completed", "Open authorized", "created"),
            self.tx_list(SectionKey.REFUNDS, "Refunds", "Refunds", "changed"),
            self.tx_list(SectionKey.CANCELLATIONS, "Cancellations", "Cancellations", "changed"),
            self.cash_sales(),
            self.transactions(),
            self.audit(),
        ]
        return ReportDocument(
            title=r.title,
            merchant=r.merchant,
            sandbox=None if r.production else SANDBOX_BANNER,
            facts=facts,
            sections=tuple(sections),
            scope=r.scope.label,
            period=f"{local(r.range.start, self.tz)} – {local(r.range.end, self.tz)}",
            made=local(r.generated_at, self.tz),
            service=service,
            logo=r.logo,
        )

    # --- the shift (X and Z reports) ------------------------------------------------------------------------

    def shift(self, section: ShiftSection) -> list[Section]:
        money = self.money
        times = shift_times(section, lambda at: local(at, self.tz))
        sections = [Section(SectionKey.SHIFT, f"Shift {section.shift.id}", (Pairs(tuple(Pair(*t) for t in times)),))]
        drawer: list[Block] = [
            Pairs(
                tuple(
                    Pair(name, value, strong=name.startswith("=") or name == "Counted", sum=name.startswith("="))
                    for name, value in drawer_lines(section, money)
                ),
                amounts=True,
            )
        ]
        status: Status | None = None
        over_short = section.over_short
        if over_short is not None and section.counted is not None:
            status = Status.MATCHES if over_short == 0 else Status.MISMATCH
            said = "the drawer is right" if over_short == 0 else drawer_verdict(over_short, money, loud=True)
            mark = "✓" if over_short == 0 else "✗"
            drawer.append(Verdict(status, f"{mark} Counted {money(section.counted.total)}: {said}."))
        if pieces := drawer_pieces(section, money):
            drawer.append(Note("Counted by denomination", Tone.SMALL))
            drawer.append(Pairs(tuple(Pair(f"  {name}", value) for name, value in pieces), amounts=True, small=True))
        drawer.append(Note(EXPECTED_NOTE, Tone.SMALL))
        sections.append(Section(SectionKey.DRAWER, "Cash drawer", tuple(drawer), status=status))
        sections.append(
            self.people(
                SectionKey.PEOPLE,
                section.people,
                title="Sales per person",
                none="No check was completed in the shift.",
                note="Checks each person charged that were completed in the shift (a refunded one included), and "
                f"the refunds each made. Cash: paid at the till. {DUE_AND_CHARGED}",
            )
        )
        layouts = {  # each list's key, its column widths on a wide page, and which columns are amounts
            "Refunds made in the shift": (SectionKey.SHIFT_REFUNDS, (0.09, 0.37, 0.14, 0.14, 0.13, 0.13), (4, 5)),
            "Cancellations sent from this terminal": (SectionKey.SHIFT_CANCELLATIONS, (0.09, 0.45, 0.23, 0.23), ()),
            "Manager approvals": (SectionKey.APPROVALS, (0.09, 0.25, 0.16, 0.16, 0.34), ()),
        }
        for table in change_tables(section, money, self.time):
            key, widths, right = layouts[table.title]
            block = Table(table.head, table.rows, widths, right)
            sections.append(Section(key, table.title, (block,), count=len(table.rows)))
        if notes := shift_notes(section):
            blocks = tuple(Note(note, Tone.WARNING if loud else Tone.BODY) for note, loud in notes)
            sections.append(Section(SectionKey.SHIFT_NOTES, "", blocks))
        return sections

    def people(self, key: SectionKey, people: tuple[PersonSales, ...], *, title: str, none: str, note: str) -> Section:
        money = self.money
        rows = tuple(
            (
                p.person,
                str(p.checks),
                money(p.total),
                money(p.cash),
                money(p.due),
                money(p.charged),
                f"{p.refunds} · {money(p.refunded)}" if p.refunds else "",
            )
            for p in people
        )
        narrow = tuple(
            tuple(Pair(name, value, strong=index == 0) for index, (name, value) in enumerate(person_lines(p, money)))
            for p in people
        )
        table = Table(
            ("Person", "Checks", "Total", "Cash", "Due", "Charged", "Refunds"),
            rows,
            (0.22, 0.08, 0.13, 0.13, 0.13, 0.13, 0.18),
            right=(1, 2, 3, 4, 5, 6),
            empty=none,
            narrow=narrow,
        )
        blocks: tuple[Block, ...] = (table, Note(note, Tone.SMALL)) if people else (table,)
        return Section(key, title, blocks, count=len(people))

    # --- the store's day ------------------------------------------------------------------------------------

    def store(self, day: StoreDay) -> list[Section]:
        money = self.money
        facts = [Pair("Store", day.name or "(no name set)")]
        if day.address:
            facts.append(Pair("Address", day.address))
        facts.append(Pair("Tills", ", ".join(day.tills) or "none yet"))
        rows: list[tuple[str, ...]] = []
        narrow: list[tuple[Pair, ...]] = []
        for shift in day.shifts:
            opened = f"{self.time(shift.opened_at)} {shift.opened_by}"
            ended = "still open" if shift.closed_at is None else f"{self.time(shift.closed_at)} {shift.closed_by}"
            verdict = "" if shift.over_short is None else drawer_verdict(shift.over_short, money)
            expected = "" if shift.expected is None else money(shift.expected)
            count = "" if shift.counted is None else money(shift.counted)
            rows.append((shift.terminal_id, opened, money(shift.opening_float), ended, expected, count, verdict))
            lines = [
                Pair(f"Till {shift.terminal_id}", strong=True),
                Pair("  opened", opened),
                Pair("  float", money(shift.opening_float)),
                Pair("  closed", ended),
            ]
            if shift.closed_at is not None:
                lines += [Pair("  expected", money(shift.expected or 0)), Pair("  counted", money(shift.counted or 0))]
                if verdict:
                    lines.append(Pair("  drawer", verdict))
            narrow.append(tuple(lines))
        blocks: list[Block] = [
            Table(
                ("Till", "Opened", "Float", "Closed", "Expected", "Counted", "Drawer"),
                tuple(rows),
                (0.11, 0.24, 0.1, 0.24, 0.1, 0.1, 0.11),
                right=(2, 4, 5),
                empty="No shift was open in the range.",
                narrow=tuple(narrow),
            )
        ]
        status: Status | None = None
        if any(s.over_short is not None for s in day.shifts):
            over_short = day.counted - day.expected
            status = Status.MATCHES if over_short == 0 else Status.MISMATCH
            summary = (
                f"Closed drawers together: expected {money(day.expected)}, counted {money(day.counted)}: "
                f"{drawer_verdict(over_short, money, loud=True)}."
            )
            blocks.append(Note(summary, Tone.BODY if over_short == 0 else Tone.WARNING))
        if day.open_shifts:
            blocks.append(Note(f"{counted(day.open_shifts, 'shift')} still open: not counted yet.", Tone.WARNING))
        people = self.people(
            SectionKey.STORE_PEOPLE,
            day.people,
            title="Sales per person, every till",
            none="No check was completed in the range.",
            note="Checks each person completed in the range on any till, through the service or paid in full in "
            f"cash, and the refunds each made. Cash: paid at the till. {DUE_AND_CHARGED}",
        )
        if day.unmatched:
            unmatched = Note(
                f"{counted(day.unmatched, 'completed check')} of the tills' logs could not be found in the "
                "service's listing: not in these figures.",
                Tone.WARNING,
            )
            people = Section(people.key, people.heading, (*people.blocks, unmatched), count=people.count)
        return [
            Section(SectionKey.STORE, "The store", (Pairs(tuple(facts)),)),
            Section(SectionKey.STORE_SHIFTS, "Shifts and drawers", tuple(blocks), count=len(day.shifts), status=status),
            people,
        ]

    # --- figures and their reconciliation -------------------------------------------------------------------

    def numbers(self, f: SummaryFigures) -> tuple[str, ...]:
        return tuple(str(f.count) if name == "count" else self.money(getattr(f, name)) for name, _ in FIGURE_NAMES)

    def figure_line(self, row: FigureRow, label: str, strong: bool) -> FigureLine:
        return FigureLine(
            label=label,
            values=self.numbers(row.shown),
            recomputed=self.numbers(row.recomputed),
            mismatched=row.mismatched,
            reported=row.reported is not None,
            strong=strong,
        )

    def figures(self) -> Section:
        r = self.report
        merged = r.scope.merge
        single = merged or (len(r.rows) == 1 and r.total is r.rows[0])
        lines = tuple(self.figure_line(row, terminal_label(row.terminal_id, merged), single) for row in r.rows)
        total = None if single else self.figure_line(r.total, "Total", True)
        figures = Figures(lines, total, "" if single or r.rows else "No completed transactions")
        note = Note(
            "Counted: complete transactions whose completion lies in the range (a refunded one leaves the "
            "figures). Payout = what was due + tips − fees. "
            f"{DUE_AND_CHARGED}",
            Tone.SMALL,
        )
        every = (*lines, *((total,) if total else ()))
        status = Status.MATCHES if all(line.matches for line in every) else Status.MISMATCH
        return Section(SectionKey.FIGURES, "Figures", (figures, note), status=status)

    def reconciliation(self) -> Section:
        r = self.report
        listed = len(r.counted)
        if r.reconciled:
            verdict = Verdict(
                Status.MATCHES,
                f"✓ Reconciled: the service's summary matches the {counted(listed, 'completed transaction')} "
                "listed for the range.",
            )
        else:
            sentences = r.differences(self.money) or [
                f"{row.terminal_id or 'Total'}: {', '.join(row.mismatched)} differ."
                for row in r.rows
                if not row.matches
            ]
            verdict = Verdict(
                Status.MISMATCH,
                "✗ Not reconciled (MISMATCH): the service's summary and the listed transactions disagree.",
                (
                    "The figures printed are the service's. Recomputed from the transactions listed "
                    f"({listed} completed in the range):",
                    *(f"• {sentence}" for sentence in sentences),
                ),
            )
        return Section(SectionKey.RECONCILIATION, "Reconciliation", (verdict,), status=verdict.status)

    # --- the lists ------------------------------------------------------------------------------------------

    def tx_list(self, key: SectionKey, heading: str, short: str, when: str) -> Section:
        rows = {
            SectionKey.OPEN_AUTHORIZED: self.report.open_authorized,
            SectionKey.REFUNDS: self.report.refunds,
            SectionKey.CANCELLATIONS: self.report.cancellations,
        }[key]
        if not self.listings:
            return Section(key, heading, (), count=len(rows), short=short)

        def amount(t: TxRow) -> str:
            return self.money(t.charged_amount if t.state is TxState.REFUNDED else t.charge_amount)

        body = tuple(
            (
                self.time(t.created if when == "created" else t.changed),
                t.terminal_id or "(none)",
                t.customer,
                amount(t),
                t.transaction_id,
            )
            for t in rows
        )
        narrow = tuple(
            (Pair(f"{moment}  {terminal_label(t.terminal_id)}", money, strong=True), Pair(customer), Pair(tx_id))
            for t, (moment, _, customer, money, tx_id) in zip(rows, body, strict=True)
        )
        # a refund gives back what was charged; an open or canceled charge has only what was due
        table = Table(
            (
                "Created" if when == "created" else "Changed",
                "Terminal",
                "Customer",
                "Refunded" if key is SectionKey.REFUNDS else "Due",
                "Transaction",
            ),
            body,
            (0.12, 0.13, 0.23, 0.14, 0.38),
            right=(3,),
            narrow=narrow,
        )
        return Section(key, heading, (table,), count=len(rows), short=short)

    def cash_sales(self) -> Section:
        r = self.report
        store = r.store is not None
        where = "at every till" if store else "on this terminal"
        blocks: list[Block] = []
        if r.cash_sales:
            blocks.append(
                Note(
                    f"Paid in full in cash, {self.money(r.cash_total)} in all; the service never saw them (it takes "
                    "no charge of zero), so they are not in its figures.",
                    Tone.SMALL,
                )
            )
        if not self.listings:
            return Section(
                SectionKey.CASH_SALES,
                f"Cash sales {where}",
                (),
                count=len(r.cash_sales),
                short=f"Cash sales {where}",
                amount=self.money(r.cash_total) if r.cash_sales else "",
            )
        head = ("Time", *(("Till",) if store else ()), "Customer", "Total", "Cash taken", "Change")
        widths = (0.13, 0.13, 0.26, 0.16, 0.16, 0.16) if store else (0.14, 0.38, 0.16, 0.16, 0.16)
        first = len(head) - 4
        rows = tuple(
            (
                self.time(c.at),
                *((c.terminal_id or "—",) if store else ()),
                c.customer or "—",
                self.money(c.total),
                self.money(c.paid),
                self.money(c.change),
            )
            for c in r.cash_sales
        )
        blocks.append(Table(head, rows, widths, right=(first + 1, first + 2, first + 3)))
        return Section(
            SectionKey.CASH_SALES,
            f"Cash sales {where}",
            tuple(blocks),
            count=len(r.cash_sales),
            short=f"Cash sales {where}",
            amount=self.money(r.cash_total) if r.cash_sales else "",
        )

    def transactions(self) -> Section:
        if not self.listings:
            return Section(SectionKey.TRANSACTIONS, "Transactions", (), count=len(self.report.transactions), wide=True)
        money = self.money
        rows = tuple(
            (
                self.time(
                    t.completed
                    if t.state in (TxState.COMPLETE, TxState.REFUNDED) and t.completed is not None
                    else t.created
                ),
                t.terminal_id or "(none)",
                t.customer,
                str(t.state),
                money(t.total),
                "—" if t.charged is None else money(t.charge_amount),
                "—" if t.charged is None else money(t.charged),
                money(t.tip_amount) if t.tip_amount else "",
                money(t.fee) if t.fee else "",
                t.transaction_id,
            )
            for t in self.report.transactions
        )
        table = Table(
            ("Time", "Terminal", "Customer", "State", "Total", "Due", "Charged", "Tip", "Fee", "Transaction"),
            rows,
            # a dated time ("11-22 13:05") needs the room of eleven characters; it was cut to "11-22…"
            (0.105, 0.07, 0.12, 0.075, 0.075, 0.075, 0.075, 0.055, 0.055, 0.295)
            if self.dated
            else (0.075, 0.08, 0.14, 0.075, 0.075, 0.075, 0.075, 0.055, 0.055, 0.295),
            right=(4, 5, 6, 7, 8),
            ids=(9,),
            empty="No transactions in the range.",
        )
        blocks: tuple[Block, ...] = (table,)
        if rows:
            note = Note(
                "Every transaction created, completed, refunded or canceled in the range, and any still authorized. "
                "Time: when it was completed (complete, refunded) or created (the others), in local time. "
                f"{DUE_AND_CHARGED}",
                Tone.SMALL,
            )
            blocks = (note, table)
        return Section(SectionKey.TRANSACTIONS, "Transactions", blocks, count=len(rows), wide=True)

    def audit(self) -> Section:
        r = self.report
        store = r.store is not None
        heading = f"Audit log of {'every till' if store else 'this terminal'}"
        if not self.listings:
            return Section(SectionKey.AUDIT, heading, (), count=len(r.audit), short="Audit entries")
        # each entry a sentence of who did what (pos_terminal.domain.audit_words), never its kept JSON
        rows = tuple((self.time(a.at), a.terminal_id or "", a.detail) for a in r.audit)
        narrow = tuple(
            (
                Pair(f"{self.time(a.at)}  {a.terminal_id}" if store and a.terminal_id else self.time(a.at)),
                Pair(a.detail),
            )
            for a in r.audit
        )
        table = Table(
            ("Time", "Terminal", "What happened"),
            rows,
            (0.11, 0.12, 0.77),
            wrap=(2,),
            empty="No entries in the range.",
            narrow=narrow,
        )
        return Section(SectionKey.AUDIT, heading, (table,), count=len(rows), short="Audit entries")
