"""Entry point ``pos-terminal``: the GUI by default, and the command line.

Every command that talks to the service first resumes what a crash or a
network failure left unfinished (charge intents, then the outbox). Expected
failures print one sentence and exit non-zero; ``--json`` prints records as the
API returns them.

Without a command it opens the window, which paints its first screen before the settings, asyncio and the
service's side are loaded (``pos_terminal.app``): this module imports them where a command needs them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pos_terminal.domain.lifecycle import Action
from pos_terminal.domain.words import counted, duration
from pos_terminal.errors import ConfigError, UserError
from pos_terminal.logs import configure_logging
from pos_terminal.paths import Paths

if TYPE_CHECKING:
    from pos_terminal.api.auth import DeviceStatus
    from pos_terminal.config import Settings

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNSETTLED = 0, 1, 2, 3


class Output:
    """Human lines or JSON records, to stdout; notes and errors to stderr."""

    def __init__(self, as_json: bool, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.as_json = as_json
        # the streams of the moment, not those of import time, so a redirected stdout is honoured
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr

    def line(self, text: str = "") -> None:
        if not self.as_json:
            print(text, file=self.out, flush=True)

    def note(self, text: str) -> None:
        print(text, file=self.err, flush=True)

    def data(self, value: Any) -> None:
        if self.as_json:
            print(json.dumps(value, ensure_ascii=False, indent=2), file=self.out, flush=True)


def _profile(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", type=Path, help="base directory for config, journal and logs")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _common(parser: argparse.ArgumentParser) -> None:
    _profile(parser)
    parser.add_argument("--service", metavar="URL", help="use a service already running at URL (POS API at URL/v4)")
    # This terminal is the one in the settings; the spelling of releases before 0.2 is refused with a sentence.
    parser.add_argument("--terminal", dest="old_terminal", metavar="ID", help=argparse.SUPPRESS)


class OldTerminalFlag(UserError):
    sentence = "--terminal no longer chooses the terminal: every command acts as the terminal in the settings."
    hint = (
        "Set this terminal's id once with “pos-terminal setup --terminal ID” (or “config set terminal_id ID”); "
        "to report on another terminal use “report --for-terminal ID”."
    )


def _moment(text: str) -> datetime:
    """ISO 8601; a time without offset is local time."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"“{text}” is not a date-time like 2026-11-22T09:00") from None
    return (value if value.tzinfo else value.astimezone()).astimezone(UTC)


def _seconds(text: str) -> float:
    """A number of seconds, zero or more (an hour at most)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"“{text}” is not a number of seconds from 0 to 3600")
    return value


class _Version(argparse.Action):
    """``--version``: the version is read from the package's metadata only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from pos_terminal.version import version

        print(f"pos-terminal {version()}")  # on standard output, as argparse's own version action
        parser.exit()


def _window_parser(*, whole: bool = True) -> argparse.ArgumentParser:
    """The options of the window (no command); the whole command line adds its commands to these. ``whole=False``
    is the quick look at a start of the window, which leaves everything else (help too) to the whole parser."""
    parser = argparse.ArgumentParser(
        prog="pos-terminal",
        description="Point-of-sale terminal. Without a command: the cashier's window.",
        add_help=whole,
        exit_on_error=whole,
    )
    parser.add_argument("--profile", dest="gui_profile", type=Path, help="window: base directory for config and data")
    parser.add_argument("--service", dest="gui_service", metavar="URL", help="window: use a service running at URL")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    return parser


def _window_args(argv: Sequence[str]) -> argparse.Namespace | None:
    """The window's options when ``argv`` asks for the window and nothing else, else None. The window starts
    without building the parsers of every command (its first screen is painted as early as it can be)."""
    try:
        args, rest = _window_parser(whole=False).parse_known_args(argv)
    except argparse.ArgumentError:
        return None
    return None if rest else args


def build_parser() -> argparse.ArgumentParser:
    parser = _window_parser()
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    setup = commands.add_parser(
        "setup", help="write this terminal's settings (region, terminal id, ...) without the window"
    )
    _profile(setup)
    setup.add_argument("--region", required=True, help="sandbox (embedded), a region of the region table, or custom")
    setup.add_argument("--terminal", dest="terminal_id", required=True, metavar="ID", help="this terminal's id")
    setup.add_argument("--locale", help="locale of amounts and dates, like en_AU (default: as set, else en_AU)")
    setup.add_argument("--currency", help="ISO 4217 code, like AUD (default: as set, else AUD)")
    setup.add_argument("--printer", help="the printer for reports and receipts (a system printer, or pdf:FILE)")
    setup.add_argument("--auth-url", dest="auth_url", metavar="URL", help="with --region custom: the auth address")
    setup.add_argument("--pos-url", dest="pos_url", metavar="URL", help="with --region custom: the POS API address")
    setup.add_argument(
        "--payments-url", dest="payments_url", metavar="URL", help="with --region custom: the web payments address"
    )
    setup.add_argument(
        "--store", dest="url", metavar="URL", help="also join the store whose database is at URL (as store join)"
    )
    setup.add_argument(
        "--password-fd", dest="password_fd", metavar="N", type=int, help="with --store: read its password from fd N"
    )

    config = commands.add_parser("config", help="show or change single settings")
    config_commands = config.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    _profile(config_commands.add_parser("list", help="every setting and its value"))
    config_get = config_commands.add_parser("get", help="the value of one setting")
    _profile(config_get)
    config_get.add_argument("name", help="a setting, like terminal_id or custom_urls.auth_url")
    config_set = config_commands.add_parser("set", help="change one setting (checked as the set-up page checks)")
    _profile(config_set)
    config_set.add_argument("name")
    config_set.add_argument("value")
    config_unset = config_commands.add_parser("unset", help="put one setting back to its default")
    _profile(config_unset)
    config_unset.add_argument("name")

    login = commands.add_parser("login", help="sign in with a device code (or a token created by hand)")
    _common(login)
    login.add_argument(
        "--token",
        help="store a token created by hand instead of the device flow; - reads it from standard input "
        "(a token in the arguments is visible to every user of this computer)",
    )
    login.add_argument("--legacy", action="store_true", help="send the token as X-Api-Token")
    login.add_argument("--demo", action="store_true", help="sandbox only: approve at once as the demo merchant")
    logout = commands.add_parser("logout", help="disconnect: remove the stored sign-in")
    _common(logout)
    _person(logout, manager=True)
    _common(commands.add_parser("status", help="connection and journal"))
    _common(commands.add_parser("customers", help="customers checked in at the merchant"))

    charge = commands.add_parser("charge", help="charge a checked-in customer for a check")
    _common(charge)
    charge.add_argument("--customer", required=True, help="customer id, check-in id, member or check-in number")
    charge.add_argument("--check", required=True, type=Path, help="check file (JSON)")
    charge.add_argument(
        "--again",
        action="store_true",
        help="charge the check even while an earlier charge of it for this customer is still authorized",
    )
    charge.add_argument(
        "--wait",
        type=_seconds,
        metavar="SECONDS",
        help="how long to verify a charge the service did not confirm before leaving it to the next command "
        "(default: the terminal's verify window)",
    )
    _person(charge)

    tx = commands.add_parser("tx", help="transactions")
    tx_commands = tx.add_subparsers(dest="tx_command", metavar="ACTION", required=True)
    tx_list = tx_commands.add_parser("list", help="transactions by range (default today) and terminal")
    _common(tx_list)
    _range(tx_list)
    tx_list.add_argument("--all", action="store_true", help="every terminal")
    for name in ("get", "complete", "cancel", "refund"):
        action = tx_commands.add_parser(name, help=f"{name} a transaction")
        _common(action)
        action.add_argument("transaction_id")
        if name in ("cancel", "refund"):
            _person(action, manager=True)
        if name == "complete":
            _person(action)  # optional: who completes it, for the audit log (else the computer's user)
        if name == "refund":
            action.add_argument("--yes", action="store_true", help="refund without asking")

    summary = commands.add_parser("summary", help="summary report by terminal or merged")
    _common(summary)
    _range(summary)
    scope = summary.add_mutually_exclusive_group()
    scope.add_argument("--all", action="store_true", help="one record per terminal")
    scope.add_argument("--merge", action="store_true", help="all terminals merged into one")

    report = commands.add_parser("report", help="end-of-day or shift report, reconciled; as text, JSON, PDF or printed")
    _common(report)
    report.add_argument(
        "--for-terminal",
        dest="report_terminal",
        metavar="ID",
        help="report on another terminal (default: this one; this terminal keeps its id and sign-in)",
    )
    when = report.add_mutually_exclusive_group()
    when.add_argument("--today", action="store_true", help="since local midnight (the default)")
    when.add_argument("--yesterday", action="store_true", help="yesterday, local midnight to midnight")
    when.add_argument("--shift-from", dest="shift_from", metavar="T", type=_moment, help="this shift, since T")
    when.add_argument(
        "--shift", metavar="WHICH", help="a shift's X or Z report: current, last (the last closed) or its number"
    )
    when.add_argument("--from", dest="start", metavar="T", type=_moment, help="from T (ISO 8601, local unless offset)")
    report.add_argument(
        "--to", dest="end", metavar="T", type=_moment, help="with --from: until T, exclusive (default now)"
    )
    report_scope = report.add_mutually_exclusive_group()
    report_scope.add_argument("--all", action="store_true", help="every terminal, one row each")
    report_scope.add_argument("--merge", action="store_true", help="every terminal merged into one row")
    report_scope.add_argument(
        "--store",
        action="store_true",
        help="the store's day: every till's shifts and drawers, cash sales and people (a till of a store)",
    )
    _output(report, layouts=True)

    _shift_commands(commands)
    _people_commands(commands)
    _store_commands(commands)
    _catalog_commands(commands)

    receipt = commands.add_parser("receipt", help="receipt of a completed or refunded transaction (80 mm)")
    _common(receipt)
    receipt.add_argument("transaction_id")
    _output(receipt)

    from pos_terminal.sandbox.cli import add_arguments as add_sandbox_arguments

    sandbox = commands.add_parser("sandbox", help="run the emulated service on loopback")
    add_sandbox_arguments(sandbox)
    return parser


PIN_FROM = (
    "the PIN is read from the terminal without echo, or from file descriptor N with --pin-fd N; never from the "
    "arguments, which every user of this computer can see"
)


def _person(parser: argparse.ArgumentParser, *, manager: bool = False) -> None:
    """Who acts, once people work this terminal (a manager for what a cashier would need approved)."""
    who = "a manager on this terminal (default: the only one)" if manager else "a person on this terminal"
    parser.add_argument("--as", dest="person", metavar="NAME", help=f"who does it: {who}; {PIN_FROM}")
    parser.add_argument("--pin-fd", dest="pin_fd", metavar="N", type=int, help="read the PIN from file descriptor N")
    # without it "--pin 1234" would be read as "--pin-fd 1234" (argparse takes prefixes): refused with a sentence
    parser.add_argument("--pin", dest="pin_in_arguments", help=argparse.SUPPRESS)


class PinInArguments(UserError):
    sentence = "A PIN is never taken from the command's arguments: every user of this computer can read them."
    hint = "Leave it out to type it without echo, or give --pin-fd N and write it to file descriptor N."


def _shift_commands(commands: Any) -> None:
    shift = commands.add_parser("shift", help="open, report on and close this terminal's shifts (a manager's PIN)")
    shift_commands = shift.add_subparsers(dest="shift_command", metavar="ACTION", required=True)
    opening = shift_commands.add_parser("open", help="open a shift with the float counted in the drawer")
    _common(opening)
    _person(opening, manager=True)
    opening.add_argument("--float", dest="opening_float", required=True, metavar="AMOUNT", help="the float, e.g. 200")
    closing = shift_commands.add_parser("close", help="close the open shift with the cash counted; prints the Z report")
    _common(closing)
    _person(closing, manager=True)
    counted = closing.add_mutually_exclusive_group(required=True)
    counted.add_argument("--counted", metavar="AMOUNT", help="the cash counted in the drawer, in total")
    counted.add_argument(
        "--count",
        metavar="VALUE=N",
        action="append",
        help="N notes or coins of VALUE (50=3 is three 50s, 0.20=7 seven 20c coins); repeat for each",
    )
    _output(closing, layouts=True)
    x_report = shift_commands.add_parser("x", help="the open shift so far (changes nothing)")
    _common(x_report)
    _person(x_report, manager=True)
    _output(x_report, layouts=True)
    listing = shift_commands.add_parser("list", help="this terminal's shifts, newest first")
    _common(listing)
    _person(listing, manager=True)


def _people_commands(commands: Any) -> None:
    people = commands.add_parser("people", help="who works this terminal's till (a manager's PIN)")
    people_commands = people.add_subparsers(dest="people_command", metavar="ACTION", required=True)
    add = people_commands.add_parser("add", help="add a person (the first one is a manager, with no PIN asked)")
    _common(add)
    _person(add, manager=True)
    add.add_argument("name")
    add.add_argument("--role", choices=("cashier", "manager"), default="cashier")
    add.add_argument("--new-pin-fd", dest="new_pin_fd", metavar="N", type=int, help="read the new PIN from fd N")
    listing = people_commands.add_parser("list", help="the people of this terminal")
    _common(listing)
    _person(listing, manager=True)
    for name, text in (
        ("disable", "a person can no longer sign in"),
        (
            "reset-pin",
            "the person chooses a new PIN at the till at their next sign-in (--new-pin-fd: give it here instead);"
            " it also unlocks and enables them",
        ),
        ("unlock", "lift the lock after five wrong PINs"),
        ("enable", "a disabled person can sign in again"),
        ("rename", "call a person by another name (history keeps the old one)"),
        ("role", "make a person a cashier or a manager"),
    ):
        action = people_commands.add_parser(name, help=text)
        _common(action)
        _person(action, manager=True)
        action.add_argument("name")
        if name == "rename":
            action.add_argument("new_name", metavar="NEW_NAME")
        if name == "role":
            action.add_argument("role", choices=("cashier", "manager"))
        if name == "reset-pin":
            action.add_argument(
                "--new-pin-fd",
                dest="new_pin_fd",
                metavar="N",
                type=int,
                help="set the new PIN here, read from fd N (without it, the person chooses it at the till)",
            )


def _catalog_commands(commands: Any) -> None:
    catalog = commands.add_parser(
        "catalog", help="the products this till sells (in a store: the store's, for every till)"
    )
    catalog_commands = catalog.add_subparsers(dest="catalog_command", metavar="ACTION", required=True)
    listing = catalog_commands.add_parser("list", help="the catalog in use, tab by tab")
    _common(listing)
    importing = catalog_commands.add_parser(
        "import", help="make a catalog file the catalog (a manager's PIN); it is checked whole first"
    )
    _common(importing)
    _person(importing, manager=True)
    importing.add_argument(
        "file", help="a catalog file: JSON (the format of resources/catalog.json), or CSV for a name ending .csv"
    )
    exporting = catalog_commands.add_parser(
        "export", help="write the catalog in use to a file: JSON, or CSV for a name ending .csv (- for standard output)"
    )
    _common(exporting)
    exporting.add_argument("file")
    exporting.add_argument("--format", choices=("json", "csv"), default="json", help="for -: the format (default json)")
    details = commands.add_parser(
        "details", help="the store's name, address, tax number, receipt header and footer (printed on slips)"
    )
    _common(details)
    _person(details, manager=True)
    for flag, text in (
        ("--name", "the store's name"),
        ("--address", "its address"),
        ("--tax-number", "its tax number"),
        ("--header", "lines printed at the top of every receipt"),
        ("--footer", "lines printed at the foot of every receipt"),
    ):
        details.add_argument(flag, metavar="TEXT", help=f"{text} (an empty TEXT removes it)")
    logo = details.add_mutually_exclusive_group()
    logo.add_argument(
        "--logo", metavar="FILE", help="a PNG or JPEG printed above the store's name (at most 512 KB, 1024x1024 px)"
    )
    logo.add_argument("--no-logo", action="store_true", help="print no logo")


def _store_commands(commands: Any) -> None:
    store = commands.add_parser("store", help="a store of several tills: its shared database")
    store_commands = store.add_subparsers(dest="store_command", metavar="ACTION", required=True)
    for name, text in (
        ("init", "set up (or upgrade) the store database at URL"),
        ("join", "make this till part of the store whose database is at URL"),
    ):
        action = store_commands.add_parser(name, help=text)
        _profile(action)
        action.add_argument(
            "url", metavar="URL", help="postgresql://USER@HOST:PORT/DB[?sslmode=require] or sqlite:///FILE"
        )
        action.add_argument(
            "--password-fd", dest="password_fd", metavar="N", type=int, help="read the password from file descriptor N"
        )
        if name == "init":
            action.add_argument(
                "--till-roles",
                dest="till_roles",
                action="store_true",
                help="PostgreSQL: also set up the role for tills, so each writes only its own records (docs/store.md)",
            )
    add_till = store_commands.add_parser(
        "add-till", help="PostgreSQL: a database user of its own for the till TERMINAL_ID (as the store's owner)"
    )
    _profile(add_till)
    add_till.add_argument("url", metavar="URL", help="postgresql://OWNER@HOST:PORT/DB[?sslmode=require]")
    add_till.add_argument("terminal_id", metavar="TERMINAL_ID", help="the till's terminal id, which is its user name")
    add_till.add_argument(
        "--password-fd", dest="password_fd", metavar="N", type=int, help="read the owner's password from fd N"
    )
    add_till.add_argument(
        "--till-password-fd",
        dest="till_password_fd",
        metavar="N",
        type=int,
        help="read the till's new password from fd N",
    )
    for name, text in (
        ("status", "whether the store database is reached, and what waits to be sent"),
        ("leave", "stop being part of the store (nothing is lost)"),
    ):
        _profile(store_commands.add_parser(name, help=text))


def _range(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="start", type=_moment, help="start (ISO 8601, local time unless offset)")
    parser.add_argument("--to", dest="end", type=_moment, help="end, exclusive (default: now; tx list: end of today)")
    parser.add_argument("--today", action="store_true", help="since local midnight (the default)")


def _output(parser: argparse.ArgumentParser, *, layouts: bool = False) -> None:
    """Where a copy goes; a report's copies also come in either layout (a receipt is a roll)."""
    if layouts:
        parser.add_argument("--layout", choices=("a4", "roll"), default="a4", help="A4 page or 80 mm roll (default a4)")
    parser.add_argument("--pdf", metavar="FILE", type=Path, help="save the PDF to FILE")
    parser.add_argument("--print", dest="print_it", action="store_true", help="print on the system printer")
    parser.add_argument("--printer", metavar="NAME", help="with --print: this printer (default: settings, then system)")
    parser.add_argument(
        "--escpos", action="store_true", help="print on the receipt printer of the settings (ESC/POS), in its own text"
    )


def _today_start() -> datetime:
    local_midnight = datetime.combine(
        datetime.now().astimezone().date(), time(), tzinfo=datetime.now().astimezone().tzinfo
    )
    return local_midnight.astimezone(UTC)


def _token_joined(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``--token VALUE`` as ``--token=VALUE`` when VALUE starts with "-", which argparse takes for an option.

    One URL-safe token in 64 starts with a dash; a known option after ``--token`` stays an option.
    """
    options: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and "login" in action.choices:
            options = set(action.choices["login"]._option_string_actions)
    joined: list[str] = []
    index = 0
    while index < len(argv):
        value = argv[index + 1] if index + 1 < len(argv) else None
        if argv[index] == "--token" and value and value.startswith("-") and value.split("=")[0] not in options:
            joined.append(f"--token={value}")
            index += 2
        else:
            joined.append(argv[index])
            index += 1
    return joined


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if (window := _window_args(argv)) is not None:
        return _launch_gui(window)
    parser = build_parser()
    args = parser.parse_args(_token_joined(parser, argv))
    try:
        _options_before_the_command(args)
    except UserError as exc:
        Output(False).note(exc.text())
        return EXIT_ERROR
    if args.command == "sandbox":
        from pos_terminal.embedded import run_sandbox_command

        try:
            return run_sandbox_command(args)
        except UserError as exc:
            Output(False).note(exc.text())
            return EXIT_ERROR
    if args.command is None:
        return _launch_gui(args)
    out = Output(getattr(args, "json", False))
    try:
        if args.command in _SETTINGS_HANDLERS:
            handler = _SETTINGS_HANDLERS[args.command]
            return handler(Paths.for_profile(args.profile), args, out)
        if args.command == "store":
            import asyncio

            return asyncio.run(_store(Paths.for_profile(args.profile), args, out))
        if args.old_terminal is not None:
            raise OldTerminalFlag()
        if getattr(args, "pin_in_arguments", None) is not None:
            raise PinInArguments()
        import asyncio

        return asyncio.run(_run(args, out))
    except UserError as exc:
        out.note(exc.text())
        return EXIT_ERROR
    except KeyboardInterrupt:
        out.note("Interrupted.")
        return EXIT_ERROR
    except BrokenPipeError:
        return _reader_gone()


def _options_before_the_command(args: argparse.Namespace) -> None:
    """``pos-terminal --profile DIR people add …`` means the profile DIR, as ``people add … --profile DIR`` does
    (the README's window example puts it first); a command that takes no such option, or a second value that
    differs, is one sentence rather than a command run on another profile."""
    if args.command is None:
        return
    for option, window, own in (("--profile", "gui_profile", "profile"), ("--service", "gui_service", "service")):
        given = getattr(args, window, None)
        if given is None:
            continue
        if not hasattr(args, own):
            raise UserError(f"pos-terminal {args.command} takes no {option}.", hint=f"Leave out {option}.")
        mine = getattr(args, own)
        if mine is not None and mine != given:
            raise UserError(
                f"{option} is given twice, as {given} and {mine}.",
                hint=f"Give {option} once, before or after the command.",
            )
        setattr(args, own, given)


def _reader_gone() -> int:
    """The program reading our output closed it (``| head``): end quietly, as other Unix tools do. Whatever the
    command did is done and journaled; what is left unprinted goes nowhere, not to a traceback at exit."""
    import signal

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing will flush into a closed pipe at exit
    return 128 + signal.SIGPIPE


def _launch_gui(args: argparse.Namespace) -> int:
    """The cashier's window, against the embedded sandbox unless configured otherwise."""
    from pos_terminal.app import run_gui

    return run_gui(Paths.for_profile(args.gui_profile), service_url=args.gui_service)


async def _run(args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.config import load_settings
    from pos_terminal.embedded import start_embedded_sandbox
    from pos_terminal.services.terminal import Terminal, resolve_service

    paths = Paths.for_profile(args.profile).ensure()
    configure_logging(paths.log_file, f"pos-terminal {args.command}")
    settings, _ = load_settings(paths.config_file)
    async with AsyncExitStack() as stack:
        embedded_root = None
        if not args.service and settings.region == "sandbox":
            server = start_embedded_sandbox(paths)
            stack.callback(server.stop)
            embedded_root = server.url
        service = resolve_service(settings, paths, service_url=args.service, embedded_root=embedded_root)
        terminal = Terminal(paths, settings, service)
        stack.push_async_callback(terminal.aclose)
        sub = {
            "tx": "tx_command",
            "shift": "shift_command",
            "people": "people_command",
            "catalog": "catalog_command",
        }.get(args.command)
        handler = _HANDLERS[f"{args.command} {getattr(args, sub)}" if sub else args.command]
        if args.command not in ("login", "logout", "status") and terminal.session.state.value == "connected":
            await _resume(terminal, out)
        reached = await _store_pass(terminal.store, out)
        code = await handler(terminal, args, out)
        if reached:  # what the command wrote goes now (a store found away a moment ago is not waited for twice)
            await _store_pass(terminal.store, out, quiet=True)
        return code


async def _store_pass(store: Any, out: Output, *, quiet: bool = False) -> bool:
    """One exchange with the store database, for a till that is part of a store: a command never fails for it.
    Whether the store was reached (False for a till that stands alone)."""
    if not store.linked:
        return False
    try:
        await store.sync()
    except UserError as exc:
        if not quiet:
            status = store.status()
            out.note(f"{status.sentence(_local)}: {exc.sentence}")
        return False
    return True


async def _store(paths: Paths, args: argparse.Namespace, out: Output) -> int:
    """``store init|add-till|join|status|leave``: the journal and the keychain, no sign-in to the service needed."""
    from pos_terminal.config import load_settings
    from pos_terminal.services.store_sync import store_sync_for

    paths = paths.ensure()
    configure_logging(paths.log_file, f"pos-terminal store {args.store_command}")
    settings, _ = load_settings(paths.config_file)
    if args.store_command in ("init", "add-till"):
        return await _store_owner(args, out)
    from pos_terminal.store.journal import Journal

    with Journal(paths.journal_file) as journal:
        store = store_sync_for(journal, paths, lambda: settings)
        try:
            if args.store_command == "join":
                await store.close()
                status = await _join_store(paths, settings, args, out)
            elif args.store_command == "leave":
                status = await store.leave()
                out.line("This till is no longer part of a store; everything it recorded stays in its journal.")
            else:
                if store.linked:
                    await _store_pass(store, out)
                status = store.status()
        finally:
            await store.close()
    out.data(_store_status_json(status))
    if status.linked:
        out.line(f"Store:       {status.address}")
        out.line(f"Link:        {status.sentence(_local)}")
        out.line(f"Last change: {_local(status.last_change_at) if status.last_change_at else 'none yet'}")
        for refused in status.refused:
            out.line(f"Refused:     {refused.kind} {refused.key}: {refused.reason}")
    elif args.store_command == "status":
        out.line("This till is not part of a store.")
    return EXIT_OK


async def _store_owner(args: argparse.Namespace, out: Output) -> int:
    """``store init`` and ``store add-till``: the store's owner sets up the schema, the tills' role, a till's user."""
    import asyncio

    from pos_terminal.services.store_sync import split_password
    from pos_terminal.store.database import StoreDatabase
    from pos_terminal.store.roles import add_till, can_refresh_till_roles, require_roles, set_up_till_roles

    address, password = _store_address(args, split_password)
    with StoreDatabase(address, password=password) as database:
        if args.store_command == "add-till":
            require_roles(database)  # before the till's password is asked
            till_password = _till_password(args.terminal_id, args.till_password_fd)
            await asyncio.to_thread(add_till, database, args.terminal_id, till_password)
            user = _with_user(address, args.terminal_id)
            out.line(f"Till {args.terminal_id} logs in to the store database as “{args.terminal_id}”: on it, run")
            out.line(f"  pos-terminal store join {user}")
            out.data({"address": address, "till": args.terminal_id, "joinAddress": user})
            return EXIT_OK
        roles = bool(args.till_roles)
        if roles:
            require_roles(database)  # a file has none: said before anything is set up
        await asyncio.to_thread(database.init_schema)
        # a schema upgrade may bring a table: the tills' grants are refreshed whenever the tills have roles
        roles = roles or await asyncio.to_thread(can_refresh_till_roles, database)
        if roles:
            await asyncio.to_thread(set_up_till_roles, database)
    out.line(f"The store database {address} is set up" + (", with a role for its tills." if roles else "."))
    out.data({"address": address, "schema": "current", "tillRoles": roles})
    return EXIT_OK


def _till_password(terminal_id: str, fd: int | None) -> str:
    """A till's new password: from fd ``fd``, or typed twice without echo."""
    if fd is not None:
        return read_secret("", fd, what="password")
    asked = {"what": "password", "option": "--till-password-fd"}
    password = read_secret(f"New password of till {terminal_id} for the store database: ", None, **asked)
    if read_secret("The same password again: ", None, **asked) != password:
        raise UserError("The two passwords differ.", hint="Type the same password twice.")
    return password


def _with_user(address: str, user: str) -> str:
    """``address`` with ``user`` as its user name (quoted as a URL needs)."""
    from urllib.parse import quote, urlsplit, urlunsplit

    parts = urlsplit(address)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = f"{quote(user, safe='')}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _store_address(args: argparse.Namespace, split: Callable[[str], tuple[str, str | None]]) -> tuple[str, str | None]:
    """The address without its password, and the password: from the address, --password-fd, or typed."""
    address, password = split(args.url)
    if password is None and args.password_fd is not None:
        password = read_secret("", args.password_fd, what="password")
    elif password is None and address.startswith("postgresql") and sys.stdin.isatty():
        import getpass

        password = getpass.getpass("Password of the store database (empty for none): ") or None
    return address, password


def _store_status_json(status: Any) -> dict[str, Any]:
    def when(moment: datetime | None) -> str | None:
        return moment.isoformat() if moment else None

    return {
        "linked": status.linked,
        "address": status.address,
        "online": status.online,
        "offlineSince": when(status.offline_since),
        "lastChangeAt": when(status.last_change_at),
        "lastContactAt": when(status.last_contact_at),
        "waiting": status.waiting,
        "lastError": status.last_error,
        "refused": [{"kind": r.kind, "key": r.key, "reason": r.reason} for r in status.refused],
    }


async def _resume(terminal: Any, out: Output) -> None:
    report = await terminal.checkout.resume()
    for charge in report.charges:
        out.note(
            f"Resumed charge {charge.ref_id}: {charge.status}"
            + (f" ({charge.transaction_id})" if charge.transaction_id else "")
        )
    for change in report.state_changes:
        out.note(f"Resumed {change.target} of {change.transaction_id}: {change.status}")
    for transaction_id in report.late_duplicates_canceled:
        out.note(f"Canceled {transaction_id}: it landed after its charge was declared failed.")


# --- commands ---------------------------------------------------------------------------------------

Handler = Callable[[Any, argparse.Namespace, Output], Awaitable[int]]


async def _login(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    session = terminal.session
    if args.token:
        from_stdin = args.token == "-"  # noqa: S105 (the conventional name of standard input, not a secret)
        import asyncio

        token = (await asyncio.to_thread(sys.stdin.readline)).strip() if from_stdin else args.token
        if not token:
            raise UserError(
                "No token came on standard input.", hint="Pipe the token into “pos-terminal login --token -”."
            )
        await session.sign_in_with_token(token, legacy=args.legacy)
        out.line("Signed in with the token given.")
        out.data({"state": session.state.value})
        return EXIT_OK
    authorization = await session.start_device_sign_in()
    out.note(f"To sign in, open {authorization.verification_uri} and enter the code {authorization.user_code}")
    if authorization.verification_uri_complete:
        out.note(f"or open {authorization.verification_uri_complete}")
    out.note(f"Waiting for approval (the code expires in {duration(authorization.expires_in)})...")
    if args.demo:
        await terminal.approve_demo_sign_in(authorization.user_code)
    shown: list[str] = []

    def on_status(status: DeviceStatus) -> None:
        if not shown or shown[-1] != status.message:
            shown.append(status.message)
            out.note(f"... {status.message}")

    await session.finish_device_sign_in(authorization, on_status)
    out.line("Signed in.")
    if (ends := _renewal_note(session)) is not None:
        out.note(ends)
    out.data({"state": session.state.value})
    return EXIT_OK


def _renewal_note(session: Any) -> str | None:
    """The one sentence for a sign-in that cannot be renewed, with the time it ends."""
    ends = session.ends_at
    if ends is None:
        return None
    return (
        f"This sign-in ends at {_local(ends)} and cannot be renewed: the service gave no refresh token. "
        "Sign in again then (some services renew only with the scope offline_access; see auth.REGION.scope)."
    )


async def _logout(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    person = await _act_as(terminal, args, manager=True)
    terminal.session.disconnect(actor=person.name if person else None)
    out.line("Disconnected: the stored sign-in was removed.")
    out.data({"state": terminal.session.state.value})
    return EXIT_OK


async def _status(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    journal = terminal.journal
    status = {
        "service": terminal.service.name,
        "production": terminal.service.production,
        "authUrl": terminal.service.auth_url,
        "posUrl": terminal.service.pos_url,
        "terminalId": terminal.settings.terminal_id,
        "session": terminal.session.state.value,
        "signInEnds": terminal.session.ends_at.isoformat() if terminal.session.ends_at else None,
        "tokenStore": terminal.session.store.description,
        "insecureTokenStore": terminal.session.store.insecure,
        "pendingStateChanges": len(journal.pending_state_changes()),
        "unfinishedCharges": len(journal.unfinished_intents()),
    }
    out.data(status)
    badge = "" if terminal.service.production else " [SANDBOX]"
    out.line(f"Service:     {terminal.service.name}{badge} ({terminal.service.pos_url})")
    out.line(f"Terminal:    {status['terminalId']}")
    out.line(f"Connection:  {status['session']}")
    if (ends := _renewal_note(terminal.session)) is not None:
        out.line(f"Sign-in:     {ends}")
    out.line(f"Sign-in in:  {status['tokenStore']}" + (" — INSECURE" if status["insecureTokenStore"] else ""))
    charges, changes = status["unfinishedCharges"], status["pendingStateChanges"]
    out.line(f"Pending:     {counted(charges, 'charge')} verifying, {counted(changes, 'state change')} to send")
    return EXIT_OK


async def _customers(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    customers = await terminal.customers.refresh()
    out.data([c.model_dump(by_alias=True, mode="json") for c in customers])
    if not customers:
        out.line("Nobody is checked in at the moment.")
    for c in customers:
        when = c.check_in_date.astimezone().strftime("%H:%M") if c.check_in_date else ""
        member, number = c.member_no or "-", c.check_in_number or "-"
        out.line(f"{c.customer_id:<38} {c.display_name:<28} member {member:<10} #{number:<5} {when}")
    return EXIT_OK


async def _charge(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.check_file import read_check_file
    from pos_terminal.services.checkout import AlreadyCharged, ChargeStatus

    check = read_check_file(args.check)
    await _act_as(terminal, args)
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


def _tx_line(terminal: Any, t: Any) -> str:
    created = t.created.astimezone().strftime("%Y-%m-%d %H:%M") if t.created else ""
    return (
        f"{t.transaction_id:<38} {t.state.value:<10} {terminal.money.format(t.charge_amount):>12} "
        f"{created:<16} {t.terminal_id or '-':<10} {t.customer.display_name if t.customer else ''}"
    )


async def _tx_list(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    start = args.start or _today_start()
    # to the end of today, not to now: a service whose clock runs ahead stamps what it made just now later
    end = args.end or _today_start() + timedelta(days=1)
    terminal_id = None if args.all else terminal.settings.terminal_id
    transactions = await terminal.history.list(start, end, terminal_id)
    out.data([t.model_dump(by_alias=True, mode="json") for t in transactions])
    if not transactions:
        out.line("No transactions in that range.")
    for t in transactions:
        out.line(_tx_line(terminal, t))
    return EXIT_OK


async def _tx_get(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    transaction = await terminal.history.get(args.transaction_id)
    out.data(transaction.model_dump(by_alias=True, mode="json"))
    out.line(_tx_line(terminal, transaction))
    return EXIT_OK


def _state_command(action: Action) -> Handler:
    async def run(terminal: Any, args: argparse.Namespace, out: Output) -> int:
        if action is Action.REFUND and not args.yes:
            transaction = await terminal.history.get(args.transaction_id)
            amount = terminal.money.format(transaction.charged_amount)
            if not sys.stdin.isatty():
                raise UserError(f"Refunding {amount} needs a confirmation.", hint="Add --yes to refund without asking.")
            import asyncio

            answer = await asyncio.to_thread(input, f"Refund {amount} to {transaction.customer.display_name}? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                out.note("Nothing was refunded.")
                return EXIT_ERROR
        if action is not Action.COMPLETE:
            await _act_as(terminal, args, manager=True)
        elif args.person:
            await _act_as(terminal, args)
        outcome = await terminal.checkout.change_state(args.transaction_id, action)
        record: dict[str, Any] = {"transactionId": args.transaction_id, "status": outcome.status.value}
        if outcome.transaction is not None:
            record = {**outcome.transaction.model_dump(by_alias=True, mode="json"), "status": outcome.status.value}
        if outcome.message:
            record["message"] = outcome.message
        out.data(record)
        if outcome.close_call_seconds is not None:
            out.note(f"Only about {outcome.close_call_seconds} s were left before automatic cancellation.")
        if outcome.status.value == "done":
            state = outcome.transaction.state if outcome.transaction else outcome.target
            out.line(f"{args.transaction_id} is {state.value}.")
            return EXIT_OK
        out.note(outcome.message or f"The {action.value} was not confirmed.")
        return EXIT_UNSETTLED if outcome.status.value == "pending" else EXIT_ERROR

    return run


async def _summary(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    start = args.start or _today_start()
    terminal_id = None if (args.all or args.merge) else terminal.settings.terminal_id
    records = await terminal.summaries.fetch(start, args.end, terminal_id=terminal_id, merge=args.merge)
    out.data(
        [r.model_dump(by_alias=True, mode="json") for r in records]
        if not args.merge
        else records[0].model_dump(by_alias=True, mode="json")
    )
    money = terminal.money.format
    if not records:
        out.line("No completed transactions in that range.")
    for r in records:
        out.line(
            f"{r.terminal_id or '(no terminal)':<16} count {r.count:>5}  total {money(r.total):>12}  "
            f"tips {money(r.tips):>10}  fees {money(r.fees):>10}  payout {money(r.payout):>12}"
        )
    return EXIT_OK


async def _report(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.domain.report import ReportScope, TimeRange
    from pos_terminal.services.reports import Reports

    reports = Reports.for_terminal(terminal, actor=terminal.actor)
    if args.shift is not None:
        if args.report_terminal or args.all or args.merge or args.store:
            raise UserError(
                "A shift's report is this terminal's.", hint="Leave out --for-terminal, --all, --merge and --store."
            )
        shift = terminal.shifts.resolve(args.shift)
        report = await terminal.shifts.report(reports, shift)
        _report_lines(report, out, terminal.money)
        await _report_copies(report, reports, args, out, terminal)
        return EXIT_OK
    if args.end is not None and args.start is None:
        raise UserError("--to needs --from.", hint="Give the start with --from.")
    if args.start is not None:
        period = TimeRange.custom(args.start, args.end or reports.now())
    elif args.shift_from is not None:
        period = reports.shift(args.shift_from)
    else:
        period = reports.yesterday() if args.yesterday else reports.today()
    if args.report_terminal and (args.all or args.merge or args.store):
        raise UserError("Choose one of --for-terminal, --all, --merge or --store.")
    if args.store:
        if args.escpos:
            raise UserError(
                "The store's day is printed on paper, not on the receipt printer.",
                hint="Use --pdf or --print, in the a4 or roll layout.",
            )
        report = await reports.store_day(period, terminal.store)
        _report_lines(report, out, terminal.money)
        await _report_copies(report, reports, args, out, terminal)
        return EXIT_OK
    if args.merge:
        scope = ReportScope.merged()
    elif args.all:
        scope = ReportScope.all()
    else:
        scope = ReportScope.terminal(args.report_terminal or terminal.settings.terminal_id)
    report = await reports.end_of_day(period, scope)
    _report_lines(report, out, terminal.money)
    await _report_copies(report, reports, args, out, terminal)
    return EXIT_OK


def _report_lines(report: Any, out: Output, money_format: Any) -> None:
    """The report as JSON, or as lines: the shift first (X, Z), then the figures and their reconciliation."""
    out.data(report.as_json())
    money = money_format.format
    scope = report.scope
    period = report.range
    out.line(f"{report.title}: {scope.label}{'' if report.production else ' [SANDBOX]'}")
    out.line(f"{_local(period.start)} – {_local(period.end)} (local time), made {_local(report.generated_at)}")
    if report.shift is not None:
        _shift_lines(report.shift, out, money)
    if report.store is not None:
        _store_lines(report.store, report.cash_sales, out, money)
    for row in report.rows:
        f = row.shown
        label = "All terminals" if scope.merge else (row.terminal_id or "(no terminal)")
        out.line(
            f"{label:<16} count {f.count:>5}  total {money(f.total):>12}  tips {money(f.tips):>10}  "
            f"fees {money(f.fees):>10}  payout {money(f.payout):>12}  {'ok' if row.matches else 'MISMATCH'}"
        )
    if len(report.rows) > 1:
        t = report.total.shown
        out.line(
            f"{'Total':<16} count {t.count:>5}  total {money(t.total):>12}  tips {money(t.tips):>10}  "
            f"fees {money(t.fees):>10}  payout {money(t.payout):>12}"
        )
    if report.reconciled:
        out.line("Reconciled: the summary matches the listed transactions.")
    else:
        out.note("MISMATCH: the service's summary and the listed transactions disagree.")
        for sentence in report.differences(money):
            out.note(f"  {sentence}")
    out.line(
        f"Open authorizations {len(report.open_authorized)}, refunds {len(report.refunds)}, "
        f"cancellations {len(report.cancellations)}, audit entries {len(report.audit)}."
    )


def _shift_lines(section: Any, out: Output, money: Callable[[int], str]) -> None:
    from pos_terminal.domain.shift import drawer_verdict

    shift, drawer = section.shift, section.drawer
    closed = f", closed {_local(shift.closed_at)} by {shift.closed_by}" if shift.closed_at else ", still open"
    out.line(f"Shift {shift.id}: opened {_local(shift.opened_at)} by {shift.opened_by}{closed}")
    out.line(
        f"Drawer: float {money(drawer.opening_float)} + cash on checks {money(drawer.cash_sales)} "
        f"- cash given back {money(drawer.cash_refunds)} = expected {money(drawer.expected)}"
    )
    if section.over_short is not None and section.counted is not None:
        out.line(f"Counted {money(section.counted.total)}: {drawer_verdict(section.over_short, money, loud=True)}")
    for p in section.people:
        out.line(
            f"{p.person:<20} {counted(p.checks, 'check'):>10}  total {money(p.total):>11}  cash {money(p.cash):>10}  "
            f"charged {money(p.charged):>11}  refunds {p.refunds} ({money(p.refunded)})"
        )
    out.line(
        f"Refunds {len(section.refunds)}, cancellations {len(section.cancellations)}, approvals "
        f"{len(section.approvals)}, drawer opened without a sale {section.no_sales}."
    )
    if section.pending_changes:
        out.note(
            f"{counted(section.pending_changes, 'state change')} not yet confirmed by the service: not in the figures."
        )


def _store_lines(day: Any, cash_sales: Any, out: Output, money: Callable[[int], str]) -> None:
    from pos_terminal.domain.shift import drawer_verdict

    out.line(f"Store: {day.name or '(no name set)'} · tills {', '.join(day.tills) or 'none yet'}")
    for shift in day.shifts:
        opened = f"opened {_local(shift.opened_at)} by {shift.opened_by}, float {money(shift.opening_float)}"
        if shift.closed_at is None:
            out.line(f"  {shift.terminal_id:<12} {opened}; still open")
            continue
        verdict = "" if shift.over_short is None else f", {drawer_verdict(shift.over_short, money)}"
        out.line(
            f"  {shift.terminal_id:<12} {opened}; closed {_local(shift.closed_at)} by {shift.closed_by}, expected "
            f"{money(shift.expected or 0)}, counted {money(shift.counted or 0)}{verdict}"
        )
    out.line(f"Cash sales at every till: {len(cash_sales)}, {money(sum(c.total for c in cash_sales))}")
    for p in day.people:
        out.line(f"  {p.person:<24} {p.checks:>4} checks  {money(p.total):>12}  charged {money(p.charged):>12}")
    if day.unmatched:
        out.line(f"{day.unmatched} completed checks of the tills' logs are not in the service's listing.")


async def _report_copies(report: Any, reports: Any, args: argparse.Namespace, out: Output, terminal: Any) -> None:
    """Save and print the report when asked (the PDF, or the receipt printer's own text), each copy written to
    the audit log."""
    from pos_terminal.reports.end_of_day import render

    if args.pdf or args.print_it:
        data = render(report, args.layout, money=terminal.money)
        if args.pdf:
            saved = _save(data, args.pdf)
            reports.record_report(report, "saved", where=str(saved), layout=args.layout)
            out.note(f"Saved {saved}.")
        if args.print_it:
            printer = _print(data, args.printer or terminal.settings.printer, report.title)
            reports.record_report(report, "printed", where=printer, layout=args.layout)
            out.note(f"Printed on {printer}.")
    if args.escpos:
        where = await _print_escpos(terminal, lambda: terminal.counter.queue_report(report))
        reports.record_report(report, "printed", where=where, layout="roll")
        out.note(f"Printed on the {where}.")


# --- people and shifts ---------------------------------------------------------------------------------------


class NoPeople(UserError):
    sentence = "Nobody works this terminal yet."
    hint = "Add the first manager: pos-terminal people add NAME --role manager."


def read_secret(prompt: str, fd: int | None, *, what: str = "PIN", option: str = "--pin-fd") -> str:
    """A PIN (or ``what``): one line from file descriptor ``fd``, or typed at the terminal without echo; never an
    argument. ``option`` is the one that gives ``fd``, for the sentence when there is neither."""
    if fd is not None:
        data = bytearray()
        try:
            while not data.endswith(b"\n"):
                chunk = os.read(fd, 1)
                if not chunk:
                    break
                data += chunk
        except OSError as exc:
            raise UserError(f"The {what} cannot be read from file descriptor {fd} ({exc.strerror}).") from exc
        except OverflowError:
            raise UserError(f"{fd} is not a file descriptor.", hint="Give the number of an open one.") from None
        pin = data.decode("utf-8", errors="replace").strip()
        if not pin:
            raise UserError(f"No {what} came on file descriptor {fd}.", hint=f"Write the {what} and a new line to it.")
        return pin
    if not sys.stdin.isatty():
        article = "An" if what[0].lower() in "aeiou" else "A"
        raise UserError(
            f"{article} {what} is needed.", hint=f"Type it at a terminal, or give {option} N and write it to fd N."
        )
    import getpass

    return getpass.getpass(prompt)


def _new_pin(name: str, fd: int | None) -> str:
    if fd is not None:
        return read_secret("", fd)
    pin = read_secret(f"New PIN for {name}: ", None)
    if read_secret("The same PIN again: ", None) != pin:
        raise UserError("The two PINs differ.", hint="Type the same PIN twice.")
    return pin


async def _act_as(terminal: Any, args: argparse.Namespace, *, manager: bool = False) -> Any:
    """Sign in, for this command, the person named by --as (a manager when ``manager``); their PIN is read from
    the terminal or from --pin-fd. A terminal nobody works acts as before people existed."""
    from pos_terminal.domain.people import Role
    from pos_terminal.services.till import NotAManager

    till = terminal.till
    if not till.guarding:
        if manager and args.command in ("shift", "people"):
            raise NoPeople()
        return None
    name = args.person
    if not name and manager and len(managers := terminal.staff.managers()) == 1:
        name = managers[0].name
    if not name:
        raise UserError("Say who does this with --as NAME.", hint="pos-terminal people list shows the names.")
    if (chosen := till.staff.find(name)).active and chosen.pin_to_set:
        from pos_terminal.services.staff import PinToSet

        raise PinToSet(chosen)  # before asking for a PIN: none would open
    person = await till.sign_in(name, read_secret(f"PIN for {name}: ", args.pin_fd), how="command line")
    if manager and person.role is not Role.MANAGER:
        till.lock("command line")
        raise NotAManager(f"{person.name} is not a manager.", hint="Give a manager's name with --as.")
    return person


def _amount(terminal: Any, text: str, what: str) -> int:
    try:
        return int(terminal.money.parse(text))
    except UserError as exc:
        raise UserError(f"The {what} “{text}” is not an amount.", hint="Type it like 200 or 150.50.") from exc


def _drawer_count(terminal: Any, args: argparse.Namespace) -> Any:
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


async def _shift_open(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    await _act_as(terminal, args, manager=True)
    shift = terminal.till.open_shift(_amount(terminal, args.opening_float, "float"))
    out.data(shift.as_json())
    opening_float = terminal.money.format(shift.opening_float)
    out.line(f"Shift {shift.id} is open, by {shift.opened_by}, with a float of {opening_float}.")
    return EXIT_OK


async def _shift_close(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.reports import Reports

    await _act_as(terminal, args, manager=True)
    count = _drawer_count(terminal, args)
    await terminal.history.refresh_authorized()  # one the service canceled on its own holds nothing up
    closed = terminal.till.close_shift(count)
    reports = Reports.for_terminal(terminal, actor=closed.closed_by)
    try:
        report = await terminal.shifts.report(reports, closed)
    except UserError as exc:
        out.data({"shift": closed.as_json(), "report": None})
        raise UserError(
            f"Shift {closed.id} is closed, but its Z report could not be made: {exc.sentence}",
            hint=f"Make it later with pos-terminal report --shift {closed.id}.",
        ) from exc
    _report_lines(report, out, terminal.money)
    await _report_copies(report, reports, args, out, terminal)
    return EXIT_OK


async def _shift_x(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.reports import Reports

    person = await _act_as(terminal, args, manager=True)
    reports = Reports.for_terminal(terminal, actor=person.name if person else terminal.actor)
    report = await terminal.shifts.report(reports, terminal.shifts.require_open())
    _report_lines(report, out, terminal.money)
    await _report_copies(report, reports, args, out, terminal)
    return EXIT_OK


async def _shift_list(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.domain.shift import drawer_verdict

    await _act_as(terminal, args, manager=True)
    shifts = terminal.shifts.all()
    out.data([s.as_json() for s in shifts])
    money = terminal.money.format
    if not shifts:
        out.line("No shift has been opened on this terminal.")
    for s in shifts:
        line = f"#{s.id:<4} {_local(s.opened_at)} by {s.opened_by:<16} float {money(s.opening_float):>10}"
        if s.is_open:
            out.line(f"{line}  open")
        else:
            assert s.count is not None
            assert s.expected_cash is not None
            assert s.over_short is not None
            out.line(
                f"{line}  closed {_local(s.closed_at)} by {s.closed_by}: counted {money(s.count.total)}, "
                f"expected {money(s.expected_cash)}, {drawer_verdict(s.over_short, money)}"
            )
    return EXIT_OK


def _person_json(person: Any, now: datetime) -> dict[str, Any]:
    return {
        "name": person.name,
        "role": str(person.role),
        "active": person.active,
        "locked": person.locked(now),
        "lockedUntil": person.locked_until.isoformat() if person.locked(now) else None,
        "pinToSet": person.pin_to_set,
    }


async def _people_add(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.domain.people import Role

    till = terminal.till
    if not till.guarding:
        if args.role != "manager":
            raise UserError("The first person on a terminal is a manager.", hint="Add them with --role manager.")
        person = await till.create_first_manager(args.name, _new_pin(args.name, args.new_pin_fd))
    else:
        await _act_as(terminal, args, manager=True)
        person = await till.add_person(args.name, Role(args.role), _new_pin(args.name, args.new_pin_fd))
    out.data(_person_json(person, datetime.now(UTC)))
    out.line(f"{person.name} can now sign in at the till, as a {person.role}.")
    return EXIT_OK


async def _people_list(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    await _act_as(terminal, args, manager=True)
    now = datetime.now(UTC)
    people = terminal.staff.people()
    out.data([_person_json(p, now) for p in people])
    for p in people:
        state = (
            "disabled"
            if not p.active
            else "locked until " + _local(p.locked_until)
            if p.locked(now)
            else "new PIN to set at the till"
            if p.pin_to_set
            else ""
        )
        out.line(f"{p.name:<24} {p.role:<8} {state}")
    return EXIT_OK


def _people_change(change: str) -> Handler:
    async def run(terminal: Any, args: argparse.Namespace, out: Output) -> int:
        await _act_as(terminal, args, manager=True)
        till = terminal.till
        if change == "reset-pin" and args.new_pin_fd is not None:
            person = await till.reset_pin(args.name, _new_pin(args.name, args.new_pin_fd))
            done = f"{person.name} has a new PIN."
        elif change == "reset-pin":
            person = await till.reset_pin(args.name)
            done = f"{person.name} sets a new PIN at their next sign-in at the till."
        elif change == "unlock":
            person = till.unlock(args.name)
            done = f"{person.name} can sign in again."
        elif change == "enable":
            person = till.enable(args.name)
            done = f"{person.name} can sign in again."
        elif change == "rename":
            before = terminal.staff.find(args.name).name
            person = await till.rename(args.name, args.new_name)
            done = f"{before} is now called {person.name}."
        elif change == "role":
            from pos_terminal.domain.people import Role

            person = till.set_role(args.name, Role(args.role))
            done = f"{person.name} is now a {person.role}."
        else:
            person = till.disable(args.name)
            done = f"{person.name} can no longer sign in."
        out.data(_person_json(person, datetime.now(UTC)))
        out.line(done)
        return EXIT_OK

    return run


async def _receipt(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.reports.receipt import render_receipt
    from pos_terminal.services.reports import Reports

    reports = Reports.for_terminal(terminal, actor=terminal.actor)
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
            saved = _save(data, args.pdf)
            reports.record_receipt(receipt, "saved", where=str(saved))
            out.note(f"Saved {saved}.")
        if args.print_it:
            printer = _print(data, args.printer or terminal.settings.printer, f"Receipt {receipt.transaction_id}")
            reports.record_receipt(receipt, "printed", where=printer)
            out.note(f"Printed on {printer}.")
    if args.escpos:
        where = await _print_escpos(terminal, lambda: terminal.counter.queue_receipt(receipt))
        out.note(f"Printed on the {where}.")
    return EXIT_OK


async def _print_escpos(terminal: Any, queue: Callable[[], object]) -> str:
    """Queue a slip for the receipt printer and print what is queued; a printer that cannot print is one
    sentence, and the slip stays in the journal's queue for the window to print once the printer is back."""
    counter = terminal.counter
    queue()
    await counter.drain()
    if counter.problem:
        raise UserError(counter.problem, hint="The window prints it once the printer is back, unless canceled there.")
    return f"receipt printer {counter.printer.address}"


def _local(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _save(data: bytes, path: Path) -> Path:
    from pos_terminal.ui.printing import save_pdf

    return save_pdf(data, path)


def _print(data: bytes, printer: str | None, title: str) -> str:
    from pos_terminal.ui.printing import print_pdf

    return print_pdf(data, printer=printer, title=title)


# --- settings: no service, no sandbox -----------------------------------------------------------------

SettingsHandler = Callable[[Paths, argparse.Namespace, Output], int]


def _save_settings(paths: Paths, settings: Settings) -> None:
    from pos_terminal.config import save_settings

    try:
        save_settings(paths.config_file, settings)
    except OSError as exc:
        raise ConfigError(f"The settings cannot be saved to {paths.config_file} ({exc.strerror}).") from exc


def _setup(paths: Paths, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.config import load_settings
    from pos_terminal.services.setup import region_choices, set_up

    settings, _ = load_settings(paths.config_file)
    given = {"auth_url": args.auth_url, "pos_url": args.pos_url, "payments_url": args.payments_url}
    urls = None
    if any(value is not None for value in given.values()):
        urls = settings.custom_urls.model_copy(
            update={name: value.strip() for name, value in given.items() if value is not None}
        )
    chosen = set_up(
        settings,
        regions=[key for key, _ in region_choices(paths)],
        region=args.region,
        terminal_id=args.terminal_id,
        locale=settings.locale if args.locale is None else args.locale,
        currency=settings.currency if args.currency is None else args.currency,
        printer=args.printer,
        custom_urls=urls,
    )
    if chosen.printer is not None:
        from pos_terminal.ui.printing import check_printer

        check_printer(chosen.printer)
    if args.url is not None:  # joined first: a store that cannot be joined leaves the settings as they were
        import asyncio

        asyncio.run(_join_store(paths, chosen, args, out))
    _save_settings(paths, chosen)
    out.data(chosen.model_dump(mode="json"))
    out.line(f"Terminal {chosen.terminal_id} in region {chosen.region}, {chosen.locale} {chosen.currency}.")
    out.line(f"Settings written to {paths.config_file}.")
    return EXIT_OK


async def _join_store(paths: Paths, settings: Any, args: argparse.Namespace, out: Output) -> Any:
    """``store join`` (and ``setup --store``): this till, with ``settings``, becomes part of the store at args.url."""
    from pos_terminal.services.store_sync import join_store, split_password

    address, password = _store_address(args, split_password)
    status = await join_store(paths, settings, address, password)
    out.line(f"This till ({settings.terminal_id}) is part of the store {address}.")
    return status


def _shown(value: Any) -> str:
    return "(not set)" if value is None else json.dumps(value, ensure_ascii=False)


def _config(paths: Paths, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.config import load_settings
    from pos_terminal.services.setup import change_setting, get_setting, region_choices, setting_names

    settings, _ = load_settings(paths.config_file)
    if args.config_command == "list":
        values = {name: get_setting(settings, name) for name in setting_names(settings)}
        out.data(values)
        for name, value in values.items():
            out.line(f"{name} = {_shown(value)}")
        return EXIT_OK
    if args.config_command == "get":
        value = get_setting(settings, args.name)
        out.data(value)
        out.line("" if value is None else str(value))
        return EXIT_OK
    regions = [key for key, _ in region_choices(paths)]
    value = args.value if args.config_command == "set" else None
    changed = change_setting(settings, args.name, value, regions=regions)
    _save_settings(paths, changed)
    now = get_setting(changed, args.name.strip())
    out.data({args.name.strip(): now})
    out.line(f"{args.name.strip()} = {_shown(now)}")
    return EXIT_OK


# --- the catalog and the store's details -------------------------------------------------------------------


async def _catalog_list(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.catalog import catalog_json

    catalog = terminal.catalog()
    out.data(catalog_json(catalog))
    where = "the store's" if terminal.store.linked else "this till's"
    out.line(f"{counted(len(catalog), 'product')} in {where} catalog.")
    for category in (*catalog.categories, None):
        entries = [e for e in catalog if e.category == category]
        if not entries:
            continue
        out.line(f"{category or 'No category'}:")
        for entry in entries:
            rate = "" if entry.tax_rate_bp is None else f"  tax {entry.tax_rate_bp / 100:g} %"
            codes = f"  {', '.join(entry.barcodes)}" if entry.barcodes else ""
            out.line(f"  {entry.name:<32} {terminal.money.format(entry.price):>12}{rate}{codes}")
    return EXIT_OK


async def _catalog_import(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.catalog import load_catalog
    from pos_terminal.services.catalog_editor import parse_csv, read_csv

    path = Path(args.file)
    csv_file = path.suffix.casefold() == ".csv"
    if csv_file:  # the whole file is checked before anything changes, and before a PIN is asked
        data = read_csv(path)
        parse_csv(data, f"the file {path}")
    else:
        catalog = load_catalog(path)
    person = await _act_as(terminal, args, manager=True)
    by = person.name if person else None
    editor = terminal.catalog_editor
    if csv_file:
        published = editor.import_csv(data, source=str(path), by=by)
    else:
        published = editor.publish(catalog, source=str(path), by=by)
    products = len(terminal.catalog())
    out.data(
        {
            "products": products,
            "added": published.added,
            "changed": published.changed,
            "retired": published.retired,
            "store": terminal.store.linked,
        }
    )
    if not published.any:
        out.line("The catalog is already this one: nothing changed.")
        return EXIT_OK
    whose = "The store's catalog" if terminal.store.linked else "This till's catalog"
    out.line(
        f"{whose} now has {counted(products, 'product')}: {len(published.added)} added,"
        f" {len(published.changed)} changed, {len(published.retired)} taken off."
    )
    return EXIT_OK


async def _catalog_export(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.services.catalog import catalog_json, write_catalog, write_text

    csv_file = args.file.casefold().endswith(".csv") or args.format == "csv"
    if args.file == "-":
        text = (
            terminal.catalog_editor.export_csv()
            if csv_file
            else json.dumps(catalog_json(terminal.catalog()), ensure_ascii=False, indent=2) + "\n"
        )
        sys.stdout.write(text)
        return EXIT_OK
    path = Path(args.file)
    if csv_file:
        write_text(path, terminal.catalog_editor.export_csv())
    else:
        write_catalog(path, terminal.catalog())
    count = len(terminal.catalog())
    out.data({"file": str(path), "products": count})
    out.line(f"{counted(count, 'product')} written to {path}.")
    return EXIT_OK


async def _details(terminal: Any, args: argparse.Namespace, out: Output) -> int:
    from dataclasses import replace

    from pos_terminal.domain.details import LIMITS, details_of
    from pos_terminal.reports.logo import read_logo

    given = {
        "name": args.name,
        "address": args.address,
        "tax_number": args.tax_number,
        "receipt_header": args.header,
        "receipt_footer": args.footer,
    }
    current = terminal.store.details.get()
    values = {field: getattr(current, field, None) for field in LIMITS}
    logo = current.logo if current is not None else None
    if all(value is None for value in given.values()) and args.logo is None and not args.no_logo:
        out.data(values | {"logo": _logo_size(logo)})
        if current is None:
            out.line("The store has no details yet: set them with pos-terminal details --name NAME.")
        for field, value in values.items():
            if value:
                out.line(f"{field.replace('_', ' ').capitalize():<16} {value}")
        if logo:
            out.line(f"{'Logo':<16} {_logo_size(logo)}")
        return EXIT_OK
    details = details_of(values | {field: value for field, value in given.items() if value is not None})
    if args.logo is not None:
        logo = read_logo(Path(args.logo))  # checked whole, before a manager is asked
    elif args.no_logo:
        logo = None
    details = replace(details, logo=logo)
    person = await _act_as(terminal, args, manager=True)
    by = person.name if person else None
    if terminal.set_store_details(details, by=by):
        out.line("The store's details are changed" + (" for every till." if terminal.store.linked else "."))
    else:
        out.line("The store's details are already these: nothing changed.")
    out.data({field: getattr(details, field) for field in LIMITS} | {"logo": _logo_size(details.logo)})
    return EXIT_OK


def _logo_size(logo: bytes | None) -> str | None:
    """A logo as a command shows it: its size in pixels (from the PNG's header), never its bytes."""
    if logo is None:
        return None
    width, height = int.from_bytes(logo[16:20], "big"), int.from_bytes(logo[20:24], "big")
    return f"{width} x {height} px"


_SETTINGS_HANDLERS: dict[str, SettingsHandler] = {"setup": _setup, "config": _config}

_HANDLERS: dict[str, Handler] = {
    "login": _login,
    "logout": _logout,
    "status": _status,
    "customers": _customers,
    "charge": _charge,
    "tx list": _tx_list,
    "tx get": _tx_get,
    "tx complete": _state_command(Action.COMPLETE),
    "tx cancel": _state_command(Action.CANCEL),
    "tx refund": _state_command(Action.REFUND),
    "summary": _summary,
    "report": _report,
    "receipt": _receipt,
    "shift open": _shift_open,
    "shift close": _shift_close,
    "shift x": _shift_x,
    "shift list": _shift_list,
    "people add": _people_add,
    "people list": _people_list,
    "people disable": _people_change("disable"),
    "people reset-pin": _people_change("reset-pin"),
    "people unlock": _people_change("unlock"),
    "people enable": _people_change("enable"),
    "people rename": _people_change("rename"),
    "people role": _people_change("role"),
    "catalog list": _catalog_list,
    "catalog import": _catalog_import,
    "catalog export": _catalog_export,
    "details": _details,
}


if __name__ == "__main__":
    sys.exit(main())
