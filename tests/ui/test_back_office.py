"""The back office's people and store details on real widgets: a manager adds a cashier who signs in at once, a
cashier's change asks for a manager's PIN and the audit log names the manager with old and new values, the till's
refusals beside the form (a store till's too, while its store is away: a real PostgreSQL), and the store's details
on a receipt. Both pages fit at 1024×768 and 1920×1080."""

from __future__ import annotations

import io
import logging
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from PIL import Image, ImageDraw, ImageFont
from pypdf import PdfReader

from pos_terminal import assets
from pos_terminal.app import AppHost
from pos_terminal.domain.details import LIMITS
from pos_terminal.domain.people import MAX_NAME, Role
from pos_terminal.domain.pins import MAX_PIN
from pos_terminal.domain.sale import Phase
from pos_terminal.errors import UserError
from pos_terminal.reports.receipt import render_receipt
from pos_terminal.services.staff import PinToSet
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.details_page import DetailsPage
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.people_page import Form, PeoplePage
from pos_terminal.ui.till_view import TillMode
from tests.helpers.ui import ANA, ANA_PIN, BEN, BEN_PIN, authorized_sale, misaligned_labels, pictures, switch_to
from tests.store.postgres import StoreTarget
from tests.ui.conftest import MANAGER, MANAGER_PIN, finish, sign_in_at_till, signed_in_window, until
from tests.ui.layout import clipped

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QWidget,
)

EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
NEW_PIN, OTHER_PIN = "24681357", "24681358"  # Ana's own choice after a reset, and a slip of the finger


def nameless(page: QWidget) -> list[str]:
    """Controls shown on ``page`` that a screen reader could not name."""
    controls = (QAbstractButton, QLineEdit, QComboBox, QAbstractItemView, QPlainTextEdit)
    return [
        f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r}"
        for w in page.findChildren(QWidget)
        if isinstance(w, controls)
        and w.isVisible()
        and not w.accessibleName()
        and not isinstance(w.parentWidget(), QLineEdit | QComboBox | QAbstractItemView)
    ]


def type_in(widget: QWidget, text: str) -> None:
    """Typing, letters beyond ASCII too (QTest's key clicks know ASCII only): a key press and release each."""
    for char in text:
        if char.isascii():
            QTest.keyClicks(widget, char)
            continue
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QApplication.sendEvent(widget, QKeyEvent(kind, 0, Qt.KeyboardModifier.NoModifier, char))


def click(widget: object) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton)  # type: ignore[call-overload]


async def back_office(window: MainWindow) -> None:
    """Ctrl+6, as a person at the counter opens it (the window active again after any prompt)."""
    window.activateWindow()
    await until(window.isActiveWindow, what="the window active")
    QTest.keyClick(window, Qt.Key.Key_6, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.workspace.back_office


async def people_page(window: MainWindow) -> PeoplePage:
    await back_office(window)
    office = window.workspace.back_office
    office.pages.setCurrentWidget(office.people)
    return office.people


async def details_page(window: MainWindow) -> DetailsPage:
    await back_office(window)
    office = window.workspace.back_office
    office.pages.setCurrentWidget(office.details)
    return office.details


def names(page: PeoplePage) -> list[str]:
    return [person.name for person in page.model.rows]


def row(page: PeoplePage, name: str) -> list[str]:
    index = names(page).index(name)
    return [page.model.cell(page.model.rows[index], column) for column in range(page.model.columnCount())]


def choose(page: PeoplePage, name: str) -> None:
    page.table.selectRow(names(page).index(name))
    assert page.selected() is not None and page.selected().name == name  # type: ignore[union-attr]


async def settled(page: PeoplePage) -> None:
    await until(lambda: not page.tasks.busy, what="the change made or refused")


def fill_add(page: PeoplePage, name: str, pin: str, again: str, role: Role = Role.CASHIER) -> None:
    click(page.add_button)
    assert page.form is Form.ADD and page.name.hasFocus()
    QTest.keyClicks(page.name, name)
    page.role.setCurrentIndex(page.role.findData(role))
    QTest.keyClicks(page.pin, pin)
    QTest.keyClicks(page.pin_again, again)


def audit(terminal: Terminal, action: str) -> list[tuple[str | None, dict[str, object]]]:
    entries = terminal.journal.audit.between(EPOCH, datetime.now(UTC) + timedelta(days=1))
    return [(e.actor, e.detail) for e in entries if e.action == action]


async def test_a_manager_adds_a_cashier_who_is_at_once_on_the_till_and_signs_in(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    page = await people_page(window)
    assert names(page) == [MANAGER] and row(page, MANAGER) == [MANAGER, "Manager", "Yes", ""]
    assert page.name.maxLength() == MAX_NAME and page.pin.maxLength() == MAX_PIN
    assert page.pin.echoMode() is page.pin.EchoMode.Password and page.pin_again.echoMode() is page.pin.EchoMode.Password

    fill_add(page, ANA, ANA_PIN, ANA_PIN[:-1] + "0")
    QApplication.processEvents()  # laid out
    submit_at = page.submit_button.mapTo(page, QPoint(0, 0))
    QTest.keyClick(page.pin_again, Qt.Key.Key_Return)
    assert page.reason.isVisible() and page.reason.text() == "The two PINs differ. Type the same PIN twice."
    QApplication.processEvents()
    assert page.submit_button.mapTo(page, QPoint(0, 0)) == submit_at, "the refusal moved the button under the finger"
    assert page.name.text() == ANA and page.pin.text() == "" and page.pin.hasFocus(), "the name stays, a PIN again"
    assert names(page) == [MANAGER]
    QTest.keyClicks(page.pin, ANA_PIN)
    QTest.keyClicks(page.pin_again, ANA_PIN)
    QTest.keyClick(page.pin_again, Qt.Key.Key_Return)
    await settled(page)
    assert page.done.text() == f"{ANA} is added as a cashier: they can sign in at the till now."
    assert names(page) == [ANA, MANAGER] and row(page, ANA) == [ANA, "Cashier", "Yes", ""]
    assert page.form is Form.NONE and not page.reason.isVisible()

    # The same name again (case and spacing do not count): the till's sentence, and the form as typed.
    fill_add(page, "ana  CASHIER", BEN_PIN, BEN_PIN)
    click(page.submit_button)
    await settled(page)
    assert page.reason.text().startswith("Someone called “ana CASHIER” is already on this terminal.")
    assert (page.name.text(), page.pin.text(), page.form) == ("ana  CASHIER", BEN_PIN, Form.ADD)
    click(page.cancel_button)
    assert page.pin.text() == "" and page.form is Form.NONE, "no PIN stays in a hidden field"

    QTest.keyClick(window, Qt.Key.Key_F12)  # switch person: Ana is among the people at once
    await until(lambda: window.page is Page.TILL, what="the till locked")
    assert sorted(b.text().split("\n")[0] for b in window.till.person_buttons) == [ANA, MANAGER]
    await sign_in_at_till(window, ANA, ANA_PIN)
    assert host.terminal is not None and host.terminal.till.actor == ANA
    assert audit(host.terminal, "person added")[1:] == [(MANAGER, {"person": ANA, "role": "cashier"})]
    await finish(window, host)


async def test_a_cashiers_change_in_the_back_office_asks_a_manager_and_the_audit_names_them(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    await terminal.till.add_person(BEN, Role.CASHIER, BEN_PIN)
    await switch_to(window, ANA, ANA_PIN)

    page = await people_page(window)
    assert names(page) == [ANA, BEN, MANAGER], "the page reads the people when shown"
    choose(page, BEN)
    click(page.rename_button)
    assert page.form is Form.RENAME and page.new_name.text() == BEN
    page.new_name.clear()
    QTest.keyClicks(page.new_name, "Ben Baker")
    QTest.keyClick(page.new_name, Qt.Key.Key_Return)
    prompt = page.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
    assert prompt.question.text() == f"Rename {BEN} to Ben Baker?" and "Asked by Ana Cashier" in prompt.reason.text()
    click(prompt.cancel_button)  # no manager: nothing changes, the form stays as typed
    assert names(page) == [ANA, BEN, MANAGER] and page.new_name.text() == "Ben Baker" and page.form is Form.RENAME

    click(page.submit_button)
    prompt = page.prompt
    assert isinstance(prompt, ManagerPrompt)
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: "Ben Baker" in names(page), what="the rename")
    assert page.done.text() == f"{BEN} is now called Ben Baker."
    assert audit(terminal, "person renamed") == [(MANAGER, {"person": "Ben Baker", "name": [BEN, "Ben Baker"]})]

    choose(page, "Ben Baker")
    click(page.role_button)
    assert page.new_role.currentData() == Role.MANAGER
    click(page.submit_button)
    prompt = page.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.question.text() == "Make Ben Baker a manager?"
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: row(page, "Ben Baker")[1] == "Manager", what="the new role")
    assert audit(terminal, "role changed") == [(MANAGER, {"person": "Ben Baker", "role": ["cashier", "manager"]})]
    approvals = [(actor, detail["manager"], detail["act"]) for actor, detail in audit(terminal, "approval")]
    assert approvals == [(ANA, MANAGER, "manage people")] * 2

    # The store's details: the same prompt, for the catalog's and details' act.
    details = await details_page(window)
    type_in(details.name, "Café Nord")
    click(details.save_button)
    prompt = details.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.question.text() == "Save this till's details?"
    assert prompt.manager.currentText() == "Ben Baker", "a manager now, listed first"
    prompt.manager.setCurrentIndex(prompt.manager.findData(MANAGER))
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: details.done.isVisible() or details.reason.isVisible(), what="saved")
    assert not details.reason.isVisible(), details.reason.text()
    assert audit(terminal, "store details changed") == [(MANAGER, {"name": [None, "Café Nord"]})]

    window.activateWindow()  # the prompt was the active window until it closed
    await until(window.isActiveWindow, what="the window active")
    QTest.keyClick(window, Qt.Key.Key_F12)  # the new name and role on the till at once
    await until(lambda: window.page is Page.TILL, what="the till locked")
    shown = sorted(b.text() for b in window.till.person_buttons)
    assert shown == [f"{ANA}\ncashier", "Ben Baker\nmanager", f"{MANAGER}\nmanager"]
    await finish(window, host)


async def test_rename_role_disable_enable_unlock_and_the_tills_refusals(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    page = await people_page(window)
    changes: list[None] = []
    page.changed.connect(lambda: changes.append(None))

    # The only manager left can be neither disabled nor made a cashier: the till's sentence says why.
    choose(page, MANAGER)
    assert page.disable_button.isEnabled() and not page.enable_button.isEnabled()
    click(page.disable_button)
    await settled(page)
    assert page.reason.text() == f"{MANAGER} is the only manager left. Add another manager first."
    click(page.role_button)
    assert page.new_role.currentData() == Role.CASHIER
    click(page.submit_button)
    await settled(page)
    assert page.reason.text() == f"{MANAGER} is the only manager left. Make someone else a manager first."
    assert row(page, MANAGER) == [MANAGER, "Manager", "Yes", ""] and changes == []

    fill_add(page, ANA, ANA_PIN, ANA_PIN)
    click(page.submit_button)
    await settled(page)
    assert names(page) == [ANA, MANAGER] and len(changes) == 1

    # A name someone has, an empty one, a PIN that cannot be one: refused, the form as typed.
    choose(page, ANA)
    click(page.rename_button)
    page.new_name.setText(MANAGER.lower())
    click(page.submit_button)
    await settled(page)
    assert page.reason.text().startswith(f"Someone called “{MANAGER.lower()}” is already on this terminal.")
    assert page.new_name.text() == MANAGER.lower() and page.form is Form.RENAME
    page.new_name.setText("   ")
    click(page.submit_button)
    assert page.reason.text().startswith("The name is empty.")

    # Five wrong PINs lock Ana; the page shows until when, and a manager unlocks her.
    for _ in range(5):
        with pytest.raises(UserError):
            await terminal.staff.verify(ANA, "0000")
    page.refresh()
    assert row(page, ANA)[3] != "" and page.unlock_button.isEnabled()
    click(page.unlock_button)
    await settled(page)
    assert page.done.text() == f"{ANA} is unlocked and can sign in again." and row(page, ANA)[3] == ""

    # Disabled, she is off the till's list but still here; enabled, she is back with her PIN. A form being filled
    # in meanwhile stays as it was.
    fill_add(page, "Carla Cashier", "", "")
    click(page.disable_button)
    await settled(page)
    assert page.form is Form.ADD and page.name.text() == "Carla Cashier"
    click(page.cancel_button)
    assert row(page, ANA) == [ANA, "Cashier", "No: disabled", ""] and page.enable_button.isEnabled()
    assert [p.name for p in terminal.staff.people(active_only=True)] == [MANAGER]
    click(page.enable_button)
    await settled(page)
    assert row(page, ANA)[2] == "Yes" and page.done.text() == f"{ANA} is enabled and can sign in again with their PIN."

    # A PIN reset, and a rename; then she chooses her new PIN at the till and is signed in with it.
    await reset_pin(page, ANA)
    click(page.rename_button)
    page.new_name.setText("Ana Smith")
    QTest.keyClick(page.new_name, Qt.Key.Key_Return)
    await settled(page)
    assert names(page) == ["Ana Smith", MANAGER] and page.selected().name == "Ana Smith"  # type: ignore[union-attr]
    assert len(changes) == 6
    actions = ("person unlocked", "person disabled", "person enabled", "PIN reset", "person renamed")
    assert all(audit(terminal, action)[0][0] == MANAGER for action in actions)
    await back_to_window(window)
    QTest.keyClick(window, Qt.Key.Key_F12)
    await set_pin_at_till(window, "Ana Smith", BEN_PIN)
    await finish(window, host)


async def back_to_window(window: MainWindow) -> None:
    window.activateWindow()  # a prompt or a question was the active window until it closed
    await until(window.isActiveWindow, what="the window active")


async def reset_pin(page: PeoplePage, name: str) -> None:
    """The manager at the till resets ``name``'s PIN: asked first, then told who sets the new one."""
    choose(page, name)
    click(page.pin_button)
    box = page.confirm_box
    assert box is not None and box.text() == f"Reset {name}'s PIN?"
    assert box.informativeText().startswith("They choose a new one at their next sign-in at the till")
    click(box.button(QMessageBox.StandardButton.Yes))
    await settled(page)
    assert page.done.text() == f"{name} sets a new PIN at their next sign-in.", page.reason.text()


async def set_pin_at_till(window: MainWindow, name: str, pin: str) -> None:
    """At the till's sign-in: tap the name, the new PIN, Enter, the same again, Enter: the workspace."""
    till = window.till
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.SIGN_IN, what="the till's sign-in")
    QTest.mouseClick(next(b for b in till.person_buttons if b.text().startswith(name)), Qt.MouseButton.LeftButton)
    assert till.pin_again.isVisible() and till.sign_in_button.text() == "&Set the PIN and sign in"
    QTest.keyClicks(till.pin, pin)
    QTest.keyClick(till.pin, Qt.Key.Key_Return)
    assert till.pin_again.hasFocus()
    QTest.keyClicks(till.pin_again, pin)
    QTest.keyClick(till.pin_again, Qt.Key.Key_Return)
    await until(lambda: window.page is Page.WORKSPACE, what=f"{name} at the till")


async def test_a_reset_pin_is_chosen_by_the_person_at_the_till_and_the_old_one_no_longer_opens(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    page = await people_page(window)
    assert row(page, ANA)[2] == "Yes"
    await reset_pin(page, ANA)
    assert row(page, ANA) == [ANA, "Cashier", "Yes: new PIN to set", ""]
    pictures(window, "back-office-people-pin-reset", tmp_path)
    assert audit(terminal, "PIN reset") == [(MANAGER, {"person": ANA, "newPin": "at the till"})]
    for pin in (ANA_PIN, NEW_PIN):  # no PIN opens, and nothing counts towards a lock
        with pytest.raises(PinToSet, match=f"^{ANA} must choose a new PIN at the till before signing in"):
            await terminal.staff.verify(ANA, pin)
    assert terminal.staff.find(ANA).wrong_pins == 0

    await back_to_window(window)
    QTest.keyClick(window, Qt.Key.Key_F12)
    till = window.till
    await until(lambda: window.page is Page.TILL and till.mode is TillMode.SIGN_IN, what="the till's sign-in")
    assert not till.pin_again.isVisible() and not till.new_pin_text.isVisible()
    QTest.mouseClick(next(b for b in till.person_buttons if b.text().startswith(ANA)), Qt.MouseButton.LeftButton)
    assert till.new_pin_text.isVisible() and till.new_pin_text.text().startswith(f"Choose your new PIN, {ANA}")
    assert till.pin.echoMode() is QLineEdit.EchoMode.Password
    assert till.pin_again.echoMode() is QLineEdit.EchoMode.Password
    pictures(window, "till-new-pin", tmp_path)

    # Two different PINs, then one too short: refused there, nothing set, both fields emptied.
    QTest.keyClicks(till.pin, NEW_PIN)
    QTest.keyClick(till.pin, Qt.Key.Key_Return)
    QTest.keyClicks(till.pin_again, OTHER_PIN)
    QTest.keyClick(till.pin_again, Qt.Key.Key_Return)
    assert till.error.text() == "The two PINs differ. Type the same new PIN twice."
    assert till.pin.text() == till.pin_again.text() == "" and till.pin.hasFocus()
    QTest.keyClicks(till.pin, "12")
    QTest.keyClicks(till.pin_again, "12")
    QTest.keyClick(till.pin_again, Qt.Key.Key_Return)
    assert till.error.text() == "The PIN has 2 digits. A PIN is 4 to 12 digits."
    assert window.page is Page.TILL and terminal.staff.find(ANA).pin_to_set and audit(terminal, "PIN set") == []

    await set_pin_at_till(window, ANA, NEW_PIN)
    assert terminal.till.actor == ANA and not terminal.staff.find(ANA).pin_to_set
    assert audit(terminal, "PIN set") == [(ANA, {"person": ANA})]
    with pytest.raises(UserError, match=f"^That is not {ANA}'s PIN"):
        await terminal.staff.verify(ANA, ANA_PIN)
    assert (await terminal.staff.verify(ANA, NEW_PIN)).name == ANA
    with sqlite3.connect(terminal.journal_path) as journal:
        hashes = [h for (h,) in journal.execute("SELECT pin_hash FROM person")]
        logged = "\n".join(str(row) for row in journal.execute("SELECT * FROM audit"))
    for secret in (ANA_PIN, NEW_PIN, OTHER_PIN, *hashes):
        assert secret not in caplog.text and secret not in logged, "no PIN or hash in the logs"
    await finish(window, host)


async def test_the_stores_details_saved_in_the_page_print_on_a_receipt(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window, register, _ = await authorized_sale(host, make_window, client, "Rita Receipt", "Scone", "4.00")
    terminal = host.terminal
    assert terminal is not None
    page = await details_page(window)
    assert page.name.text() == "" and page.name.maxLength() == LIMITS["name"]
    assert page.tax_number.maxLength() == LIMITS["tax_number"]
    QTest.keyClicks(page.address, "x" * (LIMITS["address"] + 5))
    assert len(page.address.text()) == LIMITS["address"], "the address is bounded as it is typed"
    page.address.clear()

    QApplication.processEvents()  # laid out
    save_at = page.save_button.mapTo(page, QPoint(0, 0))
    click(page.save_button)  # no name: one sentence naming the field, nothing saved
    assert page.reason.text() == "The store needs a name. Type the name printed at the top of a receipt."
    QApplication.processEvents()
    assert page.save_button.mapTo(page, QPoint(0, 0)) == save_at, "the refusal moved Save under the finger"
    assert terminal.store.details.get() is None
    type_in(page.name, "Café Nord")
    QTest.keyClicks(page.address, "1 Quay St")
    QTest.keyClick(page.address, Qt.Key.Key_Return)
    QTest.keyClicks(page.address, "Wellington")
    QTest.keyClicks(page.tax_number, "12-345-678")
    QTest.keyClicks(page.receipt_header, "Open every day")
    QTest.keyClicks(page.receipt_footer, "Ka kite!")
    assert "Tax number 12-345-678" in page.preview.text() and "Ka kite!" in page.preview.text()
    click(page.save_button)
    assert page.done.text() == "Saved: this till prints them from the next receipt."
    assert not page.reason.isVisible()
    click(page.save_button)
    assert page.done.text() == "Nothing changed: the details were already these."
    changed = audit(terminal, "store details changed")
    assert len(changed) == 1 and changed[0][0] == MANAGER
    assert changed[0][1]["address"] == [None, "1 Quay St\nWellington"]

    window.show_tab(Tab.CASHIER)
    window.activateWindow()
    await until(window.isActiveWindow, what="the window active")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    transaction_id = register.current.transaction_id
    assert transaction_id is not None
    receipt = await terminal.reports().receipt(transaction_id)
    pdf = render_receipt(receipt, money=terminal.money)
    path = tmp_path / "receipt.pdf"
    path.write_bytes(pdf)
    text = "".join(p.extract_text() for p in PdfReader(path).pages)
    head = text.index("Café Nord")
    assert head < text.index("1 Quay St") < text.index("Wellington") < text.index("Tax number 12-345-678")
    assert text.index("Open every day") < text.index(transaction_id) < text.index("Ka kite!")
    await finish(window, host)


def logo_file(path: Path) -> Path:
    """A café's logo as a manager might have it: a dark badge with the name in white, a PNG of 600 × 240."""
    picture = Image.new("RGB", (600, 240), "white")
    draw = ImageDraw.Draw(picture)
    draw.rounded_rectangle((8, 8, 592, 232), radius=60, fill=(30, 40, 70))
    font = ImageFont.truetype(str(assets.path("fonts", "DejaVuSans-Bold.ttf")), 88)
    draw.text((300, 120), "CAFÉ NORD", font=font, fill="white", anchor="mm")
    picture.save(path, format="PNG")
    return path


async def test_a_manager_chooses_the_logo_in_a_file_dialog_saves_it_and_removes_it(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    page = await details_page(window)
    type_in(page.name, "Café Nord")
    assert page.logo_thumbnail.text() == "No logo" and not page.remove_logo_button.isEnabled()

    def choose_in_dialog(path: Path) -> None:
        click(page.choose_logo_button)
        dialog = page.logo_dialog
        assert dialog is not None and dialog.isVisible() and dialog.isModal()
        dialog.selectFile(str(path))
        dialog.accept()

    (tmp_path / "menu.png").write_text("Flat white 4.80")
    choose_in_dialog(tmp_path / "menu.png")
    assert page.reason.text().startswith("The logo menu.png is not a PNG or JPEG picture."), page.reason.text()
    assert page.logo is None and not page.preview_logo.isVisible()

    choose_in_dialog(logo_file(tmp_path / "nord.png"))
    await until(lambda: page.logo_dialog is None, what="the dialog closed")
    assert not page.reason.isVisible() and page.logo is not None
    assert not page.logo_thumbnail.pixmap().isNull() and page.preview_logo.isVisible()
    assert terminal.store.details.get() is None, "nothing is saved before Save"
    click(page.save_button)
    assert page.done.text() == "Saved: this till prints them from the next receipt."
    saved = terminal.store.details.get()
    assert saved is not None and saved.logo == page.logo and saved.name == "Café Nord"
    assert Image.open(io.BytesIO(saved.logo)).size == (384, 154)
    assert audit(terminal, "store details changed")[-1][1]["logo"] == [None, "a new logo"], "that it changed, no bytes"

    assert page.remove_logo_button.isEnabled()
    click(page.remove_logo_button)
    assert page.logo_thumbnail.text() == "No logo" and page.unsaved()
    click(page.save_button)
    saved = terminal.store.details.get()
    assert saved is not None and saved.logo is None and saved.name == "Café Nord"
    assert audit(terminal, "store details changed")[-1][1] == {"logo": ["a logo", None]}
    await finish(window, host)


async def test_both_pages_fit_and_line_up_at_counter_sizes(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    await terminal.till.add_person("Bartholomew Featherstonehaugh-Smythe", Role.MANAGER, BEN_PIN)
    await terminal.till.add_person(BEN, Role.CASHIER, BEN_PIN)
    terminal.till.disable(BEN)
    for _ in range(5):  # every state the list shows: locked, disabled, a long name
        with pytest.raises(UserError):
            await terminal.staff.verify(ANA, "0000")
    page = await people_page(window)
    page.refresh()
    fill_add(page, "ben cashier", "1234", "1234")
    click(page.submit_button)  # a refusal beside the form, as typed
    await settled(page)
    assert page.reason.isVisible() and page.name.text() == "ben cashier"
    for size in ((1024, 768), (1920, 1080)):
        window.resize(*size)
        QApplication.processEvents()
        assert clipped(window) == [], f"People at {size}"
        assert nameless(page) == []
        assert misaligned_labels(page) == []
        assert min(b.height() for b in (page.add_button, *page.person_buttons)) >= 40, "fingertip-sized"
    pictures(window, "back-office-people", tmp_path)

    details = await details_page(window)
    details.name.setText("Café Nord")
    details.address.setText("1 Quay St\nWellington 6011")
    details.tax_number.setText("12-345-678")
    details.receipt_header.setText("Open every day 7–15\nBest coffee on the waterfront, since 1998")
    details.receipt_footer.setText("Thank you! Ka kite anō!\nReturns within 30 days with this receipt.")
    details.choose_logo(logo_file(tmp_path / "nord.png"))
    assert details.preview_logo.isVisible()
    for size in ((1024, 768), (1920, 1080)):
        window.resize(*size)
        QApplication.processEvents()
        assert clipped(window) == [], f"Store details at {size}"
        assert nameless(details) == []
        assert misaligned_labels(details) == []
        assert details.save_button.height() == details.revert_button.height()
    pictures(window, "back-office-details", tmp_path)
    details.on_revert_clicked()
    await finish(window, host)


async def test_a_store_till_adds_and_renames_people_only_while_the_store_is_reached(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    postgres_target: StoreTarget,
) -> None:
    postgres_target.open().init_schema()
    postgres_target.close_all()
    await (await host.connect()).store.join(postgres_target.url, postgres_target.password)
    window = await signed_in_window(host, make_window, client)
    await until(lambda: window.status.store.text() == "Store online", what="the store online")
    page = await people_page(window)
    assert page.scope.text().startswith("The store's people: a change here reaches every till.")
    details = window.workspace.back_office.details
    assert details.scope.text().startswith("The store's details: every till prints them.")

    server = postgres_target.server
    assert server is not None
    server.stop(mode="immediate")
    try:
        fill_add(page, ANA, ANA_PIN, ANA_PIN)
        click(page.submit_button)
        await settled(page)
        assert page.reason.text().startswith("New people can be added only while the store database can be reached.")
        assert (page.name.text(), page.pin.text(), page.form) == (ANA, ANA_PIN, Form.ADD), "kept as typed"
        choose(page, MANAGER)
        click(page.rename_button)
        page.new_name.setText("Maria Boss")
        click(page.submit_button)
        await settled(page)
        assert page.reason.text().startswith("People can be renamed only while the store database can be reached.")
        assert page.new_name.text() == "Maria Boss" and names(page) == [MANAGER]
    finally:
        server.start()
    await until(lambda: window.status.store.text() == "Store online", timeout=30, what="online again")
    fill_add(page, ANA, ANA_PIN, ANA_PIN)
    click(page.submit_button)
    await settled(page)
    assert names(page) == [ANA, MANAGER], page.reason.text()
    await finish(window, host, wait=False)  # the till exchanges with the store for as long as it runs
