"""Entry point ``pos-terminal``: the GUI by default, and the command line.

Every command that talks to the service first resumes what a crash or a
network failure left unfinished (charge intents, then the outbox). Expected
failures print one sentence and exit non-zero; ``--json`` prints records as the
API returns them.

Without a command it opens the window, which paints its first screen before the settings, asyncio and the
service's side are loaded (``pos_terminal.app``): the command modules, and what they need, are imported only
when the command line is parsed. Each module of a group of commands registers its parsers together with
their handler.
"""

from pos_terminal.cli.entry import main

__all__ = ["main"]
