"""``pos-terminal sandbox``: its arguments are the sandbox's own (:mod:`pos_terminal.sandbox.cli`, which a bundle
without the sandbox keeps, so that asking for it says it is not installed); it runs in
:func:`pos_terminal.embedded.run_sandbox_command`."""

from __future__ import annotations

from pos_terminal.cli.arguments import Commands
from pos_terminal.sandbox.cli import add_arguments


def register(commands: Commands) -> None:
    add_arguments(commands.add_parser("sandbox", help="run the emulated service on loopback"))
