"""The command-line tests' shared data and steps: a check file, the first manager and PINs through a pipe, store
commands in-process."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pos_terminal.cli import main
from tests.cli.conftest import Run

CHECK = {
    "items": [
        {"name": "Flat white", "quantity": 2, "unitPrice": 550, "taxRate": 10},
        {"name": "Banana bread", "quantity": 1, "unitPrice": 620, "tax": 56},
    ],
    "discounts": [{"name": "Staff", "percent": 10}],
    "payments": [{"method": "cash", "amount": 500}],
}


def write_check(tmp_path: Path, data: Any = CHECK, name: str = "check.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


MANAGER, MANAGER_PIN = "Maria Manager", "908172635401"


def pin_fd(pins: list[int], *lines: str) -> str:
    """A pipe holding ``lines``, one PIN each; its reading end's number, as --pin-fd takes it."""
    read, write = os.pipe()
    os.write(write, "".join(f"{line}\n" for line in lines).encode())
    os.close(write)
    pins.append(read)
    return str(read)


def store(profile: Path, capsys: pytest.CaptureFixture[str], *command: str) -> Run:
    capsys.readouterr()
    code = main(["store", *command, "--profile", str(profile), "--json"])
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)
