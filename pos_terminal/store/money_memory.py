"""What the money format learned from Babel, remembered between starts.

Babel and its locale data take 20–30 ms of each start, to tell the terminal the few things it keeps
(:meth:`pos_terminal.domain.money.MoneyFormat.learned`: the decimal mark, the grouping, the currency's
symbols and the layout of an amount). A till's locale and currency rarely change, so the profile keeps
them (:attr:`pos_terminal.paths.Paths.money_file`) for the Babel that found them; a later start with the
same Babel formats and reads amounts without loading it. Another Babel, or a file that cannot be read,
means asking Babel again.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import tempfile
from pathlib import Path

from pos_terminal.domain.money import MoneyFormat

log = logging.getLogger(__name__)


def _babel() -> str | None:
    """Which Babel is installed, told by its files (an upgrade writes them anew), without importing it."""
    spec = importlib.util.find_spec("babel")
    if spec is None or spec.origin is None:
        return None
    try:
        return f"{spec.origin}@{os.stat(spec.origin).st_mtime_ns}"
    except OSError:  # a bundle's modules: the bundle is the program, and its Babel comes with it
        return spec.origin


def money_format(locale: str, currency: str, memory: Path) -> MoneyFormat:
    """``MoneyFormat(locale, currency)``, from what an earlier start learned when this Babel learned it;
    :class:`~pos_terminal.errors.ConfigError` for a locale or currency Babel does not know, as ever."""
    babel, key = _babel(), f"{locale} {currency}"
    try:
        kept = json.loads(memory.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        kept = None
    if not isinstance(kept, dict) or babel is None or kept.get("babel") != babel:
        kept = {"babel": babel}
    taught = MoneyFormat.teach(locale, currency, kept.get(key))
    money = MoneyFormat(locale, currency)
    if not taught and babel is not None:
        kept[key] = money.learned()
        _write(memory, kept)
    return money


def _write(memory: Path, kept: dict[str, object]) -> None:
    """Atomically; a disk that refuses only means asking Babel again next time."""
    try:
        memory.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=memory.parent, prefix=".money-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(kept, handle, ensure_ascii=False)
        os.replace(tmp, memory)
    except OSError as exc:
        log.warning("the money format cannot be remembered (%s); Babel is asked again next time", exc.strerror)
