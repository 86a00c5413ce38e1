"""The end-of-day report over a scripted day: its figures equal those computed here from the transaction list."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport, ReportScope, TimeRange
from pos_terminal.domain.summary import FIGURES
from pos_terminal.reports.end_of_day import render
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.reports import NoReceipt
from pos_terminal.services.terminal import desktop_user
from tests.reports.conftest import Day, expected_figures
from tests.sandbox.helpers import Shop

MONEY = MoneyFormat("en_AU", "AUD")


def as_dict(figures: Any) -> dict[str, int]:
    return {name: getattr(figures, name) for name in FIGURES}


async def report_of(open_terminal: Callable[..., Any], day: Day, scope: ReportScope) -> EndOfDayReport:
    terminal = await open_terminal(day.server, terminal_id="LANE-1")
    reports = terminal.reports(actor="manager")
    return await reports.end_of_day(TimeRange.custom(day.start, day.end), scope)


async def test_one_row_per_terminal_equals_the_transaction_list(day: Day, open_terminal: Callable[..., Any]) -> None:
    report = await report_of(open_terminal, day, ReportScope.all())
    expected = expected_figures(day.records(), day.start, day.end)
    assert set(expected) == {None, "LANE-1", "LANE-2"}
    assert [row.terminal_id for row in report.rows] == [None, "LANE-1", "LANE-2"]
    for row in report.rows:
        assert as_dict(row.reported) == expected[row.terminal_id], row.terminal_id
        assert as_dict(row.recomputed) == expected[row.terminal_id], row.terminal_id
    totals = {name: sum(f[name] for f in expected.values()) for name in ("count", "total", "tips", "fees", "payout")}
    assert as_dict(report.total.shown) == totals
    assert report.reconciled
    assert report.differences() == []
    # LANE-1: B1 (tip), B2 (discount), B8 (cash first); C counts for LANE-2 though created before the range.
    assert expected["LANE-1"]["count"] == 3
    assert expected["LANE-2"]["count"] == 2
    assert expected["LANE-1"]["tips"] == 300
    assert expected["LANE-2"]["tips"] == 150


async def test_merged_equals_the_transaction_list(day: Day, open_terminal: Callable[..., Any]) -> None:
    report = await report_of(open_terminal, day, ReportScope.merged())
    expected = expected_figures(day.records(), day.start, day.end, merge=True)
    assert len(report.rows) == 1
    assert as_dict(report.rows[0].reported) == expected[None]
    assert as_dict(report.total.recomputed) == expected[None]
    assert report.reconciled


@pytest.mark.parametrize("terminal_id", ["LANE-1", "LANE-2"])
async def test_one_terminal_equals_its_transactions(
    day: Day, open_terminal: Callable[..., Any], terminal_id: str
) -> None:
    report = await report_of(open_terminal, day, ReportScope.terminal(terminal_id))
    expected = expected_figures(day.records(), day.start, day.end, terminal_id)
    assert [row.terminal_id for row in report.rows] == [terminal_id]
    assert as_dict(report.total.shown) == expected[terminal_id]
    assert report.reconciled
    assert {t.terminal_id for t in report.transactions} == {terminal_id}


async def test_lists_open_refunded_and_canceled_transactions(day: Day, open_terminal: Callable[..., Any]) -> None:
    report = await report_of(open_terminal, day, ReportScope.all())
    ids = day.ids
    assert {t.transaction_id for t in report.open_authorized} == {ids["B9"]}
    assert {t.transaction_id for t in report.refunds} == {ids["B3"]}
    assert {t.transaction_id for t in report.cancellations} == {ids["B6"], ids["B7"]}
    shown = {t.transaction_id for t in report.transactions}
    assert {ids["C"], ids["D"], ids["B5"]} <= shown  # completed in range; created in range; no terminal id
    assert ids["A"] not in shown and ids["E"] not in shown
    counted = {t.transaction_id for t in report.counted}
    assert counted == {ids[k] for k in ("C", "B1", "B2", "B4", "B5", "B8")}
    assert report.as_json()["reconciled"] is True


async def test_the_audit_entries_of_the_period_are_on_the_report(
    sandbox: SandboxServer, open_terminal: Callable[..., Any]
) -> None:
    terminal = await open_terminal(sandbox, terminal_id="LANE-1")
    reports = terminal.reports(actor="manager")
    now = datetime.now(UTC)
    period = TimeRange.custom(now - timedelta(hours=1), now + timedelta(hours=1))
    first = await reports.end_of_day(period)
    reports.record_report(first, "printed", where="Office", layout="a4")
    second = await reports.end_of_day(period)
    actions = [(a.action, a.actor) for a in second.audit]
    assert ("sign-in", desktop_user()) in actions, "the terminal's own entries name the desktop's user"
    assert ("report printed", "manager") in actions
    printed = next(a for a in second.audit if a.action == "report printed")
    assert printed.detail.endswith(", on A4, on Office."), printed.detail


async def test_a_receipt_needs_a_completed_or_refunded_transaction(day: Day, open_terminal: Callable[..., Any]) -> None:
    terminal = await open_terminal(day.server, terminal_id="LANE-1")
    reports = terminal.reports()
    with pytest.raises(NoReceipt, match="authorized"):
        await reports.receipt(day.ids["B9"])
    receipt = await reports.receipt(day.ids["B1"])
    assert receipt.modifiers and receipt.loyalty_adjustment < 0  # the member's benefit
    assert receipt.charged_amount == receipt.charge_amount + receipt.loyalty_adjustment
    assert receipt.tip_amount == 300


async def test_a_skewed_summary_shows_the_mismatch_on_the_report_and_on_paper(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], pdf_text: Callable[[bytes], list[str]]
) -> None:
    """One transaction is moved, in the sandbox's own database, to have been created three days earlier.

    The summary (by completion) still counts it; the list of the range (by creation, with a 24 h look-back)
    no longer holds it, so the two disagree and the report must say so.
    """
    with Shop.open(sandbox) as shop:
        customer = shop.customer()
        start = shop.now()
        kept = shop.authorize(customer, 1000, refId="skew-1", terminalId="LANE-1")
        moved = shop.authorize(customer, 2500, refId="skew-2", terminalId="LANE-1")
        shop.set_state(kept, "complete")
        shop.set_state(moved, "complete")
        end = shop.now() + timedelta(seconds=1)
    with closing(sqlite3.connect(sandbox.sandbox.settings.db_path)) as conn, conn:
        conn.execute("UPDATE transactions SET created = created - ? WHERE transaction_id = ?", (3 * 86_400_000, moved))
    terminal = await open_terminal(sandbox, terminal_id="LANE-1")
    report = await terminal.reports().end_of_day(TimeRange.custom(start, end))
    row = report.rows[0]
    assert row.reported is not None and row.reported.count == 2
    assert row.recomputed.count == 1
    assert set(row.mismatched) >= {"count", "total", "payout"}
    assert not report.reconciled
    sentences = report.differences(MONEY.format)
    assert any("count 2" in s and "give 1" in s for s in sentences)
    assert any(MONEY.format(3500) in s and MONEY.format(1000) in s for s in sentences)
    assert report.as_json()["reconciled"] is False
    for layout in ("a4", "roll"):
        text = "\n".join(pdf_text(render(report, layout, money=MONEY)))
        assert "MISMATCH" in text, layout
        assert "transactions give" in text, layout
        flat = " ".join(text.split())
        assert "For terminal LANE-1 the service reports count 2" in flat, layout


def test_ranges_are_local_days_in_utc() -> None:
    from zoneinfo import ZoneInfo

    sydney = ZoneInfo("Australia/Sydney")
    now = datetime(2026, 11, 23, 3, 30, tzinfo=UTC)  # 14:30 in Sydney (AEDT, UTC+11)
    today = TimeRange.today(now, sydney)
    assert today.start == datetime(2026, 11, 22, 13, 0, tzinfo=UTC) and today.end == now
    yesterday = TimeRange.yesterday(now, sydney)
    assert yesterday.end == today.start and yesterday.start == datetime(2026, 11, 21, 13, 0, tzinfo=UTC)
    # The day daylight saving starts in Sydney (2026-10-04) has 23 hours.
    short = TimeRange.yesterday(datetime(2026, 10, 5, 1, 0, tzinfo=UTC), sydney)
    assert short.end - short.start == timedelta(hours=23)
    shift = TimeRange.shift(now - timedelta(hours=4), now)
    assert shift.end - shift.start == timedelta(hours=4)
    window = today.listing_window()
    assert window == (today.start - timedelta(hours=24), today.end)
