"""A till killed with SIGKILL in the middle of sending its records to the store database loses none, and
sends none twice, once it runs again (real processes, a real PostgreSQL)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pos_terminal.journal.journal import Journal
from pos_terminal.services.store_sync import BATCH
from tests.conftest import StoreTarget

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")]

SALES = 450  # more than one batch (services.store_sync.BATCH): some are committed when the kill comes
SLOW_INSERT = """
CREATE FUNCTION slow_insert() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(0.005); RETURN NEW; END $$ LANGUAGE plpgsql;
CREATE TRIGGER slow_cash_sale BEFORE INSERT ON cash_sale FOR EACH ROW EXECUTE FUNCTION slow_insert();
"""


def store_command(profile: Path, *command: str) -> list[str]:
    return [sys.executable, "-m", "pos_terminal", "store", *command, "--profile", str(profile), "--json"]


def run(profile: Path, *command: str, password: str | None = None) -> Any:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    if password is None:
        done = subprocess.run(store_command(profile, *command), env=env, capture_output=True, text=True, timeout=120)
    else:
        read, write = os.pipe()
        os.write(write, f"{password}\n".encode())
        os.close(write)
        done = subprocess.run(
            store_command(profile, *command, "--password-fd", str(read)),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            pass_fds=(read,),
        )
        os.close(read)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def stored_sales(target: StoreTarget) -> list[str]:
    assert target.server is not None
    with target.server.admin(target.url.rsplit("/", 1)[-1].split("?")[0]) as conn:
        return [str(row[0]) for row in conn.execute("SELECT id FROM cash_sale ORDER BY id")]


def test_killed_while_sending_it_sends_the_rest_once(postgres_target: StoreTarget, tmp_path: Path) -> None:
    postgres_target.open().init_schema()
    postgres_target.close_all()
    profile = tmp_path / "lane"
    (profile / "config").mkdir(parents=True)
    (profile / "config" / "config.toml").write_text(
        'schema_version = 1\nterminal_id = "LANE-7"\nallow_insecure_token_file = true\n'
    )
    joined = run(profile, "join", postgres_target.url, password=postgres_target.password)
    assert joined["linked"] is True and joined["online"] is True
    with Journal(profile / "data" / "journal.sqlite3") as journal:
        sold = [
            journal.cash_sales.record(
                terminal_id="LANE-7", customer=None, total=450, tax=41, paid=500, check={"version": 1}
            ).uid
            for _ in range(SALES)
        ]
    assert postgres_target.server is not None
    database = postgres_target.url.rsplit("/", 1)[-1].split("?")[0]
    with postgres_target.server.admin(database) as conn:
        conn.execute(SLOW_INSERT)  # 5 ms a sale: the sending takes seconds, and is cut in the middle
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    process = subprocess.Popen(
        store_command(profile, "status"), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while len(stored_sales(postgres_target)) < BATCH:  # the first batch is in
        assert time.monotonic() < deadline, "the till never started sending"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    arrived = len(stored_sales(postgres_target))
    assert 0 < arrived < SALES, "killed in the middle"
    with postgres_target.server.admin(database) as conn:
        conn.execute("DROP TRIGGER slow_cash_sale ON cash_sale")

    status = run(profile, "status")
    assert status["waiting"] == 0 and status["online"] is True
    assert sorted(stored_sales(postgres_target)) == sorted(sold)
    with Journal(profile / "data" / "journal.sqlite3") as journal:
        assert journal.integrity_check() == "ok"
