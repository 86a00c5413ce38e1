"""The terminal's version, from one source: the installed package's metadata (``version`` in pyproject.toml).

The bundle carries that metadata too (``packaging/pos-terminal.spec``); a checkout run without
installing it has none, and says so rather than guessing.
"""

from __future__ import annotations

from functools import cache

DISTRIBUTION = "pos-terminal"


@cache
def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown (not installed)"
