"""The end-of-day (or shift) report as PDF: A4 for the office, or an 80 mm roll for the receipt printer.

A thin renderer of :class:`~pos_terminal.domain.report_document.ReportDocument`, which decides what a report
says (the header's facts, an X or Z report's shift and drawer, the store's day, the figures and their
reconciliation, the lists): this module only lays it out. A section's tables are tables on A4, where long ones
continue on the next page under their header row, and label and value pairs on the roll; a check that does not
match is red. The table of every transaction needs the A4 page's width and is not on the roll.
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

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport, Layout
from pos_terminal.domain.report_document import (
    FIGURE_NAMES,
    Block,
    FigureLine,
    Figures,
    Note,
    Pair,
    Pairs,
    ReportDocument,
    Section,
    Status,
    Tone,
    Verdict,
    report_document,
)
from pos_terminal.domain.report_document import Table as Columns
from pos_terminal.reports import fonts
from pos_terminal.reports import pages as L  # noqa: N812 - a short name for the shared layout

LAYOUTS: tuple[Layout, ...] = ("a4", "roll")

_A4_WIDTH = A4[0] - 2 * L.A4_MARGIN
_ID_SIZE = 6.0  # a whole UUID fits the A4 column at this size
_ROLL_VALUE = 24  # characters that fit beside a label on the roll


def render(report: EndOfDayReport, layout: Layout = "a4", *, money: MoneyFormat, tz: tzinfo | None = None) -> bytes:
    """PDF bytes of ``report``; times in ``tz`` (the system's local time when ``None``)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}")
    # the same amounts come back thousands of times in a day; Babel takes a while for each
    document = report_document(report, functools.lru_cache(maxsize=8192)(money.format), tz)
    paper = _Paper(document, layout)
    author = report.merchant or "pos-terminal"
    if layout == "a4":
        return L.build_a4(paper.story(), paper.decorate, title=report.title, author=author, top=paper.top)
    return L.build_roll(paper.story, paper.decorate, title=report.title, author=author, top=paper.top)


class _Paper:
    """One rendering: the document and the layout's sizes."""

    def __init__(self, document: ReportDocument, layout: Layout) -> None:
        self.document = document
        # names, terminals and labels come back on every page; the cache goes with the rendering
        self.fit = functools.lru_cache(maxsize=None)(fonts.fit)
        self.layout = layout
        self.wide = layout == "a4"
        self.size = 9.0 if self.wide else 8.0
        self.s = L.styles(self.size)
        self.top = (14 if self.wide else 10) * mm
        self.width = _A4_WIDTH if self.wide else L.ROLL_WIDTH - 2 * L.ROLL_MARGIN

    # --- page decoration --------------------------------------------------------------------------------

    def decorate(self, canvas: Canvas, number: int, count: int) -> None:
        d = self.document
        width, height = canvas._pagesize
        margin = L.A4_MARGIN if self.wide else L.ROLL_MARGIN
        canvas.saveState()
        if d.sandbox:
            L.sandbox_mark(canvas, width, height - 3 * mm, 10 if self.wide else 8)
        if number > 1 or self.wide:
            head = f"{d.merchant + ' — ' if d.merchant else ''}{d.title}"
            canvas.setFillColor(L.GREY)
            room = width - 2 * margin - (30 * mm if d.sandbox else 0)
            L.draw_text(canvas, margin, height - 8 * mm, fonts.fit(head, fonts.REGULAR, 7.5, room), fonts.REGULAR, 7.5)
        left = f"{d.scope} · {d.period} · made {d.made}"
        L.footer(canvas, width, margin, left, number, count, 7 if self.wide else 6)
        canvas.restoreState()

    # --- the story ----------------------------------------------------------------------------------------

    def story(self) -> list[Flowable]:
        story = self._header()
        for section in self.document.sections_on(wide=self.wide):
            story += self._section(section)
        return story

    def _header(self) -> list[Flowable]:
        d = self.document
        story: list[Flowable] = L.logo(d.logo, self.width)
        story.append(L.para(d.title, self.s.title))
        if d.sandbox:
            story.append(self._box(d.sandbox, L.RED))
            story.append(Spacer(1, 2 * mm))
        label_width = 22 * mm if self.wide else 17 * mm
        rows = [
            [pair.label, L.cell(pair.value, self.s.cell, self.width - label_width - 4, fit=self.fit)]
            for pair in d.facts
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

    def _section(self, section: Section) -> list[Flowable]:
        flowables: list[Flowable] = [L.para(section.title, self.s.heading)] if section.heading else []
        for block in section.blocks:
            flowables += self._block(block)
        long = any(isinstance(b, Columns) and b.rows for b in section.blocks)
        # a short section stays on one page on A4; the roll has no page to keep it on (nor measures a KeepTogether)
        return [KeepTogether(flowables)] if self.wide and not long else flowables

    def _block(self, block: Block) -> list[Flowable]:
        if isinstance(block, Pairs):
            return [self._pairs(block.rows, amounts=block.amounts, size=self.size - 1 if block.small else None)]
        if isinstance(block, Columns):
            if not block.rows:
                return [L.para(block.empty, self.s.small)]
            return self._table(block) if self.wide else self._narrow(block)
        if isinstance(block, Figures):
            return self._figures(block)
        if isinstance(block, Verdict):
            return [self._verdict(block)]
        return [self._note(block)]

    # --- the blocks ---------------------------------------------------------------------------------------

    def _note(self, note: Note) -> Paragraph:
        style = {Tone.BODY: self.s.body, Tone.SMALL: self.s.small, Tone.WARNING: self._red_bold()}[note.tone]
        return L.para(note.text, style)

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

    def _red_bold(self) -> ParagraphStyle:
        return ParagraphStyle("red", parent=self.s.body, fontName=fonts.BOLD, textColor=L.RED)

    def _verdict(self, verdict: Verdict) -> Table:
        """A boxed verdict: green when it matches, red (its headline bold) when not."""
        matches = verdict.status is Status.MATCHES
        inner = [L.para(verdict.headline, self.s.body if matches else self._red_bold())]
        inner += [L.para(line, self.s.body) for line in verdict.lines]
        box = Table([[item] for item in inner], colWidths=[self.width])
        box.setStyle(
            TableStyle(
                [
                    ("BACKGROUND", (0, 0), (-1, -1), L.PALE_GREEN if matches else L.PALE_RED),
                    ("BOX", (0, 0), (-1, -1), 1, L.GREEN if matches else L.RED),
                    ("LEFTPADDING", (0, 0), (-1, -1), 6),
                    ("TOPPADDING", (0, 0), (-1, -1), 2),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
                    ("TOPPADDING", (0, 0), (-1, 0), 5),
                    ("BOTTOMPADDING", (0, -1), (-1, -1), 5),
                ]
            )
        )
        return box

    def _pairs(
        self,
        pairs: Sequence[Pair],
        *,
        amounts: bool = False,
        size: float | None = None,
        label_share: float | None = None,
    ) -> Table:
        size = size or self.size
        share = label_share or (0.6 if amounts else 0.25)
        width = self.width if not self.wide or not amounts else min(self.width, 110 * mm)
        col = [width * share, width * (1 - share)]
        rows = [
            [
                L.cell(pair.label, self.s.cell, col[0] - 4, fit=self.fit),
                pair.value if amounts else L.cell(pair.value, self.s.cell, col[1] - 4, fit=self.fit),
            ]
            for pair in pairs
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
        for index, pair in enumerate(pairs):
            if pair.strong:
                style.append(("FONT", (0, index), (-1, index), fonts.BOLD, size))
            if pair.sum:
                style.append(("LINEABOVE", (0, index), (-1, index), 0.6, colors.black))
        table.setStyle(TableStyle(style))
        return table

    def _table(self, table: Columns) -> list[Flowable]:
        """A table on A4: one that goes on over pages under its header row, each cell cut to its column."""
        col = [share * self.width for share in table.widths]
        small = self.size - 2
        fitted: list[list[str]] = []
        for row in table.rows:
            fitted.append(
                [
                    value
                    if i in table.right
                    else fonts.fit(value, fonts.REGULAR, _ID_SIZE, col[i] - 6)
                    if i in table.ids
                    else self._lines(value, small, col[i])[0]
                    if i in table.wrap
                    else self._cut(value, small, col[i])
                    for i, value in enumerate(row)
                ]
            )
            for i in table.wrap:  # a sentence goes on in the rows under it, never cut
                for line in self._lines(row[i], small, col[i])[1:]:
                    fitted.append([line if j == i else "" for j in range(len(row))])
        sizes = dict.fromkeys(table.ids, _ID_SIZE)
        return [L.RowTable(table.head, fitted, col, right=table.right, size=small, sizes=sizes)]

    def _lines(self, value: str, size: float, column: float) -> list[str]:
        """``value`` in lines that each fit ``column``, broken between words (a word too long for it is cut)."""
        lines: list[str] = []
        line = ""
        for word in value.split(" "):
            longer = f"{line} {word}" if line else word
            if line and self.fit(longer, fonts.REGULAR, size, column - 6) != longer:
                lines.append(line)
                line = word
            else:
                line = longer
        return [self._cut(line, size, column) for line in (*lines, line)]

    def _cut(self, value: str, size: float, column: float) -> str:
        """``value`` cut to its column; a short word that only reaches into the padding (a state) is left whole."""
        whole = self.fit(value, fonts.REGULAR, size, column - 1)
        return whole if whole == value else self.fit(value, fonts.REGULAR, size, column - 6)

    def _narrow(self, table: Columns) -> list[Flowable]:
        """A table on the roll: each row a small table of label and value pairs, a label without a value (a
        transaction id) across the roll's width, and a rule under it."""
        size = self.size - 1
        col = [self.width * 0.5, self.width * 0.5]
        story: list[Flowable] = []
        for row in table.narrow_rows(_ROLL_VALUE):
            cells: list[list[object]] = []
            style: list[tuple[object, ...]] = [
                ("FONT", (0, 0), (-1, -1), fonts.REGULAR, size),
                ("ALIGN", (1, 0), (1, -1), "RIGHT"),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (-1, -1), 0),
                ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                ("TOPPADDING", (0, 0), (-1, -1), 0.3),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 0.3),
                ("BOTTOMPADDING", (0, -1), (-1, -1), 2),
                ("LINEBELOW", (0, -1), (-1, -1), 0.3, L.RULE),
            ]
            for index, pair in enumerate(row):
                if pair.value:
                    cells.append([L.cell(pair.label, self.s.cell, col[0] - 4, fit=self.fit), pair.value])
                else:
                    text = pair.label.strip()
                    whole = self.fit(text, fonts.REGULAR, size, self.width) == text and fonts.covered(text)
                    cells.append([text if whole else L.para(text, self.s.cell), ""])  # as the lines beside it
                    style.append(("SPAN", (0, index), (1, index)))
                if pair.strong:
                    style.append(("FONT", (0, index), (-1, index), fonts.BOLD, size))
            flowable = Table(cells, colWidths=col)
            flowable.setStyle(TableStyle(style))
            story.append(flowable)
        return story

    # --- the figures --------------------------------------------------------------------------------------

    def _figures(self, figures: Figures) -> list[Flowable]:
        if self.wide:
            return [self._figures_table(figures)]
        story: list[Flowable] = []
        for line in figures.lines:
            story += [self._roll_figures(line), Spacer(1, 2 * mm)]
        if figures.empty:
            story.append(L.para(f"{figures.empty}.", self.s.small))
        if figures.total is not None:
            story.append(self._roll_figures(figures.total, label="TOTAL"))
        return story

    def _figures_table(self, figures: Figures) -> Table:
        head = ["Terminal", *figures.names, "Check"]
        widths = [0.22, 0.09, 0.14, 0.12, 0.12, 0.15, 0.16]
        col = [w * self.width for w in widths]
        rows: list[list[object]] = [list(head)]
        check = len(head) - 1
        style: list[tuple[object, ...]] = [
            ("FONT", (0, 0), (-1, -1), fonts.REGULAR, self.size),
            ("FONT", (0, 0), (-1, 0), fonts.BOLD, self.size),
            ("LINEBELOW", (0, 0), (-1, 0), 0.8, colors.black),
            ("ALIGN", (1, 0), (check - 1, -1), "RIGHT"),
            ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ]

        def add(line: FigureLine) -> None:
            index = len(rows)
            label = L.cell(line.label, self.s.cell_bold if line.strong else self.s.cell, col[0] - 6, fit=self.fit)
            rows.append([label, *line.values, line.check])
            if line.strong:
                style.append(("FONT", (0, index), (-1, index), fonts.BOLD, self.size))
            if line.matches:
                style.append(("TEXTCOLOR", (check, index), (check, index), L.GREEN))
                return
            style.append(("TEXTCOLOR", (check, index), (check, index), L.RED))
            style.append(("FONT", (check, index), (check, index), fonts.BOLD, self.size))
            for column, (name, _) in enumerate(FIGURE_NAMES, start=1):
                if name in line.mismatched:
                    style.append(("TEXTCOLOR", (column, index), (column, index), L.RED))
                    style.append(("FONT", (column, index), (column, index), fonts.BOLD, self.size))
            rows.append(["   transactions give", *line.recomputed, ""])
            style.append(("TEXTCOLOR", (0, index + 1), (-1, index + 1), L.RED))
            style.append(("FONT", (0, index + 1), (-1, index + 1), fonts.REGULAR, self.size - 1))
            style.append(("BACKGROUND", (0, index), (-1, index + 1), L.PALE_RED))

        for line in figures.lines:
            add(line)
        if figures.empty:
            rows.append([figures.empty, *[""] * (len(head) - 1)])
            style.append(("SPAN", (0, len(rows) - 1), (-1, len(rows) - 1)))
        if figures.total is not None:
            style.append(("LINEABOVE", (0, len(rows)), (-1, len(rows)), 0.8, colors.black))
            add(figures.total)
        table = Table(rows, colWidths=col, repeatRows=1, hAlign="LEFT")
        table.setStyle(TableStyle(style))
        return table

    def _roll_figures(self, line: FigureLine, label: str | None = None) -> Table:
        cells: list[list[object]] = [
            [
                L.cell(label or line.label, self.s.cell_bold, self.width * 0.6, fit=self.fit),
                "✓" if line.matches else line.check,
            ]
        ]
        style: list[tuple[object, ...]] = [
            ("FONT", (0, 0), (-1, -1), fonts.REGULAR, self.size),
            ("FONT", (0, 0), (-1, 0), fonts.BOLD, self.size),
            ("ALIGN", (1, 0), (1, -1), "RIGHT"),
            ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
            ("LEFTPADDING", (0, 0), (-1, -1), 0),
            ("RIGHTPADDING", (0, 0), (-1, -1), 0),
            ("TOPPADDING", (0, 0), (-1, -1), 0.6),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 0.6),
            ("TEXTCOLOR", (1, 0), (1, 0), L.GREEN if line.matches else L.RED),
        ]
        for (name, title), value, found in zip(FIGURE_NAMES, line.values, line.recomputed, strict=True):
            cells.append([title, value])
            if name in line.mismatched:
                index = len(cells) - 1
                style.append(("TEXTCOLOR", (0, index), (-1, index), L.RED))
                style.append(("FONT", (0, index), (-1, index), fonts.BOLD, self.size))
                cells.append(["  transactions give", found])
                style.append(("TEXTCOLOR", (0, index + 1), (-1, index + 1), L.RED))
        if line.strong:
            style.append(("FONT", (0, 1), (-1, -1), fonts.BOLD, self.size))
        table = Table(cells, colWidths=[self.width * 0.6, self.width * 0.4])
        table.setStyle(TableStyle(style))
        return table
