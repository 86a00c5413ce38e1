"""The end-of-day (or shift) report as PDF: A4 for the office, or an 80 mm roll for the receipt printer.

Both layouts carry the merchant and terminal, the service (region) with a SANDBOX
mark when it is not production, the range in local time, when it was made, the
figures per terminal and in total, the reconciliation (a mismatch in red, with
one sentence per difference), the open authorizations, refunds, cancellations
and the audit entries of the period. The A4 layout adds the table of
transactions; long tables continue on the next page under their header row.

An X or Z report (``report.shift``) opens with the shift: the cash drawer (float,
cash taken, cash given back, expected, counted, over or short, the count by
denomination), sales per person, refunds, cancellations and the manager's approvals.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import tzinfo

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, KeepTogether, Paragraph, Spacer, Table, TableStyle

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport, FigureRow, Layout, TxRow
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
from pos_terminal.reports import _layout as L  # noqa: N812 - a short name for the shared layout
from pos_terminal.reports import fonts

LAYOUTS: tuple[Layout, ...] = ("a4", "roll")

_A4_WIDTH = A4[0] - 2 * L.A4_MARGIN
_CHUNK = 200  # rows per table: a long table splits across pages fast when it is many short tables
_MONEY_NAMES = ("total", "tips", "fees", "payout")
_ID_SIZE = 6.0  # a whole UUID fits the A4 column at this size
_ROLL_VALUE = 24  # characters that fit beside a label on the roll


def render(report: EndOfDayReport, layout: Layout = "a4", *, money: MoneyFormat, tz: tzinfo | None = None) -> bytes:
    """PDF bytes of ``report``; times in ``tz`` (the system's local time when ``None``)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}")
    paper = _Paper(report, money, tz, layout)
    author = report.merchant or "pos-terminal"
    if layout == "a4":
        return L.build_a4(paper.a4_story(), paper.decorate, title=report.title, author=author, top=paper.top)
    return L.build_roll(paper.roll_story, paper.decorate, title=report.title, author=author, top=paper.top)


def _terminal(terminal_id: str | None, merged: bool = False) -> str:
    if merged:
        return "All terminals"
    return terminal_id if terminal_id is not None else "(no terminal id)"


class _Paper:
    """One rendering: the report, how to write money and time, and the layout's sizes."""

    def __init__(self, report: EndOfDayReport, money: MoneyFormat, tz: tzinfo | None, layout: Layout) -> None:
        self.report = report
        # the same amounts come back thousands of times in a day; Babel takes a while for each
        self.money = functools.lru_cache(maxsize=8192)(money.format)
        # names, terminals and labels come back on every page; the cache goes with the rendering
        self.fit = functools.lru_cache(maxsize=None)(fonts.fit)
        self.tz = tz
        self.layout = layout
        self.size = 9.0 if layout == "a4" else 8.0
        self.s = L.styles(self.size)
        self.top = (14 if layout == "a4" else 10) * mm
        self.width = _A4_WIDTH if layout == "a4" else L.ROLL_WIDTH - 2 * L.ROLL_MARGIN
        # Times of one day print as HH:MM; a range over several days adds the date.
        start, end = report.range.start, report.range.end
        days = {L.local(m, tz, "%Y-%m-%d") for m in (start, end)} | {
            L.local(t.created, tz, "%Y-%m-%d") for t in report.transactions if t.created
        }
        self.time_pattern = "%H:%M" if len(days) == 1 else "%m-%d %H:%M"

    # --- page decoration --------------------------------------------------------------------------------

    def decorate(self, canvas: Canvas, number: int, count: int) -> None:
        r = self.report
        width, height = canvas._pagesize
        margin = L.A4_MARGIN if self.layout == "a4" else L.ROLL_MARGIN
        canvas.saveState()
        if not r.production:
            L.sandbox_mark(canvas, width, height - 3 * mm, 10 if self.layout == "a4" else 8)
        if number > 1 or self.layout == "a4":
            head = f"{r.merchant + ' — ' if r.merchant else ''}{r.title}"
            canvas.setFillColor(L.GREY)
            room = width - 2 * margin - (30 * mm if not r.production else 0)
            L.draw_text(canvas, margin, height - 8 * mm, fonts.fit(head, fonts.REGULAR, 7.5, room), fonts.REGULAR, 7.5)
        left = f"{r.scope.label} · {self._range_text()} · made {L.local(r.generated_at, self.tz)}"
        L.footer(canvas, width, margin, left, number, count, 7 if self.layout == "a4" else 6)
        canvas.restoreState()

    def _range_text(self) -> str:
        r = self.report
        return f"{L.local(r.range.start, self.tz)} – {L.local(r.range.end, self.tz)}"

    # --- shared pieces ----------------------------------------------------------------------------------

    def _header(self) -> list[Flowable]:
        r = self.report
        story: list[Flowable] = L.logo(r.logo, self.width)
        story.append(L.para(r.title, self.s.title))
        if not r.production:
            story.append(self._box("SANDBOX — test data from the sandbox service, not real money", L.RED))
            story.append(Spacer(1, 2 * mm))
        zone = L.zone_name(r.range.start, self.tz)
        facts = [
            ("Merchant", r.merchant or "The signed-in merchant"),
            ("Report for", r.scope.label),
            ("Made on", f"Terminal {r.terminal_id}"),
            ("Service", f"{r.region}{'' if r.production or 'sandbox' in r.region.lower() else ' (sandbox)'}"),
            ("From", f"{L.local(r.range.start, self.tz)} ({zone})"),
            ("To", f"{L.local(r.range.end, self.tz)} (not included)"),
            ("Generated", f"{L.local(r.generated_at, self.tz, '%Y-%m-%d %H:%M:%S')}"),
        ]
        label_width = 22 * mm if self.layout == "a4" else 17 * mm
        rows = [
            [label, L.cell(value, self.s.cell, self.width - label_width - 4, fit=self.fit)] for label, value in facts
        ]
        table = Table(rows, colWidths=[label_width, self.width - label_width], hAlign="LEFT")
        table.setStyle(
            TableStyle(
                [
                    ("FONT", (0, 0), (-1, -1), fonts.REGULAR, self.size - 0.5),
                    ("FONT", (0, 0), (0, -1), fonts.BOLD, self.size - 0.5),
                    ("TEXTCOLOR", (0, 0), (0, -1), L.GREY),
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LEFTPADDING", (0, 0), (-1, -1), 0),
                    ("TOPPADDING", (0, 0), (-1, -1), 0.8),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 0.8),
                ]
            )
        )
        story.append(table)
        return story

    def _box(self, text: str, color: colors.Color) -> Table:
        box = Table([[L.para(text, self.s.banner)]], colWidths=[self.width])
        box.setStyle(
            TableStyle(
                [
                    ("BACKGROUND", (0, 0), (-1, -1), color),
                    ("TOPPADDING", (0, 0), (-1, -1), 3),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
                ]
            )
        )
        return box

    def _heading(self, text: str) -> Paragraph:
        return L.para(text, self.s.heading)

    def _reconciliation(self) -> list[Flowable]:
        r = self.report
        story: list[Flowable] = [self._heading("Reconciliation")]
        listed = len(r.counted)
        if r.reconciled:
            text = (
                f"✓ Reconciled: the service's summary matches the {counted(listed, 'completed transaction')} "
                "listed for the range."
            )
            story.append(self._note_box([L.para(text, self.s.body)], L.PALE_GREEN, L.GREEN))
            return story
        sentences = r.differences(self.money)
        inner: list[Flowable] = [
            L.para("✗ MISMATCH: the service's summary and the listed transactions disagree.", self._red_bold()),
            L.para(
                "The figures printed are the service's. Recomputed from the transactions listed "
                f"({listed} completed in the range):",
                self.s.body,
            ),
        ]
        inner += [L.para(f"• {sentence}", self.s.body) for sentence in sentences]
        story.append(self._note_box(inner, L.PALE_RED, L.RED))
        return story

    def _red_bold(self) -> ParagraphStyle:
        return ParagraphStyle("red", parent=self.s.body, fontName=fonts.BOLD, textColor=L.RED)

    def _note_box(self, inner: list[Flowable], background: colors.Color, border: colors.Color) -> Table:
        box = Table([[item] for item in inner], colWidths=[self.width])
        box.setStyle(
            TableStyle(
                [
                    ("BACKGROUND", (0, 0), (-1, -1), background),
                    ("BOX", (0, 0), (-1, -1), 1, border),
                    ("LEFTPADDING", (0, 0), (-1, -1), 6),
                    ("TOPPADDING", (0, 0), (-1, -1), 2),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
                    ("TOPPADDING", (0, 0), (-1, 0), 5),
                    ("BOTTOMPADDING", (0, -1), (-1, -1), 5),
                ]
            )
        )
        return box

    # --- A4 -----------------------------------------------------------------------------------------------

    def a4_story(self) -> list[Flowable]:
        r = self.report
        story = self._header()
        if r.shift is not None:
            story += self._shift_story(r.shift)
        if r.store is not None:
            story += self._store_story(r.store)
        story.append(self._heading("Figures"))
        story.append(self._figures_table())
        story.append(
            L.para(
                "Counted: complete transactions whose completion lies in the range (a refunded one leaves the "
                "figures). Payout = the charge amounts asked for + tips − fees; the Charged column below is what "
                "customers paid after loyalty benefits.",
                self.s.small,
            )
        )
        story += self._reconciliation()
        story += self._list_section("Authorized, never completed", r.open_authorized, "created")
        story += self._list_section("Refunds", r.refunds, "changed")
        story += self._list_section("Cancellations", r.cancellations, "changed")
        story += self._cash_sales(rows=True)
        story += self._transactions_a4()
        story += self._audit_a4()
        return story

    def _figures_table(self) -> Table:
        r = self.report
        head = ["Terminal", "Count", "Total", "Tips", "Fees", "Payout", "Check"]
        widths = [0.22, 0.09, 0.14, 0.12, 0.12, 0.15, 0.16]
        col = [w * self.width for w in widths]
        rows: list[list[object]] = [list(head)]
        style: list[tuple[object, ...]] = [
            ("FONT", (0, 0), (-1, -1), fonts.REGULAR, self.size),
            ("FONT", (0, 0), (-1, 0), fonts.BOLD, self.size),
            ("LINEBELOW", (0, 0), (-1, 0), 0.8, colors.black),
            ("ALIGN", (1, 0), (5, -1), "RIGHT"),
            ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ]
        merged = r.scope.merge

        def add(row: FigureRow, label: str, bold: bool) -> None:
            index = len(rows)
            shown = row.shown
            rows.append(
                [
                    L.cell(label, self.s.cell_bold if bold else self.s.cell, col[0] - 6, fit=self.fit),
                    *self._numbers(shown),
                    "✓ matches" if row.matches else "✗ MISMATCH",
                ]
            )
            if bold:
                style.append(("FONT", (0, index), (-1, index), fonts.BOLD, self.size))
            if row.matches:
                style.append(("TEXTCOLOR", (6, index), (6, index), L.GREEN))
                return
            style.append(("TEXTCOLOR", (6, index), (6, index), L.RED))
            style.append(("FONT", (6, index), (6, index), fonts.BOLD, self.size))
            for name in row.mismatched:
                column = 1 + ("count", *_MONEY_NAMES).index(name)
                style.append(("TEXTCOLOR", (column, index), (column, index), L.RED))
                style.append(("FONT", (column, index), (column, index), fonts.BOLD, self.size))
            rows.append(["   transactions give", *self._numbers(row.recomputed), ""])
            style.append(("TEXTCOLOR", (0, index + 1), (-1, index + 1), L.RED))
            style.append(("FONT", (0, index + 1), (-1, index + 1), fonts.REGULAR, self.size - 1))
            style.append(("BACKGROUND", (0, index), (-1, index + 1), L.PALE_RED))

        if merged or (len(r.rows) == 1 and r.total is r.rows[0]):
            for row in r.rows:
                add(row, _terminal(row.terminal_id, merged), True)
        else:
            for row in r.rows:
                add(row, _terminal(row.terminal_id), False)
            if not r.rows:
                rows.append(["No completed transactions", "", "", "", "", "", ""])
                style.append(("SPAN", (0, 1), (-1, 1)))
            style.append(("LINEABOVE", (0, len(rows)), (-1, len(rows)), 0.8, colors.black))
            add(r.total, "Total", True)
        table = Table(rows, colWidths=col, repeatRows=1, hAlign="LEFT")
        table.setStyle(TableStyle(style))
        return table

    def _fit(self, text: str, available: float) -> str:
        return self.fit(text, fonts.REGULAR, self.size - 2, available)

    def _numbers(self, f: SummaryFigures) -> list[object]:
        return [str(f.count), *(self.money(getattr(f, name)) for name in _MONEY_NAMES)]

    def _list_section(self, title: str, rows: Sequence[TxRow], when: str) -> list[Flowable]:
        heading = self._heading(f"{title} ({len(rows)})")
        if not rows:
            return [KeepTogether([heading, L.para("None.", self.s.small)])]
        widths = [0.12, 0.13, 0.23, 0.14, 0.38]
        col = [w * self.width for w in widths]
        label = "Created" if when == "created" else "Changed"
        body: list[list[str]] = [[label, "Terminal", "Customer", "Amount", "Transaction"]]
        for t in rows:
            moment = t.created if when == "created" else t.changed
            body.append(
                [
                    L.local(moment, self.tz, self.time_pattern),
                    self._fit(t.terminal_id or "(none)", col[1] - 6),
                    self._fit(t.customer, col[2] - 6),
                    self.money(t.charged_amount if t.state.value == "refunded" else t.charge_amount),
                    self._fit(t.transaction_id, col[4] - 6),
                ]
            )
        return [heading, *self._tables(body, col, right=(3,))]

    def _tables(
        self,
        body: list[list[str]],
        col: list[float],
        *,
        right: Sequence[int],
        sizes: dict[int, float] | None = None,
    ) -> list[Flowable]:
        """``body`` (header first) as one table that goes on over pages under its header row."""
        return [L.RowTable(body[0], body[1:], col, right=right, size=self.size - 2, sizes=sizes)]

    def _cash_sales(self, *, rows: bool) -> list[Flowable]:
        """Checks paid in full in cash on this terminal: never sent to the service, so not in its figures."""
        r = self.report
        where = "at every till" if r.store is not None else "on this terminal"
        heading = self._heading(f"Cash sales {where} ({len(r.cash_sales)})")
        if not r.cash_sales:
            none = L.para("None.", self.s.small)
            return [KeepTogether([heading, none])] if rows else [heading, none]
        note = L.para(
            f"Paid in full in cash, {self.money(r.cash_total)} in all; the service never saw them (it takes no "
            "charge of zero), so they are not in its figures.",
            self.s.small,
        )
        if not rows:
            return [heading, note]
        if r.store is None:
            col = [w * self.width for w in (0.14, 0.38, 0.16, 0.16, 0.16)]
            body = [["Time", "Customer", "Total", "Cash taken", "Change"]]
        else:
            col = [w * self.width for w in (0.13, 0.13, 0.26, 0.16, 0.16, 0.16)]
            body = [["Time", "Till", "Customer", "Total", "Cash taken", "Change"]]
        first = len(body[0]) - 4
        for c in r.cash_sales:
            till = [] if r.store is None else [self._fit(c.terminal_id or "—", col[1] - 6)]
            body.append(
                [
                    L.local(c.at, self.tz, self.time_pattern),
                    *till,
                    self._fit(c.customer or "—", col[first] - 6),
                    self.money(c.total),
                    self.money(c.paid),
                    self.money(c.change),
                ]
            )
        return [heading, note, *self._tables(body, col, right=(first + 1, first + 2, first + 3))]

    def _transactions_a4(self) -> list[Flowable]:
        r = self.report
        rows = r.transactions
        heading = self._heading(f"Transactions ({len(rows)})")
        if not rows:
            return [KeepTogether([heading, L.para("No transactions in the range.", self.s.small)])]
        widths = [0.075, 0.09, 0.17, 0.08, 0.085, 0.085, 0.065, 0.065]
        col = [w * self.width for w in widths]
        col.append(self.width - sum(col))
        body: list[list[str]] = [
            ["Time", "Terminal", "Customer", "State", "Total", "Charged", "Tip", "Fee", "Transaction"]
        ]
        pattern = self.time_pattern
        money = self.money
        id_room = col[8] - 6
        for t in rows:
            finished = t.state in (TxState.COMPLETE, TxState.REFUNDED) and t.completed is not None
            body.append(
                [
                    L.local(t.completed if finished else t.created, self.tz, pattern),
                    self._fit(t.terminal_id or "(none)", col[1] - 6),
                    self._fit(t.customer, col[2] - 6),
                    str(t.state),
                    money(t.total),
                    "—" if t.charged is None else money(t.charged),
                    money(t.tip_amount) if t.tip_amount else "",
                    money(t.fee) if t.fee else "",
                    fonts.fit(t.transaction_id, fonts.REGULAR, _ID_SIZE, id_room),
                ]
            )
        note = L.para(
            "Every transaction created, completed, refunded or canceled in the range, and any still authorized. "
            "Time: when it was completed (complete, refunded) or created (the others), in local time.",
            self.s.small,
        )
        tables = self._tables(body, col, right=(4, 5, 6, 7), sizes={8: _ID_SIZE})
        return [heading, note, Spacer(1, 1 * mm), *tables]

    def _audit_a4(self) -> list[Flowable]:
        entries = self.report.audit
        whose = "every till" if self.report.store is not None else "this terminal"
        heading = self._heading(f"Audit log of {whose} ({len(entries)})")
        if not entries:
            return [KeepTogether([heading, L.para("No entries in the range.", self.s.small)])]
        widths = [0.11, 0.17, 0.14, 0.12]
        col = [w * self.width for w in widths]
        col.append(self.width - sum(col))
        body: list[list[str]] = [["Time", "Action", "Who", "Terminal", "Detail"]]
        for a in entries:
            body.append(
                [
                    L.local(a.at, self.tz, self.time_pattern),
                    self._fit(a.action, col[1] - 6),
                    self._fit(a.actor or "", col[2] - 6),
                    self._fit(a.terminal_id or "", col[3] - 6),
                    self._fit(a.detail, col[4] - 6),
                ]
            )
        return [heading, *self._tables(body, col, right=())]

    # --- 80 mm roll ------------------------------------------------------------------------------------------

    def roll_story(self) -> list[Flowable]:
        r = self.report
        story = self._header()
        if r.shift is not None:
            story += self._shift_story(r.shift)
        if r.store is not None:
            story += self._store_story(r.store)
        story.append(self._heading("Figures"))
        merged = r.scope.merge
        single = merged or (len(r.rows) == 1 and r.total is r.rows[0])
        for row in r.rows:
            story.append(self._roll_figures(row, _terminal(row.terminal_id, merged), bold=single))
            story.append(Spacer(1, 2 * mm))
        if not single:
            if not r.rows:
                story.append(L.para("No completed transactions.", self.s.small))
            story.append(self._roll_figures(r.total, "TOTAL", bold=True))
        story += self._reconciliation()
        story += self._roll_list("Authorized, never completed", r.open_authorized, "created")
        story += self._roll_list("Refunds", r.refunds, "changed")
        story += self._roll_list("Cancellations", r.cancellations, "changed")
        story += self._cash_sales(rows=False)
        story.append(self._heading(f"Audit log ({len(r.audit)})"))
        if not r.audit:
            story.append(L.para("No entries in the range.", self.s.small))
        for a in r.audit:
            who = f" ({a.actor})" if a.actor else ""
            till = f"{a.terminal_id}  " if r.store is not None and a.terminal_id else ""
            story.append(L.para(f"{L.local(a.at, self.tz, self.time_pattern)}  {till}{a.action}{who}", self.s.cell))
        return story

    def _roll_figures(self, row: FigureRow, label: str, *, bold: bool) -> Table:
        shown = row.shown
        check = "✓" if row.matches else "✗ MISMATCH"
        lines: list[list[object]] = [[L.cell(label, self.s.cell_bold, self.width * 0.6, fit=self.fit), check]]
        style: list[tuple[object, ...]] = [
            ("FONT", (0, 0), (-1, -1), fonts.REGULAR, self.size),
            ("FONT", (0, 0), (-1, 0), fonts.BOLD, self.size),
            ("ALIGN", (1, 0), (1, -1), "RIGHT"),
            ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
            ("LEFTPADDING", (0, 0), (-1, -1), 0),
            ("RIGHTPADDING", (0, 0), (-1, -1), 0),
            ("TOPPADDING", (0, 0), (-1, -1), 0.6),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 0.6),
            ("TEXTCOLOR", (1, 0), (1, 0), L.GREEN if row.matches else L.RED),
        ]
        for name in ("count", *_MONEY_NAMES):
            said = getattr(shown, name)
            text = str(said) if name == "count" else self.money(said)
            lines.append([name.capitalize(), text])
            if name in row.mismatched:
                found = getattr(row.recomputed, name)
                index = len(lines) - 1
                style.append(("TEXTCOLOR", (0, index), (-1, index), L.RED))
                style.append(("FONT", (0, index), (-1, index), fonts.BOLD, self.size))
                lines.append(["  transactions give", str(found) if name == "count" else self.money(found)])
                style.append(("TEXTCOLOR", (0, index + 1), (-1, index + 1), L.RED))
        if bold:
            style.append(("FONT", (0, 1), (-1, -1), fonts.BOLD, self.size))
        table = Table(lines, colWidths=[self.width * 0.6, self.width * 0.4])
        table.setStyle(TableStyle(style))
        return table

    def _roll_list(self, title: str, rows: Sequence[TxRow], when: str) -> list[Flowable]:
        story: list[Flowable] = [self._heading(f"{title} ({len(rows)})")]
        if not rows:
            story.append(L.para("None.", self.s.small))
            return story
        for t in rows:
            moment = t.created if when == "created" else t.changed
            amount = self.money(t.charged_amount if t.state.value == "refunded" else t.charge_amount)
            lines = [
                [f"{L.local(moment, self.tz, self.time_pattern)}  {_terminal(t.terminal_id)}", amount],
                [L.cell(t.customer, self.s.cell, self.width - 4, fit=self.fit), ""],
                [L.cell(t.transaction_id, self.s.cell, self.width - 4), ""],
            ]
            table = Table(lines, colWidths=[self.width * 0.65, self.width * 0.35])
            table.setStyle(
                TableStyle(
                    [
                        ("FONT", (0, 0), (-1, -1), fonts.REGULAR, self.size - 1),
                        ("FONT", (0, 0), (-1, 0), fonts.BOLD, self.size - 1),
                        ("TEXTCOLOR", (0, 2), (-1, 2), L.GREY),
                        ("ALIGN", (1, 0), (1, 0), "RIGHT"),
                        ("LEFTPADDING", (0, 0), (-1, -1), 0),
                        ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                        ("TOPPADDING", (0, 0), (-1, -1), 0.3),
                        ("BOTTOMPADDING", (0, 0), (-1, -1), 0.3),
                        ("LINEBELOW", (0, -1), (-1, -1), 0.3, L.RULE),
                    ]
                )
            )
            story.append(table)
        return story

    # --- the shift (X and Z reports) -------------------------------------------------------------------------

    def _shift_story(self, section: ShiftSection) -> list[Flowable]:
        """The shift's part (:mod:`pos_terminal.domain.shift` words it, for every layout and the slip alike)."""
        money = self.money
        story: list[Flowable] = [self._heading(f"Shift {section.shift.id}")]
        story.append(
            self._pairs(shift_times(section, lambda at: L.local(at, self.tz, "%Y-%m-%d %H:%M")), label_share=0.25)
        )
        story.append(self._heading("Cash drawer"))
        story.append(self._pairs(drawer_lines(section, money), label_share=0.6, amounts=True))
        over_short = section.over_short
        if over_short is not None:
            if over_short == 0:
                story.append(self._note_box([L.para("✓ The drawer is right.", self.s.body)], L.PALE_GREEN, L.GREEN))
            else:
                verdict = drawer_verdict(over_short, money, loud=True)
                story.append(self._note_box([L.para(f"✗ {verdict}", self._red_bold())], L.PALE_RED, L.RED))
        if pieces := drawer_pieces(section, money):
            story.append(L.para("Counted by denomination", self.s.small))
            story.append(self._pairs(pieces, label_share=0.6, amounts=True, size=self.size - 1))
        story.append(L.para(EXPECTED_NOTE, self.s.small))
        story += self._people(section)
        story += self._shift_changes(section)
        story += [L.para(note, self._red_bold() if loud else self.s.body) for note, loud in shift_notes(section)]
        return story

    def _together(self, flowables: list[Flowable]) -> list[Flowable]:
        """Kept on one page on A4; the roll has no page to keep them on (and cannot measure a KeepTogether)."""
        return [KeepTogether(flowables)] if self.layout == "a4" else flowables

    def _pairs(
        self, lines: Sequence[tuple[str, str]], *, label_share: float, amounts: bool = False, size: float | None = None
    ) -> Table:
        size = size or self.size
        width = self.width if self.layout == "roll" or not amounts else min(self.width, 110 * mm)
        col = [width * label_share, width * (1 - label_share)]
        rows = [
            [
                L.cell(label, self.s.cell, col[0] - 4, fit=self.fit),
                value if amounts else L.cell(value, self.s.cell, col[1] - 4, fit=self.fit),
            ]
            for label, value in lines
        ]
        table = Table(rows, colWidths=col, hAlign="LEFT")
        style: list[tuple[object, ...]] = [
            ("FONT", (0, 0), (-1, -1), fonts.REGULAR, size),
            ("LEFTPADDING", (0, 0), (-1, -1), 0),
            ("TOPPADDING", (0, 0), (-1, -1), 0.8),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 0.8),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ]
        if amounts:
            style.append(("ALIGN", (1, 0), (1, -1), "RIGHT"))
            for index, (label, _) in enumerate(lines):
                if label.startswith("=") or label == "Counted":
                    style.append(("FONT", (0, index), (-1, index), fonts.BOLD, size))
                if label.startswith("="):
                    style.append(("LINEABOVE", (0, index), (-1, index), 0.6, colors.black))
        table.setStyle(TableStyle(style))
        return table

    def _people(self, section: ShiftSection) -> list[Flowable]:
        return self._people_table(
            section.people,
            title="Sales per person",
            none="No check was completed in the shift.",
            note="Checks each person charged that were completed in the shift (a refunded one included), and the "
            "refunds each made. Charged: what went to the service, after cash.",
        )

    def _people_table(self, people: Sequence[PersonSales], *, title: str, none: str, note: str) -> list[Flowable]:
        heading = self._heading(f"{title} ({len(people)})")
        if not people:
            return self._together([heading, L.para(none, self.s.small)])
        money = self.money
        if self.layout == "roll":
            story: list[Flowable] = [heading]
            for p in people:
                story.append(self._pairs(person_lines(p, money), label_share=0.55, amounts=True, size=self.size - 1))
            return story
        widths = [0.28, 0.09, 0.15, 0.15, 0.15, 0.18]
        col = [w * self.width for w in widths]
        body = [["Person", "Checks", "Total", "Cash", "Charged", "Refunds"]]
        for p in people:
            refunds = f"{p.refunds} · {money(p.refunded)}" if p.refunds else ""
            body.append(
                [
                    self._fit(p.person, col[0] - 6),
                    str(p.checks),
                    money(p.total),
                    money(p.cash),
                    money(p.charged),
                    refunds,
                ]
            )
        return [heading, *self._tables(body, col, right=(1, 2, 3, 4, 5)), L.para(note, self.s.small)]

    # --- the store's day -------------------------------------------------------------------------------------

    def _store_story(self, day: StoreDay) -> list[Flowable]:
        money = self.money
        pattern = self.time_pattern  # the range is a day: the times of the day are enough
        story: list[Flowable] = [self._heading("The store")]
        facts = [("Store", day.name or "(no name set)")]
        if day.address:
            facts.append(("Address", day.address))
        facts.append(("Tills", ", ".join(day.tills) or "none yet"))
        story.append(self._pairs(facts, label_share=0.25))
        heading = self._heading(f"Shifts and drawers ({len(day.shifts)})")
        if not day.shifts:
            story += self._together([heading, L.para("No shift was open in the range.", self.s.small)])
        elif self.layout == "roll":
            story.append(heading)
            for shift in day.shifts:
                lines = [
                    (f"Till {shift.terminal_id}", ""),
                    ("  opened", f"{L.local(shift.opened_at, self.tz, self.time_pattern)} {shift.opened_by}"),
                    ("  float", money(shift.opening_float)),
                ]
                if shift.closed_at is None:
                    lines.append(("  closed", "still open"))
                else:
                    lines.append(
                        ("  closed", f"{L.local(shift.closed_at, self.tz, self.time_pattern)} {shift.closed_by}")
                    )
                    lines += [("  expected", money(shift.expected or 0)), ("  counted", money(shift.counted or 0))]
                    if shift.over_short is not None:
                        lines.append(("  drawer", drawer_verdict(shift.over_short, money)))
                story.append(self._pairs(lines, label_share=0.4, size=self.size - 1))
                story.append(Spacer(1, 1.5 * mm))
        else:
            widths = [0.11, 0.24, 0.1, 0.24, 0.1, 0.1, 0.11]
            col = [w * self.width for w in widths]
            body = [["Till", "Opened", "Float", "Closed", "Expected", "Counted", "Drawer"]]
            for shift in day.shifts:
                ended = "still open"
                if shift.closed_at is not None:
                    ended = f"{L.local(shift.closed_at, self.tz, pattern)} {shift.closed_by}"
                body.append(
                    [
                        self._fit(shift.terminal_id, col[0] - 6),
                        self._fit(
                            f"{L.local(shift.opened_at, self.tz, self.time_pattern)} {shift.opened_by}", col[1] - 6
                        ),
                        money(shift.opening_float),
                        self._fit(ended, col[3] - 6),
                        "" if shift.expected is None else money(shift.expected),
                        "" if shift.counted is None else money(shift.counted),
                        "" if shift.over_short is None else drawer_verdict(shift.over_short, money),
                    ]
                )
            story += [heading, *self._tables(body, col, right=(2, 4, 5))]
        if any(s.over_short is not None for s in day.shifts):
            over_short = day.counted - day.expected
            summary = (
                f"Closed drawers together: expected {money(day.expected)}, counted {money(day.counted)}: "
                f"{drawer_verdict(over_short, money, loud=True)}."
            )
            story.append(L.para(summary, self.s.body if over_short == 0 else self._red_bold()))
        if day.open_shifts:
            story.append(L.para(f"{counted(day.open_shifts, 'shift')} still open: not counted yet.", self._red_bold()))
        story += self._people_table(
            day.people,
            title="Sales per person, every till",
            none="No check was completed in the range.",
            note="Checks each person completed in the range on any till, through the service or paid in full in "
            "cash, and the refunds each made. Cash: paid at the till (a check's total less what the service "
            "charged). Charged: what went to the service.",
        )
        if day.unmatched:
            story.append(
                L.para(
                    f"{counted(day.unmatched, 'completed check')} of the tills' logs could not be found in the "
                    "service's listing: not in these figures.",
                    self._red_bold(),
                )
            )
        return story

    def _shift_changes(self, section: ShiftSection) -> list[Flowable]:
        pattern = self.time_pattern
        story: list[Flowable] = []
        tables = change_tables(section, self.money, lambda at: L.local(at, self.tz, pattern))
        layouts = {  # each list's column widths on A4, and which columns are amounts
            "Refunds made in the shift": ([0.09, 0.37, 0.14, 0.14, 0.13, 0.13], (4, 5)),
            "Cancellations sent from this terminal": ([0.09, 0.45, 0.23, 0.23], ()),
            "Manager approvals": ([0.09, 0.25, 0.16, 0.16, 0.34], ()),
        }
        sections = [(t.title, list(t.head), [list(row) for row in t.rows], *layouts[t.title]) for t in tables]
        for title, head, rows, widths, right in sections:
            heading = self._heading(f"{title} ({len(rows)})")
            if not rows:
                story += self._together([heading, L.para("None.", self.s.small)])
                continue
            if self.layout == "roll":
                story.append(heading)
                for row in rows:
                    lines = [(name, value) for name, value in zip(head, row, strict=True) if value]
                    short = [(name, value) for name, value in lines if len(value) <= _ROLL_VALUE]
                    story.append(self._pairs(short, label_share=0.32, size=self.size - 1))
                    # a transaction id does not fit beside its label: it gets the roll's whole width
                    story += [
                        L.para(f"{name}: {value}", self.s.small) for name, value in lines if len(value) > _ROLL_VALUE
                    ]
                    story.append(Spacer(1, 1.5 * mm))
                continue
            col = [w * self.width for w in widths]
            fitted = [[self._fit(value, col[i] - 6) for i, value in enumerate(row)] for row in rows]
            story += [heading, *self._tables([head, *fitted], col, right=right)]
        return story
