"""A report with every section filled in: a Z report's shift, the store's day, mismatched figures, open, refunded
and canceled transactions, cash sales and audit entries (built here, with no service, to check every renderer)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.report import (
    AuditRow,
    CashSaleRow,
    EndOfDayReport,
    ReportScope,
    TimeRange,
    TxRow,
    build_report,
)
from pos_terminal.domain.shift import (
    ApprovalRow,
    CancelRow,
    CompletedCheck,
    DrawerCount,
    RefundRow,
    Shift,
    ShiftReportKind,
    ShiftSection,
    expected_cash,
    sales_per_person,
)
from pos_terminal.domain.store_day import StoreDay, TillShift
from pos_terminal.domain.summary import SummaryFigures

START = datetime(2026, 11, 23, 21, 0, tzinfo=UTC)
END = START + timedelta(hours=9)


def at(minutes: int) -> datetime:
    return START + timedelta(minutes=minutes)


def tx(key: str, state: TxState, minutes: int, customer: str, amount: int, *, tip: int = 0) -> TxRow:
    finished = at(minutes + 1) if state in (TxState.COMPLETE, TxState.REFUNDED) else None
    return TxRow(
        transaction_id=f"{key}-0000-4000-8000-000000000000",
        state=state,
        terminal_id="LANE-1",
        created=at(minutes),
        completed=finished,
        updated=at(minutes + 2),
        customer=customer,
        total=amount,
        charge_amount=amount,
        charged_amount=amount,
        tip_amount=tip,
        fee_amount=amount * 15 // 1000 if finished else 0,
    )


def full_report() -> EndOfDayReport:
    """Every section populated; the service's count is one short, so the figures disagree."""
    listed = [
        tx("00000001", TxState.COMPLETE, 10, "Zoë Ångström", 1_250, tip=200),
        tx("00000002", TxState.COMPLETE, 40, "Liam O'Connor", 2_000),
        tx("00000003", TxState.REFUNDED, 70, "雷 李", 900),
        tx("00000004", TxState.CANCELED, 100, "Ava Nguyen", 450),
        tx("00000005", TxState.AUTHORIZED, 130, "Noah Patel", 3_300),
    ]
    period = TimeRange.custom(START, END)
    reported = SummaryFigures("LANE-1", count=1, total=1_250, tips=200, fees=18, payout=1_432)
    report = build_report(
        terminal_id="LANE-1",
        scope=ReportScope.terminal("LANE-1"),
        region="Embedded sandbox",
        production=False,
        period=period,
        generated_at=END,
        reported=[reported],
        listed=listed,
        audit=[
            AuditRow(at(11), "complete", "Ana Cashier", "LANE-1", "00000001"),
            AuditRow(at(75), "refund", "Ana Cashier", "LANE-1", "approved by Maria Manager"),
        ],
        merchant="Harbour Café",
        cash_sales=[CashSaleRow(at(50), "LANE-1", "Walk-in", 700, 1_000, 300)],
    )
    sales = (
        CompletedCheck("R-1", listed[0].transaction_id, "Ana Cashier", at(11), 1_250, 0, 1_250, 1_250),
        CompletedCheck("R-2", None, "Ben Barista", at(50), 700, 700, 0, 0),
    )
    refunds = (RefundRow(listed[2].transaction_id, "Ana Cashier", "Maria Manager", at(75), 900, 200),)
    shift = Shift(
        id=7,
        terminal_id="LANE-1",
        opened_at=START,
        opened_by="Maria Manager",
        opening_float=10_000,
        closed_at=END,
        closed_by="Maria Manager",
        count=DrawerCount(10_150, ((5_000, 2), (100, 1), (50, 1))),
        expected_cash=10_500,
    )
    section = ShiftSection(
        shift=shift,
        kind=ShiftReportKind.Z,
        until=END,
        drawer=expected_cash(10_000, sales, refunds),
        sales=sales,
        people=sales_per_person(sales, refunds),
        refunds=refunds,
        cancellations=(CancelRow(listed[3].transaction_id, "Ben Barista", "Maria Manager", at(101)),),
        approvals=(ApprovalRow(at(75), "refund", "Ana Cashier", "Maria Manager", listed[2].transaction_id),),
        no_sales=1,
        pending_changes=1,
    )
    store = StoreDay(
        name="Harbour Café",
        address="1 Quay St",
        tills=("LANE-1", "LANE-2"),
        shifts=(
            TillShift("LANE-1", START, "Maria Manager", 10_000, END, "Maria Manager", 10_150, 10_500),
            TillShift("LANE-2", at(30), "Ben Barista", 5_000),
        ),
        people=sales_per_person(sales, refunds),
        unmatched=1,
    )
    return replace(report, shift=section, store=store)
