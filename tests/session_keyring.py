"""A keychain of the desktop's session, as the Secret Service is, for tests that run the command line as processes.

Alone in its module: a process that loads it by name (the keychain its profile remembers) imports this module, and
keyring offers every backend class imported so far when it looks for one (the in-memory ones of
:mod:`tests.keyrings` would be found, which no real process has).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import keyring.errors
from keyring.backend import KeyringBackend
from keyring.compat import properties


class SessionKeyring(KeyringBackend):
    """Its secrets outlive every process (kept in the JSON file ``$POS_TEST_KEYCHAIN``), and only a process that has
    the session's ``DBUS_SESSION_BUS_ADDRESS`` reaches it: one without, as cron starts it, finds it not running."""

    @properties.classproperty
    def priority(cls) -> float:  # noqa: N805 (keyring's class property)
        if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
            raise RuntimeError("the session's bus is not reachable from this process")
        return 5

    def _secrets(self) -> dict[str, str]:
        path = Path(os.environ["POS_TEST_KEYCHAIN"])
        return dict(json.loads(path.read_text())) if path.exists() else {}

    def _keep(self, secrets: dict[str, str]) -> None:
        Path(os.environ["POS_TEST_KEYCHAIN"]).write_text(json.dumps(secrets))

    def get_password(self, service: str, username: str) -> str | None:
        return self._secrets().get(f"{service}\n{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        self._keep({**self._secrets(), f"{service}\n{username}": password})

    def delete_password(self, service: str, username: str) -> None:
        secrets = self._secrets()
        if secrets.pop(f"{service}\n{username}", None) is None:
            raise keyring.errors.PasswordDeleteError("not found")
        self._keep(secrets)
