"""What goes on a receipt printer's roll, as lines of text and a QR code, whatever the printer.

A :class:`Slip` is laid out by meaning, not by width: a line has a left part and a
right part (a name and its amount); the printer fits it to its own number of
columns. Slips are kept in the journal's print queue as JSON until printed, so a
receipt made while the printer is out of paper prints the same once it has paper.

Made from the report's data (:class:`~pos_terminal.domain.report.Receipt`,
:class:`~pos_terminal.domain.report.EndOfDayReport`) with the terminal's one money
format; times in local time, as on the PDF.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo
from enum import StrEnum
from typing import Any

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.report import CashReceipt, EndOfDayReport, Receipt
from pos_terminal.domain.shift import (
    EXPECTED_NOTE,
    ShiftSection,
    change_tables,
    drawer_lines,
    drawer_pieces,
    drawer_verdict,
    person_lines,
    shift_notes,
    shift_times,
)
from pos_terminal.domain.summary import SummaryFigures


class SlipKind(StrEnum):
    RECEIPT = "receipt"
    REPORT = "report"


@dataclass(frozen=True, slots=True)
class Line:
    """One line: ``left`` (wrapped when long) and ``right`` at the right edge; large is double width and height."""

    left: str
    right: str = ""
    bold: bool = False
    large: bool = False
    center: bool = False


@dataclass(frozen=True, slots=True)
class Rule:
    """A full-width line of dashes."""


@dataclass(frozen=True, slots=True)
class Feed:
    lines: int = 1


@dataclass(frozen=True, slots=True)
class Qr:
    """A QR code printed by the printer itself (``data`` is ASCII: a transaction id)."""

    data: str


@dataclass(frozen=True, slots=True)
class Picture:
    """A picture printed centred, within the paper's width (the store's logo: a grey PNG)."""

    png: bytes


Block = Line | Rule | Feed | Qr | Picture


@dataclass(frozen=True, slots=True)
class Slip:
    kind: SlipKind
    title: str  # what the cashier sees in the print queue: "Receipt txn-…"
    blocks: tuple[Block, ...]

    @property
    def text(self) -> str:
        """The words on the slip, a line each (for tests and logs)."""
        return "\n".join(
            f"{b.left} {b.right}".strip()
            if isinstance(b, Line)
            else f"[QR {b.data}]"
            if isinstance(b, Qr)
            else "[picture]"
            if isinstance(b, Picture)
            else ""
            for b in self.blocks
        )

    def to_json(self) -> dict[str, Any]:
        def block(b: Block) -> dict[str, Any]:
            if isinstance(b, Line):
                return {"line": b.left, "right": b.right, "bold": b.bold, "large": b.large, "center": b.center}
            if isinstance(b, Qr):
                return {"qr": b.data}
            if isinstance(b, Picture):
                return {"picture": base64.b64encode(b.png).decode("ascii")}
            if isinstance(b, Feed):
                return {"feed": b.lines}
            return {"rule": True}

        return {"kind": str(self.kind), "title": self.title, "blocks": [block(b) for b in self.blocks]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Slip:
        """Read a slip the journal kept; ValueError (or KeyError, TypeError) when it is not one."""

        def block(raw: Any) -> Block:
            if not isinstance(raw, dict):
                raise TypeError("a slip's block is an object")
            if "line" in raw:
                return Line(
                    str(raw["line"]),
                    str(raw.get("right", "")),
                    bool(raw.get("bold")),
                    bool(raw.get("large")),
                    bool(raw.get("center")),
                )
            if "qr" in raw:
                return Qr(str(raw["qr"]))
            if "picture" in raw:
                return Picture(base64.b64decode(str(raw["picture"]), validate=True))
            if "feed" in raw:
                return Feed(int(raw["feed"]))
            if raw.get("rule"):
                return Rule()
            raise ValueError("unknown block on a slip")

        return cls(SlipKind(data["kind"]), str(data["title"]), tuple(block(b) for b in data["blocks"]))


def _local(moment: datetime | None, tz: tzinfo | None, pattern: str = "%Y-%m-%d %H:%M") -> str:
    if moment is None:
        return ""
    return (moment.astimezone() if tz is None else moment.astimezone(tz)).strftime(pattern)


def receipt_slip(receipt: Receipt, money: Callable[[int], str], tz: tzinfo | None = None) -> Slip:
    """The receipt of a completed or refunded transaction, as the PDF receipt shows it, with a QR code of its id."""
    r = receipt
    blocks: list[Block] = [Picture(r.logo), Feed()] if r.logo else []
    blocks.append(Line(r.merchant or "Receipt", large=True, center=True))
    blocks += [Line(line, center=True) for line in r.head]
    if not r.production:
        blocks.append(Line("SANDBOX - not a real payment", bold=True, center=True))
    if r.state is TxState.REFUNDED:
        blocks.append(Line(f"REFUNDED - {money(r.charged_amount)} returned to the customer", bold=True, center=True))
    blocks += [
        Feed(),
        Line("Time", _local(r.when, tz)),
        Line("Terminal", r.terminal_id or "(none)"),
        Line("Customer", r.customer or "-"),
    ]
    if r.member_no:
        blocks.append(Line("Member", r.member_no))
    if r.ref_id:
        blocks.append(Line("Check", r.ref_id))
    blocks.append(Rule())
    for item in r.items:
        blocks.append(Line(f"{item.quantity} x {item.name}" if item.quantity != 1 else item.name, money(item.amount)))
    for discount in r.discounts:
        blocks.append(Line(discount.name, money(discount.amount)))
    blocks += [Rule(), Line("TOTAL", money(r.total), bold=True)]
    if r.tax is not None:
        blocks.append(Line("  includes tax", money(r.tax)))
    blocks.append(Feed())
    for payment in r.payments:
        blocks.append(Line(f"Paid by {payment.name}", money(-payment.amount)))
    blocks.append(Line("Charged to the account", money(r.charge_amount)))
    for modifier in r.modifiers:
        blocks.append(Line(modifier.name, money(modifier.amount)))
    if not r.modifiers and r.loyalty_adjustment:
        blocks.append(Line("Loyalty adjustment", money(r.loyalty_adjustment)))
    blocks += [Rule(), Line("Amount charged", money(r.charged_amount), bold=True)]
    if r.tip_amount:
        blocks += [Line("Tip", money(r.tip_amount)), Line("Paid in total", money(r.paid_in_total), bold=True)]
    blocks += [Feed(), Qr(r.transaction_id), Line(r.transaction_id, center=True)]
    sandbox = "" if r.production or "sandbox" in r.region.lower() else " (sandbox)"
    blocks.append(Line(f"{r.region}{sandbox}", center=True))
    if r.printed_at is not None:
        blocks.append(Line(f"printed {_local(r.printed_at, tz)}", center=True))
    if r.foot:
        blocks += [Feed(), *(Line(line, center=True) for line in r.foot)]
    return Slip(SlipKind.RECEIPT, f"Receipt {r.transaction_id}", tuple(blocks))


def cash_receipt_slip(receipt: CashReceipt, money: Callable[[int], str], tz: tzinfo | None = None) -> Slip:
    """The receipt of a cash sale: the store, the lines, the total with its tax, the cash taken and the change."""
    r = receipt
    blocks: list[Block] = [Line(r.merchant or "Receipt", large=True, center=True)]
    blocks += [Line(line, center=True) for line in r.head]
    if not r.production:
        blocks.append(Line("SANDBOX - not a real payment", bold=True, center=True))
    blocks += [
        Feed(),
        Line("Time", _local(r.when, tz)),
        Line("Terminal", r.terminal_id or "(none)"),
        Line("Customer", r.customer or "-"),
        Rule(),
    ]
    for item in r.items:
        blocks.append(Line(f"{item.quantity} x {item.name}" if item.quantity != 1 else item.name, money(item.amount)))
    for discount in r.discounts:
        blocks.append(Line(discount.name, money(discount.amount)))
    blocks += [Rule(), Line("TOTAL", money(r.total), bold=True), Line("  includes tax", money(r.tax)), Feed()]
    blocks += [Line("Paid in cash", money(r.paid)), Line("Change", money(r.change), bold=True), Feed()]
    blocks.append(Line("Cash sale - no account was charged", center=True))
    if r.foot:
        blocks += [Feed(), *(Line(line, center=True) for line in r.foot)]
    return Slip(SlipKind.RECEIPT, f"Cash sale {_local(r.when, tz, '%Y-%m-%d %H:%M:%S')}", tuple(blocks))


# A value longer than this does not fit beside its label on a roll (a transaction id): it gets a line of its own.
_BESIDE = 24


def _printable(text: str) -> str:
    """The receipt printer's own text: the minus of the reports' sums is in none of its code pages (printed as a
    picture of the line otherwise), the hyphen-minus is in all."""
    return text.replace("\u2212", "-")


def _shift_blocks(section: ShiftSection, money: Callable[[int], str], tz: tzinfo | None) -> list[Block]:
    """The shift's part of an X or Z report, as the PDF has it (:mod:`pos_terminal.domain.shift` words both): the
    drawer, its count, sales per person, refunds with the cash given back, cancellations and approvals."""

    def when(moment: datetime) -> str:
        return _local(moment, tz)

    blocks: list[Block] = [Rule(), Line(f"Shift {section.shift.id}", bold=True)]
    blocks += [Line(f"{name}: {value}") for name, value in shift_times(section, when)]
    blocks += [Rule(), Line("Cash drawer", bold=True)]
    blocks += [
        Line(_printable(name), value, bold=name.startswith("=") or name == "Counted")
        for name, value in drawer_lines(section, money)
    ]
    over_short = section.over_short
    if over_short is not None:
        verdict = "The drawer is right." if over_short == 0 else drawer_verdict(over_short, money, loud=True)
        blocks.append(Line(verdict, bold=True))
    if pieces := drawer_pieces(section, money):
        blocks.append(Line("Counted by denomination"))
        blocks += [Line(f"  {name}", value) for name, value in pieces]
    blocks.append(Line(_printable(EXPECTED_NOTE)))
    blocks += [Rule(), Line(f"Sales per person ({len(section.people)})", bold=True)]
    if not section.people:
        blocks.append(Line("No check was completed in the shift."))
    for person in section.people:
        blocks += [Line(name, value) for name, value in person_lines(person, money)]
    for table in change_tables(section, money, when):
        blocks += [Rule(), Line(f"{table.title} ({len(table.rows)})", bold=True)]
        if not table.rows:
            blocks.append(Line("None."))
        for index, row in enumerate(table.rows):
            if index:
                blocks.append(Feed())
            for name, value in zip(table.head, row, strict=True):
                if value:
                    blocks.append(Line(f"{name}: {value}") if len(value) > _BESIDE else Line(name, value))
    blocks += [Line(note, bold=loud) for note, loud in shift_notes(section)]
    return blocks


_FIGURE_NAMES = {"count": "Transactions", "total": "Total", "tips": "Tips", "fees": "Fees", "payout": "Payout"}


def _figures(f: SummaryFigures, money: Callable[[int], str]) -> list[Block]:
    return [
        Line(_FIGURE_NAMES[name], str(f.count) if name == "count" else money(getattr(f, name)))
        for name in ("count", "total", "tips", "fees", "payout")
    ]


def report_slip(report: EndOfDayReport, money: Callable[[int], str], tz: tzinfo | None = None) -> Slip:
    """The 80 mm end-of-day (or shift) report: an X or Z report's shift first, as on the roll PDF; then figures per
    terminal, every difference, cash sales, open charges."""
    blocks: list[Block] = [Line(report.merchant or "Report", large=True, center=True)]
    blocks.append(Line(report.title, bold=True, center=True))
    if not report.production:
        blocks.append(Line("SANDBOX - not real payments", bold=True, center=True))
    blocks += [
        Feed(),
        Line("From", _local(report.range.start, tz)),
        Line("To", _local(report.range.end, tz)),
        Line("Scope", report.scope.label),
        Line("Made on", report.terminal_id),
    ]
    if report.shift is not None:
        blocks += _shift_blocks(report.shift, money, tz)
    for row in report.rows:
        blocks += [Rule(), Line(f"Terminal {row.terminal_id}" if row.terminal_id else "All terminals", bold=True)]
        blocks += _figures(row.shown, money)
    if len(report.rows) > 1:
        blocks += [Rule(), Line("All terminals", bold=True), *_figures(report.total.shown, money)]
    blocks.append(Rule())
    differences = report.differences(money)
    if differences:
        blocks.append(Line("NOT RECONCILED", bold=True))
        blocks += [Line(sentence) for sentence in differences]
    else:
        blocks.append(Line("Reconciled with the transactions listed"))
    if report.cash_sales:
        blocks += [
            Rule(),
            Line("Cash sales (this terminal only)", bold=True),
            Line(f"{len(report.cash_sales)} sales", money(report.cash_total)),
        ]
    blocks += [
        Rule(),
        Line("Authorized, not completed", str(len(report.open_authorized))),
        Line("Refunds", str(len(report.refunds))),
        Line("Cancellations", str(len(report.cancellations))),
        Feed(),
        Line(f"printed {_local(report.generated_at, tz)}", center=True),
    ]
    return Slip(SlipKind.REPORT, report.title, tuple(blocks))
