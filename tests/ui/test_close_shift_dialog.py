"""The close-shift dialog holds still while the manager types: a total half typed ("1.", then "1.250,00") said
it could not be read, and the sentence's coming grew the dialog, which stayed grown once it went, spreading the
notes and coins further apart under the manager's fingers."""

from __future__ import annotations

from datetime import UTC, datetime

from pytestqt.qtbot import QtBot

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.shift import Shift
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog

from PySide6.QtCore import QPoint
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget


def places(dialog: CloseShiftDialog) -> list[QPoint]:
    """Where each count, the total typed and the buttons are in the dialog."""
    widgets: list[QWidget] = [*dialog.spins.values(), dialog.typed_total, dialog.close_button, dialog.cancel_button]
    return [w.mapTo(dialog, QPoint(0, 0)) for w in widgets]


def test_a_total_typed_through_a_sentence_moves_nothing(qtbot: QtBot) -> None:
    owner = QWidget()
    qtbot.addWidget(owner)
    owner.resize(1024, 768)
    owner.show()
    shift = Shift(1, "LANE-1", datetime(2026, 11, 27, 9, tzinfo=UTC), "Jürgen Müller", 125_000)
    dialog = CloseShiftDialog(shift, MoneyFormat("de_DE", "EUR"), owner)
    dialog.open()
    qtbot.waitExposed(dialog)
    before, size = places(dialog), dialog.size()

    QTest.keyClicks(dialog.typed_total, "1.")
    QApplication.processEvents()
    assert dialog.error.isVisible() and "is not an amount" in dialog.error.text()
    assert places(dialog) == before and dialog.size() == size, "the sentence moved the dialog's fields"

    QTest.keyClicks(dialog.typed_total, "250,00")
    QApplication.processEvents()
    assert not dialog.error.isVisible()
    assert dialog.total.text() == "Cash counted: 1.250,00\xa0€"
    assert places(dialog) == before and dialog.size() == size, "the dialog stayed grown after the sentence went"
    dialog.reject()
