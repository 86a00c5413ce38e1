"""``main``: the window, or one command run to its exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

from pos_terminal.cli.arguments import OldTerminalFlag, PinInArguments
from pos_terminal.cli.argv import first_look, options_before_the_command, token_joined, window_parser
from pos_terminal.cli.output import EXIT_ERROR, Handler, Output, ProfileHandler
from pos_terminal.errors import UserError
from pos_terminal.logs import configure_logging
from pos_terminal.paths import Paths

if TYPE_CHECKING:
    from pos_terminal.services.terminal import Terminal


# The module that adds each command, in the order ``--help`` lists them (``tests/cli/test_parser.py`` holds the
# table to what each module adds).
COMMAND_MODULES: dict[str, str] = {
    "setup": "setup",
    "config": "setup",
    "login": "session",
    "logout": "session",
    "status": "session",
    "customers": "charge",
    "charge": "charge",
    "tx": "tx",
    "summary": "report",
    "report": "report",
    "shift": "shift",
    "people": "people",
    "store": "store",
    "catalog": "catalog",
    "details": "catalog",
    "receipt": "receipt",
    "sandbox": "sandbox_command",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line: each group of commands adds its own, in the order ``--help`` lists them. With ``command``
    (one of :data:`COMMAND_MODULES`), only the group that has it: a command run builds its own parsers, not the
    forty-odd of every command (27 ms here, half of it argparse asking gettext for its headings)."""
    from importlib import import_module

    parser = window_parser()
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = COMMAND_MODULES.get(command or "")
    for module in dict.fromkeys(COMMAND_MODULES.values()):
        if wanted is None or module == wanted:
            import_module(f"pos_terminal.cli.{module}").register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    window, command = first_look(argv, COMMAND_MODULES)
    if window is not None:
        return _launch_gui(window)
    parser = build_parser(command)
    args = parser.parse_args(token_joined(parser, argv))
    try:
        options_before_the_command(args)
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
        profile_handler: ProfileHandler | None = getattr(args, "profile_handler", None)
        if profile_handler is not None:
            return profile_handler(Paths.for_profile(args.profile), args, out)
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
    from pos_terminal.cli.store import store_pass
    from pos_terminal.config import load_settings, set_up_till
    from pos_terminal.embedded import start_embedded_sandbox
    from pos_terminal.services.session import SessionState
    from pos_terminal.services.terminal import Terminal, resolve_service

    paths = Paths.for_profile(args.profile).ensure()
    configure_logging(paths.log_file, f"pos-terminal {args.command}")
    settings = set_up_till(*load_settings(paths.config_file))
    async with AsyncExitStack() as stack:
        embedded_root = None
        if not args.service and settings.region == "sandbox":
            server = start_embedded_sandbox(paths)
            stack.callback(server.stop)
            embedded_root = server.url
        service = resolve_service(settings, paths, service_url=args.service, embedded_root=embedded_root)
        terminal = Terminal(paths, settings, service)
        stack.push_async_callback(terminal.aclose)
        handler: Handler = args.handler
        if args.command not in ("login", "logout", "status") and terminal.session.state is SessionState.CONNECTED:
            await _resume(terminal, out)
        reached = await store_pass(terminal.store, out)
        code = await handler(terminal, args, out)
        if reached:  # what the command wrote goes now (a store found away a moment ago is not waited for twice)
            await store_pass(terminal.store, out, quiet=True)
        return code


async def _resume(terminal: Terminal, out: Output) -> None:
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
