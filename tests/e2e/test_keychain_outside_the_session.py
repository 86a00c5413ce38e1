"""A command run outside the desktop's session (cron: no DBUS_SESSION_BUS_ADDRESS) finds no keychain; it says so, exits
non-zero where it needs the sign-in, and forgets nothing: the till's later runs, in the session, still find the sign-in
in the keychain. Real processes of the command line, with a keychain only the session reaches
(:class:`tests.session_keyring.SessionKeyring`, remembered as the first start in the session found it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import keyring.core
import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import mint_token

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


class Till:
    """One profile's command line, run as a process in the desktop's session or, as cron runs it, outside."""

    def __init__(self, sandbox: SandboxServer, base: Path) -> None:
        self.sandbox = sandbox
        self.profile = base / "till"
        self.keychain_file = self.profile / "data" / "keychain.json"
        (self.profile / "config").mkdir(parents=True)
        (self.profile / "config" / "config.toml").write_text('schema_version = 1\nterminal_id = "LANE-9"\n')
        self.env = {
            k: v for k, v in os.environ.items() if k not in ("PYTHON_KEYRING_BACKEND", "DBUS_SESSION_BUS_ADDRESS")
        }
        self.env |= {
            "PYTHONPATH": str(REPO),  # the session's keychain backend is the tests' own
            "POS_TEST_KEYCHAIN": str(base / "session-keychain.json"),
            "XDG_CONFIG_HOME": str(base / "xdg"),  # no keyringrc.cfg: the keychain is the one remembered
        }
        # what the first start in the session found and remembered, for this Python and this keyring
        installed = f"{keyring.core.__file__}@{os.stat(keyring.core.__file__).st_mtime_ns}"
        self.keychain_file.parent.mkdir(parents=True)
        self.keychain_file.write_text(
            json.dumps(
                {
                    "format": 1,
                    "keyring": installed,
                    "python": sys.executable,
                    "backend": "tests.session_keyring.SessionKeyring",
                }
            )
        )

    def run(self, *command: str, in_session: bool) -> subprocess.CompletedProcess[str]:
        env = {**self.env, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"} if in_session else self.env
        argv = [sys.executable, "-m", "pos_terminal", *command, "--profile", str(self.profile)]
        return subprocess.run(
            [*argv, "--service", self.sandbox.url], env=env, capture_output=True, text=True, timeout=120, check=False
        )

    def status(self, *, in_session: bool) -> Any:
        done = self.run("status", "--json", in_session=in_session)
        assert done.returncode == 0, done.stderr
        said = done.stderr.startswith("No keychain is available to this command")
        assert said is not in_session, done.stderr  # outside the session it says why it is signed out
        return json.loads(done.stdout)


def test_a_command_outside_the_session_forgets_no_keychain_and_the_session_still_finds_the_sign_in(
    sandbox: SandboxServer, client: httpx.Client, tmp_path: Path
) -> None:
    till = Till(sandbox, tmp_path)
    login = till.run("login", "--token", mint_token(client, expiresIn=0), in_session=True)
    assert login.returncode == 0, login.stderr
    assert till.status(in_session=True)["session"] == "connected"
    remembered = till.keychain_file.read_bytes()

    # cron's run: no keychain answers it, and it says so
    outside = till.status(in_session=False)
    assert outside["session"] == "signed out" and "no keychain" in outside["tokenStore"]
    assert till.keychain_file.read_bytes() == remembered, "the keychain remembered is the session's still"
    needs_the_sign_in = till.run("customers", in_session=False)
    assert needs_the_sign_in.returncode == 1
    said = [line for line in needs_the_sign_in.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and said[0].startswith("No keychain is available to this command"), said
    assert "DBUS_SESSION_BUS_ADDRESS" in said[0]
    assert till.keychain_file.read_bytes() == remembered

    # back in the session: the sign-in is where it was kept
    assert till.status(in_session=True)["session"] == "connected"
    listed = till.run("customers", "--json", in_session=True)
    assert listed.returncode == 0, listed.stderr
