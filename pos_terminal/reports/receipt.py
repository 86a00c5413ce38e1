"""The receipt of one completed or refunded transaction, on an 80 mm roll.

It shows the items, discounts, total and tax, what was paid before the charge
(cash), the amount sent to the service, the loyalty adjustment the service made
(``modifiers``), the amount actually charged (``chargedAmount``), any tip, and
the transaction id, terminal and time. A refunded transaction says so in red.

The receipt of a cash sale (:func:`render_cash_receipt`) is the same roll with what a cash sale has: the cash
taken and the change, and no transaction (the service never saw it).
"""

from __future__ import annotations

from datetime import tzinfo

from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Spacer, Table, TableStyle

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import CashReceipt, ModifierRow, Receipt, ReceiptLine
from pos_terminal.reports import fonts
from pos_terminal.reports import pages as L  # noqa: N812 - a short name for the shared layout


def render_receipt(receipt: Receipt, *, money: MoneyFormat, tz: tzinfo | None = None) -> bytes:
    """PDF bytes of ``receipt`` on an 80 mm roll; times in ``tz`` (the system's local time when ``None``)."""
    paper = _Receipt(receipt, money, tz)
    title = f"Receipt {receipt.transaction_id}"
    return L.build_roll(
        paper.story, paper.decorate, title=title, author=receipt.merchant or "pos-terminal", top=paper.top
    )


def render_cash_receipt(receipt: CashReceipt, *, money: MoneyFormat, tz: tzinfo | None = None) -> bytes:
    """PDF bytes of a cash sale's ``receipt`` on an 80 mm roll, as :func:`render_receipt` makes a charge's."""
    paper = _CashReceipt(receipt, money, tz)
    title, author = cash_receipt_title(receipt, tz), receipt.merchant or "pos-terminal"
    return L.build_roll(paper.story, paper.decorate, title=title, author=author, top=paper.top)


def cash_receipt_title(receipt: CashReceipt, tz: tzinfo | None = None) -> str:
    return f"Cash sale {L.local(receipt.when, tz, '%Y-%m-%d %H:%M:%S')}"


class _Roll:
    """What a receipt's roll is drawn with: its type size, styles and width, its tables of lines and banners."""

    def __init__(self, money: MoneyFormat, tz: tzinfo | None) -> None:
        self.money = money.format
        self.tz = tz
        self.size = 8.0
        self.s = L.styles(self.size)
        self.top = 10 * mm
        self.width = L.ROLL_WIDTH - 2 * L.ROLL_MARGIN

    def _facts(self, facts: list[list[object]]) -> Table:
        table = Table(facts, colWidths=[self.width * 0.25, self.width * 0.75])
        table.setStyle(
            TableStyle(
                [
                    ("FONT", (0, 0), (-1, -1), fonts.REGULAR, self.size - 0.5),
                    ("TEXTCOLOR", (0, 0), (0, -1), L.GREY),
                    ("LEFTPADDING", (0, 0), (-1, -1), 0),
                    ("TOPPADDING", (0, 0), (-1, -1), 0.5),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 0.5),
                ]
            )
        )
        return table

    def _item_lines(self, items: tuple[ReceiptLine, ...], discounts: tuple[ModifierRow, ...]) -> list[Flowable]:
        rows: list[list[object]] = []
        for item in items:
            label = f"{item.quantity} × {item.name}" if item.quantity != 1 else item.name
            rows.append([L.cell(label, self.s.cell, self.width * 0.66), self.money(item.amount)])
        for discount in discounts:
            rows.append([L.cell(discount.name, self.s.cell, self.width * 0.66), self.money(discount.amount)])
        return [self._lines(rows)] if rows else []

    def _lines(
        self, rows: list[list[object]], *, bold_rows: tuple[int, ...] = (), rule_above: int | None = None
    ) -> Table:
        table = Table(rows, colWidths=[self.width * 0.68, self.width * 0.32])
        style: list[tuple[object, ...]] = [
            ("FONT", (0, 0), (-1, -1), fonts.REGULAR, self.size),
            ("ALIGN", (1, 0), (1, -1), "RIGHT"),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), 0),
            ("RIGHTPADDING", (0, 0), (-1, -1), 0),
            ("TOPPADDING", (0, 0), (-1, -1), 0.6),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 0.6),
        ]
        style += [("FONT", (0, i), (-1, i), fonts.BOLD, self.size + 1) for i in bold_rows]
        if rule_above is not None:
            style.append(("LINEABOVE", (0, rule_above), (-1, rule_above), 0.6, colors.black))
        table.setStyle(TableStyle(style))
        return table

    def _banner(self, text: str, color: colors.Color) -> Table:
        box = Table([[L.para(text, self.s.banner)]], colWidths=[self.width])
        box.setStyle(
            TableStyle(
                [
                    ("BACKGROUND", (0, 0), (-1, -1), color),
                    ("TOPPADDING", (0, 0), (-1, -1), 2),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
                ]
            )
        )
        return box


class _Receipt(_Roll):
    def __init__(self, receipt: Receipt, money: MoneyFormat, tz: tzinfo | None) -> None:
        super().__init__(money, tz)
        self.r = receipt

    def decorate(self, canvas: Canvas, number: int, count: int) -> None:
        width, height = canvas._pagesize
        canvas.saveState()
        if not self.r.production:
            L.sandbox_mark(canvas, width, height - 3 * mm, 8)
        printed = f"printed {L.local(self.r.printed_at, self.tz)}" if self.r.printed_at else ""
        L.footer(canvas, width, L.ROLL_MARGIN, printed, number, count, 6)
        canvas.restoreState()

    def story(self) -> list[Flowable]:
        r, money = self.r, self.money
        story: list[Flowable] = L.logo(r.logo, self.width)
        story.append(L.para(r.merchant or "Receipt", self.s.title))
        story += [L.para(line, self.s.small) for line in r.head]
        if not r.production:
            story.append(self._banner("SANDBOX — not a real payment", L.RED))
        if r.state is TxState.REFUNDED:
            story.append(Spacer(1, 1.5 * mm))
            story.append(self._banner(f"REFUNDED — {r.refunded_words(money)}", L.RED))
        story.append(Spacer(1, 2 * mm))
        facts: list[list[object]] = [
            ["Time", L.local(r.when, self.tz, "%Y-%m-%d %H:%M")],
            ["Terminal", L.cell(r.terminal_id or "(none)", self.s.cell, self.width * 0.7)],
            ["Customer", L.cell(r.customer or "-", self.s.cell, self.width * 0.7)],
        ]
        if r.member_no:
            facts.append(["Member", r.member_no])
        if r.ref_id:
            facts.append(["Check", L.cell(r.ref_id, self.s.cell, self.width * 0.7)])
        story += [self._facts(facts), Spacer(1, 2 * mm)]
        story += self._item_lines(r.items, r.discounts)
        totals: list[list[object]] = [["Total", money(r.total)]]
        if r.tax is not None:
            totals.append(["  includes tax", money(r.tax)])
        story.append(self._lines(totals, bold_rows=(0,), rule_above=0))

        paid: list[list[object]] = []
        for payment in r.payments:
            paid.append([L.cell(f"Paid by {payment.name}", self.s.cell, self.width * 0.66), money(-payment.amount)])
        paid.append(["Due on the account", money(r.charge_amount)])
        for modifier in r.modifiers:
            paid.append([L.cell(modifier.name, self.s.cell, self.width * 0.66), money(modifier.amount)])
        if not r.modifiers and r.loyalty_adjustment:
            paid.append(["Member's benefit", money(r.loyalty_adjustment)])
        story.append(Spacer(1, 1.5 * mm))
        story.append(self._lines(paid))
        charged: list[list[object]] = [["Amount charged", money(r.charged_amount)]]
        if r.tip_amount:
            charged.append(["Tip", money(r.tip_amount)])
            charged.append(["Paid in total", money(r.paid_in_total)])
        bold = (0, len(charged) - 1) if r.tip_amount else (0,)
        story.append(self._lines(charged, bold_rows=bold, rule_above=0))
        story.append(Spacer(1, 3 * mm))
        story.append(L.para("Transaction", self.s.small))
        story.append(L.para(r.transaction_id, self.s.cell))
        story.append(
            L.para(f"{r.region}{'' if r.production or 'sandbox' in r.region.lower() else ' (sandbox)'}", self.s.small)
        )
        if r.foot:
            story.append(Spacer(1, 3 * mm))
            story += [L.para(line, self.s.cell) for line in r.foot]
        return story


class _CashReceipt(_Roll):
    """The roll of a cash sale: the store, the time and terminal, the lines, the total with its tax, the cash taken
    and the change (the lines of :func:`pos_terminal.domain.slip.cash_receipt_slip`, on paper)."""

    def __init__(self, receipt: CashReceipt, money: MoneyFormat, tz: tzinfo | None) -> None:
        super().__init__(money, tz)
        self.r = receipt

    def decorate(self, canvas: Canvas, number: int, count: int) -> None:
        width, height = canvas._pagesize
        canvas.saveState()
        if not self.r.production:
            L.sandbox_mark(canvas, width, height - 3 * mm, 8)
        L.footer(canvas, width, L.ROLL_MARGIN, "", number, count, 6)
        canvas.restoreState()

    def story(self) -> list[Flowable]:
        r, money = self.r, self.money
        story: list[Flowable] = [L.para(r.merchant or "Receipt", self.s.title)]
        story += [L.para(line, self.s.small) for line in r.head]
        if not r.production:
            story.append(self._banner("SANDBOX — not a real payment", L.RED))
        story.append(Spacer(1, 2 * mm))
        facts: list[list[object]] = [
            ["Time", L.local(r.when, self.tz, "%Y-%m-%d %H:%M")],
            ["Terminal", L.cell(r.terminal_id or "(none)", self.s.cell, self.width * 0.7)],
        ]
        if r.customer:  # a cash sale is often nobody's
            facts.append(["Customer", L.cell(r.customer, self.s.cell, self.width * 0.7)])
        story += [self._facts(facts), Spacer(1, 2 * mm)]
        story += self._item_lines(r.items, r.discounts)
        totals: list[list[object]] = [["Total", money(r.total)], ["  includes tax", money(r.tax)]]
        story.append(self._lines(totals, bold_rows=(0,), rule_above=0))
        story.append(Spacer(1, 1.5 * mm))
        story.append(self._lines([["Paid in cash", money(r.paid)], ["Change", money(r.change)]], bold_rows=(1,)))
        story.append(Spacer(1, 3 * mm))
        story.append(L.para("Cash sale — no account was charged", self.s.small))
        if r.foot:
            story.append(Spacer(1, 3 * mm))
            story += [L.para(line, self.s.cell) for line in r.foot]
        return story


def cash_receipt_filename(receipt: CashReceipt) -> str:
    return f"receipt-cash-sale-{receipt.when.strftime('%Y%m%d-%H%M%S')}.pdf"


def receipt_filename(receipt: Receipt) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in receipt.transaction_id)
    return f"receipt-{safe}.pdf"
