"""The embedded sandbox: started on a thread at 127.0.0.1:0 with its file in the profile's data dir.

The sandbox is an optional extra (``pos-terminal[sandbox]``: its web framework, server and pages), left out of the
production bundle. Where it is not installed, asking for it (the embedded region, ``pos-terminal sandbox``) is
one sentence saying what to do, never a traceback.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from typing import TYPE_CHECKING

from pos_terminal.errors import UserError
from pos_terminal.paths import Paths

if TYPE_CHECKING:
    from pos_terminal.sandbox import SandboxServer

# What only the sandbox imports: the libraries of its extra, and its own modules past the package and its
# command line's arguments (which the bundle keeps, so that ``pos-terminal sandbox`` can say it is missing).
SANDBOX_ONLY = ("fastapi", "starlette", "uvicorn", "jinja2", "multipart", "python_multipart", "pos_terminal.sandbox")


class SandboxNotInstalled(UserError):
    sentence = (
        "The embedded sandbox is not installed here: install pos-terminal[sandbox], "
        "or set up a real service with `pos-terminal setup`."
    )


@contextmanager
def sandbox_installed() -> Iterator[None]:
    """Turns the import of a missing sandbox into :class:`SandboxNotInstalled`; any other import error stays one."""
    try:
        yield
    except ImportError as exc:
        name = exc.name or ""
        if any(name == only or name.startswith(f"{only}.") for only in SANDBOX_ONLY):
            raise SandboxNotInstalled() from exc
        raise


def start_embedded_sandbox(paths: Paths) -> SandboxServer:
    with sandbox_installed():
        from pos_terminal.sandbox import SandboxServer, SandboxSettings

        server = SandboxServer(SandboxSettings(db_path=str(paths.ensure().sandbox_db)))
    server.start()
    return server


def run_sandbox_command(args: argparse.Namespace) -> int:
    """``pos-terminal sandbox ...``: the sandbox in the foreground."""
    from pos_terminal.sandbox import cli

    with sandbox_installed():
        import_module("pos_terminal.sandbox.server")  # the web framework and the server, before the command runs
    return cli.run(args)
