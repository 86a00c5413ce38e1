"""The whole service emulated on loopback: auth service, POS API v4, payments API v5.

It is stateful (SQLite), validates every rule of the published interface and of
``shared/spec/contract.md`` on its own, and imports nothing from the rest of
``pos_terminal`` so that the terminal and the sandbox check each other.
"""

from pos_terminal.sandbox.app import create_app
from pos_terminal.sandbox.server import SandboxServer
from pos_terminal.sandbox.state import Sandbox, SandboxSettings

__all__ = ["Sandbox", "SandboxServer", "SandboxSettings", "create_app"]
