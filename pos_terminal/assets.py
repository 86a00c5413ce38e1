"""Where the application's own assets are: the top-level ``resources/`` folder of the source tree.

One folder, three ways of running, one rule: the folder ``resources`` inside the package when the
build put it there, else the one beside the package.

- From a checkout or an editable install, the package is ``<tree>/pos_terminal`` and the assets are
  ``<tree>/resources``, beside it.
- A wheel maps ``resources/`` into the package as ``pos_terminal/resources`` (``package-dir`` in
  pyproject.toml), so an installed package carries its assets inside it.
- The PyInstaller bundle puts ``resources/`` at ``pos_terminal/resources`` too
  (``packaging/pos-terminal.spec``).

Paths, not ``importlib.resources``: none of the three is a zip, and reportlab, Qt and the desktop
files want real files. Standard library only.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def folder() -> Path:
    """The resources folder (see the module's docstring)."""
    package = Path(__file__).resolve().parent
    inside = package / "resources"
    return inside if inside.is_dir() else package.parent / "resources"


def path(*parts: str) -> Path:
    """A file or folder in the resources, like ``path("fonts", "DejaVuSans.ttf")``."""
    return folder().joinpath(*parts)


def read_text(*parts: str) -> str:
    return path(*parts).read_text(encoding="utf-8")


# The bundled fonts, in resources/fonts (its README gives their licences): DejaVu Sans for Latin, Greek and
# Cyrillic, then for what it lacks Droid Sans Fallback (Chinese, Japanese) and NanumSquare (Korean: Droid Sans
# Fallback has 3 of Hangul's 11,172 syllables). The PDFs, the receipt printer's pictures and the window use these.
FONT_SANS = "DejaVuSans.ttf"
FONT_SANS_BOLD = "DejaVuSans-Bold.ttf"
FONT_CJK = "DroidSansFallbackFull.ttf"
FONT_HANGUL = "NanumSquareR.ttf"
FALLBACK_FONTS = (FONT_CJK, FONT_HANGUL)  # in the order a character the first lacks looks for its glyph
