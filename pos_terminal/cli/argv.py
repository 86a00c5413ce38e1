"""The command line before the commands: the window's options, ``--version``, and the spellings argparse alone
would misread (``--token -x``, ``--profile`` before the command)."""

from __future__ import annotations

import argparse
from collections.abc import Container, Sequence
from pathlib import Path
from typing import Any

from pos_terminal.errors import UserError


class _Version(argparse.Action):
    """``--version``: the version is read from the package's metadata only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from pos_terminal.version import version

        print(f"pos-terminal {version()}")  # on standard output, as argparse's own version action
        parser.exit()


def window_parser(*, whole: bool = True) -> argparse.ArgumentParser:
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


def first_look(argv: Sequence[str], commands: Container[str]) -> tuple[argparse.Namespace | None, str | None]:
    """One look at ``argv`` with the window's own options, before any command's parser is built.

    Returns the window's options when ``argv`` asks for the window and nothing else (its first screen is painted
    as early as it can be), and the command ``argv`` names when its first word that is not an option (nor the
    value of one of the window's options, which may come before the command) is one of ``commands``: that
    command's parsers are the only ones built. (None, None): the whole command line is built, to parse or to say
    what is wrong.
    """
    try:
        args, rest = window_parser(whole=False).parse_known_args(argv)
    except argparse.ArgumentError:
        return None, None
    if not rest:
        return args, None
    first = next((word for word in rest if not word.startswith("-")), None)
    return None, first if first in commands else None


def token_joined(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
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


def options_before_the_command(args: argparse.Namespace) -> None:
    """``pos-terminal --profile DIR people add …`` and ``people --profile DIR add …`` mean the profile DIR, as
    ``people add … --profile DIR`` does (the README's window example puts it first); a command that takes no such
    option, or a second value that differs, is one sentence rather than a command run on another profile."""
    if args.command is None:
        return
    if getattr(args, "group_json", False):  # before a command's action (``tx --json list``), as after it
        if not hasattr(args, "json"):
            raise UserError(f"pos-terminal {args.command} takes no --json.", hint="Leave out --json.")
        args.json = True
    for option, window, own in (
        ("--profile", "gui_profile", "profile"),
        ("--service", "gui_service", "service"),
        ("--profile", "group_profile", "profile"),  # before a command's action (``config --profile DIR set …``)
    ):
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
