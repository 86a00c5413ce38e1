"""What counts as text on a check (valid Unicode, without control characters but tab and line ends), and how
text is folded for searching.

A lone surrogate (JSON ``"\\ud800"``) cannot be encoded as UTF-8: it cannot be journaled,
sent or printed, so the check refuses it before it leaves, naming the field.
"""

from __future__ import annotations

import re
import unicodedata

_NOT_TEXT = re.compile("[\ud800-\udfff]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot go on a check, as the end of a sentence ("… holds a control character"), or None."""
    found = _NOT_TEXT.search(value)
    if found is None:
        return None
    if "\ud800" <= found.group() <= "\udfff":
        return "holds a character that is not valid text"
    return "holds a control character"


def as_text(value: str) -> str:
    """``value`` with each lone surrogate and control character replaced by U+FFFD (shown as "�").

    For what the terminal only shows (a name, a note, a detail from the service): better a visible mark
    than a customer missing from the list, or a crash where the text is written out.
    """
    return _NOT_TEXT.sub("\ufffd", value)


def fold(value: str) -> str:
    """``value`` as people search for it: case folded, then accents dropped (NFKD, combining marks removed).

    "Zoë Ångström" folds to "zoe angstrom", so typing "zoe" finds her; "ß" folds to "ss", "ﬁ" to "fi" and
    "İ" to "i" (folding first, so the dot its folded form carries goes too). Letters that do not decompose
    (Ł, Ø) keep their own folded form.
    """
    if value.isascii():
        return value.lower()
    decomposed = unicodedata.normalize("NFKD", value.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_FAMILY_NAME_FIRST = ("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH", "HIRAGANA", "KATAKANA", "HANGUL")


def _family_name_first(text: str) -> bool:
    """Written in Chinese, Japanese or Korean script: such a name is said family name first, with no space."""
    letters = [c for c in text if not c.isspace() and c not in "・･"]
    return bool(letters) and all(unicodedata.name(c, "").startswith(_FAMILY_NAME_FIRST) for c in letters)


def person_name(first: str | None, last: str | None) -> str:
    """A customer's name as people write it: "Ava Nguyen", but "李雷" for 雷 (first) and 李 (last)."""
    if first and last and _family_name_first(first + last):
        return f"{last}{first}"
    return " ".join(part for part in (first, last) if part)
