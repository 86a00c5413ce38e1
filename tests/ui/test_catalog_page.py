"""The back office's catalog page on real widgets: a price changed and sold at, a CSV with bad rows and a good one,
products reordered by keyboard and by drag, a cashier's change approved by a manager, an undo; and how the page
looks at 1024×768 and 1920×1080."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.domain.people import Role
from pos_terminal.journal.journal import Journal
from pos_terminal.ui.approval_dialog import ManagerPrompt
from pos_terminal.ui.catalog_page import CatalogPage
from pos_terminal.ui.main_window import MainWindow, Tab
from tests.conftest import new_checked_in_customer
from tests.ui.conftest import MANAGER, MANAGER_PIN, finish, screenshot, sign_in_at_till, signed_in_window, until
from tests.ui.layout import clipped

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox

ANA, ANA_PIN = "Ana Cashier", "551029384756"
SMALL, LARGE = (1024, 768), (1920, 1080)

GOOD_CSV = """name,price,tax_rate,category,barcodes,colour,active
Flat white,4.90,10,Coffee,9300000000019,#6f4e37,yes
Chai latte,5.20,10,Coffee,,,yes
Croissant,5.50,10,Food,036000291452,,
"""
BAD_CSV = """name,price,tax_rate,category,barcodes,colour,active
Flat white,4.90,10,Coffee,9300000000019,#6f4e37,yes
Chai latte,five,10,Coffee,,,yes
Croissant,5.50,10,Food,036000291452,,
Muffin,4.00,10,Food,036000291453,,
"""


def catalog_page(window: MainWindow) -> CatalogPage:
    """The back office's catalog page, shown (Ctrl+6, then its tab)."""
    window.show_tab(Tab.BACK_OFFICE)
    office = window.workspace.back_office
    office.pages.setCurrentWidget(office.catalog)
    QApplication.processEvents()
    return office.catalog


def choose_product(page: CatalogPage, name: str) -> None:
    row = next(n for n, p in enumerate(page.products.rows) if p.name == name)
    page.product_table.setFocus()
    page.product_table.setCurrentIndex(page.products.index(row, 0))
    assert page.editing is not None and page.form.name.text() == name


def retype(field: QLineEdit, text: str) -> None:
    field.setFocus()
    field.selectAll()
    QTest.keyClick(field, Qt.Key.Key_Delete)
    QTest.keyClicks(field, text)


def tile_names(window: MainWindow) -> list[str]:
    return [entry.name for entry in window.cashier.products.visible_entries()]


def audit(journal: Journal, action: str) -> list[tuple[str | None, dict[str, object]]]:
    rows = journal.read("SELECT actor, detail FROM audit WHERE action = ? ORDER BY id", (action,))
    return [(row[0], json.loads(row[1])) for row in rows]


async def test_a_price_changed_in_the_catalog_is_the_next_sale_s_price(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    customer = new_checked_in_customer(client, firstName="Pia", lastName="Price", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    page = catalog_page(window)
    choose_product(page, "Flat white")
    retype(page.form.price, "5.25")
    QTest.mouseClick(page.form.save_button, Qt.MouseButton.LeftButton)
    assert page.prompt is None, "the manager at the till is not asked for a PIN"
    await until(lambda: "$5.25" in [page.products.cell(p, 1) for p in page.products.rows], what="the new price listed")
    assert not page.form.problem.isVisible() and not page.dirty

    window.show_tab(Tab.CASHIER)
    tile = next(t for t in window.cashier.products.tiles if t.text().startswith("Flat white"))
    assert tile.text().endswith("$5.25")
    QTest.mouseClick(tile, Qt.MouseButton.LeftButton)
    assert host.terminal is not None
    totals = host.terminal.register.current.totals
    assert totals.item_total == 525
    assert window.cashier.ticket.figures["balance"][1].text() == "$5.25"
    await finish(window, host)


async def test_a_bad_value_is_one_sentence_beside_the_form_which_keeps_what_was_typed(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    page = catalog_page(window)
    choose_product(page, "Flat white")
    retype(page.form.price, "4.555")
    retype(page.form.barcodes, "9300000000018")
    QApplication.processEvents()  # laid out
    save_at = page.form.save_button.mapTo(page, QPoint(0, 0))
    QTest.mouseClick(page.form.save_button, Qt.MouseButton.LeftButton)
    assert page.form.problem.isVisible() and page.form.problem.text().startswith("The price")
    QApplication.processEvents()
    assert page.form.save_button.mapTo(page, QPoint(0, 0)) == save_at, "the sentence moved Save under the finger"
    assert page.form.price.text() == "4.555"
    retype(page.form.price, "4.80")
    QTest.keyClick(page.form.price, Qt.Key.Key_Return)
    assert page.form.problem.text().startswith("The barcode 9300000000018"), page.form.problem.text()
    assert page.form.barcodes.text() == "9300000000018" and page.dirty
    for size in (SMALL, LARGE):
        window.resize(*size)
        QApplication.processEvents()
        screenshot(window, f"back-office-catalog-form-{size[0]}x{size[1]}", tmp_path)
        assert clipped(window, page) == [], f"the catalog page at {size}"
    page.refresh()  # the page shown again, or another till's change: what was typed stays
    assert page.form.barcodes.text() == "9300000000018" and page.form.problem.isVisible()
    await finish(window, host)


async def test_a_csv_with_two_bad_rows_changes_nothing_and_a_good_one_is_imported(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    page = catalog_page(window)
    for size in (SMALL, LARGE):
        window.resize(*size)
        QApplication.processEvents()
        screenshot(window, f"back-office-catalog-{size[0]}x{size[1]}", tmp_path)
        assert clipped(window, page) == [], f"the catalog page at {size}"
    before = [(p.name, p.price, p.active) for p in page.all_products]
    tiles = tile_names(window)
    bad = tmp_path / "bad.csv"
    bad.write_text(BAD_CSV, encoding="utf-8")

    QTest.mouseClick(page.import_button, Qt.MouseButton.LeftButton)
    dialog = page.file_dialog
    assert dialog is not None and dialog.isVisible() and dialog.isModal()
    dialog.selectFile(str(bad))
    dialog.accept()
    await until(page.notice.isVisible, what="the bad rows said")
    text = page.notice.text()
    assert text.startswith("2 rows of bad.csv cannot be imported: line 3: the price “five”"), text
    assert "line 5: the barcode 036000291453 has a wrong check digit" in text and "Nothing was imported" in text
    assert [(p.name, p.price, p.active) for p in page.all_products] == before and tile_names(window) == tiles
    assert not page.undo_button.isEnabled(), "nothing changed, so there is nothing to undo"
    for size in (SMALL, LARGE):
        window.resize(*size)
        QApplication.processEvents()
        screenshot(window, f"back-office-catalog-import-problem-{size[0]}x{size[1]}", tmp_path)
        assert clipped(window, page) == [], f"the catalog page with the import's problem at {size}"

    good = tmp_path / "good.csv"
    good.write_text(GOOD_CSV, encoding="utf-8")
    page.import_file(good)  # as the dialog's fileSelected does
    await until(lambda: tile_names(window) == ["Flat white", "Chai latte", "Croissant"], what="the grid imported")
    assert not page.notice.isVisible()
    flat_white = next(p for p in page.all_products if p.name == "Flat white")
    assert flat_white.price == 490 and flat_white.barcodes == ("9300000000019",)
    assert page.undo_button.isEnabled() and page.undo_button.text() == "Undo import"

    # the whole catalog goes back, and no undo of it: asked first, where one click did it
    QTest.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)
    box = page.confirmation
    assert isinstance(box, QMessageBox) and box.isVisible() and box.text() == "Undo the import?"
    QTest.mouseClick(box.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
    assert tile_names(window) == ["Flat white", "Chai latte", "Croissant"] and page.undo_button.isEnabled()
    QTest.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)
    box = page.confirmation
    assert isinstance(box, QMessageBox)
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    await until(lambda: tile_names(window) == tiles, what="the grid as before the import")
    assert not page.undo_button.isEnabled()
    await finish(window, host)


async def test_products_are_reordered_by_keyboard_and_by_drag_and_the_grid_follows(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    page = catalog_page(window)
    assert tile_names(window)[:3] == ["Flat white", "Long black", "Cappuccino"]
    choose_product(page, "Long black")
    QTest.keyClick(page.product_table, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    await until(lambda: tile_names(window)[:3] == ["Long black", "Flat white", "Cappuccino"], what="moved up")
    assert page.products.rows[0].name == "Long black" and page.editing == page.products.rows[0].uid
    QTest.keyClick(page.product_table, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    QTest.keyClick(page.product_table, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    await until(lambda: tile_names(window)[:3] == ["Flat white", "Cappuccino", "Long black"], what="moved down twice")

    # Espresso dragged onto the top of the first row: the events a drag brings the view (enter, move, drop).
    table = page.product_table
    espresso = next(n for n, p in enumerate(page.products.rows) if p.name == "Espresso")
    data = page.products.mimeData([page.products.index(espresso, 0)])
    top = table.visualRect(page.products.index(0, 0))
    spot = QPoint(top.left() + 20, top.top() + 2)
    move, buttons, keys = Qt.DropAction.MoveAction, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(table.viewport(), QDragEnterEvent(spot, move, data, buttons, keys))
    QApplication.sendEvent(table.viewport(), QDragMoveEvent(spot, move, data, buttons, keys))
    drop = QDropEvent(QPointF(spot), move, data, buttons, keys)
    drop.setDropAction(move)
    QApplication.sendEvent(table.viewport(), drop)
    await until(lambda: tile_names(window)[:2] == ["Espresso", "Flat white"], what="dragged to the top")
    assert [p.name for p in page.products.rows][:4] == ["Espresso", "Flat white", "Cappuccino", "Long black"]

    # A category, moved by keyboard: the grid's category buttons follow.
    row = next(n for n, c in enumerate(page.categories.rows) if c.name == "Food")
    page.category_table.setFocus()
    page.category_table.setCurrentIndex(page.categories.index(row, 0))
    QTest.keyClick(page.category_table, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert host.terminal is not None
    await until(lambda: host.terminal.catalog().categories.index("Food") == row - 1, what="the category moved")  # type: ignore[union-attr]
    await finish(window, host)


async def test_a_cashier_s_change_is_approved_by_a_manager_and_written_as_old_and_new(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    terminal = host.terminal
    assert terminal is not None
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    QTest.keyClick(window, Qt.Key.Key_F12)
    await sign_in_at_till(window, ANA, ANA_PIN)
    page = catalog_page(window)
    choose_product(page, "Latte")
    retype(page.form.price, "5.10")
    QTest.mouseClick(page.form.save_button, Qt.MouseButton.LeftButton)
    prompt = page.prompt
    assert isinstance(prompt, ManagerPrompt) and prompt.isVisible()
    assert prompt.question.text() == "Save the changes to “Latte”?" and "Asked by Ana Cashier" in prompt.reason.text()
    assert next(p for p in page.all_products if p.name == "Latte").price == 480, "nothing before the approval"
    QTest.keyClicks(prompt.pin, MANAGER_PIN)
    QTest.keyClick(prompt.pin, Qt.Key.Key_Return)
    await until(lambda: next(p for p in page.all_products if p.name == "Latte").price == 510, what="saved")
    [(actor, detail)] = audit(terminal.journal, "product changed")
    assert actor == MANAGER and detail == {"product": "Latte", "price": [480, 510]}
    assert page.form.price.text() == "$5.10" and not page.dirty
    await finish(window, host)


async def test_undo_says_what_it_takes_back_and_takes_it_back(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    page = catalog_page(window)
    assert not page.undo_button.isEnabled() and page.undo_button.text() == "Undo"
    QTest.mouseClick(page.new_button, Qt.MouseButton.LeftButton)
    QTest.keyClicks(page.form.name, "Babyccino")
    QTest.keyClicks(page.form.price, "1.50")
    QTest.keyClicks(page.form.tax, "10")
    page.form.category.setCurrentIndex(page.form.category.findText("Coffee"))
    QTest.mouseClick(page.form.swatches[0], Qt.MouseButton.LeftButton)
    QTest.mouseClick(page.form.save_button, Qt.MouseButton.LeftButton)
    await until(lambda: "Babyccino" in tile_names(window), what="the new product in the grid")
    assert page.undo_button.text() == "Undo “Babyccino” added" and page.undo_button.isEnabled()
    added = next(p for p in page.all_products if p.name == "Babyccino")
    assert (added.price, added.tax_rate_bp, added.colour) == (150, 1000, "#6f4e37")

    QTest.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)
    await until(lambda: "Babyccino" not in tile_names(window), what="the product taken back")
    assert not next(p for p in page.all_products if p.name == "Babyccino").active, "listed, greyed, not sold"
    assert not page.undo_button.isEnabled()
    await finish(window, host)
