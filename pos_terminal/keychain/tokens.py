"""Where the sign-in (the token set) is kept: the OS keychain, or an opted-in file.

The keychain store fails closed: when ``keyring`` has no real backend (the
``fail`` or ``null`` backend, or any backend of priority below 1) nothing is
stored, and :class:`NoKeychain` says how to opt in to the file store. The file
store is unencrypted, written atomically with 0600 permissions, and says so in
``insecure`` and ``description`` so the settings can show it.

Token data is a JSON object (what the api layer's ``TokenSet.to_json`` gives);
it is never logged.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

import keyring
import keyring.errors
from keyring.backend import KeyringBackend

from pos_terminal.errors import UserError
from pos_terminal.keychain.backend import is_keychain
from pos_terminal.paths import APP_NAME

log = logging.getLogger(__name__)

SERVICE = APP_NAME
# Windows Credential Manager holds about 2,500 bytes (UTF-16) per entry, the smallest of the
# usual backends; 1,000 characters stays under it even for non-ASCII text.
CHUNK_SIZE = 1000
_CHUNKED = "chunks:"  # the main entry of a chunked token: "chunks:<count>:<sha256 of the whole>"

T = TypeVar("T")


class NoKeychain(UserError):
    sentence = "No keychain is available on this computer, so the sign-in cannot be stored safely."
    hint = (
        "Install or unlock a keychain (for example GNOME Keyring or KWallet), "
        "or allow storing the sign-in in an unencrypted file (allow_insecure_token_file = true in the settings)."
    )


class KeychainError(UserError):
    hint = "Unlock the keychain and try again."


class TokenFileError(UserError):
    hint = "Check the file's permissions, or remove it and sign in again."


class TokenKeeper(Protocol):
    """Keeps one terminal's token set between runs."""

    @property
    def insecure(self) -> bool:
        """True when the tokens sit unencrypted on disk."""
        ...

    @property
    def description(self) -> str:
        """Where the tokens are kept, for the settings and ``status``."""
        ...

    @property
    def can_keep(self) -> bool:
        """False when saving would fail: sign-in should refuse before asking anyone to approve."""
        ...

    def load(self) -> dict[str, Any] | None:
        """The stored token set, or None when there is none (or it cannot be trusted)."""
        ...

    def save(self, data: Mapping[str, Any]) -> None: ...

    def clear(self) -> None:
        """Remove everything stored; nothing stored is not an error."""
        ...


def _dump(data: Mapping[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def _parse(text: str, where: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        log.warning("the sign-in stored in %s is unreadable; ignoring it", where)
        return None
    return value


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --- the OS keychain -------------------------------------------------------------------------


class KeyringTokenKeeper:
    """The token set in the OS keychain under ``service``/``account``, split into chunks when large."""

    insecure = False
    can_keep = True

    def __init__(self, service: str, account: str, backend: KeyringBackend | None = None) -> None:
        """``backend``: keyring's active one when not given (see :mod:`pos_terminal.keychain.backend`)."""
        self.service = service
        self.account = account
        self._backend = backend if backend is not None else keyring.get_keyring()
        if not is_keychain(self._backend):
            raise NoKeychain()

    @property
    def description(self) -> str:
        name = getattr(self._backend, "name", type(self._backend).__name__)
        return f"the system keychain ({name})"

    def _chunk(self, index: int) -> str:
        return f"{self.account}#{index}"

    def _call(self, what: str, operation: Callable[[], T]) -> T:
        """Run one keychain operation; its failures become a KeychainError naming only their type."""
        try:
            return operation()
        except Exception as exc:  # backends raise their own types (D-Bus, Security framework...)
            # The message of a backend error is not shown or logged: it could echo what was being stored.
            log.warning("keychain %s failed: %s", what, type(exc).__name__)
            raise KeychainError(f"The system keychain could not {what} the sign-in ({type(exc).__name__}).") from None

    def _get(self, username: str) -> str | None:
        value: str | None = self._call("read", lambda: self._backend.get_password(self.service, username))
        return value

    def _set(self, username: str, value: str) -> None:
        self._call("save", lambda: self._backend.set_password(self.service, username, value))

    def _delete(self, username: str) -> None:
        def delete() -> None:
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                self._backend.delete_password(self.service, username)

        self._call("remove", delete)

    def load(self) -> dict[str, Any] | None:
        head = self._get(self.account)
        if head is None:
            return None
        if not head.startswith(_CHUNKED):
            return _parse(head, self.description)
        count_text, _, digest = head.removeprefix(_CHUNKED).partition(":")
        try:
            count = int(count_text)
        except ValueError:
            count = -1
        pieces = [self._get(self._chunk(i)) for i in range(1, count + 1)] if count > 0 else [None]
        if any(piece is None for piece in pieces):
            log.warning("the sign-in in %s is missing a part; ignoring it", self.description)
            return None
        text = "".join(p for p in pieces if p is not None)
        if _digest(text) != digest:
            # A save was cut short: the parts do not belong together.
            log.warning("the sign-in in %s does not match its checksum; ignoring it", self.description)
            return None
        return _parse(text, self.description)

    def save(self, data: Mapping[str, Any]) -> None:
        text = _dump(data)
        if len(text) <= CHUNK_SIZE:
            self._set(self.account, text)
            self._remove_chunks(start=1)
            return
        pieces = [text[i : i + CHUNK_SIZE] for i in range(0, len(text), CHUNK_SIZE)]
        for index, piece in enumerate(pieces, start=1):
            self._set(self._chunk(index), piece)
        # The head goes last: until it is written a reader sees the old head, whose checksum fails.
        self._set(self.account, f"{_CHUNKED}{len(pieces)}:{_digest(text)}")
        self._remove_chunks(start=len(pieces) + 1)

    def clear(self) -> None:
        self._remove_chunks(start=1)
        self._delete(self.account)

    def _remove_chunks(self, *, start: int) -> None:
        """Delete ``account#start`` onwards, up to the first one that is missing."""
        index = start
        while self._get(self._chunk(index)) is not None:
            self._delete(self._chunk(index))
            index += 1


# --- the opted-in file -------------------------------------------------------------------------


class FileTokenKeeper:
    """The token set in an unencrypted JSON file readable by this user only (explicit opt-in).

    The file keeps each sign-in under the ``account`` it belongs to, so a sign-in for one service is never sent to
    another after the settings change, and signing in to another (``--service``) does not forget this one's. A file
    of one sign-in, as earlier releases wrote it (``{"account", "tokens"}``), is read as such.
    """

    insecure = True
    can_keep = True

    def __init__(self, path: Path, *, account: str | None = None) -> None:
        self.path = path
        self.account = account

    @property
    def description(self) -> str:
        return f"an unencrypted file ({self.path})"

    def _accounts(self) -> dict[str, Any]:
        """Every sign-in in the file by account; none when there is no file or it cannot be read as one."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise TokenFileError(f"The sign-in file {self.path} cannot be read.") from exc
        stored = _parse(text, str(self.path))
        if stored is None:
            return {}
        if isinstance(accounts := stored.get("accounts"), dict):
            return {k: v for k, v in accounts.items() if isinstance(v, dict)}
        if isinstance(account := stored.get("account"), str) and isinstance(tokens := stored.get("tokens"), dict):
            return {account: tokens}
        return {}

    def load(self) -> dict[str, Any] | None:
        return self._accounts().get(self.account or "")

    def save(self, data: Mapping[str, Any]) -> None:
        try:
            accounts = self._accounts()
        except TokenFileError:
            accounts = {}  # an unreadable file holds no sign-in: this one replaces it
        accounts[self.account or ""] = dict(data)
        self._write(accounts)

    def _write(self, accounts: Mapping[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._write_atomically(_dump({"accounts": dict(accounts)}))
        except OSError as exc:
            raise TokenFileError(f"The sign-in file {self.path} cannot be written ({exc.strerror}).") from exc

    def _write_atomically(self, text: str) -> None:
        # mkstemp creates the file 0600 from the start, so the tokens are never readable by others.
        fd, temp_name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        temp = Path(temp_name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temp, 0o600)
            os.replace(temp, self.path)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        _fsync_directory(self.path.parent)

    def clear(self) -> None:
        """Forget this account's sign-in; the file goes with the last one."""
        try:
            accounts = self._accounts()
        except TokenFileError:
            accounts = {}
        accounts.pop(self.account or "", None)
        if accounts:
            self._write(accounts)
            return
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            raise TokenFileError(f"The sign-in file {self.path} cannot be removed ({exc.strerror}).") from exc


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable; not every platform can open a directory, and then there is nothing to do."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- nowhere -----------------------------------------------------------------------------------


class NoTokenKeeper:
    """No keychain and no opt-in: nothing is stored, and saving says why (fails closed)."""

    insecure = False
    can_keep = False
    description = "nowhere (no keychain is available)"

    def load(self) -> dict[str, Any] | None:
        return None

    def save(self, data: Mapping[str, Any]) -> None:
        raise NoKeychain()

    def clear(self) -> None:
        return None


def open_token_keeper(
    *,
    account: str,
    file_path: Path,
    allow_insecure_file: bool,
    backend: KeyringBackend | None = None,
) -> TokenKeeper:
    """The keychain when there is one; else the file if the user opted in; else a store that keeps nothing.
    ``backend``: the keychain to use, keyring's active one when not given."""
    try:
        store = _opened(account, file_path, allow_insecure_file, backend)
    except NoKeychain:
        log.warning("no keychain and no opt-in to a file: the sign-in will not be kept")
        return NoTokenKeeper()
    if isinstance(store, FileTokenKeeper):
        log.warning("no keychain: the sign-in is kept in an unencrypted file, as the settings allow")
    return store


def move_earlier_sign_in(
    store: TokenKeeper,
    earlier_account: str,
    *,
    file_path: Path,
    allow_insecure_file: bool,
    backend: KeyringBackend | None = None,
) -> bool:
    """Move the sign-in an earlier release kept under ``earlier_account`` (where ``store``'s kind of store keeps it)
    into ``store``, which holds none; the earlier key is let go of, so no second profile can take it too. True when
    there was one to move."""
    if isinstance(store, NoTokenKeeper):
        return False
    try:
        earlier = _opened(earlier_account, file_path, allow_insecure_file, backend)
    except NoKeychain:
        return False
    data = earlier.load()
    if data is None:
        return False
    store.save(data)
    if not (isinstance(earlier, FileTokenKeeper) and isinstance(store, FileTokenKeeper)):
        earlier.clear()  # the file is the profile's own and was just rewritten under the new key
    log.info("the sign-in kept under an earlier release's key now belongs to this profile")
    return True


def _opened(account: str, file_path: Path, allow_insecure_file: bool, backend: KeyringBackend | None) -> TokenKeeper:
    try:
        return KeyringTokenKeeper(SERVICE, account, backend)
    except NoKeychain:
        if not allow_insecure_file:
            raise
        return FileTokenKeeper(file_path, account=account)
