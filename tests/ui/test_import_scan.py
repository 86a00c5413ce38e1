"""The window tells PySide not to read every later module's source (``pos_terminal.ui.import_scan``).

Both halves are held: on the PySide6 we pin the scan is there and is turned off, and no module of ours uses
the ``__feature__`` options that would make the scan's answer matter.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

import pos_terminal
from pos_terminal.ui.import_scan import skip_source_scans


def test_a_module_imported_after_the_window_starts_is_not_read_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert skip_source_scans()  # the scan exists in this PySide6: an upgrade that drops it is noticed here
    feature = sys.modules["shibokensupport.feature"]
    (tmp_path / "mentions_qt.py").write_text('"""Uses PySide6."""\nfrom PySide6.QtCore import QObject\n')
    monkeypatch.syspath_prepend(str(tmp_path))

    read: list[object] = []
    getsource = inspect.getsource
    monkeypatch.setattr("inspect.getsource", lambda module: read.append(module) or getsource(module))
    __import__("mentions_qt")  # as an import statement does: PySide's hook replaces __import__
    monkeypatch.delitem(sys.modules, "mentions_qt")
    assert read == []  # PySide read no source (it does when the scan is on)
    assert feature.pyside_feature_dict.pop("mentions_qt") == -1  # "no feature to switch", as for any other module


def test_no_module_of_ours_switches_on_a_pyside_feature() -> None:
    package = Path(pos_terminal.__file__).parent
    feature_import = re.compile(r"^\s*(from|import)\s+__feature__\b", re.MULTILINE)
    using = [str(p.relative_to(package)) for p in package.rglob("*.py") if feature_import.search(p.read_text())]
    assert using == [], "import_scan's shortcut is only right while no module uses PySide's __feature__ options"
