"""Entry point ``pos-terminal``: subcommands, and the default launch.

Until the cashier's window exists, the default launch starts the embedded
sandbox in the foreground and prints where it listens.
"""

from __future__ import annotations

import argparse
import sys

from pos_terminal.sandbox import cli as sandbox_cli


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pos-terminal", description="Point-of-sale terminal.")
    commands = parser.add_subparsers(dest="command")
    sandbox = commands.add_parser("sandbox", help="run the emulated service on loopback")
    sandbox_cli.add_arguments(sandbox)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in (None, "sandbox"):
        if args.command is None:
            args = parser.parse_args(["sandbox"])
        return sandbox_cli.run(args)
    parser.error(f"unknown command {args.command}")


if __name__ == "__main__":
    sys.exit(main())
