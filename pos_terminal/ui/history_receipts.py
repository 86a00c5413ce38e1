"""History's cash sales and its copies of receipts: printed, or saved as a PDF.

A cash sale (a check paid in full in cash) never reaches the service: History lists this till's from its journal
beside the service's transactions (:class:`CashSaleListed`), and its receipt is made again from the check kept
with it. A copy goes to the receipt printer when the counter has one, else to the terminal's printer (a system
printer, or a PDF file: Settings); **Save PDF…** writes the receipt's PDF, the one ``pos-terminal receipt --pdf``
makes, to a file chosen in a dialog.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from pos_terminal.domain.money import MoneyFormat

if TYPE_CHECKING:
    from pos_terminal.api.models import Transaction
    from pos_terminal.domain.report import CashReceipt
    from pos_terminal.journal.journal import CashSale
    from pos_terminal.services.terminal import Terminal

CASH_SALE = "cash sale"  # its state in the list: it has no transaction, so none of the service's states


@dataclass(frozen=True)
class CashSaleListed:
    """A cash sale as History lists it. It has no transaction id (None): the service never saw it."""

    sale: CashSale
    transaction_id: None = None

    @property
    def created(self) -> datetime:
        return self.sale.at


def print_on_terminal(terminal: Terminal, data: bytes, title: str) -> tuple[str, str]:
    """Print ``data`` (a receipt's PDF) on the terminal's printer: where it went, and what was done in a sentence.
    A UserError when there is none."""
    from pos_terminal.ui import printing

    try:
        printer = printing.print_pdf(data, printer=terminal.settings.printer, title=title)
    except printing.NoPrinter as exc:  # there is no PDF to save here: say what would print it
        raise printing.NoPrinter(
            exc.sentence,
            hint="Save PDF… keeps the receipt as a file; or choose a printer in Settings (a PDF file, or the "
            "receipt printer), or add one in the system settings.",
        ) from None
    if (path := printing.pdf_file_printer(printer)) is not None:
        return printer, f"The receipt is saved as {path}: the printer set in Settings is a PDF file."
    return printer, f"The receipt went to the printer {printer}."


def send_receipt(terminal: Terminal, transaction: Transaction) -> str:
    """Print ``transaction``'s receipt: on the receipt printer when there is one (queued there until it prints),
    else on the terminal's printer; what was done, in a sentence. A UserError when it cannot be printed."""
    reports = terminal.reports(actor=terminal.at_the_till)
    receipt = reports.receipt_of(transaction)
    counter = terminal.counter
    if counter.printer is not None:
        counter.queue_receipt(receipt)
        return "The receipt went to the receipt printer."
    from pos_terminal.reports.receipt import render_receipt

    data = render_receipt(receipt, money=terminal.money)
    printer, said = print_on_terminal(terminal, data, f"Receipt {receipt.transaction_id}")
    reports.record_receipt(receipt, "printed", where=printer)
    return said


def send_cash_receipt(terminal: Terminal, sale: CashSale) -> str:
    """Print a cash sale's receipt again, where :func:`send_receipt` prints a charge's."""
    reports = terminal.reports(actor=terminal.at_the_till)
    receipt = reports.receipt_of_cash_sale(sale)
    counter = terminal.counter
    if counter.printer is not None:
        counter.queue_cash_receipt(receipt)
        return "The receipt went to the receipt printer."
    from pos_terminal.reports.receipt import cash_receipt_title, render_cash_receipt

    data = render_cash_receipt(receipt, money=terminal.money)
    printer, said = print_on_terminal(terminal, data, cash_receipt_title(receipt))
    reports.record_cash_receipt(sale, "printed", where=printer)
    return said


def save_receipt(terminal: Terminal, transaction: Transaction, path: Path) -> Path:
    """Save ``transaction``'s receipt as a PDF at ``path`` (as ``pos-terminal receipt --pdf``), in the audit log."""
    from pos_terminal.reports.receipt import render_receipt
    from pos_terminal.ui import printing

    reports = terminal.reports(actor=terminal.at_the_till)
    receipt = reports.receipt_of(transaction)
    saved = printing.save_pdf(render_receipt(receipt, money=terminal.money), path)
    reports.record_receipt(receipt, "saved", where=str(saved))
    return saved


def save_cash_receipt(terminal: Terminal, sale: CashSale, path: Path) -> Path:
    """Save a cash sale's receipt as a PDF at ``path``, in the audit log."""
    from pos_terminal.reports.receipt import render_cash_receipt
    from pos_terminal.ui import printing

    reports = terminal.reports(actor=terminal.at_the_till)
    receipt = reports.receipt_of_cash_sale(sale)
    saved = printing.save_pdf(render_cash_receipt(receipt, money=terminal.money), path)
    reports.record_cash_receipt(sale, "saved", where=str(saved))
    return saved


def receipt_file_name(listed: CashSaleListed | str) -> str:
    """The name Save PDF… suggests: ``receipt-<transaction id>.pdf``, as the command line names it, or
    ``receipt-cash-sale-<time>.pdf``."""
    if isinstance(listed, CashSaleListed):
        return f"receipt-cash-sale-{listed.sale.at.astimezone():%Y%m%d-%H%M%S}.pdf"
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in listed)
    return f"receipt-{safe}.pdf"


def cash_sale_html(sale: CashSale, receipt: CashReceipt, money: MoneyFormat) -> str:
    """The cash sale as the cashier reads it: its receipt's lines, and who took it (names escaped)."""
    rows = [
        ("State", "Cash sale: paid in full in cash; no account was charged"),
        ("Customer", sale.customer or "—"),
        ("Terminal", sale.terminal_id or "—"),
        ("Taken by", sale.actor or "—"),
        ("Time", sale.at.astimezone().strftime("%Y-%m-%d %H:%M:%S")),
    ]
    lines = [f"<tr><td style='white-space: nowrap'><b>{escape(k)}</b></td><td>{escape(v)}</td></tr>" for k, v in rows]
    for item in receipt.items:
        lines.append(
            f"<tr><td>{item.quantity} × {escape(item.name)}</td><td align='right'>{escape(money.format(item.amount))}"
            "</td></tr>"
        )
    for discount in receipt.discounts:
        lines.append(
            f"<tr><td>{escape(discount.name)}</td><td align='right'>{escape(money.format(discount.amount))}</td></tr>"
        )
    figures = [
        ("Total", receipt.total),
        ("Tax included", receipt.tax),
        ("Paid in cash", receipt.paid),
        ("Change", receipt.change),
    ]
    for name, amount in figures:
        lines.append(
            f"<tr><td style='white-space: nowrap'><b>{escape(name)}</b></td>"
            f"<td align='right'>{escape(money.format(amount))}</td></tr>"
        )
    return "<table cellspacing='4'>" + "".join(lines) + "</table>"
