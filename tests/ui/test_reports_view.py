"""The manager's Reports tab on real widgets: a completed transaction in the figures and the preview, saved as PDF."""

from __future__ import annotations

import gc
import io
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from html import escape
from pathlib import Path
from typing import Any

import httpx
import pytest
from pypdf import PdfReader

from pos_terminal.api.models import Transaction, TransactionRow
from pos_terminal.app import AppHost
from pos_terminal.config import with_changes
from pos_terminal.domain.check import Check, Item
from pos_terminal.domain.lifecycle import Action, TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import AuditRow, EndOfDayReport, ReportScope, TimeRange, TxRow, build_report
from pos_terminal.domain.report_document import ReportFace
from pos_terminal.domain.summary import SummaryFigures
from pos_terminal.services.checkout import ChangeStatus, ChargeStatus
from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
from pos_terminal.ui.main_window import MainWindow, Tab
from pos_terminal.ui.reports_view import MISMATCH_STYLE, PREVIEW_PAGES, ReportsView
from pos_terminal.ui.tasks import Messages
from tests.conftest import new_checked_in_customer
from tests.helpers.reports import busy_day_report, child_pids
from tests.helpers.services import arm
from tests.ui.conftest import finish, screenshot, signed_in_window, until
from tests.ui.layout import cut_text, painted_lines_missing

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget


async def complete_one(host: AppHost, client: httpx.Client) -> str:
    """Charge and complete one check on this terminal through the service layer (no clicking through the cashier)."""
    terminal = host.terminal
    assert terminal is not None
    who = new_checked_in_customer(client, firstName="Zoë", lastName="Report")
    customer = await terminal.customers.find(who["customerId"])
    check = Check().add_item(Item(name="Flat white", quantity=2, unit_price=550, tax_rate_bp=1000))
    charged = await terminal.checkout.charge(check, customer)
    assert charged.status is ChargeStatus.AUTHORIZED and charged.transaction_id
    done = await terminal.checkout.change_state(charged.transaction_id, Action.COMPLETE)
    assert done.status is ChangeStatus.DONE
    return charged.transaction_id


async def test_show_a_report_preview_and_save_it(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window = await signed_in_window(host, make_window, client)
    await complete_one(host, client)
    window.show_tab(Tab.REPORTS)
    view = window.workspace.reports
    assert isinstance(view, ReportsView)
    assert not view.save_button.isEnabled() and not view.print_button.isEnabled()

    view.show_button.setFocus()
    QTest.keyClick(view.show_button, Qt.Key.Key_Return)  # Enter on the button shows the report
    await until(lambda: view.model.rowCount() == 1 and view.model.figure(0, "count") == "1", what="count 1")
    await until(lambda: len(view.pages) >= 1, what="a preview page")
    money = host.terminal.money  # type: ignore[union-attr]
    assert view.model.figure(0, "total") == money.format(1_100)
    assert view.report is not None and view.report.reconciled
    assert view.reconciliation.isVisible() and view.reconciliation.text().startswith("✓ Reconciled")
    assert "Open authorized: 0" in view.counts.text()
    assert view.save_button.isEnabled() and view.print_button.isEnabled()
    assert view.preview.images[0].width() > 800  # A4 at 100 dpi is 827 pixels wide
    assert view.pages[0].image.width() <= view.preview.viewport().width()  # scaled to fit, no sideways scrolling

    target = tmp_path / "out" / "end-of-day.pdf"
    assert view.save(target) == target
    assert target.read_bytes().startswith(b"%PDF")
    report = view.report
    journal = host.terminal.journal  # type: ignore[union-attr]
    saved = journal.audit.between(report.range.start, report.generated_at + timedelta(hours=1), action="report saved")
    assert [entry.detail["where"] for entry in saved] == [str(target)]
    assert saved[0].detail["layout"] == "a4" and saved[0].detail["reconciled"] is True

    screenshot(window, "reports", tmp_path)
    await finish(window, host)


async def test_the_next_report_is_made_with_the_last_one_on_the_screen_but_not_in_memory(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """A day's report held while the next one was built made the window's highest peak of the day (docs/memory.md):
    while the service is slow to answer, the last figures stay on the screen, the report itself is gone, and saving
    or printing waits for the next one."""
    window = await signed_in_window(host, make_window, client)
    await complete_one(host, client)
    window.show_tab(Tab.REPORTS)
    view = window.workspace.reports
    assert isinstance(view, ReportsView)
    view.show_report()
    await until(lambda: view.report is not None and view.save_button.isEnabled(), what="the first report")
    money = host.terminal.money  # type: ignore[union-attr]
    arm(client, "GET", "/v4/transactions", "delay", delayMs=1500)  # the next report's listing comes late

    view.show_report()
    await until(lambda: view.report is None, what="the last report let go of")
    gc.collect()
    assert not [o for o in gc.get_objects() if isinstance(o, EndOfDayReport)], "nothing holds the last report"
    assert view.model.figure(0, "total") == money.format(1_100), "its figures are still on the screen"
    assert not view.save_button.isEnabled() and not view.print_button.isEnabled()
    await until(lambda: view.report is not None and view.save_button.isEnabled(), what="the next report")
    assert view.report is not None and view.report.reconciled and len(view.pages) >= 1
    await finish(window, host)


async def test_the_day_s_rows_are_made_in_the_report_child_and_never_in_the_window(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """The window reads what a report is made of (the listing's bytes, the audit entries packed as read) and its
    child makes the report: the day's rows were the largest passing peak of the window's day (docs/memory.md). The
    screen has the figures and the counts; the PDF has every row; the window holds no row of either."""
    window = await signed_in_window(host, make_window, client)
    sold = [await complete_one(host, client) for _ in range(3)]
    window.show_tab(Tab.REPORTS)
    view = window.workspace.reports
    assert isinstance(view, ReportsView)
    view.show_report()
    await until(lambda: view.paper is not None, what="the report and its PDF")
    assert view.model.figure(0, "count") == "3" and view.report is not None and view.report.reconciled
    gc.collect()
    rows = (EndOfDayReport, TxRow, AuditRow, TransactionRow, Transaction)
    assert not [type(o).__name__ for o in gc.get_objects() if isinstance(o, rows)], "the window holds the day's rows"
    assert view.paper is not None
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(view.paper.data)).pages)
    assert all(tx_id in text for tx_id in sold), "the PDF lists every transaction"
    assert text.count("charge") >= 3, "and the audit entries"
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        screenshot(window, f"reports-from-the-child-{width}x{height}", tmp_path)
    await finish(window, host)


async def test_the_report_child_is_started_when_the_manager_opens_reports(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    """The report is made in the child, so the first report's figures would wait for it to start and load reportlab:
    it starts as Reports is opened (never on a till whose Reports is never shown), and the next starts as soon as
    a report's PDF is made."""
    window = await signed_in_window(host, make_window, client)
    await complete_one(host, client)
    view = window.workspace.reports
    assert isinstance(view, ReportsView)
    assert not child_pids(view.worker), "the cashier's screen starts no report child"
    window.show_tab(Tab.REPORTS)
    await until(lambda: bool(child_pids(view.worker)), what="the report child started")
    first = child_pids(view.worker)
    view.show_report()
    await until(lambda: view.paper is not None, what="the report and its PDF")
    assert view.model.figure(0, "count") == "1"
    await until(lambda: bool(child_pids(view.worker)) and not child_pids(view.worker) & first, what="the next child")
    await finish(window, host)


async def test_the_roll_layout_and_a_missing_terminal_id(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    window.show_tab(Tab.REPORTS)
    view = window.workspace.reports
    assert isinstance(view, ReportsView)
    errors: list[str] = []
    window.messages.error.connect(errors.append)

    view.scope.setCurrentIndex(view.scope.findData("other"))
    QTest.mouseClick(view.show_button, Qt.MouseButton.LeftButton)
    await until(lambda: errors, what="an error for the missing terminal id")
    assert errors[0].startswith("No terminal id is given")

    view.scope.setCurrentIndex(view.scope.findData("merged"))
    view.layout_choice.setCurrentIndex(view.layout_choice.findData("roll"))
    QTest.mouseClick(view.show_button, Qt.MouseButton.LeftButton)
    await until(lambda: view.paper is not None and view.pages, what="the roll preview")
    assert view.paper is not None and view.paper.layout == "roll"
    assert view.model.figure(0, "count") == "0"
    assert view.preview.images[0].width() < 400  # 80 mm at 100 dpi is about 315 pixels

    view.scope.setCurrentIndex(view.scope.findData("this"))  # nothing completed: the service sends no record
    first = view.report
    QTest.mouseClick(view.show_button, Qt.MouseButton.LeftButton)
    await until(lambda: view.report is not first and view.report is not None, what="this terminal's report")
    assert view.model.data(view.model.index(0, 6)) == "matches (nothing completed)", "not 'no summary'"
    assert view.reconciliation.text().startswith("✓ Reconciled")
    await finish(window, host)


async def test_a_skewed_summary_shows_in_red_with_each_difference(qtbot: Any) -> None:
    start = datetime(2026, 11, 23, tzinfo=UTC)
    sold = TxRow(
        transaction_id="tx-1",
        state=TxState.COMPLETE,
        terminal_id="LANE-1",
        created=start + timedelta(hours=9),
        completed=start + timedelta(hours=9, minutes=1),
        updated=None,
        customer="Zoë",
        total=1_100,
        charge_amount=1_100,
        charged_amount=1_100,
        fee_amount=17,
    )
    skewed = SummaryFigures("LANE-1", count=2, total=2_200, fees=17, payout=2_183)
    report = build_report(
        terminal_id="LANE-1",
        scope=ReportScope.terminal("LANE-1"),
        region="sandbox",
        production=False,
        period=TimeRange.custom(start, start + timedelta(days=1)),
        generated_at=start + timedelta(days=1),
        reported=[skewed],
        listed=[sold],
    )
    view = ReportsView(Messages())
    qtbot.addWidget(view)
    view.show()
    money = MoneyFormat("en_AU", "AUD")
    view.show_figures(ReportFace.of(report, money.format), source=report)
    assert view.reconciliation.isVisible()
    assert view.reconciliation.styleSheet() == MISMATCH_STYLE
    text = view.reconciliation.text()
    assert "Not reconciled" in text
    for sentence in report.differences(money.format):
        assert escape(sentence) in text
    assert view.model.figure(0, "count") == "2"  # the service's figure is shown, and marked
    assert view.model.data(view.model.index(0, 6)).startswith("differs: count, total")


@pytest.mark.slow
async def test_the_preview_reuses_its_page_widgets_from_report_to_report(qtbot: Any) -> None:
    """A day of reports makes no widgets: the page widgets are kept, and a page not shown lets its pixels go."""
    start = datetime(2026, 11, 23, tzinfo=UTC)
    busy = busy_day_report()
    quiet = build_report(
        terminal_id="LANE-1",
        scope=ReportScope.terminal("LANE-1"),
        region="sandbox",
        production=False,
        period=TimeRange.custom(start, start + timedelta(days=1)),
        generated_at=start + timedelta(days=1),
        reported=[],
        listed=[],
    )
    view = ReportsView(Messages())
    qtbot.addWidget(view)
    view.show()
    money = MoneyFormat("en_AU", "AUD")
    made: list[int] = []
    try:
        for report in (busy, quiet, busy, quiet):
            view.show_figures(ReportFace.of(report, money.format), source=report)
            await view._render(report, money)
            made.append(len(view.preview.box.findChildren(QWidget)))
            shown = [page for page in view.preview.sheets if page.isVisibleTo(view)]
            assert shown == view.pages and len(shown) == (PREVIEW_PAGES if report is busy else 1)
            assert all(page.image.isNull() for page in view.preview.sheets if page not in shown)
    finally:
        view.worker.close()
    assert made == [PREVIEW_PAGES + 1] * 4, made  # the pages and the "appear here" hint, made once


async def test_the_z_report_of_a_shift_with_nothing_completed_shows_its_whole_check_at_1024(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """The Check column wraps "matches (nothing completed)" onto the lines its width leaves. Closing a shift at
    1024×768 showed its Z report with the figures' row measured before the drawer's summary narrowed the column:
    the cell said "matches (nothing" and lost the rest."""
    host.save_settings(with_changes(host.settings, locale="de_DE", currency="EUR"))
    window = await signed_in_window(host, make_window, client)
    window.resize(1024, 768)
    window.show_tab(Tab.REPORTS)
    view = window.workspace.reports
    view.show_report()  # the day so far first, as a manager looks before closing: its figures are wider
    await until(lambda: view.model.rowCount() == 1 and len(view.pages) >= 1, what="the day's report")
    QTest.qWait(0)
    shifts = window.workspace.shifts
    window.workspace.report_tabs.setCurrentWidget(shifts)
    QTest.mouseClick(shifts.close_button, Qt.MouseButton.LeftButton)
    dialog = window.approvals.close_dialog
    assert isinstance(dialog, CloseShiftDialog) and dialog.isVisible()
    dialog.typed_total.setText("200,00")
    assert dialog.print_z.isChecked(), "printed, as a manager leaves it: with no printer, its message shows too"
    QTest.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    await until(lambda: view.report is not None and view.report.title.startswith("Z"), what="the Z report")
    await until(lambda: "no printer" in window.banner.text.text(), what="the printer's message")
    await until(lambda: len(view.pages) >= 1, what="the Z report's preview")
    assert view.model.rowCount() == 1
    assert painted_lines_missing(view.table) == []
    screenshot(window, "reports-z-nothing-completed-1024x768", tmp_path)
    assert cut_text(window, view.table) == []
    await finish(window, host)


async def test_the_figures_rows_keep_their_whole_check_as_the_window_narrows(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    """The Check column wraps "matches (nothing completed)" onto the lines its width leaves; the rows were measured
    once, at the width they were shown at, and narrowed to 1024×768 the cell showed "matches (nothing" and lost the
    rest."""
    window = await signed_in_window(host, make_window, client)
    window.show_tab(Tab.REPORTS)
    view = window.workspace.reports
    assert isinstance(view, ReportsView)
    window.resize(1920, 1080)
    view.show_report()
    await until(lambda: view.model.rowCount() == 1 and len(view.pages) >= 1, what="the report with nothing completed")
    for width, height in ((1920, 1080), (1024, 768), (1280, 800), (1024, 768)):
        window.resize(width, height)
        QTest.qWait(0)  # the layout settles, as a person would see it
        assert painted_lines_missing(view.table) == [], (width, height)
        screenshot(window, f"reports-figures-{width}x{height}", tmp_path)
    await finish(window, host)
