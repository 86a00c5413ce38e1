"""``customers`` and ``charge``: who is checked in, and charging one of them for a check."""

from __future__ import annotations

import argparse
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pos_terminal.cli.arguments import Commands, common_options, parse_seconds, person_options
from pos_terminal.cli.output import EXIT_ERROR, EXIT_OK, EXIT_UNSETTLED, Output
from pos_terminal.cli.pins import act_as
from pos_terminal.errors import UserError

if TYPE_CHECKING:
    from pos_terminal.services.terminal import Terminal


def register(commands: Commands) -> None:
    customers = commands.add_parser("customers", help="customers checked in at the merchant")
    common_options(customers)
    customers.set_defaults(handler=_customers)

    charge = commands.add_parser("charge", help="charge a checked-in customer for a check")
    common_options(charge)
    charge.add_argument("--customer", required=True, help="customer id, check-in id, member or check-in number")
    charge.add_argument("--check", required=True, type=Path, help="check file (JSON)")
    charge.add_argument(
        "--again",
        action="store_true",
        help="charge the check even while an earlier charge of it for this customer is still authorized",
    )
    charge.add_argument(
        "--wait",
        type=parse_seconds,
        metavar="SECONDS",
        help="how long to verify a charge the service did not confirm before leaving it to the next command "
        "(default: the terminal's verify window)",
    )
    person_options(charge)
    charge.set_defaults(handler=_charge)


async def _customers(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    customers = await terminal.customers.refresh()
    out.data([c.model_dump(by_alias=True, mode="json") for c in customers])
    if not customers:
        out.line("Nobody is checked in at the moment.")
    for c in customers:
        when = c.check_in_date.astimezone().strftime("%H:%M") if c.check_in_date else ""
        member, number = c.member_no or "-", c.check_in_number or "-"
        out.line(f"{c.customer_id:<38} {c.display_name:<28} member {member:<10} #{number:<5} {when}")
    return EXIT_OK


async def _charge(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.check_file import read_check_file
    from pos_terminal.services.checkout import AlreadyCharged, ChargeStatus

    check = read_check_file(args.check)
    await act_as(terminal, args)
    customer = await terminal.customers.find(args.customer)
    totals = check.validate()
    out.note(f"Charging {terminal.money.format(totals.charge_amount)} to {customer.display_name}...")
    try:
        outcome = await terminal.checkout.charge(check, customer, again=args.again)
    except AlreadyCharged as exc:
        raise UserError(
            exc.sentence,
            hint=f"Complete it (pos-terminal tx complete {exc.transaction_id}) or cancel it; "
            "to hold the customer's money for this check a second time, add --again.",
        ) from exc
    if outcome.status is ChargeStatus.VERIFYING:
        out.note("The service did not confirm the charge; verifying it by its reference (no second charge is sent)...")
        within = None if args.wait is None else timedelta(seconds=args.wait)
        outcome = await terminal.checkout.settle(outcome.ref_id, within=within)
    record: dict[str, Any] = {"refId": outcome.ref_id, "status": outcome.status.value}
    if outcome.transaction_id:
        # the charge is journaled with its id by now: a read that fails here must not make it look failed
        transaction = outcome.transaction
        if transaction is None:
            try:
                transaction = await terminal.history.get(outcome.transaction_id)
            except UserError as exc:
                out.note(f"The charge is authorized, but its details could not be read now: {exc.sentence}")
        if transaction is not None:
            record = {**transaction.model_dump(by_alias=True, mode="json"), **record}
        else:
            record |= {"transactionId": outcome.transaction_id, "chargeAmount": totals.charge_amount}
        charged = transaction.charge_amount if transaction is not None else totals.charge_amount
        out.line(
            f"Authorized {outcome.transaction_id}: {terminal.money.format(charged)} "
            f"to {customer.display_name}. Complete or cancel it before it is canceled automatically."
        )
    if outcome.duplicates_canceled:
        record["duplicatesCanceled"] = list(outcome.duplicates_canceled)
        out.note(f"Canceled duplicate(s): {', '.join(outcome.duplicates_canceled)}")
    if outcome.message and outcome.status is not ChargeStatus.AUTHORIZED:
        record["message"] = outcome.message
    if outcome.status is ChargeStatus.VERIFYING:
        record["message"] = message = (
            f"The charge {outcome.ref_id} is still being verified with the service. Do not charge this check again: "
            "the next pos-terminal command looks for it again, and “pos-terminal status” shows it."
        )
        out.note(message)
    elif outcome.message and outcome.status is not ChargeStatus.AUTHORIZED:
        out.note(outcome.message)
    out.data(record)
    if outcome.status is ChargeStatus.AUTHORIZED:
        return EXIT_OK
    return EXIT_UNSETTLED if outcome.status is ChargeStatus.VERIFYING else EXIT_ERROR
