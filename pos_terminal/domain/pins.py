"""PINs are kept only as a slow, salted hash: scrypt from the standard library.

A PIN has few digits, so its hash is slow on purpose (about 0.1 s here, 32 MiB of
memory) and salted per person; five wrong tries lock the person (see
:mod:`pos_terminal.domain.people`), which is what protects a PIN at the till. The
stored text names its parameters (``scrypt$15$8$1$<salt>$<hash>``, log2 of N
first), so a later release can raise them and still read what is stored.

Neither a PIN nor a hash is ever logged or written to the audit log. Both cross to a worker thread
wrapped in :class:`Secret`: an executor that logs what it runs (qasync's does, at DEBUG) shows "Secret(***)".
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from pos_terminal.errors import UserError

MIN_PIN, MAX_PIN = 4, 12
SCHEME = "scrypt"
LOG2_N, R, P = 15, 8, 1  # 2**15 × 128 × 8 bytes = 32 MiB per hash
SALT_BYTES, KEY_BYTES = 16, 32
_MAX_LOG2_N = 20  # what a stored hash may ask for: never more memory than this (1 GiB) to check one PIN


class Secret:
    """A PIN or a PIN's hash on its way through code that may log or show it: its text is only ever ``***``."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret(***)"

    __str__ = __repr__


class BadPin(UserError):
    """A PIN that cannot be one (letters, too short, too long)."""

    hint = f"A PIN is {MIN_PIN} to {MAX_PIN} digits."


def check_pin(pin: str) -> str:
    """``pin`` when it is a PIN; :class:`BadPin` with one sentence when not (never repeating what was typed)."""
    if not pin:
        raise BadPin("No PIN was typed.")  # Return on an empty form: not "digits only", which reads as a refusal
    if not pin.isascii() or not pin.isdigit():
        raise BadPin("A PIN is digits only.")
    if not MIN_PIN <= len(pin) <= MAX_PIN:
        raise BadPin(f"The PIN has {len(pin)} digits.")
    return pin


def _scrypt(pin: str, salt: bytes, log2_n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        pin.encode("ascii"), salt=salt, n=2**log2_n, r=r, p=p, dklen=KEY_BYTES, maxmem=2 * 128 * r * 2**log2_n
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    """The text kept for ``pin``: scheme, parameters, salt and hash (the PIN is checked first)."""
    check_pin(pin)
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    return "$".join((SCHEME, str(LOG2_N), str(R), str(P), _b64(salt), _b64(_scrypt(pin, salt, LOG2_N, R, P))))


def pin_matches(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the PIN ``stored`` was made from; False for anything that is not a stored PIN."""
    try:
        scheme, log2_n, r, p, salt, expected = stored.split("$")
        parameters = int(log2_n), int(r), int(p)
        salt_bytes, expected_bytes = base64.b64decode(salt, validate=True), base64.b64decode(expected, validate=True)
    except ValueError:
        return False
    if scheme != SCHEME or not (1 <= parameters[0] <= _MAX_LOG2_N and 1 <= parameters[1] <= 32 and parameters[2] == 1):
        return False
    if not pin.isascii() or not pin.isdigit() or not MIN_PIN <= len(pin) <= MAX_PIN:
        return False
    return hmac.compare_digest(_scrypt(pin, salt_bytes, *parameters), expected_bytes)


def hash_secret(pin: Secret) -> Secret:
    """:func:`hash_pin` for a worker thread: neither the PIN going in nor the hash coming out shows in a log."""
    return Secret(hash_pin(pin.reveal()))


def secret_matches(pin: Secret, stored: Secret) -> bool:
    """:func:`pin_matches` for a worker thread."""
    return pin_matches(pin.reveal(), stored.reveal())
