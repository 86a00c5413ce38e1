"""PySide6 reads the source of every module imported after it; the window's process tells it not to.

Once ``PySide6.QtCore`` is loaded, PySide replaces ``__import__``, and after each import it reads the
new module's whole source file to see whether it mentions "PySide6" (PYSIDE-2029, in
``shibokensupport/feature.py``, unchanged up to 6.11). The answer only matters to a process that
switches on one of PySide's ``__feature__`` options (``snake_case``, ``true_property``): a module
that mentions PySide6 then switches back to the plain names. The terminal uses none, so every module's
answer is the same "leave the names as they are", and the reading is pure cost: each module the start
loads after Qt (our views, pydantic, httpx, asyncio, the services) is read once more as text, about a
third of the time those imports take from a checkout. A bundle, whose modules have no source beside
them, never paid it. ``tests/ui/test_import_scan.py`` holds both halves: the scan is skipped, and no
module of ours imports ``__feature__``.
"""

from __future__ import annotations

import sys
from types import ModuleType


def _uses_no_feature(module: ModuleType) -> bool:
    """What PySide's scan answers for a module that does not mention PySide6: do not switch its features."""
    return False


def skip_source_scans() -> bool:
    """Load Qt's core and turn PySide's source scan off; True when it was there to turn off."""
    import PySide6.QtCore  # noqa: F401  (installs the import hook and its feature module)

    feature = sys.modules.get("shibokensupport.feature")
    if feature is None or not callable(getattr(feature, "_mod_uses_pyside", None)):
        return False
    setattr(feature, "_mod_uses_pyside", _uses_no_feature)  # noqa: B010 (a private name of a module typed as ModuleType)
    return True
