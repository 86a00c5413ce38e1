"""History lists this till's cash sales beside its charges, prints and saves their receipts, and saves any
receipt as a PDF (issue 48), on real widgets against the sandbox with a real journal."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.config import with_changes
from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.sale import Phase
from pos_terminal.ui.main_window import MainWindow, Tab
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import completed_sale, pictures, type_item
from tests.ui.conftest import finish, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest


def cells(window: MainWindow, row: int) -> list[str]:
    model = window.workspace.history.model
    return [model.data(model.index(row, column)) for column in range(model.columnCount())]


async def test_history_lists_this_tills_cash_sales_and_prints_and_saves_their_receipts(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """A cashier looking for the last sale did not find a cash sale in History, and could not reprint its receipt;
    a receipt could not be saved as a PDF from the window."""
    printed = tmp_path / "copy.pdf"
    host.save_settings(with_changes(host.settings, printer=f"pdf:{printed}"))
    customer = new_checked_in_customer(client, firstName="Carl", lastName="Charged", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = window.terminal
    assert terminal is not None
    await completed_sale(window, "Carl Charged", "Quiche", "9.00")
    type_item(window, "Muffin", "5.50")
    QTest.keyClick(window, Qt.Key.Key_F6)
    QTest.keyClicks(window.cashier.keypad_page.cash_input, "10")
    QTest.keyClick(window.cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    QTest.keyClick(window, Qt.Key.Key_F8)
    assert terminal.register.current.phase is Phase.PAID_IN_CASH

    history = window.workspace.history
    window.show_tab(Tab.HISTORY)
    await until(lambda: history.model.rowCount() == 2 and not history.tasks.busy, what="the charge and the cash sale")
    assert history.status.text() == "1 transaction and 1 cash sale."
    newest = cells(window, 0)
    assert newest[1:5] == ["cash sale", "", "$5.50", terminal.settings.terminal_id], "the last sale first"
    assert cells(window, 1)[1:4] == ["complete", "Carl Charged", "$9.00"]
    detail = history.detail.toPlainText()
    assert "Cash sale" in detail and "Muffin" in detail and "Paid in cash" in detail and "$4.50" in detail
    assert not history.refund_button.isEnabled() and not history.cancel_button.isEnabled()
    pictures(window, "history-cash-sale", tmp_path)

    QTest.mouseClick(history.receipt_button, Qt.MouseButton.LeftButton)
    await until(lambda: printed.exists(), what="the cash sale's receipt printed")
    assert printed.read_bytes().startswith(b"%PDF")
    assert window.banner.text.text() == f"The receipt is saved as {printed}: the printer set in Settings is a PDF file."

    saved = {}
    for row, name in ((0, "cash.pdf"), (1, "charge.pdf")):
        history.table.selectRow(row)
        assert history.save_pdf_button.isEnabled()
        QTest.mouseClick(history.save_pdf_button, Qt.MouseButton.LeftButton)
        dialog = history.save_dialog
        assert dialog is not None and dialog.isVisible()
        dialog.selectFile(str(tmp_path / name))
        dialog.accept()
        path = tmp_path / name
        await until(lambda path=path: path.exists() and not history.tasks.busy, what=f"{name} saved")  # type: ignore[misc]
        assert window.banner.text.text() == f"The receipt is saved to {path}."
        saved[name] = path.read_bytes()
    assert all(data.startswith(b"%PDF") for data in saved.values())
    entries = terminal.journal.audit.between(utcnow() - timedelta(minutes=5), utcnow() + timedelta(seconds=1))
    kept = [(e.action, bool(e.detail and e.detail.get("cashSale"))) for e in entries if e.action.startswith("receipt")]
    assert kept == [("receipt printed", True), ("receipt saved", True), ("receipt saved", False)]
    copies = {e.actor for e in entries if e.action.startswith("receipt")}
    assert copies == {terminal.till.actor}, "a copy is the person's at the till, not the computer user's"

    history.scope.setCurrentIndex(history.scope.findData("all"))
    QTest.mouseClick(history.load_button, Qt.MouseButton.LeftButton)
    await until(lambda: not history.tasks.busy and history.model.rowCount() == 2, what="every terminal's")
    history.scope.setCurrentIndex(history.scope.findData("other"))
    QTest.keyClicks(history.other, "LANE-9")
    QTest.keyClick(history.other, Qt.Key.Key_Return)
    await until(lambda: not history.tasks.busy and history.model.rowCount() == 0, what="LANE-9's: none")
    assert history.status.text() == "No transactions in range. Cash sales are listed at the till that took them."
    await finish(window, host)


async def test_settings_offer_a_pdf_file_as_the_printer_and_history_prints_a_receipt_there(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """Settings offered only the system's default printer: a counter with no system printer could print no receipt
    from the window. A PDF file for each print is offered, says where the files go, and a copy goes there."""
    customer = new_checked_in_customer(client, firstName="Pia", lastName="Pdf", balance=20_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    terminal = window.terminal
    assert terminal is not None
    await completed_sale(window, "Pia Pdf", "Tart", "7.00")
    window.show_tab(Tab.SETTINGS)
    settings = window.workspace.settings_view
    folder = host.paths.prints_dir
    choice = settings.printer.findText("A PDF file for each print")
    assert choice >= 0, [settings.printer.itemText(i) for i in range(settings.printer.count())]
    settings.printer.setCurrentIndex(choice)
    assert settings.printer_hint.isVisible()
    assert (
        settings.printer_hint.text()
        == f"Each print is saved as a PDF file of its own in {folder}; no printer is needed."
    )
    pictures(window, "history-settings-pdf-printer", tmp_path)
    QTest.mouseClick(settings.save_button, Qt.MouseButton.LeftButton)
    await until(lambda: (host.settings.printer or "").startswith(f"pdf:{folder}"), what="the PDF file saved as printer")

    history = window.workspace.history
    window.show_tab(Tab.HISTORY)
    await until(lambda: history.receipt_button.isEnabled() and not history.tasks.busy, what="the sale")
    said = "The receipt is saved as {}: the printer set in Settings is a PDF file."
    for name in ("Receipt-{}.pdf", "Receipt-{}-2.pdf"):  # a second copy is a file of its own beside the first
        QTest.mouseClick(history.receipt_button, Qt.MouseButton.LeftButton)
        current = history.current()
        assert current is not None and current.transaction_id is not None
        path = folder / name.format(current.transaction_id)
        await until(lambda path=path: window.banner.text.text() == said.format(path), what=f"{path.name} printed")  # type: ignore[misc]
        assert path.read_bytes().startswith(b"%PDF")
    assert len(list(folder.glob("*.pdf"))) == 2
    await finish(window, host)
