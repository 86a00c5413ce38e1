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
from pathlib import Path

from pos_terminal.disk.remembered import installed, read, write
from pos_terminal.domain.money import MoneyFormat


def money_format(locale: str, currency: str, memory: Path) -> MoneyFormat:
    """``MoneyFormat(locale, currency)``, from what an earlier start learned when this Babel learned it;
    :class:`~pos_terminal.errors.ConfigError` for a locale or currency Babel does not know, as ever."""
    spec = importlib.util.find_spec("babel")  # which Babel, without importing it
    babel, key = installed(spec.origin if spec is not None else None), f"{locale} {currency}"
    kept = read(memory)
    if kept is None or babel is None or kept.get("babel") != babel:
        kept = {"babel": babel}
    taught = MoneyFormat.teach(locale, currency, kept.get(key))
    money = MoneyFormat(locale, currency)
    if not taught and babel is not None:
        kept[key] = money.learned()
        write(memory, kept, "the money format")
    return money
