"""Who is at the till, as the window follows it: the status bar's line, the lock (a key, or the idle lock) and
the sign-in behind it, opening a shift when a sale needs one, and closing one once its drawer is counted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pos_terminal.errors import UserError
from pos_terminal.ui.pages import Page, Tab

if TYPE_CHECKING:
    from pos_terminal.domain.people import Approval
    from pos_terminal.domain.shift import DrawerCount
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.cashier_view import CashierView
    from pos_terminal.ui.idle_lock import IdleLock
    from pos_terminal.ui.statusbar import StatusBar
    from pos_terminal.ui.tasks import Messages, Tasks
    from pos_terminal.ui.till_view import TillView
    from pos_terminal.ui.workspace import Workspace

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QTabWidget


class TillPages(Protocol):
    """What the till's flow uses of the window that holds it: its pages and tabs, the views on them, the status
    bar, the idle lock and the window's messages and tasks."""

    @property
    def terminal(self) -> Terminal | None: ...
    @property
    def page(self) -> Page: ...
    @property
    def tabs(self) -> QTabWidget: ...
    @property
    def cashier(self) -> CashierView: ...
    @property
    def till(self) -> TillView: ...
    @property
    def workspace(self) -> Workspace: ...
    @property
    def status(self) -> StatusBar: ...
    @property
    def idle(self) -> IdleLock: ...
    @property
    def messages(self) -> Messages: ...
    @property
    def tasks(self) -> Tasks: ...
    def show_page(self, page: Page) -> None: ...
    def show_tab(self, tab: Tab) -> None: ...
    def show_title(self) -> None: ...


class TillFlow(QObject):
    def __init__(self, window: TillPages, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window

    def show_status(self) -> None:
        """Who is at the till and the shift, in the status bar; who is at the till, in the window's title."""
        terminal = self.window.terminal
        status = self.window.status
        self.window.show_title()
        if terminal is None or not terminal.till.guarding:
            status.show_till(None)
            return
        person = terminal.till.current
        shift = terminal.shifts.current()
        who = person.name if person is not None else "Till locked"
        shift_text = f"shift {shift.id}" if shift is not None else "no shift open"
        status.show_till(f"{who} · {shift_text}", locked=person is None)

    def on_person_ready(self) -> None:
        """Someone signed in at the till (and the shift is open, or put off): back to the workspace."""
        window = self.window
        if window.terminal is None:
            return
        window.show_page(Page.WORKSPACE)
        window.tabs.setCurrentWidget(window.cashier)
        window.cashier.customers.focus_search()
        window.idle.touched()
        self.show_status()
        window.cashier.show_check()  # who is at the till and the shift decide what the big button offers
        if window.workspace.built_shifts is not None:
            window.workspace.built_shifts.refresh()

    def switch_person(self) -> None:
        """One key: the till locks for the next person; the open check and its charge stay as they are."""
        self.lock("switch person")

    def lock(self, reason: str) -> None:
        window = self.window
        terminal = window.terminal
        if terminal is None or window.page is not Page.WORKSPACE or not terminal.till.guarding:
            return
        terminal.till.lock(reason)  # its listener shows the till's status
        window.show_page(Page.TILL)
        window.till.begin(terminal)

    def on_idle(self, seconds: float) -> None:
        """``seconds`` without a key or a click: the till locks itself once its settings say so."""
        window = self.window
        terminal = window.terminal
        if terminal is None or window.page is not Page.WORKSPACE:
            return
        if QApplication.activeModalWidget() is not None:
            # not under a dialog, whose work goes on with nobody at the till: a manager counting the drawer for
            # longer than the idle lock found the count refused ("Nobody is at the till"), the PIN page behind it
            return
        if terminal.till.idle_lock_due(seconds):
            self.lock("idle")
            window.messages.show_info("The till locked itself after a while without use; the open check is kept.")

    def open_shift(self) -> None:
        terminal = self.window.terminal
        if terminal is None:
            return
        self.window.show_page(Page.TILL)
        self.window.till.ask_shift(terminal)

    def close_shift(self, terminal: Terminal, count: DrawerCount, approval: Approval | None, print_it: bool) -> None:
        """The drawer was counted (and a manager approved): the shift closes and its Z report follows."""
        self.window.tasks.run(self._close_shift(terminal, count, approval, print_it), key="close-shift")

    async def _close_shift(
        self, terminal: Terminal, count: DrawerCount, approval: Approval | None, print_it: bool
    ) -> None:
        """The till refuses while a charge is held; what the service did meanwhile (an automatic cancel) is read
        first, so a charge it ended holds nothing up."""
        window = self.window
        await terminal.history.refresh_authorized()
        try:
            closed = terminal.till.close_shift(count, approval)
        except UserError as exc:
            window.messages.show_error(exc)
            return
        from pos_terminal.domain.shift import drawer_verdict  # loaded with the terminal

        verdict = drawer_verdict(closed.over_short or 0, terminal.money.format)
        window.messages.show_info(f"Shift {closed.id} is closed; the drawer is {verdict}. Its Z report follows.")
        self.show_status()
        window.cashier.show_check()  # the big button now offers to open the next shift
        window.workspace.shifts.refresh()
        window.show_tab(Tab.REPORTS)
        window.workspace.report_tabs.setCurrentWidget(window.workspace.reports)
        window.workspace.reports.show_shift(closed, print_when_ready=print_it)
