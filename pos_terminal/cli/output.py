"""What a command prints, its exit codes, and where its copies (PDF, printer, receipt printer) go."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from pos_terminal.errors import UserError
from pos_terminal.paths import Paths

if TYPE_CHECKING:
    from pos_terminal.services.terminal import Terminal

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


Handler = Callable[["Terminal", argparse.Namespace, Output], Awaitable[int]]
"""A command run as this terminal, against its service (``set_defaults(handler=...)``)."""

ProfileHandler = Callable[[Paths, argparse.Namespace, Output], int]
"""A command on the profile alone, no service and no sandbox (``set_defaults(profile_handler=...)``)."""


def local_time(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def save_copy(data: bytes, path: Path) -> Path:
    from pos_terminal.ui.printing import save_pdf

    return save_pdf(data, path)


def print_copy(data: bytes, printer: str | None, title: str) -> str:
    from pos_terminal.ui.printing import print_pdf

    return print_pdf(data, printer=printer, title=title)


async def print_escpos(terminal: Terminal, queue: Callable[[], object]) -> str:
    """Queue a slip for the receipt printer and print what is queued; a printer that cannot print is one
    sentence, and the slip stays in the journal's queue for the window to print once the printer is back."""
    counter = terminal.counter
    queue()
    await counter.drain()
    if counter.problem:
        raise UserError(counter.problem, hint="The window prints it once the printer is back, unless canceled there.")
    assert counter.printer is not None  # queue() refuses a slip without one
    return f"receipt printer {counter.printer.address}"
