"""Decoding what the terminal reads (settings, regions, catalog, check files, journal rows), within bounds.

Every reader hands its bytes here and gets plain values back, or one
:class:`~pos_terminal.errors.UserError` of the reader's own kind whose sentence
names the file and what is wrong. Nothing else escapes: not ``UnicodeDecodeError``,
not ``RecursionError`` from deep nesting, not the ``ValueError`` of Python's limit
on digits, and no hang on ``1e999999999``. What comes back is bounded:

- at most :data:`MAX_BYTES` bytes of UTF-8 (a byte-order mark is allowed);
- nested at most :data:`MAX_DEPTH` levels;
- numbers finite, below :data:`MAX_MAGNITUDE`, and no ``NaN`` or ``Infinity``;
- text that is valid Unicode (no lone surrogates) and, unless ``strict_text`` is
  off, without control characters (:func:`~pos_terminal.domain.text.text_problem`).

Readers pass the file's bytes, read with a cap: ``handle.read(MAX_BYTES + 1)``.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Callable
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from pos_terminal.domain.text import text_problem
from pos_terminal.errors import UserError

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 32
MAX_MAGNITUDE = 10**18  # far above any int32 amount, count or rate the terminal uses
_MAX_DIGITS = 24  # longer number literals are refused before Python converts them


class _Refused(Exception):
    """Raised inside a parser's hook; the message ends the file's sentence."""


def _int(text: str) -> int:
    if len(text) > _MAX_DIGITS:
        raise _Refused(f"holds a number that is too large ({text[:12]}…)")
    return int(text)


def _constant(text: str) -> Any:
    raise _Refused(f"holds {text}, which is not a number")


def _decimal(text: str) -> Decimal:
    number = Decimal(text)  # the JSON grammar admits only finite numbers here
    if number and number.adjusted() >= 18:
        raise _Refused(f"holds a number that is too large ({text[:12]}{'…' if len(text) > 12 else ''})")
    return number


def _float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _Refused(f"holds {text}, which is not a finite number")
    return number


def decode_json(
    raw: bytes | str,
    what: str,
    error: type[UserError],
    *,
    decimals: bool = False,
    strict_text: bool = True,
) -> Any:
    """The JSON value in ``raw``; ``error(sentence)`` when it is not one the terminal can use.

    ``what`` starts the sentence and names the file ("The catalog file /srv/catalog.json").
    ``decimals`` reads numbers with a fraction as :class:`~decimal.Decimal` (exact), else as float.
    """
    text = _text(raw, what, error)
    try:
        value = json.loads(
            text,
            parse_int=_int,
            parse_float=_decimal if decimals else _float,
            parse_constant=_constant,
        )
    except _Refused as exc:
        raise error(f"{what} {exc}.") from None
    except json.JSONDecodeError as exc:
        raise error(f"{what} is not valid JSON (line {exc.lineno}: {exc.msg}).") from None
    except RecursionError:
        raise error(f"{what} nests more than {MAX_DEPTH} levels deep.") from None
    check_value(value, what, error, strict_text=strict_text)
    return value


def decode_toml(raw: bytes, what: str, error: type[UserError]) -> dict[str, Any]:
    """The TOML table in ``raw``; ``error(sentence)`` when it is not one the terminal can use."""
    text = _text(raw, what, error)
    try:
        value = tomllib.loads(text, parse_float=_float)
    except _Refused as exc:
        raise error(f"{what} {exc}.") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{what} is not valid TOML: {exc}.") from None
    except RecursionError:
        raise error(f"{what} nests more than {MAX_DEPTH} levels deep.") from None
    except ValueError:  # Python's limit on the digits of an integer
        raise error(f"{what} holds a number that is too large.") from None
    check_value(value, what, error)
    return value


def _text(raw: bytes | str, what: str, error: type[UserError]) -> str:
    if len(raw) > MAX_BYTES:
        raise error(f"{what} is larger than {MAX_BYTES // (1024 * 1024)} MB.")
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{what} is not UTF-8 text (byte {exc.start + 1} cannot be read).") from None


_Path = tuple[str | int, ...]


def _where(path: _Path) -> str:
    """``items[2].name`` for the path ("items", 2, "name")."""
    shown = ""
    for step in path:
        shown += f"[{step}]" if isinstance(step, int) else (f".{step}" if shown else str(step))
    return shown[:80]


def check_value(value: Any, what: str, error: type[UserError], *, strict_text: bool = True) -> None:
    """Refuse ``value`` (decoded JSON or TOML) when it nests too deep or holds a bad number or text.

    Walks without recursion, so a value nested far deeper than :data:`MAX_DEPTH` is refused, not a crash.
    """
    problem_of: Callable[[str], str | None] = text_problem if strict_text else _surrogate_problem
    stack: list[tuple[Any, _Path]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        at = f" (at {_where(path)})" if path else ""
        if len(path) > MAX_DEPTH:
            raise error(f"{what} nests more than {MAX_DEPTH} levels deep.")
        if isinstance(node, dict):
            for key, child in node.items():
                if not isinstance(key, str):
                    raise error(f"{what} has a key that is not text{at}.")
                if (problem := problem_of(key)) is not None:
                    raise error(f"{what} has a key that {problem}{at}.")
                stack.append((child, (*path, key)))
        elif isinstance(node, list):
            stack.extend((child, (*path, index)) for index, child in enumerate(node))
        elif isinstance(node, str):
            if (problem := problem_of(node)) is not None:
                raise error(f"{what} {problem}{at}.")
        elif isinstance(node, bool) or node is None or isinstance(node, datetime | date | time):
            continue
        elif isinstance(node, int | float | Decimal):
            if not _finite(node):
                raise error(f"{what} holds a number that is not finite{at}.")
            if not -MAX_MAGNITUDE < node < MAX_MAGNITUDE:
                raise error(f"{what} holds a number that is too large{at}.")
        else:
            raise error(f"{what} holds a value of an unknown kind{at}.")


def _finite(number: int | float | Decimal) -> bool:
    if isinstance(number, Decimal):
        return number.is_finite()
    return isinstance(number, int) or math.isfinite(number)


def _surrogate_problem(value: str) -> str | None:
    """Only what cannot be written as UTF-8; control characters pass (journal rows keep what the service said)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a character that is not valid text"
    return None
