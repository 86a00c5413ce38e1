"""An end-of-day report over 10,000 transactions rendered to an A4 PDF; target under 2 s.

Run for real with ``pytest tests/bench/test_bench_report.py --benchmark-enable``; by default it runs once.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from pypdf import PdfReader

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport
from pos_terminal.reports.end_of_day import render
from tests.helpers.reports import COUNT, busy_day_report


@pytest.fixture(scope="module")
def big_report() -> EndOfDayReport:
    return busy_day_report()


def test_render_a4_report_of_10000_transactions(benchmark: Any, big_report: EndOfDayReport) -> None:
    money = MoneyFormat("en_AU", "AUD")
    data = benchmark(render, big_report, "a4", money=money)
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) > 100
    assert f"Page {len(reader.pages)} of {len(reader.pages)}" in (reader.pages[-1].extract_text() or "")
    assert len(big_report.transactions) == COUNT
