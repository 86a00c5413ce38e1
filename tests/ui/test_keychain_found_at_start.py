"""The window looks in the keychain it finds for the sign-in kept there.

A run outside the desktop's session (cron) of a release before this one remembered "no keychain" in the profile; the
window, back in the session, logged that a keychain was available now and still asked for a device sign-in, though
the till's sign-in was kept in that keychain all along.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

import httpx
import keyring
import keyring.backend
import keyring.core
import pytest
from keyring.backend import KeyringBackend

from pos_terminal.app import AppHost
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.session import SessionState
from pos_terminal.ui.main_window import MainWindow, Page
from pos_terminal.ui.till_view import TillMode
from tests.conftest import mint_token
from tests.keyrings import SystemKeyring
from tests.ui.conftest import finish, until


async def test_a_remembered_no_keychain_does_not_hide_the_sign_in_kept_in_the_keychain(
    profile: Paths,
    sandbox: SandboxServer,
    client: httpx.Client,
    make_window: Callable[[AppHost], MainWindow],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: os.PathLike[str],
) -> None:
    SystemKeyring.shelf.clear()
    keyring.set_keyring(SystemKeyring())  # the desktop's keychain: the till signs in there
    earlier = AppHost(profile, service_url=sandbox.url)
    terminal = await earlier.connect()
    await terminal.session.sign_in_with_token(mint_token(client, expiresIn=0))
    await earlier.aclose()
    assert SystemKeyring.shelf, "the sign-in is kept in the keychain"

    installed = f"{keyring.core.__file__}@{os.stat(keyring.core.__file__).st_mtime_ns}"
    profile.keychain_file.write_text(  # what a run outside the session left remembered
        json.dumps(
            {"format": 1, "keyring": installed, "python": sys.executable, "backend": "keyring.backends.fail.Keyring"}
        )
    )
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # a new process: nothing chosen yet
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    offered: list[KeyringBackend] = [SystemKeyring()]
    monkeypatch.setattr(keyring.backend, "get_all_keyring", lambda: list(offered))

    host = AppHost(profile, service_url=sandbox.url)
    window = make_window(host)
    window.start()
    await until(lambda: window.page in (Page.TILL, Page.SIGN_IN), what="the till's page, or the sign-in")
    assert window.page is Page.TILL, "the sign-in kept in the keychain was found: no device sign-in is asked for"
    assert window.terminal is not None and window.terminal.session.state is SessionState.CONNECTED
    assert window.till.mode is TillMode.FIRST_MANAGER
    assert json.loads(profile.keychain_file.read_text())["backend"] == "tests.keyrings.SystemKeyring"
    await finish(window, host)
