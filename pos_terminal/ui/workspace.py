"""The workspace's tabs: the cashier's screen, then History, Reports (with Shifts), Settings and the back office.

Each of the others is built the first time it is shown or asked for: until then its tab holds an empty page,
which the view takes the place of. The reports in particular load the PDF machinery, which keeps it out of the
cashier's start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pos_terminal.ui.pages import Page, Tab

if TYPE_CHECKING:
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.back_office_view import BackOfficeView
    from pos_terminal.ui.history_view import HistoryView
    from pos_terminal.ui.host import Host
    from pos_terminal.ui.reports_view import ReportsView
    from pos_terminal.ui.settings_view import SettingsView
    from pos_terminal.ui.shifts_view import ShiftsView
    from pos_terminal.ui.tasks import Messages

from PySide6.QtCore import QObject, QSignalBlocker, Signal
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget


class Workspace(QObject):
    """The window's tabs (``tabs``, the cashier's screen first) and the views built into them.

    What the views built here ask for goes on as the workspace's own signals, for the window to wire:
    ``shift_report_requested(object)`` a Shift; ``open_shift_requested()``; ``close_shift_requested()``;
    ``pending_changed()`` History changed what waits in the outbox; ``settings_saved(object)`` new Settings;
    ``disconnect_confirmed()``; ``about_requested()``; ``join_store_requested(str, object)`` an address and a
    password or None; ``leave_store_confirmed()``; ``people_changed()``, ``catalog_changed()`` and
    ``details_changed()`` after the back office saved a change."""

    shift_report_requested = Signal(object)
    open_shift_requested = Signal()
    close_shift_requested = Signal()
    pending_changed = Signal()
    settings_saved = Signal(object)
    disconnect_confirmed = Signal()
    about_requested = Signal()
    join_store_requested = Signal(str, object)
    leave_store_confirmed = Signal()
    people_changed = Signal()
    catalog_changed = Signal()
    details_changed = Signal()

    def __init__(
        self,
        tabs: QTabWidget,
        cashier: QWidget,
        messages: Messages,
        host: Host,
        terminal: Callable[[], Terminal | None],
        page: Callable[[], Page],
        parent: QObject | None = None,
    ) -> None:
        """``terminal`` and ``page`` read the window's terminal (None while there is none) and its page now."""
        super().__init__(parent)
        self.messages = messages
        self.host = host
        self.terminal = terminal
        self.page = page
        self.tabs = tabs
        # History and Settings are built the first time they are shown (or asked for); until then their tabs
        # hold an empty page, which the view takes the place of.
        self.built_history: HistoryView | None = None
        self.built_settings: SettingsView | None = None
        self.built_back_office: BackOfficeView | None = None
        self.reports_page = QWidget()
        self.reports_page.setAccessibleName("Reports")
        QVBoxLayout(self.reports_page).setContentsMargins(0, 0, 0, 0)
        self.built_reports: ReportsView | None = None
        self.built_shifts: ShiftsView | None = None
        self.report_tabs = QTabWidget()
        self.report_tabs.setDocumentMode(True)
        self.reports_page.layout().addWidget(self.report_tabs)  # type: ignore[union-attr]
        tabs.addTab(cashier, "Cashier")
        tabs.addTab(QWidget(), "History")
        tabs.addTab(self.reports_page, "Reports")
        tabs.addTab(QWidget(), "Settings")
        tabs.addTab(QWidget(), "Back office")

    @property
    def reports(self) -> ReportsView:
        """The manager's reports, built the first time they are shown: the PDF machinery loads only then,
        which keeps it out of the cashier's start-up. The Shifts view is beside it, in the same tab."""
        if self.built_reports is None:
            from pos_terminal.ui.reports_view import ReportsView
            from pos_terminal.ui.shifts_view import ShiftsView

            self.built_reports = ReportsView(self.messages)
            self.built_shifts = ShiftsView()
            self.report_tabs.addTab(self.built_reports, "Report")
            self.report_tabs.addTab(self.built_shifts, "Shifts")
            self.built_shifts.report_requested.connect(self.shift_report_requested)
            self.built_shifts.open_requested.connect(self.open_shift_requested)
            self.built_shifts.close_requested.connect(self.close_shift_requested)
            terminal = self.terminal()
            if terminal is not None and self.page() is Page.WORKSPACE and self.tabs.isTabEnabled(2):
                self.built_reports.attach(terminal)
                self.built_shifts.attach(terminal)
        return self.built_reports

    @property
    def history(self) -> HistoryView:
        """The History tab's view, built the first time it is shown or asked for."""
        if self.built_history is None:
            from pos_terminal.ui.history_view import HistoryView

            self.built_history = view = HistoryView(self.messages)
            view.changed.connect(self.pending_changed)
            self._fill_tab(Tab.HISTORY, view)
            terminal = self.terminal()
            if terminal is not None and self.tabs.isTabEnabled(list(Tab).index(Tab.HISTORY)):
                view.attach(terminal)
        return self.built_history

    @property
    def settings_view(self) -> SettingsView:
        """The Settings tab's view, built the first time it is shown or asked for (it is filled when shown)."""
        if self.built_settings is None:
            from pos_terminal.ui.settings_view import SettingsView

            self.built_settings = view = SettingsView()
            view.saved.connect(self.settings_saved)
            view.disconnect_confirmed.connect(self.disconnect_confirmed)
            view.about_requested.connect(self.about_requested)
            view.join_store_requested.connect(self.join_store_requested)
            view.leave_store_confirmed.connect(self.leave_store_confirmed)
            self._fill_tab(Tab.SETTINGS, view)
        return self.built_settings

    @property
    def back_office(self) -> BackOfficeView:
        """People, the catalog and the store's details, built the first time they are shown or asked for."""
        if self.built_back_office is None:
            from pos_terminal.ui.back_office_view import BackOfficeView

            self.built_back_office = view = BackOfficeView(self.messages)
            view.people_changed.connect(self.people_changed)
            view.catalog_changed.connect(self.catalog_changed)
            view.details_changed.connect(self.details_changed)
            self._fill_tab(Tab.BACK_OFFICE, view)
            terminal = self.terminal()
            if terminal is not None and self.tabs.isTabEnabled(list(Tab).index(Tab.BACK_OFFICE)):
                view.attach(terminal)
        return self.built_back_office

    @property
    def shifts(self) -> ShiftsView:
        """The Shifts view of the Reports tab (built with the reports)."""
        self.reports  # noqa: B018 (builds both)
        assert self.built_shifts is not None
        return self.built_shifts

    def _fill_tab(self, tab: Tab, view: QWidget) -> None:
        """``view`` in place of the empty page ``tab`` held, the tab as it was (enabled or not, current or not)."""
        index = list(Tab).index(tab)
        empty = self.tabs.widget(index)
        current, enabled, text = self.tabs.currentIndex(), self.tabs.isTabEnabled(index), self.tabs.tabText(index)
        with QSignalBlocker(self.tabs):  # the same tab stays current: nothing to tell
            self.tabs.removeTab(index)
            self.tabs.insertTab(index, view, text)
            self.tabs.setTabEnabled(index, enabled)
            self.tabs.setCurrentIndex(current)
        if empty is not None:
            empty.deleteLater()

    def enable(self, *, signed_in: bool) -> None:
        """The tabs that need a sign-in (all but Settings) enabled or not."""
        # last to first: a current tab that is disabled hands over to the next enabled one, and a tab about to be
        # disabled too (History) would be shown, built and asked to load without a sign-in on the way
        self.tabs.setTabEnabled(list(Tab).index(Tab.BACK_OFFICE), signed_in)
        for index in reversed(range(3)):
            self.tabs.setTabEnabled(index, signed_in)

    def on_tab_changed(self, index: int) -> None:
        tab = list(Tab)[index] if 0 <= index < len(Tab) else None
        if tab is Tab.HISTORY:
            self.history.on_shown()
        if tab is Tab.REPORTS:
            self.reports.setFocus()
            self.shifts.refresh()
        if tab is Tab.SETTINGS:
            self.show_settings()
        if tab is Tab.BACK_OFFICE:
            self.back_office.on_shown()

    def show_settings(self) -> None:
        """Filled when shown, not at start-up: it asks the system for its printers."""
        host = self.host
        self.settings_view.show_settings(
            host.settings, host.region_choices(), self.terminal(), prints=host.paths.prints_dir
        )
