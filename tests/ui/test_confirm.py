"""A confirmation is deleted once answered, and leaves nothing behind: a shift of refunds kept every box it
asked (about 0.25 MB each), and then a copy of its warning sign in Qt's pixmap cache."""

from __future__ import annotations

from pos_terminal.ui.widgets import confirm
from tests.helpers.memory import c_heap_in_use

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QWidget


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


def ask(parent: QWidget, count: int) -> None:
    for n in range(count):
        box = confirm(parent, "Refund", f"Refund {n}?", "It cannot be undone.", lambda: None)
        box.show()  # the sign is drawn
        QCoreApplication.processEvents()
        QTest.mouseClick(box.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


def test_a_day_of_confirmations_keeps_one_warning_sign(qapp: QApplication) -> None:
    """``QMessageBox.setIcon`` loaded the sign anew for each box, and Qt's icon engine kept each copy in the
    application's pixmap cache under a key of its own: 300 boxes left 3.5 MB behind."""
    parent = QWidget()
    ask(parent, 10)
    before = c_heap_in_use()
    ask(parent, 300)
    grown = c_heap_in_use() - before
    assert grown < 250_000, f"{grown / 1e3:.0f} kB more in use after 300 confirmations"
    assert parent.findChildren(QMessageBox) == []


def test_an_answer_gives_the_keyboard_back_to_where_it_was(qapp: QApplication) -> None:
    """With no window manager (a counter's kiosk session) nothing made the window active again once a question
    closed: its shortcuts stayed dead until the screen was touched."""
    window = QWidget()
    field = QLineEdit(window)
    window.show()
    window.activateWindow()
    field.setFocus()
    QCoreApplication.processEvents()
    box = confirm(window, "New check", "Start a new check?", "It is thrown away.", lambda: None)
    box.show()
    box.activateWindow()
    QCoreApplication.processEvents()
    QTest.mouseClick(box.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
    QCoreApplication.processEvents()
    assert window.isActiveWindow() and field.hasFocus()
    window.close()


def test_a_window_let_go_of_with_its_answered_question_goes_once(qapp: QApplication) -> None:
    """The question kept the window it gives the keyboard back to; when that was the last hold on the window, the
    window went with the question's deletion, and deleted the question a second time: a segmentation fault."""
    window = QWidget()
    box = confirm(window, "New check", "Start a new check?", "It is thrown away.", lambda: None)
    QTest.mouseClick(box.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
    del window, box
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    QCoreApplication.processEvents()
