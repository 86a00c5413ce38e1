"""Small answers an earlier start found, kept in the profile as JSON for later starts (the keychain, the money format).

Each is an answer that takes a start tens of milliseconds to find and changes only when the machine does: kept
beside the package that gave it (:func:`installed`), read tolerantly (anything unreadable is no answer), and
written atomically (a disk that refuses only means finding it again next time).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)


def installed(module_file: str | None) -> str | None:
    """Which copy of a package is installed, told by one of its files (an upgrade writes them anew), without asking
    its metadata (which reads every installed package's). In a bundle, where the file may not exist, its path."""
    if module_file is None:
        return None
    try:
        return f"{module_file}@{os.stat(module_file).st_mtime_ns}"
    except OSError:
        return module_file


def read(path: Path) -> dict[str, object] | None:
    """The JSON object in ``path``; None when there is none, or it cannot be read as one."""
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) else None


def write(path: Path, kept: dict[str, object], what: str) -> None:
    """``kept`` as JSON in ``path``, atomically; a disk that refuses is logged, naming ``what`` was to be kept."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(kept, handle, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError as exc:
        log.warning("%s cannot be remembered (%s); the next start finds it again", what, exc.strerror)
