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
from pos_terminal.domain.packing import packed, unpacked
from pos_terminal.domain.report import CashReceipt, EndOfDayReport, Receipt
from pos_terminal.domain.report_document import (
    FIGURE_NAMES,
    Figures,
    Pair,
    Pairs,
    Table,
    Tone,
    Verdict,
    report_document,
)
from pos_terminal.domain.report_document import Block as DocBlock


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


@dataclass(frozen=True, slots=True)
class PackedSlip:
    """A slip held as one bytes object until it is printed.

    A day's report on the roll is a slip of a line for every refund, cancellation and audit entry: thousands of small
    objects that the window would unpack with every roll report it shows, and keep for printing until the next one.
    Each such report raised the interpreter's high-water mark with the day, and a few long-lived objects made in the
    meantime kept each new arena for good (docs/memory.md). Held packed, it is one block of memory, unpacked only
    when the manager prints it on the receipt printer."""

    data: bytes

    @classmethod
    def of(cls, slip: Slip) -> PackedSlip:
        return cls(packed(slip))

    def unpacked(self) -> Slip:
        slip = unpacked(self.data)
        if not isinstance(slip, Slip):
            raise TypeError("a packed slip holds a slip")
        return slip


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
        blocks.append(Line(f"REFUNDED - {r.refunded_words(money)}", bold=True, center=True))
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
    blocks.append(Line("Due on the account", money(r.charge_amount)))
    for modifier in r.modifiers:
        blocks.append(Line(modifier.name, money(modifier.amount)))
    if not r.modifiers and r.loyalty_adjustment:
        blocks.append(Line("Member's benefit", money(r.loyalty_adjustment)))
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
        *([Line("Customer", r.customer)] if r.customer else []),  # a cash sale is often nobody's
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


# Characters of the reports that are in none of the printer's code pages (a line holding one is printed as a
# picture of itself, blurred and not searchable), and what the roll prints instead; the words carry the meaning.
_PRINTED = {"\u2212": "-", "\u2014": "-", "\u2013": "-", "\u2022": "-", "\u2713 ": "", "\u2717 ": ""}


def _printable(text: str) -> str:
    """The receipt printer's own text: the minus of the reports' sums, dashes, bullets and check marks as the
    printer's characters."""
    for drawn, printed in _PRINTED.items():
        text = text.replace(drawn, printed)
    return text


def _line(pair: Pair, *, bold: bool = False) -> Line:
    return Line(_printable(pair.label), _printable(pair.value), bold=bold or pair.strong)


def _section_blocks(block: DocBlock) -> list[Block]:
    """One block of a report's section as the roll's lines: a table row by row, as label and value pairs."""
    if isinstance(block, Pairs):
        return [_line(pair) for pair in block.rows]
    if isinstance(block, Table):
        if not block.rows:
            return [Line(block.empty)]
        lines: list[Block] = []
        for index, row in enumerate(block.narrow_rows(_BESIDE)):
            if index:
                lines.append(Feed())
            lines += [_line(pair) for pair in row]
        return lines
    if isinstance(block, Figures):
        lines = []
        for figure in (*block.lines, *((block.total,) if block.total else ())):
            lines.append(Line(_printable(figure.label), _printable(figure.check), bold=True))
            for index, (name, value) in enumerate(zip(block.names, figure.values, strict=True)):
                lines.append(Line(name, value, bold=figure.strong))
                if FIGURE_NAMES[index][0] in figure.mismatched:
                    lines.append(Line("  transactions give", figure.recomputed[index]))
        if block.empty:
            lines.append(Line(block.empty))
        return lines
    if isinstance(block, Verdict):
        return [Line(_printable(block.headline), bold=True), *(Line(_printable(line)) for line in block.lines)]
    return [Line(_printable(block.text), bold=block.tone is Tone.WARNING)]


def report_slip(report: EndOfDayReport, money: Callable[[int], str], tz: tzinfo | None = None) -> Slip:
    """The 80 mm end-of-day (or shift) report: every section of :func:`report_document` that a roll shows, as the
    roll PDF has them (an X or Z report's shift first), and when it was printed."""
    document = report_document(report, money, tz)
    blocks: list[Block] = [Line(report.merchant or "Report", large=True, center=True)]
    blocks.append(Line(report.title, bold=True, center=True))
    if document.sandbox:
        blocks.append(Line(_printable(document.sandbox), bold=True, center=True))
    blocks += [Feed(), *(_line(pair) for pair in document.facts)]
    for section in document.sections_on(wide=False):
        blocks.append(Rule())
        if section.heading:
            blocks.append(Line(section.title, bold=True))
        for block in section.blocks:
            blocks += _section_blocks(block)
    blocks += [Feed(), Line(f"printed {_local(report.generated_at, tz)}", center=True)]
    return Slip(SlipKind.REPORT, report.title, tuple(blocks))
