"""Reports: the manager's end-of-day (or shift) report on screen, previewed as PDF, saved or printed.

What a report is made of is read by :class:`~pos_terminal.services.reports.Reports` (an order: the service's
answers and the journal's entries as read); the report itself is made in the report child
(:mod:`pos_terminal.reports.worker`), which sends back what the screen shows of it (a
:class:`~pos_terminal.domain.report_document.ReportFace`, worded by the one report model that the PDF, the receipt
printer's slip and the command line render too), then its PDF, previewed page by page
(:mod:`pos_terminal.ui.report_preview`). The day's rows never exist in the window. A reconciliation that fails is
shown in red with one sentence per difference, never hidden. The save dialog is opened with ``open()``,
never a nested ``exec()`` inside a coroutine.

A shift's X or Z report (:meth:`ReportsView.show_shift`) is shown, saved and printed the same way, with the
drawer's verdict above the figures.
"""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import Layout, ReportScope, TimeRange
from pos_terminal.domain.report_document import (
    Figures,
    Note,
    Pair,
    Pairs,
    ReportDocument,
    ReportFace,
    SectionKey,
    Status,
    Table,
    Tone,
    Verdict,
)
from pos_terminal.domain.shift import Shift
from pos_terminal.domain.slip import PackedSlip
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError
from pos_terminal.reports import raster
from pos_terminal.reports.worker import ReportWorker, Source
from pos_terminal.services.reports import ReportOrder, Reports
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui import printing
from pos_terminal.ui.range_picker import RangePicker, other_terminal
from pos_terminal.ui.report_figures import FiguresModel
from pos_terminal.ui.report_preview import PREVIEW_PAGES, PageView, Preview
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import Waiting, button, file_dialog, label, wheel_when_focused

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QImage, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

PREVIEW_DPI = 100.0
RECONCILED_STYLE = "color: #1f5f3a; background: #e6f4ec; border: 1px solid #1f7a4d; border-radius: 6px; padding: 6px;"
MISMATCH_STYLE = "color: #8c1d18; background: #fde8e7; border: 1px solid #b3261e; border-radius: 6px; padding: 6px;"


STORE = "store"  # the scope of the whole store's day


class NoReport(UserError):
    hint = "Press “Show report” first."


@dataclass(frozen=True, slots=True)
class Paper:
    """One rendering of a report: what the screen shows of it, the layout, the PDF bytes, and on the roll its slip
    (packed until it is printed)."""

    report: ReportFace
    layout: Layout
    data: bytes
    slip: PackedSlip | None = None


class ReportsView(QWidget):
    """The manager's report: range, scope and layout; figures, reconciliation, PDF preview, save, print."""

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self.tasks = Tasks(messages, self)
        self.terminal: Terminal | None = None
        self.reports: Reports | None = None
        self.report: ReportFace | None = None  # what the screen shows of the report
        self.source: Source | None = None  # what it is made of: each layout's PDF is made from it again
        self.paper: Paper | None = None
        self.model = FiguresModel(self)
        self.save_dialog: QFileDialog | None = None
        # its child process starts as Reports is shown (or a report asked for) and loads what an order needs
        self.worker = ReportWorker(preload=(ReportOrder.__module__,))

        # --- what to report on -------------------------------------------------------------------
        self.range = RangePicker("Report")
        self.scope = QComboBox()
        self.scope.setAccessibleName("Terminals in the report")
        # as wide as its longest choice, the store's day's too, which comes later (it read "The whole store (eve")
        self.scope.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.scope.addItem("This terminal", "this")
        self.scope.addItem("Another terminal…", "other")
        self.scope.addItem("All terminals", "all")
        self.scope.addItem("All terminals merged", "merged")  # and the whole store, at a till of one (show_link)
        self.other = QLineEdit()
        self.other.setPlaceholderText("Terminal id")
        self.other.setAccessibleName("Other terminal id")
        self.layout_choice = QComboBox()
        self.layout_choice.setAccessibleName("Paper layout")
        self.layout_choice.addItem("A4", "a4")
        self.layout_choice.addItem("80 mm roll", "roll")
        self.show_button = button("Show report", name="Show report")
        range_bar = QHBoxLayout()  # the heading beside the range: at 1024×768 a row of its own left the figures short
        range_bar.addWidget(label("Reports", role="heading"))
        range_bar.addSpacing(24)
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
        # rows fit their contents as measured at the columns' widths when they were laid out; the check's column
        # narrows afterwards (the drawer's summary shown beside a Z report), and its wrapped words need a new look
        self.table.horizontalHeader().sectionResized.connect(lambda *_: self.table.resizeRowsToContents())
        self.reconciliation = QLabel()
        self.reconciliation.setTextFormat(Qt.TextFormat.RichText)  # its words escaped (_html): never guessed
        self.reconciliation.setWordWrap(True)
        self.reconciliation.setAccessibleName("Reconciliation")
        self.reconciliation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.counts = label(wrap=True)
        self.counts.setAccessibleName("Open authorizations, refunds and cancellations")
        self.drawer = QLabel()
        # Rich text always, of words escaped (_html): Qt's guess took the summary for plain text when the store's
        # address put a line break before its first tag, and showed "<br><b>Closed drawers…</b>" as typed.
        self.drawer.setTextFormat(Qt.TextFormat.RichText)
        self.drawer.setWordWrap(True)
        self.drawer.setAccessibleName("The shift's cash drawer")
        self.drawer.hide()
        self.save_button = button("Save PDF…", name="Save report as PDF")
        self.print_button = button("Print", name="Print report")
        self.status = label(role="hint", wrap=True)
        for plain in (self.title, self.period, self.counts, self.status):  # words of a report, shown as they are
            plain.setTextFormat(Qt.TextFormat.PlainText)
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
        wheel_when_focused(self)  # a wheel on its way to the preview changes neither the range nor the layout

    # --- the terminal ----------------------------------------------------------------------------

    def attach(self, terminal: Terminal) -> None:
        self.terminal = terminal
        # the person at the till when a copy is made, else the computer's user (a till nobody signs in to)
        self.reports = terminal.reports(actor=terminal.at_the_till)
        self.show_link(terminal)
        self.show_nothing()

    def show_link(self, terminal: Terminal) -> None:
        """The whole store is a choice at a till of one, and only there (a till alone was offered it, and refused)."""
        index = self.scope.findData(STORE)
        if terminal.store.linked and index < 0:
            self.scope.addItem("The whole store (every till)", STORE)
        elif not terminal.store.linked and index >= 0:
            if self.scope.currentIndex() == index:
                self.scope.setCurrentIndex(self.scope.findData("this"))
            self.scope.removeItem(index)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        """The report child is started as the manager comes in, to have loaded what a report needs when one is asked
        for (a cashier's till that never shows Reports never starts it)."""
        super().showEvent(event)
        if self.terminal is not None:
            self.worker.start()

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
        if self.source is not None and self.terminal is not None:
            self.tasks.run(self._render(self.source, _money(self.terminal, self.source)), key="render")

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
            return ReportScope.terminal(other_terminal(self.other.text()))
        return ReportScope.terminal(terminal.settings.terminal_id)

    # --- the report ------------------------------------------------------------------------------

    def show_report(self) -> None:
        if self.terminal is not None and self.reports is not None:
            self.tasks.run(self._show(self.terminal, self.reports), key="show")

    async def _show(self, terminal: Terminal, reports: Reports) -> None:
        period = self.selected_range(reports)
        if self.scope.currentData() == STORE:
            asking = "Asking the store database and the service for the store's day…"
            await self._make(terminal, reports.store_order(period, terminal.store), asking)
            return
        scope = self.selected_scope(terminal)
        await self._make(terminal, reports.order(period, scope), "Asking the service for the figures…")

    def show_shift(self, shift: Shift, *, print_when_ready: bool = False) -> None:
        """The shift's X report (open) or Z report (closed); printed once made when ``print_when_ready``."""
        if self.terminal is not None and self.reports is not None:
            self.tasks.run(self._show_shift(self.terminal, self.reports, shift, print_when_ready), key="show")

    def _only_the_roll(self) -> bool:
        """Whether the receipt printer is the only printer here: none is set, and the system has none."""
        assert self.terminal is not None
        return (
            self.terminal.counter.printer is not None
            and self.terminal.settings.printer is None
            and not printing.system_printer_exists()
        )

    async def _show_shift(self, terminal: Terminal, reports: Reports, shift: Shift, print_when_ready: bool) -> None:
        if print_when_ready and self._only_the_roll():  # the Z report at the close, as the counter can print it
            with QSignalBlocker(self.layout_choice):  # the report below is made in it; the one shown is not again
                self.layout_choice.setCurrentIndex(self.layout_choice.findData("roll"))
        order = await self._make(
            terminal, terminal.shifts.order(reports, shift), "Asking the service for the shift's figures…"
        )
        if print_when_ready and order is self.source:
            self.print_report()

    async def _make(self, terminal: Terminal, ordering: Coroutine[Any, Any, ReportOrder], asking: str) -> ReportOrder:
        """Wait for what the report is made of (``ordering``), have it made, then show its figures and its PDF."""
        self.waiting.start(asking)
        self.show_button.setEnabled(False)
        self._let_go_of_the_report()
        self.worker.start()  # loading while the service answers, if it is not already
        try:
            order = await ordering
            self.waiting.start("Reading the figures…")
            face = await self.worker.face(order, money=_money(terminal, order))
        except UserError as exc:  # its own cause: the service away, a store not reached, a range refused
            self.waiting.stop()
            self.status.setText(f"No report: {exc.sentence}")
            raise
        except BaseException:
            self.waiting.stop()
            self.status.setText("No report.")
            raise
        finally:
            self.waiting.stop()
            self.show_button.setEnabled(True)
        self.show_figures(face, source=order)
        await self._render(order, _money(terminal, order))
        return order

    def _let_go_of_the_report(self) -> None:
        """The last report stays on the screen while the next one is made, but not in memory; saving and printing
        wait for the next. A day's report (its transactions and audit entries) held while the next was built made
        the window's highest passing peak of the day, which grew with the day and left its memory higher after
        each (docs/memory.md)."""
        self.report = None
        self.source = None
        self.paper = None
        self.save_button.setEnabled(False)
        self.print_button.setEnabled(False)

    def show_nothing(self) -> None:
        self.report = None
        self.source = None
        self.drawer.hide()
        self.paper = None
        self.model.set_figures(None)
        self.fit_table()
        self.title.setText("No report yet")
        self.period.setText("Choose a range and the terminals, then press “Show report”.")
        self.reconciliation.hide()
        self.counts.setText("")
        self.status.setText("")
        self.set_pages([])
        self.save_button.setEnabled(False)
        self.print_button.setEnabled(False)

    def show_figures(self, report: ReportFace, *, source: Source | None) -> None:
        """The report's sections as the screen shows them: the title and range, the drawer (a shift's, or the
        store's), the figures, the reconciliation and the counts of the lists; the PDF (made from ``source``) shows
        them all."""
        self.report = report
        self.source = source
        self.paper = None
        document = report.document  # the rows are the PDF's
        self.model.set_figures(_figures(document))
        self.fit_table()
        self.title.setText(f"{document.title} — {document.scope}")
        self.period.setText(f"{document.period} (local time), made {document.made} · service: {document.service}")
        self._show_drawer(document)
        reconciliation = document.section(SectionKey.RECONCILIATION)
        assert reconciliation is not None
        verdict = next(b for b in reconciliation.blocks if isinstance(b, Verdict))
        if verdict.status is Status.MATCHES:
            self.reconciliation.setText(_html(verdict.headline))
            self.reconciliation.setStyleSheet(RECONCILED_STYLE)
        else:
            lines = "".join(f"<br>{_html(line)}" for line in verdict.lines)
            self.reconciliation.setText(f"<b>{_html(verdict.headline)}</b>{lines}")
            self.reconciliation.setStyleSheet(MISMATCH_STYLE)
        self.reconciliation.show()
        self.counts.setText(
            " · ".join(
                f"{s.short}: {s.count}" + (f" ({s.amount})" if s.amount else "") for s in document.sections if s.short
            )
        )

    def _show_drawer(self, document: ReportDocument) -> None:
        """A shift's drawer (or the store's drawers) in a few lines, green when it is right, red when not."""
        keys = (SectionKey.STORE, SectionKey.STORE_SHIFTS) if document.section(SectionKey.STORE) else _SHIFT_KEYS
        sections = [section for key in keys if (section := document.section(key)) is not None]
        if not sections:
            self.drawer.hide()
            return
        lines: list[str] = []
        for section in sections:
            for block in section.blocks:
                if isinstance(block, Pairs) and not block.small:
                    lines.append(" · ".join(_pair(pair, first=i == 0) for i, pair in enumerate(block.rows)))
                elif isinstance(block, Verdict):
                    lines.append(f"<b>{_html(block.headline)}</b>")
                elif isinstance(block, Note) and block.tone is not Tone.SMALL:  # the fine print is the paper's
                    lines.append(f"<b>{_html(block.text)}</b>")
        if people := document.section(SectionKey.STORE_PEOPLE):
            shown = ", ".join(f"{row[0]} {row[1]}" for b in people.blocks if isinstance(b, Table) for row in b.rows)
            lines += [f"Checks per person: {_html(shown)}"] if shown else []
        status = next((s.status for s in sections if s.status is not None), None)
        self.drawer.setText("<br>".join(lines))
        self.drawer.setStyleSheet(MISMATCH_STYLE if status is Status.MISMATCH else RECONCILED_STYLE)
        self.drawer.show()

    def fit_table(self) -> None:
        """As tall as its rows (up to ten), so the reconciliation sits right under the figures; and never narrower
        than its figures, so the preview beside it takes the room that is left (the title had set the half's width,
        and a short one let the splitter squeeze the figures into a sideways scroll)."""
        shown = min(self.model.rowCount(), 10)
        rows = sum(self.table.rowHeight(row) for row in range(shown))
        heading = self.table.horizontalHeader().sizeHint().height()
        self.table.setFixedHeight(
            heading + max(rows, self.table.verticalHeader().defaultSectionSize()) + 2 * self.table.frameWidth()
        )
        scroll = self.table.verticalScrollBar().sizeHint().width() if self.model.rowCount() > shown else 0
        header = self.table.horizontalHeader()
        last = header.count() - 1
        # every column at its contents' width; the check (the last) wraps, and a stretched last section keeps at
        # least the header's default size (100 px: "matches", "differs:", "completed)" each fit on a line)
        figures = sum(header.sectionSize(column) for column in range(last)) + header.defaultSectionSize()
        self.table.setMinimumWidth(figures + scroll + 2 * self.table.frameWidth())

    async def _render(self, source: Source, money: MoneyFormat) -> None:
        layout = self.selected_layout()
        self.status.setText("Making the PDF…")
        self.save_button.setEnabled(False)
        self.print_button.setEnabled(False)
        tz = self.terminal.counter.tz if self.terminal is not None else None
        rendered = await self.worker.end_of_day(
            source, layout, money=money, dpi=PREVIEW_DPI, pages=PREVIEW_PAGES, tz=tz
        )
        if source is not self.source or self.report is None:
            return  # a newer report replaced this one meanwhile
        self.paper = Paper(self.report, layout, rendered.data, rendered.slip)
        count = rendered.page_count
        self.set_pages([self.page_image(page) for page in rendered.previews])
        shown = f" (the first {PREVIEW_PAGES} shown)" if count > PREVIEW_PAGES else ""
        self.status.setText(f"{counted(count, 'page')} in {self.layout_choice.currentText()}{shown}.")
        self.save_button.setEnabled(True)
        self.print_button.setEnabled(True)

    @staticmethod
    def page_image(page: raster.PageImage) -> QImage:
        image = QImage(page.data, page.width, page.height, page.stride, QImage.Format.Format_RGBA8888)
        # a copy that owns its pixels once ``page.data`` is gone, in the format the screen is painted in (pages are
        # opaque), so drawing it is a plain copy of its lines
        return image.convertToFormat(QImage.Format.Format_RGB32)

    def set_pages(self, images: list[QImage]) -> None:
        self.preview.set_images(images)

    @property
    def pages(self) -> list[PageView]:
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
        goes to the receipt printer when there is one, in its own text (queued there until it prints). At a counter
        whose receipt printer is its only printer, A4 says to choose the roll."""
        try:
            paper = self._current_paper()
            assert self.terminal is not None
            assert self.reports is not None
            counter = self.terminal.counter
            if counter.printer is not None and paper.layout == "roll" and paper.slip is not None:
                counter.queue(paper.slip.unpacked())
                where = f"receipt printer {counter.printer.address}"
                self.reports.record_report(paper.report, "printed", where=where, layout=paper.layout)
                self.messages.show_info("The report went to the receipt printer.")
                return where
            if counter.printer is not None and self._only_the_roll():
                raise UserError(
                    "This counter has no printer for A4, only its receipt printer.",
                    hint="Choose the 80 mm roll layout to print the report there.",
                )
            printer = printing.print_pdf(paper.data, printer=self.terminal.settings.printer, title=paper.report.title)
        except UserError as exc:
            self.messages.show_error(exc)
            return None
        self.reports.record_report(paper.report, "printed", where=printer, layout=paper.layout)
        self.messages.show_info(f"The report went to the printer {printer}.")
        return printer


_SHIFT_KEYS = (SectionKey.SHIFT, SectionKey.DRAWER)


def _figures(document: ReportDocument) -> Figures | None:
    section = document.section(SectionKey.FIGURES)
    return next((b for b in section.blocks if isinstance(b, Figures)), None) if section else None


def _pair(pair: Pair, *, first: bool) -> str:
    """A label and its value in a line of several (a sum or a count in bold)."""
    label = pair.label if first else pair.label[:1].lower() + pair.label[1:]
    value = f"<b>{_html(pair.value)}</b>" if pair.strong else _html(pair.value)
    return f"{_html(label)} {value}"


def _html(text: str) -> str:
    """``text`` as a rich-text label shows it: every character as typed (``<b>``, ``&amp;``), a line break as one."""
    return escape(text).replace("\n", "<br>")


def _money(terminal: Terminal, source: Source) -> MoneyFormat:
    """How the report's amounts are written: the store's day in the store's currency, every other in the till's."""
    return terminal.money_of(source.currency if isinstance(source, ReportOrder) else None)
