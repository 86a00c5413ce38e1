"""An end-of-day report over 10,000 transactions rendered to an A4 PDF, against reportlab's own floor in the
same run: the same 10,000 rows as plain strings, one text object per A4 page with a header, on a bare canvas.

The report does more than the floor (its figures, the reconciliation, each section's own table, money formatted
for the locale, "Page n of m"), so the target is a ratio, not parity.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport, ReportScope, TimeRange, TxRow, build_report
from pos_terminal.domain.summary import SummaryFigures
from pos_terminal.reports.end_of_day import render
from tests.bench.conftest import Bench

COUNT = 10_000
PER_PAGE = 66
TARGET = 1.5
CI_BOUND = 4.0
STATES = (TxState.COMPLETE,) * 16 + (TxState.CANCELED, TxState.REFUNDED, TxState.AUTHORIZED)
NAMES = ("Ava Nguyen", "Zoë Ångström", "雷 李", "Liam O'Connor", "Sofía Hernández", "Noah Smith")


@pytest.fixture(scope="module")
def big_report() -> EndOfDayReport:
    """A busy day at eight terminals: varied amounts, tips, fees, every state, names beyond ASCII."""
    start = datetime(2026, 11, 22, 13, 0, tzinfo=UTC)
    rows = []
    for n in range(COUNT):
        created = start + timedelta(seconds=8 * n)
        state = STATES[n % len(STATES)]
        amount = 350 + (n * 7919) % 12_000
        done = state in (TxState.COMPLETE, TxState.REFUNDED)
        rows.append(
            TxRow(
                transaction_id=f"{n:08x}-9c1e-4b7d-8a2f-{(n * 2654435761) % 16**12:012x}",
                state=state,
                terminal_id=f"LANE-{n % 8 + 1}" if n % 97 else None,
                created=created,
                completed=created + timedelta(seconds=30) if done else None,
                updated=created + timedelta(seconds=30),
                customer=NAMES[n % len(NAMES)],
                total=amount,
                charge_amount=amount,
                charged_amount=amount - (amount // 20 if n % 3 == 0 else 0),
                tip_amount=(n % 5) * 50,
                fee_amount=amount * 15 // 1000,
            )
        )
    period = TimeRange.custom(start, start + timedelta(hours=24))
    reported = [
        SummaryFigures(f"LANE-{k}", count=1, total=100) for k in range(1, 9)
    ]  # deliberately wrong: the mismatch section is drawn too
    return build_report(
        terminal_id="LANE-1",
        scope=ReportScope.all(),
        region="Embedded sandbox",
        production=False,
        period=period,
        generated_at=period.end,
        reported=reported,
        listed=rows,
        merchant="Harbour Café",
    )


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
