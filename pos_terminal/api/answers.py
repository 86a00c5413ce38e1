"""Reading the JSON of the service's answers: one place, and every string in it valid text.

The service's text is shown, journaled and printed; a lone surrogate there (``"\\ud800"``) cannot be written
as UTF-8 and would crash whatever writes it out, and a control character has no business on a screen or a
receipt. Both are replaced by U+FFFD ("�") as the answer is read.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pos_terminal.domain.text import as_text

# JSON can carry a lone surrogate or a control character only as an escape (raw ones are not UTF-8, or not JSON):
# an answer without such an escape needs no look at its strings. Tab, line feed and carriage return are text.
_ODD_ESCAPE = re.compile(rb"\\u(?:[dD][89a-fA-F]|00[01]|007[fF]|00[89])|\\[bf]")


def has_odd_text(body: bytes) -> bool:
    """Whether ``body`` may hold text that is not text (a lone surrogate, a control character)."""
    return _ODD_ESCAPE.search(body) is not None


def read_json(body: bytes | str) -> Any:
    """The JSON value of an answer, every string in it valid text; ``ValueError`` when it is not JSON
    (nesting too deep to read included)."""
    try:
        value = json.loads(body)
        if has_odd_text(body.encode(errors="surrogatepass") if isinstance(body, str) else body):
            value = _as_text(value)
    except RecursionError:
        raise ValueError("nested too deep") from None
    return value


def _as_text(value: Any) -> Any:
    if isinstance(value, str):
        return as_text(value)
    if isinstance(value, list):
        return [_as_text(v) for v in value]
    if isinstance(value, dict):
        return {as_text(k): _as_text(v) for k, v in value.items()}
    return value
