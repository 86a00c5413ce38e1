"""An end-of-day report over 10,000 transactions rendered to an A4 PDF, against reportlab's own floor in the
same run: the same 10,000 rows as plain strings, one text object per A4 page with a header, on a bare canvas.

The report does more than the floor (its figures, the reconciliation, each section's own table, money formatted
for the locale, "Page n of m"), so the target is a ratio, not parity.
"""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport
from pos_terminal.reports.end_of_day import render
from tests.bench.conftest import Bench
from tests.helpers.reports import COUNT, busy_day_report

PER_PAGE = 66
TARGET = 1.5
CI_BOUND = 4.0


@pytest.fixture(scope="module")
def big_report() -> EndOfDayReport:
    return busy_day_report()


def _floor(report: EndOfDayReport) -> bytes:
    """reportlab's least: the transactions' columns as strings drawn straight on A4 pages, a header on each."""
    header = ("Transaction", "State", "Terminal", "Created", "Customer", "Total", "Charged")
    rows = [
        (
            t.transaction_id[:8],
            t.state.value,
            t.terminal_id or "",
            t.created.strftime("%H:%M:%S"),
            t.customer or "",
            str(t.total),
            str(t.charged or ""),
        )
        for t in report.transactions
    ]
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=A4)
    for page in range(0, len(rows), PER_PAGE):
        text = canvas.beginText()
        text.setFont("Helvetica", 8)
        for n, row in enumerate((header, *rows[page : page + PER_PAGE])):
            y = A4[1] - 40 - 11 * n
            for x, cell in zip(range(40, 560, 75), row, strict=False):
                text.setTextOrigin(x, y)
                text.textOut(cell)
        canvas.drawText(text)
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def test_render_a4_report_of_10000_transactions(bench: Bench, big_report: EndOfDayReport) -> None:
    money = MoneyFormat("en_AU", "AUD")
    pdfs: list[bytes] = []
    rounds = bench.rounds(measuring=5, smoke=1)
    report_ms, floor_ms = bench.interleaved(
        lambda: pdfs.append(render(big_report, "a4", money=money)),
        lambda: _floor(big_report),
        rounds=rounds,
        warm=0,
    )
    bench.hold(
        "A4 report, 10,000 transactions",
        measured=("reports.end_of_day.render", report_ms),
        baseline=("reportlab canvas, strings only", floor_ms),
        target=TARGET,
        ci_bound=CI_BOUND,
        rounds=rounds,
    )
    reader = PdfReader(io.BytesIO(pdfs[-1]))
    assert len(reader.pages) > 100
    assert f"Page {len(reader.pages)} of {len(reader.pages)}" in (reader.pages[-1].extract_text() or "")
    assert len(big_report.transactions) == COUNT
