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
