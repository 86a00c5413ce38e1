"""Which keychain this user has: found once, remembered, and checked at every start.

keyring finds its backend by loading every backend any installed package offers and asking each
whether it works here. On a Linux till that is 100–150 ms of each start, most of it spent by the
macOS backend looking for its framework (``ctypes.util.find_library`` runs ``ldconfig``, ``gcc``
and ``ld``). The answer changes only when the machine does, so the terminal remembers it in a small
file of the profile (:attr:`pos_terminal.paths.Paths.keychain_file`) and later starts load that one
backend:

- a backend already chosen in this process (``keyring.set_keyring``), ``PYTHON_KEYRING_BACKEND`` and
  keyring's own configuration file are the user's choice and always win, as they do in keyring;
- a remembered keychain is loaded and asked again whether it works (the Secret Service, for one,
  checks its D-Bus service); when it does not, keyring looks again. A keychain found is remembered; none found
  is not, while the remembered one is still installed: a process outside the desktop's session (cron without
  ``DBUS_SESSION_BUS_ADDRESS``) does not reach the keychain, which is still there for the session's;
- a remembered "no keychain" is used at once, and looked at again when no sign-in is stored where it led, and
  before a sign-in (:meth:`Keychain.look_again`): a keychain set up since is where the sign-in is looked for and
  kept, and every secret from the next start. (Not on a thread after the start: a thread still looking when the
  window closes was killed by the interpreter's exit, which aborted the bundle now and then.)

Nothing secret is in the file: the name of a Python class, and what it was found with.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from pathlib import Path

import keyring
import keyring.backend
import keyring.core
from keyring.backend import KeyringBackend
from keyring.backends import fail, null
from keyring.util import platform_

from pos_terminal.disk.remembered import installed, read, write

log = logging.getLogger(__name__)

FORMAT = 1

Backend = KeyringBackend  # what the layers above may name without importing keyring


def is_none(backend: KeyringBackend) -> bool:
    """keyring's stand-ins for no keychain at all (``fail``, which refuses, and ``null``, which drops)."""
    return isinstance(backend, fail.Keyring | null.Keyring)


def is_keychain(backend: KeyringBackend) -> bool:
    """True when ``backend`` is a real keychain (keyring's "recommended": priority 1 or more)."""
    if is_none(backend):
        return False
    try:
        priority = float(backend.priority)
    except Exception:  # a backend reports being unusable by raising from its priority
        return False
    return priority >= 1


def _found_with() -> dict[str, object]:
    """What an answer holds for: another keyring, Python or program may see other backends."""
    return {"format": FORMAT, "keyring": installed(keyring.core.__file__), "python": sys.executable}


def _name(backend: KeyringBackend) -> str:
    return f"{type(backend).__module__}.{type(backend).__qualname__}"


def _read(memory: Path) -> str | None:
    """The remembered backend's class name, if the file holds one found with this keyring and Python."""
    remembered = read(memory)
    if remembered is None or not isinstance(name := remembered.get("backend"), str):
        return None
    if any(remembered.get(key) != value for key, value in _found_with().items()):
        return None
    return name


def _installed(name: str) -> bool:
    """Whether the backend class ``name`` is still there to load (it may only not answer this process)."""
    module, _, cls = name.rpartition(".")
    try:
        return isinstance(getattr(importlib.import_module(module), cls, None), type)
    except Exception:  # a backend's module may fail to import in its own ways
        return False


def remember(memory: Path, backend: KeyringBackend) -> None:
    write(memory, {**_found_with(), "backend": _name(backend)}, "the keychain found")


def _detect() -> KeyringBackend:
    """keyring's own choice among every backend it can load (its configuration aside): the slow path."""
    backends: list[KeyringBackend] = keyring.backend.get_all_keyring()
    best = max(backends, default=None, key=keyring.backend.by_priority)
    return best if best is not None else fail.Keyring()  # type: ignore[no-untyped-call]


def _users_choice() -> bool:
    """A backend the user chose for keyring: in this process, in the environment or in keyring's own file."""
    chosen_here = getattr(keyring.core, "_keyring_backend", None) is not None  # keyring.set_keyring(...)
    return chosen_here or "PYTHON_KEYRING_BACKEND" in os.environ or (platform_.config_root() / "keyringrc.cfg").exists()


class Keychain:
    """The backend this process uses, and whether it came from memory as "no keychain" (then worth a recheck)."""

    def __init__(self, memory: Path) -> None:
        self.memory = memory
        self.backend, self.from_memory = self._choose()

    def _choose(self) -> tuple[KeyringBackend, bool]:
        if _users_choice():  # the second token keeper of a terminal finds the first one's choice here
            return keyring.get_keyring(), False
        name = _read(self.memory)
        if name is not None:
            try:
                remembered = keyring.core.load_keyring(name)
            except Exception:  # gone, or not answering this process: look again
                remembered = None
            if remembered is not None and (is_keychain(remembered) or is_none(remembered)):
                keyring.set_keyring(remembered)
                return remembered, True
            log.info("the keychain remembered (%s) is not available; looking again", name)
        found = _detect()
        keyring.set_keyring(found)
        if is_keychain(found) or name is None or not _installed(name):
            remember(self.memory, found)
        else:  # a process outside the desktop's session (cron, ssh) does not reach it; the session's still does
            log.warning("no keychain answers this process; the one remembered (%s) stays remembered", name)
        return found, False

    @property
    def worth_a_recheck(self) -> bool:
        """True when "no keychain" came from memory: one may have been set up since it was remembered."""
        return self.from_memory and not is_keychain(self.backend)

    def look_again(self) -> KeyringBackend | None:
        """When :attr:`worth_a_recheck`, look as keyring does and remember the answer: the keychain found, or None.
        Slow (100–150 ms on Linux), so asked where a person waits anyway: before a sign-in, whose token should go to
        a keychain set up since. This process's other secrets stay where they were found; the next start uses the
        keychain for all."""
        if not self.worth_a_recheck:
            return None
        self.from_memory = False
        found = _detect()
        if not is_keychain(found):
            return None  # "no keychain" is what is remembered already
        remember(self.memory, found)
        log.info("a keychain is available now (%s); the sign-in is looked for and kept there", _name(found))
        return found
