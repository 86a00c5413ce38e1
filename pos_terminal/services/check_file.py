"""Check files: the JSON the ``charge`` command reads, turned into a :class:`~pos_terminal.domain.check.Check`.

The file goes through the bounded decoder (size, nesting, numbers, text) and
then :func:`~pos_terminal.domain.check_json.check_from_file`; anything wrong is a :class:`CheckFileError` whose
sentence names the file.
"""

from __future__ import annotations

from pathlib import Path

from pos_terminal.domain.check import Check
from pos_terminal.domain.check_json import CheckFileError, check_from_file
from pos_terminal.domain.decode import MAX_BYTES, decode_json


def read_check_file(path: Path) -> Check:
    """The check in the JSON file at ``path``; amounts in cents, rates and percents in percent."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise CheckFileError(f"The check file {path} does not exist.") from None
    except (OSError, ValueError) as exc:  # ValueError: a name holding a NUL character
        raise CheckFileError(
            f"The check file {path} cannot be read ({getattr(exc, 'strerror', None) or exc})."
        ) from exc
    data = decode_json(raw, f"The check file {path}", CheckFileError, decimals=True)
    if not isinstance(data, dict):
        raise CheckFileError(f"The check file {path} must hold one JSON object with items.")
    return check_from_file(data, source=f"The check file {path}")
