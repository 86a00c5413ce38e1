"""Steps of the GUI tests that several modules take: choosing a customer, typing an item, a charge authorized,
cashiers at the till, pictures of the window, form labels out of line."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.people import Role
from pos_terminal.domain.sale import Phase
from pos_terminal.services.register import Register
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
from pos_terminal.ui.main_window import MainWindow
from tests.conftest import new_checked_in_customer
from tests.ui.conftest import MANAGER, sign_in_at_till, signed_in_window, until

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QApplication,
    QFormLayout,
    QLabel,
    QWidget,
)


def choose(window: MainWindow, name: str) -> None:
    panel = window.cashier.customers
    QTest.keyClicks(panel.search, name)
    assert panel.model.rowCount() == 1, [panel.model.customer(r) for r in range(panel.model.rowCount())]
    QTest.keyClick(panel.search, Qt.Key.Key_Return)


def type_item(window: MainWindow, name: str, price: str, quantity: int = 1, tax: str = "10") -> None:
    """An item typed by hand on the keypad page (F7), added with its button."""
    cashier = window.cashier
    cashier.focus_entry(cashier.keypad_page.item_name)
    QTest.keyClicks(cashier.keypad_page.item_name, name)
    QTest.keyClicks(cashier.keypad_page.item_price, price)
    cashier.keypad_page.item_quantity.setValue(quantity)
    cashier.keypad_page.item_tax.setText(tax)
    QTest.mouseClick(cashier.keypad_page.add_item_button, Qt.MouseButton.LeftButton)


async def authorized_sale(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, name: str, item: str, price: str
) -> tuple[MainWindow, Register, dict[str, Any]]:
    """A signed-in window whose open check (one ``item`` for a new customer ``name``) was charged by F8 and is
    authorized; with its register and the customer."""
    first, last = name.split(" ", 1)
    customer = new_checked_in_customer(client, firstName=first, lastName=last, balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    choose(window, name)
    type_item(window, item, price)
    assert host.terminal is not None
    register = host.terminal.register
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized")
    return window, register, customer


async def completed_sale(window: MainWindow, name: str, item: str, price: str, *, cash: str | None = None) -> None:
    """On the cashier's screen: ``name`` chosen, one ``item`` typed, ``cash`` taken if given, charged (F8) and
    completed (F9)."""
    terminal = window.terminal
    assert terminal is not None
    choose(window, name)
    type_item(window, item, price)
    if cash is not None:
        QTest.keyClicks(window.cashier.keypad_page.cash_input, cash)
        QTest.keyClick(window.cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: terminal.register.current.phase is Phase.AUTHORIZED, what="authorized")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: terminal.register.current.phase is Phase.COMPLETE, what="complete")


async def closed_with_z_report(window: MainWindow, dialog: CloseShiftDialog) -> None:
    """The close-shift ``dialog``'s count sent, without printing, and its Z report shown in Reports."""
    dialog.print_z.setChecked(False)
    QTest.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    reports = window.workspace.reports
    await until(
        lambda: reports.report is not None and reports.report.title.startswith("Z") and not reports.tasks.busy,
        what="the Z report",
        timeout=60,
    )


ANA, ANA_PIN = "Ana Cashier", "551029384756"
BEN, BEN_PIN = "Ben Cashier", "664738291045"


def pictures(window: MainWindow, name: str, tmp_path: Path, dialog: QWidget | None = None) -> list[Path]:
    """The window at 1024×768 and 1920×1080, with ``dialog`` drawn over it where it opens (offscreen, a dialog
    is a window of its own); in $POS_TERMINAL_SCREENSHOTS when set."""
    folder = Path(os.environ.get("POS_TERMINAL_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    saved = []
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        QApplication.processEvents()
        picture = window.grab()
        if dialog is not None:
            shown = dialog.grab()
            painter = QPainter(picture)
            corner = QPoint((width - shown.width()) // 2, (height - shown.height()) // 3)
            painter.drawPixmap(corner, shown)
            painter.setPen(QColor("#52606d"))
            painter.drawRect(corner.x() - 1, corner.y() - 1, shown.width() + 1, shown.height() + 1)
            painter.end()
        path = folder / f"{name}-{width}x{height}.png"
        assert picture.save(str(path)), path
        saved.append(path)
    window.resize(1280, 800)
    return saved


async def with_cashiers(host: AppHost) -> Terminal:
    """The manager at the till adds two cashiers (as from the command line or a colleague's terminal)."""
    terminal = host.terminal
    assert terminal is not None and terminal.till.actor == MANAGER
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    await terminal.till.add_person(BEN, Role.CASHIER, BEN_PIN)
    return terminal


async def switch_to(window: MainWindow, name: str, pin: str) -> None:
    QTest.keyClick(window, Qt.Key.Key_F12)
    await sign_in_at_till(window, name, pin)


def misaligned_labels(page: QWidget) -> list[str]:
    """Form labels whose text is not centred on their field (they sat a few pixels higher)."""
    problems = []
    for form in page.findChildren(QFormLayout):
        for row in range(form.rowCount()):
            item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            field = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
            shown = item.widget() if item is not None else None
            if not isinstance(shown, QLabel) or not shown.isVisible() or field is None or not shown.text():
                continue
            label_middle = shown.mapTo(page, QPoint(0, 0)).y() + shown.height() / 2
            area = field.geometry()
            field_middle = form.parentWidget().mapTo(page, area.topLeft()).y() + area.height() / 2  # type: ignore[union-attr]
            if abs(label_middle - field_middle) > 3:
                problems.append(f"{shown.text()!r} sits {field_middle - label_middle:+.0f} px off its field")
    return problems


def transactions_of(client: httpx.Client, pos: httpx.Client, customer_id: str) -> list[dict[str, object]]:
    listed = pos.get("/transactions", params={"from": "2000-01-01T00:00:00Z", "to": "2100-01-01T00:00:00Z"}).json()
    return [t for t in listed if t["customer"]["customerId"] == customer_id]


def keys(window: MainWindow, text: str) -> None:
    """Type into whatever has the focus, as a keyboard does."""
    focused = QApplication.focusWidget()
    assert focused is not None
    QTest.keyClicks(focused, text)


def enter() -> None:
    focused = QApplication.focusWidget()
    assert focused is not None
    QTest.keyClick(focused, Qt.Key.Key_Return)
