"""The command line run in-process (``pos_terminal.cli.main``) against a sandbox on loopback, one profile per test."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

import pytest

from pos_terminal.cli import main
from pos_terminal.sandbox import SandboxServer
from tests.keyrings import MemoryKeyring


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    @property
    def data(self) -> Any:
        return json.loads(self.out)

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


CLI = Callable[..., Run]


def write_config(profile: Path, **settings: Any) -> None:
    """The profile's config.toml with ``settings`` (strings, booleans and tables of strings)."""
    lines = ["schema_version = 1"]
    tables = []
    for key, value in settings.items():
        if isinstance(value, dict):
            tables.append(f"[{key}]\n" + "".join(f'{k} = "{v}"\n' for k, v in value.items()))
        elif isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    (profile / "config").mkdir(parents=True, exist_ok=True)
    (profile / "config" / "config.toml").write_text("\n".join(lines) + "\n\n" + "\n".join(tables))


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    base = tmp_path / "lane"
    write_config(base, terminal_id="LANE-CLI", request_timeout_seconds=5)
    return base


@pytest.fixture
def cli(
    capsys: pytest.CaptureFixture[str], profile: Path, sandbox: SandboxServer, memory_keyring: MemoryKeyring
) -> CLI:
    """``cli("tx", "get", ID, json=True)``: run one command against the sandbox with the test's profile.

    The keychain is always the in-memory one: no test reads or writes the host's real keychain.
    """

    def run(*command: str, json: bool = False, service: str | None = None, base: Path | None = None) -> Run:
        capsys.readouterr()
        argv = [*command, "--profile", str(base or profile), "--service", service or sandbox.url]
        code = main([*argv, "--json"] if json else argv)
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


@pytest.fixture(autouse=True)
def log_put_back() -> Iterator[None]:
    """A command run here configures its process's log: the root logger at INFO, and a file in the test's profile.
    Afterwards the worker's log is put back as it was; otherwise every later test in this worker logged at INFO
    into that file, long deleted, and into pytest's capture of the test."""
    root = logging.getLogger()
    level, handlers = root.level, set(root.handlers)
    yield
    for handler in root.handlers[:]:
        if isinstance(handler, RotatingFileHandler) and handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


@pytest.fixture
def pins() -> Iterator[list[int]]:
    """File descriptors made by :func:`tests.cli.test_till_commands.pin_fd`, closed after the test."""
    made: list[int] = []
    yield made
    for fd in made:
        os.close(fd)
