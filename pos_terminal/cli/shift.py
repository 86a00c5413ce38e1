"""``shift``: a terminal's shifts opened, reported on (X) and closed with the drawer counted (Z)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pos_terminal.cli.arguments import Commands, action_commands, common_options, output_options, person_options
from pos_terminal.cli.output import EXIT_OK, Output, local_time
from pos_terminal.cli.pins import act_as
from pos_terminal.cli.report import report_copies, report_lines
from pos_terminal.errors import UserError

if TYPE_CHECKING:
    from pos_terminal.domain.shift import DrawerCount
    from pos_terminal.services.terminal import Terminal


def register(commands: Commands) -> None:
    shift = commands.add_parser("shift", help="open, report on and close this terminal's shifts (a manager's PIN)")
    shift_commands = action_commands(shift, "shift_command")
    opening = shift_commands.add_parser("open", help="open a shift with the float counted in the drawer")
    common_options(opening)
    person_options(opening, manager=True)
    opening.add_argument("--float", dest="opening_float", required=True, metavar="AMOUNT", help="the float, e.g. 200")
    opening.set_defaults(handler=_shift_open)
    closing = shift_commands.add_parser("close", help="close the open shift with the cash counted; prints the Z report")
    common_options(closing)
    person_options(closing, manager=True)
    counted = closing.add_mutually_exclusive_group(required=True)
    counted.add_argument("--counted", metavar="AMOUNT", help="the cash counted in the drawer, in total")
    counted.add_argument(
        "--count",
        metavar="VALUE=N",
        action="append",
        help="N notes or coins of VALUE (50=3 is three 50s, 0.20=7 seven 20c coins); repeat for each",
    )
    output_options(closing, layouts=True)
    closing.set_defaults(handler=_shift_close)
    x_report = shift_commands.add_parser("x", help="the open shift so far (changes nothing)")
    common_options(x_report)
    person_options(x_report, manager=True)
    output_options(x_report, layouts=True)
    x_report.set_defaults(handler=_shift_x)
    listing = shift_commands.add_parser("list", help="this terminal's shifts, newest first")
    common_options(listing)
    person_options(listing, manager=True)
    listing.set_defaults(handler=_shift_list)


def _amount(terminal: Terminal, text: str, what: str) -> int:
    try:
        return int(terminal.money.parse(text))
    except UserError as exc:
        raise UserError(f"The {what} “{text}” is not an amount.", hint="Type it like 200 or 150.50.") from exc


def _drawer_count(terminal: Terminal, args: argparse.Namespace) -> DrawerCount:
    from pos_terminal.domain.shift import DrawerCount

    if args.counted is not None:
        return DrawerCount.of_total(_amount(terminal, args.counted, "cash counted"))
    pieces: dict[int, int] = {}
    for item in args.count:
        value, sep, quantity = item.partition("=")
        if not sep or not quantity.strip().isdigit():
            raise UserError(f"“{item}” is not a count.", hint="Give it as VALUE=N, like 50=3 or 0.20=7.")
        cents = _amount(terminal, value, "note or coin")
        pieces[cents] = pieces.get(cents, 0) + int(quantity)
    return DrawerCount.by_denomination(pieces, terminal.settings.currency)


async def _shift_open(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    await act_as(terminal, args, manager=True)
    shift = terminal.till.open_shift(_amount(terminal, args.opening_float, "float"))
    out.data(shift.as_json())
    opening_float = terminal.money.format(shift.opening_float)
    out.line(f"Shift {shift.id} is open, by {shift.opened_by}, with a float of {opening_float}.")
    return EXIT_OK


async def _shift_close(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    await act_as(terminal, args, manager=True)
    count = _drawer_count(terminal, args)
    await terminal.history.refresh_authorized()  # one the service canceled on its own holds nothing up
    closed = terminal.till.close_shift(count)
    reports = terminal.reports(actor=closed.closed_by)
    try:
        report = await terminal.shifts.report(reports, closed)
    except UserError as exc:
        out.data({"shift": closed.as_json(), "report": None})
        raise UserError(
            f"Shift {closed.id} is closed, but its Z report could not be made: {exc.sentence}",
            hint=f"Make it later with pos-terminal report --shift {closed.id}.",
        ) from exc
    report_lines(report, out, terminal.money)
    await report_copies(report, reports, args, out, terminal)
    return EXIT_OK


async def _shift_x(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    person = await act_as(terminal, args, manager=True)
    reports = terminal.reports(actor=person.name if person else terminal.actor)
    report = await terminal.shifts.report(reports, terminal.shifts.require_open())
    report_lines(report, out, terminal.money)
    await report_copies(report, reports, args, out, terminal)
    return EXIT_OK


async def _shift_list(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.domain.shift import drawer_verdict

    await act_as(terminal, args, manager=True)
    shifts = terminal.shifts.all()
    out.data([s.as_json() for s in shifts])
    money = terminal.money.format
    if not shifts:
        out.line("No shift has been opened on this terminal.")
    for s in shifts:
        line = f"#{s.id:<4} {local_time(s.opened_at)} by {s.opened_by:<16} float {money(s.opening_float):>10}"
        if s.is_open:
            out.line(f"{line}  open")
        else:
            assert s.closed_at is not None
            assert s.count is not None
            assert s.expected_cash is not None
            assert s.over_short is not None
            out.line(
                f"{line}  closed {local_time(s.closed_at)} by {s.closed_by}: counted {money(s.count.total)}, "
                f"expected {money(s.expected_cash)}, {drawer_verdict(s.over_short, money)}"
            )
    return EXIT_OK
