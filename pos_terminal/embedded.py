"""The embedded sandbox: started on a thread at 127.0.0.1:0 with its file in the profile's data dir."""

from __future__ import annotations

from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer, SandboxSettings


def start_embedded_sandbox(paths: Paths) -> SandboxServer:
    server = SandboxServer(SandboxSettings(db_path=str(paths.ensure().sandbox_db)))
    server.start()
    return server
