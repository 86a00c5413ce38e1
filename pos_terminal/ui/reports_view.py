"""Reports: the manager's end-of-day (or shift) report on screen, previewed as PDF, saved or printed.

The figures come from :class:`~pos_terminal.services.reports.Reports`; the view only
shows them. A reconciliation that fails is shown in red with one sentence per
difference, never hidden. The PDF is made by :mod:`pos_terminal.reports.end_of_day`
off the loop's thread and previewed page by page (pypdfium2 through
:mod:`pos_terminal.reports.raster`: QtPdf is not in the PySide6 wheels). The save
dialog is opened with ``open()``, never a nested ``exec()`` inside a coroutine.

A shift's X or Z report (:meth:`ReportsView.show_shift`) is shown, saved and printed
the same way, with the drawer's verdict under the figures.
"""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport, FigureRow, Layout, ReportScope, TimeRange
from pos_terminal.domain.shift import Shift, drawer_verdict
from pos_terminal.domain.store_day import StoreDay
from pos_terminal.domain.summary import FIGURES
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError
from pos_terminal.reports import raster
from pos_terminal.reports.worker import ReportWorker
from pos_terminal.services.reports import Reports
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui import printing
from pos_terminal.ui.range_picker import RangePicker
from pos_terminal.ui.table_model import ReadOnlyTableModel
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import Waiting, button, file_dialog, label

from PySide6.QtCore import (
    QObject,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

HEADERS = ("Terminal", "Count", "Total", "Fees", "Payout", "Tips", "Check")
PREVIEW_DPI = 100.0
PREVIEW_PAGES = 20  # a 10,000-transaction report has hundreds of pages; the PDF keeps them all
RED = QColor("#b3261e")
RECONCILED_STYLE = "color: #1f5f3a; background: #e6f4ec; border: 1px solid #1f7a4d; border-radius: 6px; padding: 6px;"
MISMATCH_STYLE = "color: #8c1d18; background: #fde8e7; border: 1px solid #b3261e; border-radius: 6px; padding: 6px;"
PAGE_STYLE = "background: white; border: 1px solid #9aa5b1;"


class NoOtherTerminal(UserError):
    hint = "Type the other terminal's id, or choose another scope."


class NoReport(UserError):
    hint = "Press “Show report” first."


class FiguresModel(ReadOnlyTableModel[tuple[str, FigureRow]]):
    """The report's figures, one row per terminal and a total row when there are several."""

    headers = HEADERS
    right_aligned = frozenset(range(1, len(FIGURES) + 1))

    def __init__(self, money: MoneyFormat, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.money = money

    def set_report(self, report: EndOfDayReport | None) -> None:
        rows: list[tuple[str, FigureRow]] = []
        if report is not None:
            merged = report.scope.merge
            for row in report.rows:
                rows.append(("All terminals" if merged else (row.terminal_id or "(no terminal id)"), row))
            if len(report.rows) > 1 or not report.rows:
                rows.append(("Total", report.total))
        self.replace_rows(rows)

    def figure(self, row: int, name: str) -> str:
        """The text shown for figure ``name`` of ``row`` (for tests and accessibility)."""
        return str(self.data(self.index(row, 1 + FIGURES.index(name))))

    def cell(self, row: tuple[str, FigureRow], column: int) -> Any:
        name, figures = row
        figure = FIGURES[column - 1] if 1 <= column <= len(FIGURES) else None
        if column == 0:
            return name
        if figure == "count":
            return str(figures.shown.count)
        if figure is not None:
            return self.money.format(getattr(figures.shown, figure))
        if not figures.matches:
            return "differs: " + ", ".join(figures.mismatched)
        # the service sends no record for a terminal with nothing completed: the transactions agree with that
        return "matches (nothing completed)" if figures.reported is None else "matches"

    def style(self, row: tuple[str, FigureRow], column: int, role: int) -> Any:
        name, figures = row
        figure = FIGURES[column - 1] if 1 <= column <= len(FIGURES) else None
        if role == Qt.ItemDataRole.ForegroundRole and (
            (figure is not None and figure in figures.mismatched)
            or (column == len(HEADERS) - 1 and not figures.matches)
        ):
            return QBrush(RED)
        if role == Qt.ItemDataRole.FontRole and name == "Total" and row is self.rows[-1]:
            font = QFont()
            font.setBold(True)
            return font
        return None


@dataclass(frozen=True, slots=True)
class Paper:
    """One rendering of a report: the PDF bytes and the layout it was made in."""

    report: EndOfDayReport
    layout: Layout
    data: bytes


class Preview(QScrollArea):
    """The PDF's pages one under the other, each scaled down to the width available (never up)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images: list[QImage] = []
        self.labels: list[QLabel] = []  # every page label made so far (at most PREVIEW_PAGES)
        self.pages: list[QLabel] = []  # those showing a page now
        self.box = QWidget()
        self.box.setObjectName("pages")
        self.box.setStyleSheet("QWidget#pages { background: #e4e7eb; }")
        self.column = QVBoxLayout(self.box)
        self.column.setSpacing(12)
        self.column.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.empty = label("The PDF's pages appear here once the report is shown.", role="hint")
        self.column.addWidget(self.empty)
        self.setAccessibleName("Report preview")
        self.setWidget(self.box)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._make_labels(PREVIEW_PAGES)  # all of them now: a longer report later makes no widget

    def _make_labels(self, count: int) -> None:
        while len(self.labels) < count:
            page = QLabel()
            page.setStyleSheet(PAGE_STYLE)
            page.setAccessibleName(f"Page {len(self.labels) + 1} of the report")
            page.hide()
            self.column.addWidget(page)
            self.labels.append(page)

    def set_images(self, images: list[QImage]) -> None:
        """Show ``images``, one label a page. Labels are kept and reused, never deleted and made anew: a day of
        reports would otherwise leave pages (and their pixmaps) waiting for a deferred deletion."""
        self.images = images
        self.empty.setVisible(not images)
        self._make_labels(len(images))
        for unused in self.labels[len(images) :]:
            unused.clear()  # its pixmap goes now
            unused.hide()
        self.pages = self.labels[: len(images)]
        for page in self.pages:
            page.show()
        self.fit()

    def fit(self) -> None:
        margins = self.column.contentsMargins()
        room = (
            self.viewport().width() - margins.left() - margins.right() - 2 - self.verticalScrollBar().sizeHint().width()
        )
        for page, image in zip(self.pages, self.images, strict=True):
            width = max(100, min(image.width(), room))
            pixmap = QPixmap.fromImage(image)
            if width < image.width():
                pixmap = pixmap.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
            page.setPixmap(pixmap)
            page.setFixedSize(pixmap.width() + 2, pixmap.height() + 2)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.images:
            self.fit()


class ReportsView(QWidget):
    """The manager's report: range, scope and layout; figures, reconciliation, PDF preview, save, print."""

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self.tasks = Tasks(messages, self)
        self.terminal: Terminal | None = None
        self.reports: Reports | None = None
        self.report: EndOfDayReport | None = None
        self.paper: Paper | None = None
        self.model = FiguresModel(MoneyFormat("en_AU", "AUD"), self)
        self.save_dialog: QFileDialog | None = None
        self.worker = ReportWorker()  # its child process starts with the first report

        # --- what to report on -------------------------------------------------------------------
        self.range = RangePicker("Report")
        self.scope = QComboBox()
        self.scope.setAccessibleName("Terminals in the report")
        self.scope.addItem("This terminal", "this")
        self.scope.addItem("Another terminal…", "other")
        self.scope.addItem("All terminals", "all")
        self.scope.addItem("All terminals merged", "merged")
        self.scope.addItem("The whole store (every till)", "store")
        self.other = QLineEdit()
        self.other.setPlaceholderText("Terminal id")
        self.other.setAccessibleName("Other terminal id")
        self.layout_choice = QComboBox()
        self.layout_choice.setAccessibleName("Paper layout")
        self.layout_choice.addItem("A4", "a4")
        self.layout_choice.addItem("80 mm roll", "roll")
        self.show_button = button("Show report", name="Show report")
        range_bar = QHBoxLayout()
        range_bar.addWidget(label("Range"))
        range_bar.addWidget(self.range)
        range_bar.addStretch(1)
        scope_bar = QHBoxLayout()
        for scope_widget in (
            label("Terminal"),
            self.scope,
            self.other,
            label("Layout"),
            self.layout_choice,
            self.show_button,
        ):
            scope_bar.addWidget(scope_widget)
        scope_bar.addStretch(1)

        # --- the figures -------------------------------------------------------------------------
        self.title = label("", role="heading")
        self.period = label(role="hint", wrap=True)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Report figures")
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(34)
        # the check ("matches (nothing completed)"), last, wraps onto a second line where the half is narrow
        self.table.verticalHeader().setMinimumSectionSize(34)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().sectionResized.connect(lambda *_: self.fit_table())
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.reconciliation = QLabel()
        self.reconciliation.setWordWrap(True)
        self.reconciliation.setAccessibleName("Reconciliation")
        self.reconciliation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.counts = label(wrap=True)
        self.counts.setAccessibleName("Open authorizations, refunds and cancellations")
        self.drawer = QLabel()
        self.drawer.setWordWrap(True)
        self.drawer.setAccessibleName("The shift's cash drawer")
        self.drawer.hide()
        self.save_button = button("Save PDF…", name="Save report as PDF")
        self.print_button = button("Print", name="Print report")
        self.status = label(role="hint", wrap=True)
        self.status.setAccessibleName("Report status")
        self.waiting = Waiting(self.status.setText, self)
        outputs = QHBoxLayout()
        outputs.addWidget(self.save_button)
        outputs.addWidget(self.print_button)
        outputs.addStretch(1)
        figures_box = QWidget()
        figures_layout = QVBoxLayout(figures_box)
        figures_layout.setContentsMargins(0, 0, 0, 0)
        figures_layout.addWidget(self.title)
        figures_layout.addWidget(self.period)
        figures_layout.addWidget(self.drawer)
        figures_layout.addWidget(self.table)
        figures_layout.addWidget(self.reconciliation)
        figures_layout.addWidget(self.counts)
        figures_layout.addLayout(outputs)
        figures_layout.addWidget(self.status)
        figures_layout.addStretch(1)

        # --- the preview -------------------------------------------------------------------------
        self.preview = Preview()
        splitter = QSplitter()
        splitter.addWidget(figures_box)
        splitter.addWidget(self.preview)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([560, 680])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(label("Reports", role="heading"))
        layout.addLayout(range_bar)
        layout.addLayout(scope_bar)
        layout.addWidget(splitter, 1)

        for action_button in (self.show_button, self.save_button, self.print_button):
            action_button.setAutoDefault(True)  # Enter on the focused button presses it
        self.scope.currentIndexChanged.connect(self.on_scope_changed)
        self.layout_choice.currentIndexChanged.connect(self.on_layout_changed)
        self.show_button.clicked.connect(self.show_report)
        self.other.returnPressed.connect(self.show_report)
        self.save_button.clicked.connect(self.ask_save)
        self.print_button.clicked.connect(self.print_report)
        self.on_scope_changed(0)
        self.show_nothing()

    # --- the terminal ----------------------------------------------------------------------------

    def attach(self, terminal: Terminal) -> None:
        self.terminal = terminal
        # the person at the till when a copy is made, else the computer's user (a till nobody signs in to)
        self.reports = terminal.reports(actor=lambda: terminal.till.actor or terminal.actor)
        self.model.money = terminal.money
        self.show_nothing()

    def detach(self) -> None:
        self.tasks.cancel_all()
        self.worker.close()
        self.terminal = None
        self.reports = None
        self.show_nothing()

    # --- choices ---------------------------------------------------------------------------------

    def on_scope_changed(self, index: int) -> None:
        self.other.setVisible(self.scope.itemData(index) == "other")
        if self.other.isVisible():
            self.other.setFocus()

    def on_layout_changed(self, _: int) -> None:
        if self.report is not None and self.terminal is not None:
            self.tasks.run(self._render(self.report, self.terminal.money), key="render")

    def selected_layout(self) -> Layout:
        return "roll" if self.layout_choice.currentData() == "roll" else "a4"

    def selected_range(self, reports: Reports) -> TimeRange:
        return self.range.selected(reports.now())

    def selected_scope(self, terminal: Terminal) -> ReportScope:
        choice = self.scope.currentData()
        if choice == "all":
            return ReportScope.all()
        if choice == "merged":
            return ReportScope.merged()
        if choice == "other":
            other = self.other.text().strip()
            if not other:
                raise NoOtherTerminal("No terminal id is given for the other terminal.")
            return ReportScope.terminal(other)
        return ReportScope.terminal(terminal.settings.terminal_id)

    # --- the report ------------------------------------------------------------------------------

    def show_report(self) -> None:
        if self.terminal is not None and self.reports is not None:
            self.tasks.run(self._show(self.terminal, self.reports), key="show")

    async def _show(self, terminal: Terminal, reports: Reports) -> None:
        period = self.selected_range(reports)
        if self.scope.currentData() == "store":
            asking = "Asking the store database and the service for the store's day…"
            await self._make(terminal, reports.store_day(period, terminal.store), asking)
            return
        scope = self.selected_scope(terminal)
        await self._make(terminal, reports.end_of_day(period, scope), "Asking the service for the figures…")

    def show_shift(self, shift: Shift, *, print_when_ready: bool = False) -> None:
        """The shift's X report (open) or Z report (closed); printed once made when ``print_when_ready``."""
        if self.terminal is not None and self.reports is not None:
            self.tasks.run(self._show_shift(self.terminal, self.reports, shift, print_when_ready), key="show")

    async def _show_shift(self, terminal: Terminal, reports: Reports, shift: Shift, print_when_ready: bool) -> None:
        report = await self._make(
            terminal, terminal.shifts.report(reports, shift), "Asking the service for the shift's figures…"
        )
        if print_when_ready and report is self.report:
            self.print_report()

    async def _make(
        self, terminal: Terminal, making: Coroutine[Any, Any, EndOfDayReport], asking: str
    ) -> EndOfDayReport:
        """Wait for the report ``making`` makes, then show its figures and its PDF."""
        self.waiting.start(asking)
        self.show_button.setEnabled(False)
        try:
            report = await making
        except BaseException:
            self.waiting.stop()
            self.status.setText("No report: the service did not answer with one.")
            raise
        finally:
            self.waiting.stop()
            self.show_button.setEnabled(True)
        self.show_figures(report, terminal.money)
        await self._render(report, terminal.money)
        return report

    def show_nothing(self) -> None:
        self.report = None
        self.drawer.hide()
        self.paper = None
        self.model.set_report(None)
        self.fit_table()
        self.title.setText("No report yet")
        self.period.setText("Choose a range and the terminals, then press “Show report”.")
        self.reconciliation.hide()
        self.counts.setText("")
        self.status.setText("")
        self.set_pages([])
        self.save_button.setEnabled(False)
        self.print_button.setEnabled(False)

    def show_figures(self, report: EndOfDayReport, money: MoneyFormat) -> None:
        self.report = report
        self.paper = None
        self.model.money = money
        self.model.set_report(report)
        self.fit_table()
        # the status bar's badge already says SANDBOX; say it here only when the service's name does not
        sandbox = "" if report.production or "sandbox" in report.region.lower() else " · SANDBOX"
        self.title.setText(f"{report.title} — {report.scope.label}")
        self._show_drawer(report, money)
        start = report.range.start.astimezone().strftime("%Y-%m-%d %H:%M")
        end = report.range.end.astimezone().strftime("%Y-%m-%d %H:%M")
        made = report.generated_at.astimezone().strftime("%H:%M:%S")
        self.period.setText(f"{start} to {end} (local time), made at {made} · service: {report.region}{sandbox}")
        if report.reconciled:
            self.reconciliation.setText("✓ Reconciled: the transactions give the same figures as the summary.")
            self.reconciliation.setStyleSheet(RECONCILED_STYLE)
        else:
            sentences = report.differences(money.format) or [
                f"{row.terminal_id or 'Total'}: {', '.join(row.mismatched)} differ."
                for row in report.rows
                if not row.matches
            ]
            items = "".join(f"<li>{escape(s)}</li>" for s in sentences)
            self.reconciliation.setText(
                "<b>✗ Not reconciled: the transactions do not give the summary's figures.</b>"
                f"<ul style='margin: 0'>{items}</ul>"
            )
            self.reconciliation.setStyleSheet(MISMATCH_STYLE)
        self.reconciliation.show()
        cash = f"{len(report.cash_sales)} ({money.format(report.cash_total)})" if report.cash_sales else "0"
        self.counts.setText(
            f"Open authorized: {len(report.open_authorized)} · Refunds: {len(report.refunds)} · "
            f"Cancellations: {len(report.cancellations)} · Audit entries: {len(report.audit)} · "
            f"Cash sales {'at every till' if report.store is not None else 'on this terminal'}: {cash}"
        )

    def _show_drawer(self, report: EndOfDayReport, money: MoneyFormat) -> None:
        if report.store is not None:
            self._show_store(report.store, money)
            return
        section = report.shift
        if section is None:
            self.drawer.hide()
            return
        drawer = section.drawer
        text = (
            f"Drawer: float {money.format(drawer.opening_float)} + cash {money.format(drawer.cash_sales)} − given "
            f"back {money.format(drawer.cash_refunds)} = expected <b>{money.format(drawer.expected)}</b>"
        )
        over_short = section.over_short
        style = RECONCILED_STYLE
        if over_short is not None and section.counted is not None:
            verdict = drawer_verdict(over_short, money.format, loud=True)
            text += f"; counted <b>{money.format(section.counted.total)}</b>: <b>{escape(verdict)}</b>"
            style = RECONCILED_STYLE if over_short == 0 else MISMATCH_STYLE
        else:
            text += " (so far; nothing was changed)"
        self.drawer.setText(text)
        self.drawer.setStyleSheet(style)
        self.drawer.show()

    def _show_store(self, day: StoreDay, money: MoneyFormat) -> None:
        """The store's drawers in one line: each till's shifts, and the closed drawers' verdict."""
        tills = ", ".join(day.tills) or "no till yet"
        text = (
            f"Store: {escape(day.name or 'no name set')} · tills {escape(tills)} · {counted(len(day.shifts), 'shift')}"
        )
        style = RECONCILED_STYLE
        if day.open_shifts:
            text += f", {day.open_shifts} still open"
        if any(s.over_short is not None for s in day.shifts):
            over_short = day.counted - day.expected
            verdict = drawer_verdict(over_short, money.format, loud=True)
            text += (
                f" · closed drawers: expected <b>{money.format(day.expected)}</b>, counted "
                f"<b>{money.format(day.counted)}</b>: <b>{escape(verdict)}</b>"
            )
            style = RECONCILED_STYLE if over_short == 0 else MISMATCH_STYLE
        people = ", ".join(f"{p.person} {p.checks}" for p in day.people)
        if people:
            text += f"<br>Checks per person: {escape(people)}"
        self.drawer.setText(text)
        self.drawer.setStyleSheet(style)
        self.drawer.show()

    def fit_table(self) -> None:
        """As tall as its rows (up to ten), so the reconciliation sits right under the figures."""
        shown = min(self.model.rowCount(), 10)
        rows = sum(self.table.rowHeight(row) for row in range(shown))
        header = self.table.horizontalHeader().sizeHint().height()
        self.table.setFixedHeight(
            header + max(rows, self.table.verticalHeader().defaultSectionSize()) + 2 * self.table.frameWidth()
        )

    async def _render(self, report: EndOfDayReport, money: MoneyFormat) -> None:
        layout = self.selected_layout()
        self.status.setText("Making the PDF…")
        self.save_button.setEnabled(False)
        self.print_button.setEnabled(False)
        rendered = await self.worker.end_of_day(report, layout, money=money, dpi=PREVIEW_DPI, pages=PREVIEW_PAGES)
        if report is not self.report:
            return  # a newer report replaced this one meanwhile
        self.paper = Paper(report, layout, rendered.data)
        count = rendered.page_count
        self.set_pages([self.page_image(page) for page in rendered.previews])
        shown = f" (the first {PREVIEW_PAGES} shown)" if count > PREVIEW_PAGES else ""
        self.status.setText(f"{counted(count, 'page')} in {self.layout_choice.currentText()}{shown}.")
        self.save_button.setEnabled(True)
        self.print_button.setEnabled(True)

    @staticmethod
    def page_image(page: raster.PageImage) -> QImage:
        image = QImage(page.data, page.width, page.height, page.stride, QImage.Format.Format_RGBA8888)
        return image.copy()  # owns its pixels once ``page.data`` is gone

    def set_pages(self, images: list[QImage]) -> None:
        self.preview.set_images(images)

    @property
    def pages(self) -> list[QLabel]:
        return self.preview.pages

    # --- copies ----------------------------------------------------------------------------------

    def _current_paper(self) -> Paper:
        if self.paper is None or self.reports is None:
            raise NoReport("There is no report to save or print yet.")
        return self.paper

    def ask_save(self) -> None:
        """Ask where to save the PDF (the dialog is opened, never exec()'d) and save it there."""
        try:
            paper = self._current_paper()
        except UserError as exc:
            self.messages.show_error(exc)
            return
        folder = Path.home() / "Documents"
        suggested = (folder if folder.is_dir() else Path.home()) / paper.report.filename(paper.layout)
        self.save_dialog = file_dialog(
            self,
            "Save report as PDF",
            "PDF files (*.pdf)",
            self.save,
            lambda: setattr(self, "save_dialog", None),
            save_as=suggested,
        )

    def save(self, path: Path) -> Path | None:
        """Save the PDF shown to ``path`` and write it to the audit log; ``None`` when it could not be saved."""
        try:
            paper = self._current_paper()
            saved = printing.save_pdf(paper.data, path)
        except UserError as exc:
            self.messages.show_error(exc)
            return None
        assert self.reports is not None
        self.reports.record_report(paper.report, "saved", where=str(saved), layout=paper.layout)
        self.messages.show_info(f"The report is saved to {saved}.")
        return saved

    def print_report(self) -> str | None:
        """Print the PDF shown on the terminal's printer (the system's default when none is set); the 80 mm roll
        goes to the receipt printer when there is one, in its own text (queued there until it prints)."""
        try:
            paper = self._current_paper()
            assert self.terminal is not None
            assert self.reports is not None
            counter = self.terminal.counter
            if paper.layout == "roll" and counter.printer is not None:
                counter.queue_report(paper.report)
                where = f"receipt printer {counter.printer.address}"
                self.reports.record_report(paper.report, "printed", where=where, layout=paper.layout)
                self.messages.show_info("The report went to the receipt printer.")
                return where
            printer = printing.print_pdf(paper.data, printer=self.terminal.settings.printer, title=paper.report.title)
        except UserError as exc:
            self.messages.show_error(exc)
            return None
        self.reports.record_report(paper.report, "printed", where=printer, layout=paper.layout)
        self.messages.show_info(f"The report went to the printer {printer}.")
        return printer
