"""``tx``: transactions listed, read, and completed, canceled or refunded."""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from pos_terminal.cli.arguments import (
    Commands,
    action_commands,
    common_options,
    person_options,
    range_options,
    today_start,
)
from pos_terminal.cli.output import EXIT_ERROR, EXIT_OK, EXIT_UNSETTLED, Handler, Output
from pos_terminal.cli.pins import act_as
from pos_terminal.domain.lifecycle import Action
from pos_terminal.errors import UserError

if TYPE_CHECKING:
    from pos_terminal.api.models import Transaction
    from pos_terminal.services.terminal import Terminal


def register(commands: Commands) -> None:
    tx = commands.add_parser("tx", help="transactions")
    tx_commands = action_commands(tx, "tx_command")
    tx_list = tx_commands.add_parser("list", help="transactions by range (default today) and terminal")
    common_options(tx_list)
    range_options(tx_list)
    tx_list.add_argument("--all", action="store_true", help="every terminal")
    tx_list.set_defaults(handler=_tx_list)
    handlers = {
        "get": _tx_get,
        "complete": _state_command(Action.COMPLETE),
        "cancel": _state_command(Action.CANCEL),
        "refund": _state_command(Action.REFUND),
    }
    for name in ("get", "complete", "cancel", "refund"):
        action = tx_commands.add_parser(name, help=f"{name} a transaction")
        common_options(action)
        action.add_argument("transaction_id")
        if name in ("cancel", "refund"):
            person_options(action, manager=True)
        if name == "complete":
            person_options(action)  # optional: who completes it, for the audit log (else the computer's user)
        if name == "refund":
            action.add_argument("--yes", action="store_true", help="refund without asking")
        action.set_defaults(handler=handlers[name])


def _tx_line(terminal: Terminal, t: Transaction) -> str:
    created = t.created.astimezone().strftime("%Y-%m-%d %H:%M") if t.created else ""
    return (
        f"{t.transaction_id:<38} {t.state.value:<10} {terminal.money.format(t.charge_amount):>12} "
        f"{created:<16} {t.terminal_id or '-':<10} {t.customer.display_name if t.customer else ''}"
    )


async def _tx_list(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    start = args.start or today_start()
    # to the end of today, not to now: a service whose clock runs ahead stamps what it made just now later
    end = args.end or today_start() + timedelta(days=1)
    terminal_id = None if args.all else terminal.settings.terminal_id
    transactions = await terminal.history.list(start, end, terminal_id)
    out.data([t.model_dump(by_alias=True, mode="json") for t in transactions])
    if not transactions:
        out.line("No transactions in that range.")
    for t in transactions:
        out.line(_tx_line(terminal, t))
    return EXIT_OK


async def _tx_get(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    transaction = await terminal.history.get(args.transaction_id)
    out.data(transaction.model_dump(by_alias=True, mode="json"))
    out.line(_tx_line(terminal, transaction))
    return EXIT_OK


def _state_command(action: Action) -> Handler:
    async def run(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
        from pos_terminal.services.checkout import ChangeStatus

        if action is Action.REFUND and not args.yes:
            transaction = await terminal.history.get(args.transaction_id)
            amount = terminal.money.format(transaction.amount_charged)
            if not sys.stdin.isatty():
                raise UserError(f"Refunding {amount} needs a confirmation.", hint="Add --yes to refund without asking.")
            import asyncio

            customer = transaction.customer.display_name if transaction.customer else "the customer"
            answer = await asyncio.to_thread(input, f"Refund {amount} to {customer}? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                out.note("Nothing was refunded.")
                return EXIT_ERROR
        if action is not Action.COMPLETE:
            await act_as(terminal, args, manager=True)
        elif args.person:
            await act_as(terminal, args)
        outcome = await terminal.checkout.change_state(args.transaction_id, action)
        record: dict[str, Any] = {"transactionId": args.transaction_id, "status": outcome.status.value}
        if outcome.transaction is not None:
            record = {**outcome.transaction.model_dump(by_alias=True, mode="json"), "status": outcome.status.value}
        if outcome.message:
            record["message"] = outcome.message
        out.data(record)
        if outcome.close_call_seconds is not None:
            out.note(f"Only about {outcome.close_call_seconds} s were left before automatic cancellation.")
        if outcome.status is ChangeStatus.DONE:
            state = outcome.transaction.state if outcome.transaction else outcome.target
            out.line(f"{args.transaction_id} is {state.value}.")
            return EXIT_OK
        out.note(outcome.message or f"The {action.value} was not confirmed.")
        return EXIT_UNSETTLED if outcome.status is ChangeStatus.PENDING else EXIT_ERROR

    return run
