"""The whole service emulated on loopback: auth service, POS API v4, payments API v5.

It is stateful (SQLite), validates every rule of the published interface and of
``docs/service-contract.md`` on its own, and imports nothing from the rest of
``pos_terminal`` so that the terminal and the sandbox check each other.

Its names load on first use, so a terminal that never starts the sandbox never pays for importing
the web framework it runs on.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pos_terminal.sandbox.app import create_app
    from pos_terminal.sandbox.server import SandboxServer
    from pos_terminal.sandbox.state import Sandbox, SandboxSettings

__all__ = ["Sandbox", "SandboxServer", "SandboxSettings", "create_app"]

_WHERE = {
    "create_app": "pos_terminal.sandbox.app",
    "SandboxServer": "pos_terminal.sandbox.server",
    "Sandbox": "pos_terminal.sandbox.state",
    "SandboxSettings": "pos_terminal.sandbox.state",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(_WHERE[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
