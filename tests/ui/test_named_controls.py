"""Every control has a name a screen reader says (issue 51: the search fields' ⊗ clear buttons were read as
"button" alone). The rule walks every page of the window, built or not yet shown, and every dialog."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from pytestqt.qtbot import QtBot

from pos_terminal.app import AppHost
from pos_terminal.domain.people import Guarded
from pos_terminal.ui.about import AboutDialog
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
from pos_terminal.ui.main_window import MainWindow, Tab
from pos_terminal.ui.widgets import clearable
from tests.ui.conftest import finish, signed_in_window, until
from tests.ui.names import spoken_name, unnamed_controls

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QToolButton, QWidget


def test_a_clear_button_says_what_it_clears(qtbot: QtBot) -> None:
    field = QLineEdit()
    qtbot.addWidget(field)
    field.setAccessibleName("Find customer")
    clearable(field, "Clear the customer search")
    field.setText("Zoë")
    [clear] = field.findChildren(QToolButton)
    assert spoken_name(clear) == "Clear the customer search"
    assert clear.toolTip() == "Clear the customer search"
    assert unnamed_controls(field) == []


async def test_every_control_of_every_page_and_dialog_has_a_name(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = window.terminal
    assert terminal is not None
    workspace = window.workspace
    for tab in Tab:  # each tab's page built, as when first shown
        window.show_tab(tab)
    workspace.history, workspace.reports, workspace.settings_view, workspace.back_office  # noqa: B018 (built)
    window.help  # noqa: B018 (built)
    QApplication.processEvents()
    assert unnamed_controls(window) == [], "\n".join(unnamed_controls(window))

    dialogs: list[QWidget] = [
        CloseShiftDialog(terminal.shifts.require_open(), terminal.money, window),
        ManagerPrompt(terminal.till, Guarded.REFUND, "Refund $4.00 to Zoë?", window),
    ]
    window.show_tab(Tab.SETTINGS)
    QTest.mouseClick(workspace.settings_view.about_button, Qt.MouseButton.LeftButton)
    about = window.settings_flow.about
    assert isinstance(about, AboutDialog)
    dialogs.append(about)
    window.show_tab(Tab.CASHIER)
    window.cashier.keypad_page.item_name.setText("Scone")
    window.cashier.keypad_page.item_price.setText("4.00")
    QTest.mouseClick(window.cashier.keypad_page.add_item_button, Qt.MouseButton.LeftButton)
    await until(lambda: window.cashier.ticket.lines.rowCount() == 1, what="an item on the check")
    window.cashier.request_new_check()  # asks first: a check is being built
    confirmation = window.cashier.confirmation
    assert isinstance(confirmation, QMessageBox)
    dialogs.append(confirmation)
    for dialog in dialogs:
        dialog.show()
        QApplication.processEvents()
        assert unnamed_controls(dialog) == [], dialog.windowTitle()
        dialog.close()
    await finish(window, host)
