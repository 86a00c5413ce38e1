"""The sandbox served by ``pos-terminal sandbox`` in a child process: for tests that measure the terminal's own
memory, sockets and timers, to which an in-process sandbox would add its own."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

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


@contextmanager
def sandbox_process(folder: Path) -> Iterator[SandboxProcess]:
    """``pos-terminal sandbox --port 0`` with its SQLite file in ``folder``; stopped (SIGTERM) afterwards."""
    log = folder / "sandbox.log"
    command = [
        *_command(),
        "sandbox",
        "--port",
        "0",
        "--db",
        str(folder / "sandbox.sqlite3"),
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
