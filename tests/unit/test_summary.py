"""Summary figures recomputed from transactions (contract section 5) and the differences named."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.summary import SummaryFigures, TxFacts, differences, recompute

START = datetime(2026, 11, 22, 9, tzinfo=UTC)
END = START + timedelta(hours=8)


def fact(terminal: str | None, state: TxState = TxState.COMPLETE, minutes: int = 10, **figures: int) -> TxFacts:
    values = {"total": 1000, "charge_amount": 800, "tip_amount": 0, "fee_amount": 20, **figures}
    return TxFacts(terminal_id=terminal, state=state, completed=START + timedelta(minutes=minutes), **values)


FACTS = [
    fact("LANE-2", total=500, charge_amount=500, tip_amount=50, fee_amount=10),
    fact("LANE-1"),
    fact("LANE-1", total=2000, charge_amount=1500, tip_amount=100, fee_amount=30),
    fact(None, total=300, charge_amount=300, fee_amount=5),
    fact("LANE-1", state=TxState.REFUNDED),  # refunded later: leaves the summary
    fact("LANE-1", state=TxState.AUTHORIZED),
    fact("LANE-1", state=TxState.CANCELED),
    fact("LANE-1", minutes=-1),  # before the range
    fact("LANE-1", minutes=8 * 60),  # end is exclusive
    TxFacts("LANE-1", TxState.COMPLETE, None, 1000, 1000, 0, 0),
]


def test_per_terminal() -> None:
    assert recompute(FACTS, START, END, merge=False) == [
        SummaryFigures(None, count=1, total=300, fees=5, payout=295, tips=0),
        SummaryFigures("LANE-1", count=2, total=3000, fees=50, payout=2300 + 100 - 50, tips=100),
        SummaryFigures("LANE-2", count=1, total=500, fees=10, payout=540, tips=50),
    ]


def test_start_is_inclusive() -> None:
    assert recompute([fact("A", minutes=0)], START, END, merge=False)[0].count == 1


def test_no_end_means_no_upper_bound() -> None:
    assert sum(r.count for r in recompute(FACTS, START, None, merge=False)) == 5


def test_merged() -> None:
    assert recompute(FACTS, START, END, merge=True) == [
        SummaryFigures(None, count=4, total=3800, fees=65, payout=3100 + 150 - 65, tips=150)
    ]


def test_merged_with_nothing_is_one_empty_record() -> None:
    assert recompute([], START, END, merge=True) == [SummaryFigures(None)]
    assert recompute([], START, END, merge=False) == []


def test_terminal_filter() -> None:
    assert recompute(FACTS, START, END, merge=True, terminal_id="LANE-2") == [
        SummaryFigures("LANE-2", count=1, total=500, fees=10, payout=540, tips=50)
    ]


def test_no_differences_when_they_agree() -> None:
    figures = recompute(FACTS, START, END, merge=False)
    assert differences(figures, list(reversed(figures))) == []


def test_differences_name_terminal_and_figure() -> None:
    ours = recompute(FACTS, START, END, merge=False)
    theirs = [
        SummaryFigures(None, count=1, total=300, fees=5, payout=295, tips=0),
        SummaryFigures("LANE-1", count=3, total=3000, fees=50, payout=2350, tips=100),
    ]
    found = differences(theirs, ours, money=lambda cents: f"{cents} c")
    assert found == [
        "For terminal LANE-1 the service reports count 3, but the listed transactions give 2.",
        "The service reports nothing for terminal LANE-2, but 1 completed transaction(s) were listed.",
    ]


def test_money_figures_are_formatted() -> None:
    found = differences([SummaryFigures(None, count=1, total=301)], [SummaryFigures(None, count=1, total=300)])
    assert found == [
        "For transactions without a terminal the service reports total 301, but the listed transactions give 300."
    ]


def test_reported_record_without_transactions() -> None:
    found = differences([SummaryFigures("X", count=1, total=5, payout=5)], [])
    assert [s for s in found if "terminal X" in s and "count 1" in s]
