"""The soak runs on the GUI tests' loop and fixtures, against a sandbox in a process of its own.

Everything public in ``tests/ui/conftest.py`` is re-exported, so this folder gets the same
``pytest_asyncio_loop_factories`` hook (the application's own event loop), ``host``,
``make_window`` and ``profile`` as ``tests/ui``, and picks up any change made there.
``sandbox`` is replaced by ``pos-terminal sandbox`` in a child process: the soak measures the
terminal's memory, sockets and timers, and an in-process sandbox would add its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.sandbox_process import SandboxProcess, sandbox_process
from tests.ui.conftest import *  # noqa: F403  (the loop hook and the window fixtures of tests/ui)
from tests.ui.conftest import _in_memory_keychain  # noqa: F401  (autouse there, so autouse here)


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[SandboxProcess]:
    """``pos-terminal sandbox --port 0`` in a child process, with its SQLite file in ``tmp_path``."""
    with sandbox_process(tmp_path) as served:
        yield served
