"""The options that several commands share, and the types of their values."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, time
from pathlib import Path
from typing import TypeAlias

from pos_terminal.errors import UserError

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""Where each group of commands adds its parsers (``register(commands)``)."""


def profile_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", type=Path, help="base directory for config, journal and logs")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def action_commands(parser: argparse.ArgumentParser, dest: str) -> Commands:
    """The actions of a command (``config set``, ``store join`` …). Its ``--profile`` and ``--json`` are taken before
    the action too (``config --profile DIR set …``), where argparse would read DIR as the action's name."""
    parser.add_argument(
        "--profile", dest="group_profile", type=Path, help="base directory for config, journal and logs"
    )
    parser.add_argument("--json", dest="group_json", action="store_true", help="machine-readable output")
    return parser.add_subparsers(dest=dest, metavar="ACTION", required=True)


def common_options(parser: argparse.ArgumentParser) -> None:
    profile_options(parser)
    parser.add_argument("--service", metavar="URL", help="use a service already running at URL (POS API at URL/v4)")
    # This terminal is the one in the settings; the spelling of releases before 0.2 is refused with a sentence.
    parser.add_argument("--terminal", dest="old_terminal", metavar="ID", help=argparse.SUPPRESS)


class OldTerminalFlag(UserError):
    sentence = "--terminal no longer chooses the terminal: every command acts as the terminal in the settings."
    hint = (
        "Set this terminal's id once with “pos-terminal setup --terminal ID” (or “config set terminal_id ID”); "
        "to report on another terminal use “report --for-terminal ID”."
    )


def parse_moment(text: str) -> datetime:
    """ISO 8601; a time without offset is local time."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"“{text}” is not a date-time like 2026-11-22T09:00") from None
    return (value if value.tzinfo else value.astimezone()).astimezone(UTC)


def parse_seconds(text: str) -> float:
    """A number of seconds, zero or more (an hour at most)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"“{text}” is not a number of seconds from 0 to 3600")
    return value


PIN_FROM = (
    "the PIN is read from the terminal without echo, or from file descriptor N with --pin-fd N; never from the "
    "arguments, which every user of this computer can see"
)


def person_options(parser: argparse.ArgumentParser, *, manager: bool = False) -> None:
    """Who acts, once people work this terminal (a manager for what a cashier would need approved)."""
    who = "a manager on this terminal (default: the only one)" if manager else "a person on this terminal"
    parser.add_argument("--as", dest="person", metavar="NAME", help=f"who does it: {who}; {PIN_FROM}")
    parser.add_argument("--pin-fd", dest="pin_fd", metavar="N", type=int, help="read the PIN from file descriptor N")
    # without it "--pin 1234" would be read as "--pin-fd 1234" (argparse takes prefixes): refused with a sentence
    parser.add_argument("--pin", dest="pin_in_arguments", help=argparse.SUPPRESS)


class PinInArguments(UserError):
    sentence = "A PIN is never taken from the command's arguments: every user of this computer can read them."
    hint = "Leave it out to type it without echo, or give --pin-fd N and write it to file descriptor N."


def range_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="start", type=parse_moment, help="start (ISO 8601, local time unless offset)")
    parser.add_argument(
        "--to", dest="end", type=parse_moment, help="end, exclusive (default: now; tx list: end of today)"
    )
    parser.add_argument("--today", action="store_true", help="since local midnight (the default)")


def output_options(parser: argparse.ArgumentParser, *, layouts: bool = False) -> None:
    """Where a copy goes; a report's copies also come in either layout (a receipt is a roll)."""
    if layouts:
        parser.add_argument("--layout", choices=("a4", "roll"), default="a4", help="A4 page or 80 mm roll (default a4)")
    parser.add_argument("--pdf", metavar="FILE", type=Path, help="save the PDF to FILE")
    parser.add_argument("--print", dest="print_it", action="store_true", help="print on the system printer")
    parser.add_argument("--printer", metavar="NAME", help="with --print: this printer (default: settings, then system)")
    parser.add_argument(
        "--escpos", action="store_true", help="print on the receipt printer of the settings (ESC/POS), in its own text"
    )


def today_start() -> datetime:
    local_midnight = datetime.combine(
        datetime.now().astimezone().date(), time(), tzinfo=datetime.now().astimezone().tzinfo
    )
    return local_midnight.astimezone(UTC)
