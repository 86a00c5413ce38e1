"""The Qt binding must keep Python's reference counts: a release that drops a reference to None on every
call returning nothing (PySide6 6.12.0) aborts a Python 3.11 process after a few thousand label updates."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QStatusBar

CALLS = 20_000


def test_qt_setters_keep_the_references_to_none(qapp: QApplication) -> None:
    label, line, status = QLabel(), QLineEdit(), QStatusBar()
    before = sys.getrefcount(None)
    for n in range(CALLS // 4):
        label.setText(str(n))
        line.setText(str(n))
        status.showMessage(str(n))
        label.setEnabled(n % 2 == 0)
        if sys.getrefcount(None) < before - 100:
            break  # stop before the count reaches zero and takes the test run with it
    lost = before - sys.getrefcount(None)
    assert lost <= 10, f"{lost} references to None lost in {CALLS} calls of Qt setters: this binding is unsafe"
