"""The window's side of a till that is part of a store: the exchange with the store database runs behind the
sale, what another till changed (people, catalog, the store's details) shows here, and joining or leaving a
store (once a manager approved, :mod:`pos_terminal.ui.approvals`) runs as a task of the window."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from pos_terminal.ui.tasks import STORE

if TYPE_CHECKING:
    from pos_terminal.services.store_sync import SyncReport
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.cashier_view import CashierView
    from pos_terminal.ui.counter_hardware import CounterHardware
    from pos_terminal.ui.statusbar import StatusBar
    from pos_terminal.ui.tasks import Messages, Tasks
    from pos_terminal.ui.till_flow import TillFlow
    from pos_terminal.ui.till_view import TillView
    from pos_terminal.ui.workspace import Workspace

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QTabWidget

log = logging.getLogger(__name__)


class StorePages(Protocol):
    """What the store's side of the window uses of it: the views another till's change shows in, the status
    bar, the till's flow and the counter's hardware, and the window's messages and tasks."""

    @property
    def terminal(self) -> Terminal | None: ...
    @property
    def tabs(self) -> QTabWidget: ...
    @property
    def cashier(self) -> CashierView: ...
    @property
    def till(self) -> TillView: ...
    @property
    def till_flow(self) -> TillFlow: ...
    @property
    def workspace(self) -> Workspace: ...
    @property
    def hardware(self) -> CounterHardware: ...
    @property
    def status(self) -> StatusBar: ...
    @property
    def messages(self) -> Messages: ...
    @property
    def tasks(self) -> Tasks: ...
    def show_title(self) -> None: ...


class StoreLink(QObject):
    def __init__(self, window: StorePages, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self._store_of: Terminal | None = None  # the terminal whose store exchanges this window listens to

    def start(self, terminal: Terminal) -> None:
        """A till that is part of a store exchanges with the store database all along, behind the sale."""
        tasks = self.window.tasks
        if not terminal.store.linked or tasks.is_running("store"):
            return
        if self._store_of is not terminal:
            terminal.store.on_sync(lambda report: self._on_synced(terminal, report))
            self._store_of = terminal
        tasks.run(terminal.store.run(), key="store", on_error=lambda e: log.info("store: %s", e.text()))

    def _on_synced(self, terminal: Terminal, report: SyncReport) -> None:
        window = self.window
        if window.terminal is not terminal:
            return
        status = terminal.store.status()
        window.status.show_store(status)
        if status.online:
            window.messages.resolve(STORE)  # what was refused while the store was away can be done again
        if report.people_changed:
            window.till.refresh_people()
            window.till_flow.show_status()
        if report.catalog_changed:
            window.cashier.load_catalog()
        if report.details_changed:
            window.hardware.on_store_details_changed()
            window.show_title()
        changed = report.people_changed or report.catalog_changed or report.details_changed
        office = window.workspace.built_back_office
        if changed and office is not None and window.tabs.currentWidget() is office:
            office.on_shown()  # another till's change, in the page being looked at

    def join(self, terminal: Terminal, address: str, password: str | None) -> None:
        self.window.tasks.run(self._join(terminal, address, password), key="store join")

    async def _join(self, terminal: Terminal, address: str, password: str | None) -> None:
        status = await terminal.store.join(address, password)
        self.window.messages.resolve(STORE)
        self.window.messages.show_info(f"This till is part of the store at {address} now.")
        self.window.workspace.settings_view.show_link(terminal)
        if (reports := self.window.workspace.built_reports) is not None:
            reports.show_link(terminal)
        self.window.status.show_store(status)
        self.start(terminal)
        self.window.till.refresh_people()

    def leave(self, terminal: Terminal) -> None:
        self.window.tasks.cancel("store")
        self.window.tasks.run(self._leave(terminal), key="store leave")

    async def _leave(self, terminal: Terminal) -> None:
        status = await terminal.store.leave()
        self.window.messages.resolve(STORE)
        self.window.messages.show_info("This till stands alone again; everything it recorded stays in its journal.")
        self.window.workspace.settings_view.show_link(terminal)
        if (reports := self.window.workspace.built_reports) is not None:
            reports.show_link(terminal)
        self.window.status.show_store(status)
