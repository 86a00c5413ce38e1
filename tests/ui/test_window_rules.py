"""Issue 51's rules over every page and dialog the window opens (:mod:`tests.ui.rules`), walked as a store owner
does on a first day: the set-up page and the sign-in, the first manager and the shift, each tab and page of the
workspace, the About, close-shift and Reset PIN dialogs, the lock screen with a PIN and with a new PIN to choose,
and a manager's approval asked by a cashier.

- keys: no two mnemonics or shortcuts of a window clash ("Receipt &header" and "C&hoose…" both took Alt+H);
- tab: Tab goes through a form's fields in reading order and on to its main button, and Return there acts or says
  why not (the new-PIN form went from the PIN to "Set the PIN and sign in", which ignored Return);
- titles: each window says what it is, the main window's the store, the till and the person at it; each dialog
  is a dialog to the window manager.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from pos_terminal.app import AppHost
from pos_terminal.domain.people import Role
from pos_terminal.paths import Paths
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.people_page import Form
from pos_terminal.ui.signin_view import SignInState
from pos_terminal.ui.till_view import TillMode
from tests.conftest import mint_token
from tests.helpers.ui import ANA, ANA_PIN, type_item
from tests.ui.conftest import MANAGER, MANAGER_PIN, TERMINAL_ID, finish, until
from tests.ui.rules import clashing_keys, tab_problems, title_problems

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox, QWidget

NEW_PIN = "24681357"
STORE = "Café Nord"


def click(widget: QWidget) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton)


class Walk:
    """What one rule found at each stop of the walk."""

    def __init__(self, rule: str) -> None:
        self.rule = rule
        self.found: list[str] = []

    def look(self, where: str) -> None:
        """Every window shown now, as it is: its keys, or its title."""
        QApplication.processEvents()
        for top in QApplication.topLevelWidgets():
            if not top.isVisible() or top.windowType() in (Qt.WindowType.Popup, Qt.WindowType.ToolTip):
                continue
            here = f"{where} ({type(top).__name__})"
            if self.rule == "keys":
                self.found += clashing_keys(top, here)
            elif self.rule == "titles":
                self.found += title_problems(top, here)

    def main_title(self, window: MainWindow, where: str, *, has: tuple[str, ...], lacks: tuple[str, ...] = ()) -> None:
        if self.rule != "titles":
            return
        title = window.windowTitle()
        self.found += [
            f"{where}: the window's title {title!r} does not name {part!r}" for part in has if part not in title
        ]
        self.found += [f"{where}: the window's title {title!r} still names {part!r}" for part in lacks if part in title]

    async def form(
        self,
        where: str,
        form: QWidget,
        main: QAbstractButton,
        said: Callable[[], bool] | None = None,
        *,
        fields: list[QWidget] | None = None,
    ) -> None:
        """Tab through ``form`` from its first field; then Return on ``main`` (left empty: it says why not)."""
        if self.rule != "tab":
            return
        self.found += tab_problems(form, main, where, fields=fields)
        if said is None:
            return
        main.setFocus(Qt.FocusReason.TabFocusReason)
        QTest.keyClick(main, Qt.Key.Key_Return)
        try:
            await until(said, timeout=5, what=f"{where}: a word after Return")
        except AssertionError:
            self.found.append(f"{where}: Return on {main.text().replace('&', '')!r} does nothing and says nothing")


async def answer_no(walk: Walk, where: str, box: Callable[[], QMessageBox | None]) -> None:
    """A question asked in a box: looked at, then answered No."""
    await until(lambda: (shown := box()) is not None and shown.isVisible(), what=where)
    asked = box()
    assert asked is not None
    walk.look(where)
    click(asked.button(QMessageBox.StandardButton.No))


async def _setup_and_sign_in(walk: Walk, tmp_path: Path, make_window: Callable[[AppHost], MainWindow]) -> None:
    host = AppHost(Paths.profile(tmp_path / "fresh"))
    window = make_window(host)
    window.start()
    assert window.page is Page.SETUP
    setup = window.setup
    walk.look("the set-up page")
    await walk.form("the set-up page", setup, setup.continue_button, lambda: bool(setup.error.text()))
    setup.terminal_id.setText("LANE-1")
    click(setup.continue_button)
    await until(lambda: window.page is Page.SIGN_IN and window.sign_in.state is SignInState.PENDING, what="a code")
    walk.look("the sign-in page")
    await finish(window, host, wait=False)


async def _first_day(walk: Walk, host: AppHost, window: MainWindow) -> None:
    await until(lambda: window.page is Page.TILL and window.terminal is not None, what="the till's page")
    terminal = window.terminal
    assert terminal is not None
    till = window.till
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.FIRST_MANAGER, what="the first manager")
    first = till.pages[TillMode.FIRST_MANAGER]
    walk.look("the first manager's form")
    await walk.form("the first manager's form", first, till.create_button, till.error.isVisible)
    for field, text in ((till.first_name, MANAGER), (till.first_pin, MANAGER_PIN), (till.first_again, MANAGER_PIN)):
        field.clear()
        QTest.keyClicks(field, text)
    click(till.create_button)
    await until(lambda: till.mode is TillMode.OPEN_SHIFT, what="the shift step")
    walk.look("opening the shift")
    shift_page = till.pages[TillMode.OPEN_SHIFT]
    await walk.form("opening the shift", shift_page, till.open_button, till.error.isVisible)
    till.opening_float.clear()
    QTest.keyClicks(till.opening_float, "200.00")
    click(till.open_button)
    await until(lambda: window.page is Page.WORKSPACE, what="the workspace")
    walk.main_title(window, "the manager at the till", has=(TERMINAL_ID, MANAGER))

    # each tab and page of the workspace
    cashier = window.cashier
    for index in range(cashier.entry_tabs.count()):
        cashier.entry_tabs.setCurrentIndex(index)
        walk.look(f"the cashier's screen, {cashier.entry_tabs.tabText(index)!r}")
    type_item(window, "Scone", "4.00")
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    await answer_no(walk, "a new check", lambda: cashier.confirmation)
    for tab in (Tab.HISTORY, Tab.REPORTS):
        window.show_tab(tab)
        walk.look(f"the {tab} tab")
    reports = window.workspace.report_tabs
    for index in range(reports.count()):
        reports.setCurrentIndex(index)
        walk.look(f"Reports, {reports.tabText(index)!r}")
    window.show_tab(Tab.SETTINGS)
    settings = window.workspace.settings_view
    walk.look("Settings")
    await walk.form("Settings", settings, settings.save_button)
    click(settings.about_button)
    about = window.settings_flow.about
    assert about is not None
    await until(about.isVisible, what="About")
    walk.look("About")
    about.reject()
    click(settings.disconnect_button)
    await answer_no(walk, "disconnecting", lambda: settings.confirm)

    window.show_tab(Tab.BACK_OFFICE)
    office = window.workspace.back_office
    for index in range(office.pages.count()):
        office.pages.setCurrentIndex(index)
        walk.look(f"the back office, {office.pages.tabText(index)!r}")
    people = office.people
    office.pages.setCurrentWidget(people)
    click(people.add_button)
    assert people.form is Form.ADD
    walk.look("People, adding a person")
    await walk.form("People, adding a person", people.panel, people.submit_button, people.reason.isVisible)
    click(people.cancel_button)

    details = office.details
    office.pages.setCurrentWidget(details)
    click(details.choose_logo_button)
    chooser = details.logo_dialog
    assert chooser is not None
    await until(chooser.isVisible, what="the logo's file dialog")
    walk.look("choosing the logo")
    chooser.reject()
    details.name.setText(STORE)
    click(details.save_button)
    await until(lambda: details.done.isVisible() or details.reason.isVisible(), what="the details saved")
    assert not details.reason.isVisible(), details.reason.text()
    walk.main_title(window, "the store's name saved", has=(STORE, TERMINAL_ID, MANAGER))

    window.show_tab(Tab.REPORTS)
    reports.setCurrentWidget(window.workspace.shifts)
    click(window.workspace.shifts.close_button)
    dialog = window.approvals.close_dialog
    assert isinstance(dialog, CloseShiftDialog)
    await until(dialog.isVisible, what="the close-shift dialog")
    walk.look("closing the shift")
    counts = [*dialog.spins.values(), dialog.typed_total, dialog.print_z]  # the notes' column, then the coins'
    await walk.form("closing the shift", dialog, dialog.close_button, fields=counts)
    dialog.reject()

    # a cashier whose PIN a manager resets, then chooses at the till
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    window.show_tab(Tab.BACK_OFFICE)
    office.pages.setCurrentWidget(people)
    people.refresh()
    people.table.selectRow([p.name for p in people.model.rows].index(ANA))
    click(people.pin_button)
    box = people.confirm_box
    assert isinstance(box, QMessageBox)
    walk.look("Reset PIN")
    click(box.button(QMessageBox.StandardButton.Yes))
    await until(people.done.isVisible, what="the PIN reset")

    window.activateWindow()
    await until(window.isActiveWindow, what="the window active")
    QTest.keyClick(window, Qt.Key.Key_F12)
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.SIGN_IN, what="the lock screen")
    walk.main_title(window, "the till locked", has=(STORE, TERMINAL_ID), lacks=(MANAGER,))
    sign_in_page = till.pages[TillMode.SIGN_IN]
    click(next(b for b in till.person_buttons if b.text().startswith(MANAGER)))
    walk.look("the lock screen")
    await walk.form("the lock screen", sign_in_page, till.sign_in_button, till.error.isVisible)
    click(next(b for b in till.person_buttons if b.text().startswith(ANA)))
    assert till.pin_again.isVisible()
    walk.look("the lock screen, a new PIN")
    await walk.form("the lock screen, a new PIN", sign_in_page, till.sign_in_button, till.error.isVisible)
    click(next(b for b in till.person_buttons if b.text().startswith(ANA)))
    QTest.keyClicks(till.pin, NEW_PIN)
    QTest.keyClicks(till.pin_again, NEW_PIN)
    click(till.sign_in_button)
    await until(lambda: window.page is Page.WORKSPACE, what=f"{ANA} at the till")
    walk.main_title(window, "a cashier at the till", has=(STORE, TERMINAL_ID, ANA), lacks=(MANAGER,))

    # a cashier's change asks a manager
    window.show_tab(Tab.BACK_OFFICE)
    office.pages.setCurrentWidget(people)
    people.table.selectRow([p.name for p in people.model.rows].index(ANA))
    click(people.rename_button)
    people.new_name.setText("Ana Baker")
    click(people.submit_button)
    prompt = people.prompt
    assert isinstance(prompt, ManagerPrompt)
    await until(prompt.isVisible, what="the approval")
    walk.look("a manager's approval")
    await walk.form("a manager's approval", prompt, prompt.approve_button, prompt.error.isVisible)
    click(prompt.cancel_button)


@pytest.mark.parametrize("rule", ["keys", "tab", "titles"])
async def test_every_page_and_dialog_keeps_the_rules(
    rule: str,
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    walk = Walk(rule)
    await _setup_and_sign_in(walk, tmp_path, make_window)
    terminal = await host.connect()
    await terminal.session.sign_in_with_token(mint_token(client))
    window = make_window(host)
    window.start()
    await _first_day(walk, host, window)
    assert walk.found == [], "\n".join(walk.found)
    await finish(window, host)
