"""Shifts and the cash drawer: the float, what the drawer should hold, what was counted, and the difference.

A shift is opened by a person with a counted float and closed with a counted closing
cash (a total, or a count by denomination for the configured currency). What the
drawer should hold at any moment is :func:`expected_cash`: the float, plus the cash
paid on checks completed in the shift, minus the cash given back on refunds made in
it. A refund undoes the whole check: the service returns what it charged to the
customer's account, and the cash paid on the check comes back out of the drawer
(the contract has no partial refund, and cash never goes through the service).

Pure: the rows come from the journal (:mod:`pos_terminal.services.shifts`), amounts
are int cents, times UTC.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from pos_terminal.domain.check import is_cash
from pos_terminal.domain.money import in_int32
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError

# Notes and coins in circulation, in cents, largest first (the currencies the set-up page offers).
DENOMINATIONS: Mapping[str, tuple[int, ...]] = {
    "AUD": (10000, 5000, 2000, 1000, 500, 200, 100, 50, 20, 10, 5),
    "NZD": (10000, 5000, 2000, 1000, 500, 200, 100, 50, 20, 10),
    "GBP": (5000, 2000, 1000, 500, 200, 100, 50, 20, 10, 5, 2, 1),
    "SGD": (10000, 5000, 1000, 500, 200, 100, 50, 20, 10, 5),
    "USD": (10000, 5000, 2000, 1000, 500, 100, 25, 10, 5, 1),
    "EUR": (50000, 20000, 10000, 5000, 2000, 1000, 500, 200, 100, 50, 20, 10, 5, 2, 1),
}
NOTE_FROM = {"AUD": 500, "NZD": 500, "GBP": 500, "SGD": 200, "USD": 100, "EUR": 500}  # smallest note per currency


class CountError(UserError):
    """A drawer count that cannot be used."""

    hint = "Count again and type what is in the drawer."


def denominations(currency: str) -> tuple[int, ...]:
    """The currency's notes and coins, largest first; empty when the terminal has no table for it."""
    return DENOMINATIONS.get(currency.upper(), ())


def is_note(currency: str, cents: int) -> bool:
    return cents >= NOTE_FROM.get(currency.upper(), 500)


@dataclass(frozen=True, slots=True)
class DrawerCount:
    """Cash counted in the drawer: by denomination (``pieces``: value in cents → how many), or a total only."""

    total: int
    pieces: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of_total(cls, total: int) -> DrawerCount:
        if total < 0:
            raise CountError("The cash counted cannot be negative.")
        if not in_int32(total):
            raise CountError("The cash counted is too large an amount.")
        return cls(total)

    @classmethod
    def by_denomination(cls, pieces: Mapping[int, int], currency: str | None = None) -> DrawerCount:
        """The count of each note and coin; with ``currency``, only its denominations are accepted."""
        known = set(denominations(currency)) if currency else None
        kept: list[tuple[int, int]] = []
        for value, quantity in sorted(pieces.items(), reverse=True):
            if value <= 0 or (known is not None and value not in known):
                raise CountError(f"{value} cents is not a note or coin of {currency or 'this currency'}.")
            if quantity < 0:
                raise CountError("A count of notes or coins cannot be negative.")
            if quantity:
                kept.append((value, quantity))
        total = sum(value * quantity for value, quantity in kept)
        if not in_int32(total):
            raise CountError("The cash counted is too large an amount.")
        return cls(total, tuple(kept))

    def as_json(self) -> dict[str, Any]:
        return {"total": self.total, "pieces": [{"value": v, "count": c} for v, c in self.pieces]}


@dataclass(frozen=True, slots=True)
class Shift:
    """One shift of one terminal; open while ``closed_at`` is None."""

    id: int
    terminal_id: str | None
    opened_at: datetime
    opened_by: str
    opening_float: int
    closed_at: datetime | None = None
    closed_by: str | None = None
    count: DrawerCount | None = None
    expected_cash: int | None = None  # what the drawer should have held at close, as worked out then

    @property
    def is_open(self) -> bool:
        return self.closed_at is None

    @property
    def over_short(self) -> int | None:
        """Counted minus expected at close: positive over, negative short; None while open."""
        if self.count is None or self.expected_cash is None:
            return None
        return self.count.total - self.expected_cash

    def as_json(self) -> dict[str, Any]:
        def when(moment: datetime | None) -> str | None:
            return None if moment is None else moment.isoformat().replace("+00:00", "Z")

        return {
            "id": self.id,
            "terminalId": self.terminal_id,
            "open": self.is_open,
            "openedAt": when(self.opened_at),
            "openedBy": self.opened_by,
            "openingFloat": self.opening_float,
            "closedAt": when(self.closed_at),
            "closedBy": self.closed_by,
            "countedCash": None if self.count is None else self.count.total,
            "counted": None if self.count is None else self.count.as_json()["pieces"],
            "expectedCash": self.expected_cash,
            "overShort": self.over_short,
        }


# --- what happened in a shift ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompletedCheck:
    """A check completed in the shift: who charged it, its total, the cash paid on it, what was due to the service
    (before the member's benefit) and what the service charged (after it).

    The two words mean one thing each in every report: **due** is ``chargeAmount``, the total less the cash paid at
    the till; **charged** is ``chargedAmount``, what the service took from the customer's account once the member's
    benefit was taken off. ``charged`` is ``None`` while the service's record of the check is not known (the till's
    journal keeps what was due; :meth:`ShiftSection.with_charged` fills it from the service's listing)."""

    ref_id: str
    transaction_id: str | None
    person: str | None
    completed_at: datetime
    total: int
    cash: int
    due: int  # chargeAmount: before the member's benefit
    charged: int | None = None  # chargedAmount: after it; None while the service's record is not known


@dataclass(frozen=True, slots=True)
class RefundRow:
    """A refund made on this terminal in the shift; ``cash`` is what came back out of the drawer."""

    transaction_id: str
    person: str | None
    approved_by: str | None
    at: datetime
    refunded: int  # what the service returned to the customer's account
    cash: int


class CancelKind(StrEnum):
    BY_PERSON = "by a person"
    DUPLICATE = "duplicate"  # the terminal's own: a second transaction for one charge


@dataclass(frozen=True, slots=True)
class CancelRow:
    """A cancellation sent from this terminal in the shift."""

    transaction_id: str
    person: str | None
    approved_by: str | None
    at: datetime
    kind: CancelKind = CancelKind.BY_PERSON


@dataclass(frozen=True, slots=True)
class ApprovalRow:
    """A manager's approval given in the shift, with both names."""

    at: datetime
    act: str
    asked_by: str | None
    manager: str
    subject: str | None


@dataclass(frozen=True, slots=True)
class Drawer:
    """What the drawer should hold, and from what."""

    opening_float: int
    cash_sales: int
    cash_refunds: int

    @property
    def expected(self) -> int:
        return self.opening_float + self.cash_sales - self.cash_refunds


def cash_paid(payments: Iterable[Mapping[str, Any]]) -> int:
    """The cash among a check's payments (``{"method", "amount"}`` as the journal and the service keep them)."""
    total = 0
    for payment in payments:
        method, amount = payment.get("method"), payment.get("amount")
        if isinstance(method, str) and is_cash(method) and isinstance(amount, int):
            total += amount
    return total


def expected_cash(opening_float: int, sales: Iterable[CompletedCheck], refunds: Iterable[RefundRow]) -> Drawer:
    """The one sum of the drawer: float + cash on checks completed in the shift − cash given back on refunds."""
    return Drawer(opening_float, sum(s.cash for s in sales), sum(r.cash for r in refunds))


@dataclass(frozen=True, slots=True)
class PersonSales:
    """One person's part of the shift: checks they charged that were completed, and refunds they made."""

    person: str
    checks: int
    total: int
    cash: int
    due: int  # before the members' benefits
    charged: int  # after them: what the service charged (a check whose record is not known counts nothing)
    refunds: int
    refunded: int


def drawer_verdict(over_short: int, money: Callable[[int], str], *, loud: bool = False) -> str:
    """How a counted drawer stands, as every screen, report and command says it: "right", "short by $2.00",
    "over by $0.50" (``loud``: "SHORT by $2.00", for a report's verdict line)."""
    if over_short == 0:
        return "right"
    word = "short" if over_short < 0 else "over"
    return f"{word.upper() if loud else word} by {money(abs(over_short))}"


def sales_per_person(sales: Iterable[CompletedCheck], refunds: Iterable[RefundRow] = ()) -> tuple[PersonSales, ...]:
    """Per person, by name (nobody's: the command line or a release before people, as "—")."""
    rows: dict[str, list[int]] = {}
    for s in sales:
        row = rows.setdefault(s.person or "—", [0, 0, 0, 0, 0, 0, 0])
        row[0] += 1
        row[1] += s.total
        row[2] += s.cash
        row[3] += s.due
        row[4] += s.charged or 0
    for r in refunds:
        row = rows.setdefault(r.person or "—", [0, 0, 0, 0, 0, 0, 0])
        row[5] += 1
        row[6] += r.refunded
    return tuple(PersonSales(name, *figures) for name, figures in sorted(rows.items(), key=lambda kv: kv[0].casefold()))


class ShiftReportKind(StrEnum):
    X = "X"  # while open: so far, changes nothing
    Z = "Z"  # at or after close: final


@dataclass(frozen=True, slots=True)
class ShiftSection:
    """The shift's part of a report: the drawer, the people, refunds, cancellations and approvals."""

    shift: Shift
    kind: ShiftReportKind
    until: datetime  # the end of what is counted: the close, or now for an X report
    drawer: Drawer
    sales: tuple[CompletedCheck, ...]
    people: tuple[PersonSales, ...]
    refunds: tuple[RefundRow, ...]
    cancellations: tuple[CancelRow, ...]
    approvals: tuple[ApprovalRow, ...]
    no_sales: int = 0  # drawer opened without a sale
    pending_changes: int = 0  # state changes the service had not confirmed when the report was made

    @property
    def counted(self) -> DrawerCount | None:
        return self.shift.count

    @property
    def over_short(self) -> int | None:
        """Counted minus expected (positive over, negative short); None for an X report."""
        if self.shift.count is None:
            return None
        return self.shift.count.total - self.drawer.expected

    @property
    def unlisted(self) -> int:
        """Checks charged in the shift whose record the service's listing did not hold: what it charged is unknown."""
        return sum(1 for s in self.sales if s.transaction_id is not None and s.charged is None)

    def with_charged(self, charged: Mapping[str, int]) -> ShiftSection:
        """The section with what the service charged on each check (``chargedAmount`` by transaction id, from the
        listing the report prints beside it), so that each person's charged adds up to the report's transactions.
        A cash sale (no transaction) was charged nothing."""
        sales = tuple(
            replace(s, charged=0 if s.transaction_id is None else charged.get(s.transaction_id)) for s in self.sales
        )
        return replace(self, sales=sales, people=sales_per_person(sales, self.refunds))

    @property
    def title(self) -> str:
        if self.kind is ShiftReportKind.X:
            return f"X report — shift {self.shift.id} so far"
        return f"Z report — shift {self.shift.id}"

    def as_json(self) -> dict[str, Any]:
        def when(moment: datetime | None) -> str | None:
            return None if moment is None else moment.isoformat().replace("+00:00", "Z")

        return {
            "kind": str(self.kind),
            "shift": self.shift.as_json(),
            "until": when(self.until),
            "drawer": {
                "openingFloat": self.drawer.opening_float,
                "cashSales": self.drawer.cash_sales,
                "cashRefunds": self.drawer.cash_refunds,
                "expectedCash": self.drawer.expected,
                "countedCash": None if self.counted is None else self.counted.total,
                "overShort": self.over_short,
            },
            "people": [
                {
                    "person": p.person,
                    "checks": p.checks,
                    "total": p.total,
                    "cash": p.cash,
                    "chargeAmount": p.due,
                    "chargedAmount": p.charged,
                    "refunds": p.refunds,
                    "refunded": p.refunded,
                }
                for p in self.people
            ],
            "checks": [
                {
                    "refId": s.ref_id,
                    "transactionId": s.transaction_id,
                    "person": s.person,
                    "completedAt": when(s.completed_at),
                    "total": s.total,
                    "cash": s.cash,
                    "chargeAmount": s.due,
                    "chargedAmount": s.charged,
                }
                for s in self.sales
            ],
            "refunds": [
                {
                    "transactionId": r.transaction_id,
                    "person": r.person,
                    "approvedBy": r.approved_by,
                    "at": when(r.at),
                    "refunded": r.refunded,
                    "cash": r.cash,
                }
                for r in self.refunds
            ],
            "cancellations": [
                {
                    "transactionId": c.transaction_id,
                    "person": c.person,
                    "approvedBy": c.approved_by,
                    "at": when(c.at),
                    "kind": str(c.kind),
                }
                for c in self.cancellations
            ],
            "approvals": [
                {"at": when(a.at), "act": a.act, "askedBy": a.asked_by, "manager": a.manager, "subject": a.subject}
                for a in self.approvals
            ],
            "noSales": self.no_sales,
            "pendingChanges": self.pending_changes,
        }


# --- what the shift's part of a report says, in words: every layout (A4, the roll, the receipt printer's slip) ---


@dataclass(frozen=True, slots=True)
class ShiftTable:
    """One list of a shift's report, as words: its title, its columns and a row per entry (each layout lays it out:
    a table on A4, label and value pairs on the roll and the slip)."""

    title: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def shift_times(section: ShiftSection, when: Callable[[datetime], str]) -> tuple[tuple[str, str], ...]:
    """When the shift opened and closed, and by whom (an X report: still open, and what that means)."""
    shift = section.shift
    closed = (
        f"{when(shift.closed_at)} by {shift.closed_by}"
        if shift.closed_at
        else "still open: an X report, so far (nothing was changed)"
    )
    return (("Opened", f"{when(shift.opened_at)} by {shift.opened_by}"), ("Closed", closed))


def drawer_lines(section: ShiftSection, money: Callable[[int], str]) -> tuple[tuple[str, str], ...]:
    """The drawer's sum, a line each: the float, the cash in, the cash given back, what it should hold, and what was
    counted (a Z report). The line starting "=" is the sum; "Counted" is the count."""
    drawer = section.drawer
    lines = [
        ("Opening float", money(drawer.opening_float)),
        ("+ Cash on checks completed", money(drawer.cash_sales)),
        ("− Cash given back on refunds", money(drawer.cash_refunds)),
        ("= Expected in the drawer", money(drawer.expected)),
    ]
    if section.counted is not None:
        lines.append(("Counted", money(section.counted.total)))
    return tuple(lines)


def drawer_pieces(section: ShiftSection, money: Callable[[int], str]) -> tuple[tuple[str, str], ...]:
    """The count by denomination, when the drawer was counted note by note and coin by coin."""
    if section.counted is None:
        return ()
    return tuple((f"{money(value)} × {count}", money(value * count)) for value, count in section.counted.pieces)


EXPECTED_NOTE = (
    "Expected = float + cash paid on the checks completed in the shift − cash given back on refunds made in it "
    "(a refund undoes the whole check)."
)


def person_lines(person: PersonSales, money: Callable[[int], str]) -> tuple[tuple[str, str], ...]:
    """One person's part of the shift: the checks they charged that were completed, and the refunds they made."""
    lines = [
        (person.person, counted(person.checks, "check")),
        ("  total", money(person.total)),
        ("  cash", money(person.cash)),
        ("  due", money(person.due)),
        ("  charged", money(person.charged)),
    ]
    if person.refunds:
        lines.append((f"  refunds ({person.refunds})", money(person.refunded)))
    return tuple(lines)


def change_tables(
    section: ShiftSection, money: Callable[[int], str], when: Callable[[datetime], str]
) -> tuple[ShiftTable, ...]:
    """The refunds made in the shift (with the cash given back), the cancellations sent, the manager's approvals."""
    return (
        ShiftTable(
            "Refunds made in the shift",
            ("Time", "Transaction", "By", "Approved by", "Refunded", "Cash back"),
            tuple(
                (when(r.at), r.transaction_id, r.person or "—", r.approved_by or "—", money(r.refunded), money(r.cash))
                for r in section.refunds
            ),
        ),
        ShiftTable(
            "Cancellations sent from this terminal",
            ("Time", "Transaction", "By", "Approved by"),
            tuple(
                (when(c.at), c.transaction_id, c.person or "the terminal (duplicate)", c.approved_by or "—")
                for c in section.cancellations
            ),
        ),
        ShiftTable(
            "Manager approvals",
            ("Time", "Act", "Asked by", "Manager", "For"),
            tuple((when(a.at), a.act, a.asked_by or "—", a.manager, a.subject or "") for a in section.approvals),
        ),
    )


def shift_notes(section: ShiftSection) -> tuple[tuple[str, bool], ...]:
    """What else the report must say, each with whether it is a warning: the drawer opened without a sale, and state
    changes the service had not confirmed at the end (not in the figures)."""
    notes: list[tuple[str, bool]] = []
    if section.no_sales:
        notes.append((f"The drawer was opened {counted(section.no_sales, 'time')} without a sale.", False))
    if section.unlisted:
        notes.append(
            (
                f"{counted(section.unlisted, 'check')} of the shift not found in the service's listing: what the "
                "service charged on them is not in the Charged column.",
                True,
            )
        )
    if section.pending_changes:
        unconfirmed = counted(section.pending_changes, "state change")
        notes.append(
            (f"{unconfirmed} not yet confirmed by the service at the end of the shift: not in these figures.", True)
        )
    return tuple(notes)
