"""A confirmation is deleted once answered: a shift of refunds kept every box it asked, about 0.25 MB each."""

from __future__ import annotations

from pos_terminal.ui.widgets import confirm

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget


def test_answered_confirmations_do_not_pile_up(qapp: QApplication) -> None:
    parent = QWidget()
    answers: list[str] = []
    for n in range(40):
        box = confirm(parent, "Refund", f"Refund {n}?", "It cannot be undone.", lambda: answers.append("yes"))
        answer = QMessageBox.StandardButton.Yes if n % 2 else QMessageBox.StandardButton.No
        QTest.mouseClick(box.button(answer), Qt.MouseButton.LeftButton)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    assert answers == ["yes"] * 20
    assert parent.findChildren(QMessageBox) == []
