"""Summary figures recomputed from listed transactions (contract section 5), and how they differ.

Over transactions whose ``completed`` lies in [start, end) and whose state is
``complete``: ``count``, ``total`` = Σ total, ``tips`` = Σ tipAmount,
``fees`` = Σ feeAmount, ``payout`` = Σ chargeAmount + tips − fees; one record per
terminal (``None`` for transactions without one), or one merged record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from pos_terminal.domain.lifecycle import TxState


@dataclass(frozen=True, slots=True)
class TxFacts:
    """What the summary needs of one transaction record (interface 2.7)."""

    terminal_id: str | None
    state: TxState
    completed: datetime | None
    total: int
    charge_amount: int
    tip_amount: int = 0
    fee_amount: int = 0


@dataclass(frozen=True, slots=True)
class SummaryFigures:
    """The figures of one summary record (interface 2.8), without its time range."""

    terminal_id: str | None
    count: int = 0
    total: int = 0
    fees: int = 0
    payout: int = 0
    tips: int = 0


FIGURES = ("count", "total", "fees", "payout", "tips")
_MONEY_FIGURES = frozenset({"total", "fees", "payout", "tips"})


def _counted(fact: TxFacts, start: datetime, end: datetime | None) -> bool:
    if fact.state is not TxState.COMPLETE or fact.completed is None:
        return False
    return start <= fact.completed and (end is None or fact.completed < end)


def _figures(terminal_id: str | None, facts: Sequence[TxFacts]) -> SummaryFigures:
    tips = sum(f.tip_amount for f in facts)
    fees = sum(f.fee_amount for f in facts)
    return SummaryFigures(
        terminal_id=terminal_id,
        count=len(facts),
        total=sum(f.total for f in facts),
        fees=fees,
        payout=sum(f.charge_amount for f in facts) + tips - fees,
        tips=tips,
    )


def recompute(
    facts: Iterable[TxFacts],
    start: datetime,
    end: datetime | None,
    merge: bool,
    *,
    terminal_id: str | None = None,
) -> list[SummaryFigures]:
    """The summary records the service should report for ``facts``.

    ``end`` ``None`` means no upper bound (the caller passes "now" when it has one). With
    ``terminal_id`` only that terminal's transactions count. Per terminal: one record for each
    terminal with at least one counted transaction, ``None`` first, then by id. Merged: exactly one
    record, labelled ``terminal_id`` (as the service labels it with its filter).
    """
    counted = [f for f in facts if _counted(f, start, end) and (terminal_id is None or f.terminal_id == terminal_id)]
    if merge:
        return [_figures(terminal_id, counted)]
    groups: dict[str | None, list[TxFacts]] = {}
    for fact in counted:
        groups.setdefault(fact.terminal_id, []).append(fact)
    order = sorted(groups, key=lambda t: (t is not None, t or ""))
    return [_figures(t, groups[t]) for t in order]


def _terminal(terminal_id: str | None) -> str:
    return f"terminal {terminal_id}" if terminal_id is not None else "transactions without a terminal"


def differences(
    reported: Iterable[SummaryFigures],
    recomputed: Iterable[SummaryFigures],
    *,
    money: Callable[[int], str] = str,
) -> list[str]:
    """One plain sentence per figure where the service's summary and the transactions disagree.

    Records are matched by terminal; ``money`` formats amounts (cents by default).
    """
    theirs = {r.terminal_id: r for r in reported}
    ours = {r.terminal_id: r for r in recomputed}
    sentences: list[str] = []
    for terminal_id in sorted(theirs.keys() | ours.keys(), key=lambda t: (t is not None, t or "")):
        mine = ours.get(terminal_id, SummaryFigures(terminal_id))
        reported_record = theirs.get(terminal_id)
        if reported_record is None:
            if mine.count:
                sentences.append(
                    f"The service reports nothing for {_terminal(terminal_id)}, "
                    f"but {mine.count} completed transaction(s) were listed."
                )
            continue
        for name in FIGURES:
            said: int = getattr(reported_record, name)
            found: int = getattr(mine, name)
            if said != found:
                show = money if name in _MONEY_FIGURES else str
                sentences.append(
                    f"For {_terminal(terminal_id)} the service reports {name} {show(said)}, "
                    f"but the listed transactions give {show(found)}."
                )
    return sentences
