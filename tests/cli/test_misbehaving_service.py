"""Every command against a service that trickles its answers: one sentence, no traceback, and no hang."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.api.misbehaving import misbehaving
from tests.cli.conftest import CLI, write_config

DEADLINE = 1.0
SLACK = 1.0


@pytest.mark.parametrize("command", [("customers",), ("tx", "list"), ("summary",), ("tx", "complete", "tx-1")])
def test_no_command_outlives_its_deadline_against_a_trickling_service(
    cli: CLI, profile: Path, command: tuple[str, ...]
) -> None:
    write_config(profile, terminal_id="LANE-CLI", request_timeout_seconds=DEADLINE)
    with misbehaving("trickle", interval=0.1) as server:
        assert cli("login", "--token", "t", service=server.url).code == 0
        started = time.monotonic()
        run = cli(*command, service=server.url)
        took = time.monotonic() - started
    assert run.code != 0 and "Traceback" not in run.err, run
    assert "did not answer in time" in run.err or "kept and will be sent again" in run.err, run.err
    # a command may make one call per unfinished piece of work; each has the deadline, none waits past it
    assert took < 3 * (DEADLINE + SLACK), f"{' '.join(command)} ran {took:.1f} s"
