"""``receipt``: the receipt of a completed or refunded transaction, shown, saved or printed."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pos_terminal.cli.arguments import Commands, common_options, output_options
from pos_terminal.cli.output import EXIT_OK, Output, print_copy, print_escpos, save_copy

if TYPE_CHECKING:
    from pos_terminal.services.terminal import Terminal


def register(commands: Commands) -> None:
    receipt = commands.add_parser("receipt", help="receipt of a completed or refunded transaction (80 mm)")
    common_options(receipt)
    receipt.add_argument("transaction_id")
    output_options(receipt)
    receipt.set_defaults(handler=_receipt)


async def _receipt(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.reports.receipt import render_receipt

    reports = terminal.reports(actor=terminal.actor)
    receipt = await reports.receipt(args.transaction_id)
    money = terminal.money.format
    out.data(
        {
            "transactionId": receipt.transaction_id,
            "state": str(receipt.state),
            "terminalId": receipt.terminal_id,
            "total": receipt.total,
            "chargeAmount": receipt.charge_amount,
            "chargedAmount": receipt.charged_amount,
            "loyaltyAdjustment": receipt.loyalty_adjustment,
            "tipAmount": receipt.tip_amount,
        }
    )
    out.line(
        f"{receipt.transaction_id} {receipt.state}: total {money(receipt.total)}, "
        f"charged {money(receipt.charged_amount)} to {receipt.customer or 'the customer'}"
    )
    if args.pdf or args.print_it:
        data = render_receipt(receipt, money=terminal.money)
        if args.pdf:
            saved = save_copy(data, args.pdf)
            reports.record_receipt(receipt, "saved", where=str(saved))
            out.note(f"Saved {saved}.")
        if args.print_it:
            printer = print_copy(data, args.printer or terminal.settings.printer, f"Receipt {receipt.transaction_id}")
            reports.record_receipt(receipt, "printed", where=printer)
            out.note(f"Printed on {printer}.")
    if args.escpos:
        where = await print_escpos(terminal, lambda: terminal.counter.queue_receipt(receipt))
        out.note(f"Printed on the {where}.")
    return EXIT_OK
