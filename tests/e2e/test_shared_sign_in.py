"""Several processes of one profile renew one sign-in at the same moment, and the grant survives.

The window and a nightly ``report`` from cron share a profile. Against a server that rotates
refresh tokens and revokes the whole grant when one is used twice, two refreshes with the same
refresh token sign the till out. Here three real processes find their access token refused at
once; the test holds the profile's lock until all three wait for it, then lets go.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from pos_terminal.sandbox import SandboxServer
from tests.e2e.conftest import Lane
from tests.helpers.http import http_client
from tests.locks import needs_proc_locks, wait_for_waiters

pytestmark = [pytest.mark.slow, needs_proc_locks]

PROCESSES = 3


def test_processes_of_one_profile_refresh_once_and_never_revoke_the_grant(
    make_sandbox: Callable[..., SandboxServer], tmp_path: Path
) -> None:
    server = make_sandbox(rotate_refresh_tokens=True, device_interval=1)
    lane = Lane(server, tmp_path / "profile")
    lane.run("login", "--demo")  # the device flow, approved at once as the demo merchant
    with http_client(base_url=server.url) as control:
        control.post("/sandbox/clock", json={"advanceSeconds": 3_601}).raise_for_status()  # every token expired

    lock_file = lane.profile / "data" / "sign-in.lock"
    held = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        started = [lane.start("customers") for _ in range(PROCESSES)]
        wait_for_waiters(lock_file, PROCESSES)  # each got 401 and waits for its turn to refresh
    finally:
        os.close(held)
    finished = [process.communicate(timeout=60) for process in started]

    for process, (out, err) in zip(started, finished, strict=True):
        assert process.returncode == 0, err
        assert json.loads(out), "the customers were listed with a renewed token"
    with server.sandbox.db.tx() as conn:
        spent = conn.execute("SELECT count(*) FROM refresh_tokens WHERE used_at IS NOT NULL").fetchone()[0]
        revoked = conn.execute("SELECT count(*) FROM refresh_tokens WHERE revoked = 1").fetchone()[0]
    assert (spent, revoked) == (1, 0), "one refresh for the profile, and the grant stands"
    assert lane.run("status")["session"] == "connected"
    assert lane.run("customers"), "a later process still works with the stored sign-in"


def test_the_lock_file_holds_no_secret(make_sandbox: Callable[..., SandboxServer], tmp_path: Path) -> None:
    server = make_sandbox(device_interval=1)
    lane = Lane(server, tmp_path / "profile")
    lane.run("login", "--demo")
    with http_client(base_url=server.url) as control:
        control.post("/sandbox/clock", json={"advanceSeconds": 3_601}).raise_for_status()
    assert lane.run("customers")
    lock_file = lane.profile / "data" / "sign-in.lock"
    assert lock_file.exists() and lock_file.read_bytes() == b""
    assert subprocess.run(["stat", "-c", "%a", str(lock_file)], capture_output=True, text=True).stdout.strip() == "600"
