"""The soak runs on the GUI tests' loop and fixtures, against a sandbox in a process of its own.

Everything public in ``tests/ui/conftest.py`` is re-exported, so this folder gets the same
``pytest_asyncio_loop_factories`` hook (the application's own event loop), ``host``,
``make_window`` and ``profile`` as ``tests/ui``, and picks up any change made there.
``sandbox`` is replaced by ``pos-terminal sandbox`` in a child process: the soak measures the
terminal's memory, sockets and timers, and an in-process sandbox would add its own.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ui.conftest import *  # noqa: F403  (the loop hook and the window fixtures of tests/ui)
from tests.ui.conftest import _in_memory_keychain  # noqa: F401  (autouse there, so autouse here)

READY = "sandbox ready: "
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


@dataclass(frozen=True)
class SandboxProcess:
    """A sandbox served by ``pos-terminal sandbox`` in a child process; ``url`` as :class:`SandboxServer` has."""

    url: str
    pid: int
    log: Path


def _command() -> list[str]:
    script = Path(sys.executable).with_name("pos-terminal")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pos_terminal"]


def _read_ready_line(process: subprocess.Popen[str], log: Path) -> str:
    """The URL from the sandbox's ready line, waiting at most ``START_TIMEOUT`` seconds for it."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], START_TIMEOUT)
    line = process.stdout.readline() if ready else ""
    if not line.startswith(READY):
        process.kill()
        process.wait(STOP_TIMEOUT)
        raise RuntimeError(f"the sandbox did not start: {line!r}; {log.read_text(errors='replace')[-2000:]}")
    return line[len(READY) :].strip()


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[SandboxProcess]:
    """``pos-terminal sandbox --port 0`` with its SQLite file in ``tmp_path``; stopped (SIGTERM) afterwards."""
    log = tmp_path / "sandbox.log"
    command = [
        *_command(),
        "sandbox",
        "--port",
        "0",
        "--db",
        str(tmp_path / "sandbox.sqlite3"),
        "--device-interval",
        "1",
        "--token-ttl",
        "86400",
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with log.open("w") as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True, env=env)
    try:
        yield SandboxProcess(_read_ready_line(process, log), process.pid, log)
    finally:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)
        if process.stdout is not None:
            process.stdout.close()
