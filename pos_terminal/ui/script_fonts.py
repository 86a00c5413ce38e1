"""Names the system has no font for: the window falls back to the fonts the PDFs use.

A counter PC without Chinese, Japanese or Korean fonts (a minimal Linux install) drew a customer named 雷 李 as two
empty boxes, in the customers' list, on the check and on the customer's display, while the PDFs showed the name,
since they embed Droid Sans Fallback and NanumSquare (``pos_terminal/reports/fonts.py``). For each of those writing
systems the system has no font for, the window adds the bundled font that draws it to the application's fonts, and
Qt's fallback finds it for the characters the platform's font lacks. A system with its own fonts keeps them. It is
done once, after the cashier screen is ready: adding a font costs a few milliseconds, and its file is read only
when such a name is drawn.
"""

from __future__ import annotations

import logging
from functools import cache

from pos_terminal import assets

from PySide6.QtGui import QFontDatabase

log = logging.getLogger(__name__)

WritingSystem = QFontDatabase.WritingSystem
FALLBACKS = {  # the bundled font for each writing system
    WritingSystem.SimplifiedChinese: assets.FONT_CJK,
    WritingSystem.TraditionalChinese: assets.FONT_CJK,
    WritingSystem.Japanese: assets.FONT_CJK,
    WritingSystem.Korean: assets.FONT_HANGUL,
}


def missing_writing_systems() -> list[QFontDatabase.WritingSystem]:
    """Those of :data:`FALLBACKS` that no font the window can use draws."""
    return [system for system in FALLBACKS if not QFontDatabase.families(system)]


@cache
def add_fallback_fonts() -> tuple[str, ...]:
    """Add the bundled fonts for the writing systems the system lacks, once per process; the families added. A
    font file that cannot be read is logged: names in it then show as the system draws them."""
    missing = missing_writing_systems()
    added: list[str] = []
    for name in dict.fromkeys(FALLBACKS[system] for system in missing):
        file = assets.path("fonts", name)
        font = QFontDatabase.addApplicationFont(str(file))
        if font < 0:
            log.warning("the fallback font %s could not be loaded", file)
            continue
        added.extend(QFontDatabase.applicationFontFamilies(font))
    if added:
        names = ", ".join(QFontDatabase.writingSystemName(system) for system in missing)
        log.info("no system font for %s: names in them are drawn in %s", names, ", ".join(added))
    return tuple(added)
