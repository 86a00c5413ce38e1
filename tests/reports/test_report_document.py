"""Every renderer shows every section of the one report model: the text, the receipt printer's slip, both PDFs.

The report of :func:`tests.reports.full_report.full_report` fills every section in. For each renderer the test
looks for each section's heading and its key rows (every pair, the first two cells of every table row, every
figure, verdict and note) in what the renderer made; a renderer that skipped a section, or a part of one, fails.
Spaces, dashes and check marks are set aside: each renderer lays words out its own way (the printer has no
minus sign, the PDF wraps lines), and the words are what must be there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import TimeRange
from pos_terminal.domain.report_document import (
    Figures,
    Note,
    Pair,
    Pairs,
    ReportDocument,
    Section,
    SectionKey,
    Table,
    Verdict,
    report_document,
)
from pos_terminal.domain.report_text import render_text
from pos_terminal.domain.slip import report_slip
from pos_terminal.reports.end_of_day import render
from tests.helpers.reports import long_report
from tests.reports.full_report import full_report

MONEY = MoneyFormat("en_AU", "AUD")
SYDNEY = ZoneInfo("Australia/Sydney")
_SET_ASIDE = {"\u2212": "-", "\u2014": "-", "\u2013": "-", "\u2022": "-", "\u2713": "", "\u2717": ""}


def squash(text: str) -> str:
    for drawn, plain in _SET_ASIDE.items():
        text = text.replace(drawn, plain)
    return "".join(text.split())


def key_words(section: Section) -> Iterator[str]:
    """The words a renderer must show of ``section``."""
    if section.heading:
        yield section.title
    for block in section.blocks:
        if isinstance(block, Pairs):
            for pair in block.rows:
                yield from pair_words(pair)
        elif isinstance(block, Table):
            for row in block.rows:
                yield from row[:2]
        elif isinstance(block, Figures):
            for line in (*block.lines, *((block.total,) if block.total else ())):
                yield line.label
                yield from line.values
                yield from (value for name, value in zip(line.mismatched, line.recomputed, strict=False))
        elif isinstance(block, Verdict):
            yield block.headline
            yield from block.lines
        else:
            assert isinstance(block, Note)
            yield block.text


def missing(document: ReportDocument, shown: str, *, wide: bool) -> list[tuple[str, str]]:
    """What ``shown`` lacks of the header and of the sections a page of that width carries, with whose it is."""
    found = squash(shown)
    words = [("header", document.title), *(("header", part) for pair in document.facts for part in pair_words(pair))]
    if document.sandbox:
        words.append(("header", document.sandbox))
    for section in document.sections_on(wide=wide):
        words += [(str(section.key), word) for word in key_words(section)]
    return [(whose, word) for whose, word in words if squash(word) not in found]


def pair_words(pair: Pair) -> tuple[str, str]:
    return pair.label, pair.value


@pytest.fixture(scope="module")
def document() -> ReportDocument:
    return report_document(full_report(), MONEY.format, SYDNEY)


def test_the_full_report_fills_every_section_in(document: ReportDocument) -> None:
    assert {section.key for section in document.sections} == set(SectionKey)
    for section in document.sections:
        tables = [block for block in section.blocks if isinstance(block, Table)]
        assert all(table.rows for table in tables), section.key
    narrow = {section.key for section in document.sections_on(wide=False)}
    assert set(SectionKey) - narrow == {SectionKey.TRANSACTIONS}, "only the table of every transaction needs A4"


def test_the_text_shows_every_section(document: ReportDocument) -> None:
    assert missing(document, "\n".join(render_text(document)), wide=False) == []


def test_the_receipt_printers_slip_shows_every_section(document: ReportDocument) -> None:
    """The slip once lacked the drawer the PDF had; now it cannot lack any section."""
    slip = report_slip(full_report(), MONEY.format, SYDNEY)
    assert missing(document, slip.text, wide=False) == []


@pytest.mark.parametrize("layout", ["a4", "roll"])
def test_both_pdfs_show_every_section(
    document: ReportDocument, layout: str, pdf_text: Callable[[bytes], list[str]]
) -> None:
    data = render(full_report(), "a4" if layout == "a4" else "roll", money=MONEY, tz=SYDNEY)
    assert missing(document, " ".join(pdf_text(data)), wide=layout == "a4") == []


def test_a_skipped_section_is_missed(document: ReportDocument) -> None:
    """The check itself: text without the drawer's section is found wanting."""
    lines = render_text(document)
    start = lines.index("Cash drawer")
    end = lines.index(next(s.title for s in document.sections if s.key is SectionKey.PEOPLE))
    shown = "\n".join(lines[:start] + lines[end:])
    assert (str(SectionKey.DRAWER), "Cash drawer") in missing(document, shown, wide=False)


def test_the_screens_document_counts_the_lists_without_their_rows(document: ReportDocument) -> None:
    """The screen shows the figures, the drawer and the reconciliation, and a line of the lists' counts; the rows of
    the lists are the PDF's, so the screen's document has them counted but not written out."""
    screen = report_document(full_report(), MONEY.format, SYDNEY, listings=False)
    listed = {SectionKey.OPEN_AUTHORIZED, SectionKey.REFUNDS, SectionKey.CANCELLATIONS, SectionKey.CASH_SALES}
    listed |= {SectionKey.TRANSACTIONS, SectionKey.AUDIT}
    assert [s.key for s in screen.sections] == [s.key for s in document.sections]
    for whole, shown in zip(document.sections, screen.sections, strict=True):
        assert (shown.heading, shown.count, shown.short, shown.amount, shown.status, shown.title) == (
            whole.heading,
            whole.count,
            whole.short,
            whole.amount,
            whole.status,
            whole.title,
        )
        if whole.key in listed:
            assert whole.count, f"the full report lists {whole.key}"
            assert shown.blocks == (), f"{whole.key} is written out on the screen"
        else:
            assert shown.blocks == whole.blocks
    assert (screen.title, screen.facts, screen.scope, screen.period) == (
        document.title,
        document.facts,
        document.scope,
        document.period,
    )


def test_a_day_from_midnight_to_midnight_prints_times_without_the_date() -> None:
    midnight = datetime(2026, 11, 22, tzinfo=UTC)
    one_day = replace(long_report(3), range=TimeRange.custom(midnight, midnight + timedelta(days=1)))
    two_days = replace(one_day, range=TimeRange.custom(midnight, midnight + timedelta(days=1, minutes=1)))
    times = [row[0] for row in _transactions(report_document(one_day, MONEY.format, ZoneInfo("UTC")))]
    assert times == ["13:00", "13:00", "13:00"], "the end is not in the range: one day"
    times = [row[0] for row in _transactions(report_document(two_days, MONEY.format, ZoneInfo("UTC")))]
    assert times == ["11-22 13:00"] * 3


def _transactions(document: ReportDocument) -> tuple[tuple[str, ...], ...]:
    section = next(s for s in document.sections if s.key is SectionKey.TRANSACTIONS)
    return next(block for block in section.blocks if isinstance(block, Table)).rows
