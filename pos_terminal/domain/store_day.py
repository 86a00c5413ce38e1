"""The store's day: every till's shifts and drawers, the cash sales, and sales per person across the tills.

Pure: the records come from the store database (each till's shifts, cash sales and audit log) and the service's
transactions (:class:`~pos_terminal.domain.report.TxRow`); amounts are int cents, times UTC. Sales per person
count, for each person, the checks they completed through the service in the range (their ``complete`` in a till's
audit log, the transaction completed in the range by the service's record) and the cash sales they took, and the
refunds they made; what was paid at the till on a charged check is its total less what was due to the service
(``chargeAmount``, before the member's benefit); what the service charged is ``chargedAmount``, after it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.shift import CompletedCheck, PersonSales, RefundRow, sales_per_person


@dataclass(frozen=True, slots=True)
class TillShift:
    """One shift of one till, with its drawer when it was closed."""

    terminal_id: str
    opened_at: datetime
    opened_by: str
    opening_float: int
    closed_at: datetime | None = None
    closed_by: str | None = None
    counted: int | None = None
    expected: int | None = None

    @property
    def over_short(self) -> int | None:
        """Counted minus expected: positive over, negative short; None while open."""
        return None if self.counted is None or self.expected is None else self.counted - self.expected


@dataclass(frozen=True, slots=True)
class StoreDay:
    """The store's part of its end-of-day report."""

    name: str | None
    address: str | None
    tills: tuple[str, ...]
    shifts: tuple[TillShift, ...]
    people: tuple[PersonSales, ...]
    unmatched: int = 0  # completes in a till's audit log whose transaction the service's listing did not show
    currency: str | None = None  # the store's one currency, which every amount of its day is counted in

    @property
    def expected(self) -> int:
        """What the closed drawers of the day should have held, together."""
        return sum(s.expected or 0 for s in self.shifts if s.counted is not None)

    @property
    def counted(self) -> int:
        return sum(s.counted or 0 for s in self.shifts if s.counted is not None)

    @property
    def open_shifts(self) -> int:
        return sum(1 for s in self.shifts if s.closed_at is None)

    def as_json(self) -> dict[str, Any]:
        def when(moment: datetime | None) -> str | None:
            return None if moment is None else moment.isoformat().replace("+00:00", "Z")

        return {
            "name": self.name,
            "address": self.address,
            "tills": list(self.tills),
            "shifts": [
                {
                    "terminalId": s.terminal_id,
                    "openedAt": when(s.opened_at),
                    "openedBy": s.opened_by,
                    "openingFloat": s.opening_float,
                    "closedAt": when(s.closed_at),
                    "closedBy": s.closed_by,
                    "counted": s.counted,
                    "expected": s.expected,
                    "overShort": s.over_short,
                }
                for s in self.shifts
            ],
            "people": [
                {
                    "person": p.person,
                    "checks": p.checks,
                    "total": p.total,
                    "paidAtTill": p.cash,
                    "chargeAmount": p.due,
                    "chargedAmount": p.charged,
                    "refunds": p.refunds,
                    "refunded": p.refunded,
                }
                for p in self.people
            ],
            "unmatched": self.unmatched,
            "currency": self.currency,
        }


def store_day(
    *,
    info: Mapping[str, Any] | None,
    tills: Iterable[str],
    shifts: Iterable[TillShift],
    cash_sales: Iterable[Mapping[str, Any]],
    audit: Iterable[Mapping[str, Any]],
    transactions: Iterable[Any],
    start: datetime,
    end: datetime,
) -> StoreDay:
    """The store's day from the store database's records and the service's transactions (``TxRow``)."""
    till_ids = set(tills)
    charged_by: dict[str, str | None] = {}  # refId → who charged it
    completed_by: dict[str, str | None] = {}  # transactionId → who completed it
    refunds: list[RefundRow] = []
    by_id = {t.transaction_id: t for t in transactions}
    for entry in audit:
        action, detail, person = entry.get("action"), entry.get("detail") or {}, entry.get("actor")
        if not isinstance(detail, Mapping):
            continue
        if action == "charge" and isinstance(ref := detail.get("refId"), str):
            charged_by.setdefault(ref, person)
        elif action == "complete" and isinstance(tid := detail.get("transactionId"), str):
            completed_by.setdefault(tid, person)
        elif action == "refund" and isinstance(tid := detail.get("transactionId"), str):
            t = by_id.get(tid)
            if t is not None and t.state is TxState.REFUNDED and all(r.transaction_id != tid for r in refunds):
                refunds.append(RefundRow(tid, person, detail.get("approvedBy"), entry["at"], t.charged_amount, 0))
    completed: list[CompletedCheck] = []
    for t in by_id.values():
        ours = t.terminal_id in till_ids or t.transaction_id in completed_by or t.ref_id in charged_by
        if not ours or t.state not in (TxState.COMPLETE, TxState.REFUNDED) or t.completed is None:
            continue
        if not start <= t.completed < end:
            continue
        # the person who charged the check, as a shift's report counts it; else who completed it
        person = charged_by.get(t.ref_id or "", completed_by.get(t.transaction_id))
        due = t.charge_amount
        completed.append(
            CompletedCheck(
                t.ref_id or t.transaction_id,
                t.transaction_id,
                person,
                t.completed,
                t.total,
                t.total - due,
                due,
                t.charged_amount,
            )
        )
    unmatched = sum(1 for tid in completed_by if tid not in by_id)
    for sale in cash_sales:
        completed.append(
            CompletedCheck(
                str(sale["id"]), None, sale.get("actor"), sale["at"], int(sale["total"]), int(sale["total"]), 0, 0
            )
        )
    name = address = None
    if info is not None:
        name, address = info.get("name"), info.get("address")
    return StoreDay(
        name=name,
        address=address,
        tills=tuple(sorted(set(tills))),
        shifts=tuple(sorted(shifts, key=lambda s: (s.terminal_id, s.opened_at))),
        people=sales_per_person(completed, refunds),
        unmatched=unmatched,
    )
