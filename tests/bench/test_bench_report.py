"""An end-of-day report over 10,000 transactions rendered to an A4 PDF; target under 2 s.

Run for real with ``pytest tests/bench/test_bench_report.py --benchmark-enable``; by default it runs once.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pypdf import PdfReader

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport, ReportScope, TimeRange, TxRow, build_report
from pos_terminal.domain.summary import SummaryFigures
from pos_terminal.reports.end_of_day import render

COUNT = 10_000
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


def test_render_a4_report_of_10000_transactions(benchmark: Any, big_report: EndOfDayReport) -> None:
    money = MoneyFormat("en_AU", "AUD")
    data = benchmark(render, big_report, "a4", money=money)
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) > 100
    assert f"Page {len(reader.pages)} of {len(reader.pages)}" in (reader.pages[-1].extract_text() or "")
    assert len(big_report.transactions) == COUNT
