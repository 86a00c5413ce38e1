"""A real keyring backend that keeps secrets in a dict, for every test that signs in.

``limit`` caps the size of one entry, as some platforms' keychains do.
"""

from __future__ import annotations

import keyring
from keyring.backend import KeyringBackend
from keyring.compat import properties


class MemoryKeyring(KeyringBackend):
    priority = 5  # type: ignore[assignment]

    def __init__(self, limit: int | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.secrets: dict[tuple[str, str], str] = {}
        self.limit = limit

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        if self.limit is not None and len(password) > self.limit:
            raise keyring.errors.PasswordSetError("value too large for this keychain")
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.secrets.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


class StoppedKeyring(MemoryKeyring):
    """A keychain whose service has stopped since it was found: keyring's backends say so by raising from their
    priority, as the Secret Service does when its D-Bus service is gone."""

    @properties.classproperty
    def priority(cls) -> float:  # noqa: N805 (keyring's class property)
        raise RuntimeError("the keychain's service is not running")


class SystemKeyring(MemoryKeyring):
    """A keychain that outlives the backend objects made for it, as the system's does: every instance sees the
    same secrets (``SystemKeyring.shelf``; a test empties it first)."""

    shelf: dict[tuple[str, str], str] = {}  # noqa: RUF012 (shared on purpose)

    def __init__(self) -> None:
        super().__init__()
        self.secrets = SystemKeyring.shelf
