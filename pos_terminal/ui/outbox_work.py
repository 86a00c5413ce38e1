"""The window's work behind the sale on the charges: what the outbox holds is sent until confirmed, and a charge
reported as not confirmed that lands late is found and canceled.

At each start the unfinished charges are resumed; while anything waits in the outbox, the status bar counts it
and it is sent again, and a confirmation that concerns the open check or History is shown there. Each runs as
a task of the window ("resume", "resend", "late landings").
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from pos_terminal.domain.sale import Phase
from pos_terminal.domain.words import counted
from pos_terminal.ui.pages import Page

if TYPE_CHECKING:
    from pos_terminal.services.register import OpenCheck
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.cashier_view import CashierView
    from pos_terminal.ui.statusbar import StatusBar
    from pos_terminal.ui.tasks import Messages, Tasks
    from pos_terminal.ui.workspace import Workspace

from PySide6.QtCore import QObject

log = logging.getLogger(__name__)


class OutboxPages(Protocol):
    """What the work on the outbox uses of the window that holds it: the page shown, the views a confirmation
    shows in, the status bar, and the window's messages and tasks."""

    @property
    def terminal(self) -> Terminal | None: ...
    @property
    def page(self) -> Page: ...
    @property
    def cashier(self) -> CashierView: ...
    @property
    def workspace(self) -> Workspace: ...
    @property
    def status(self) -> StatusBar: ...
    @property
    def messages(self) -> Messages: ...
    @property
    def tasks(self) -> Tasks: ...


class OutboxWork(QObject):
    def __init__(self, window: OutboxPages, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window

    def resume(self, terminal: Terminal) -> None:
        """Take up every unfinished charge of ``terminal`` (a start, or a sign-in again)."""
        self.window.tasks.run(self._resume(terminal), key="resume", on_error=lambda e: log.info("resume: %s", e.text()))

    async def _resume(self, terminal: Terminal) -> None:
        report = await terminal.checkout.resume()
        self._late_landings_canceled(report.late_duplicates_canceled)
        self.on_pending_changed()
        self._watch_late_landings(terminal)

    def on_check_changed(self, terminal: Terminal, state: OpenCheck) -> None:
        if state.phase is Phase.UNCONFIRMED:
            self._watch_late_landings(terminal)

    def _watch_late_landings(self, terminal: Terminal) -> None:
        """While a charge reported as not confirmed may still land, look for it and cancel it when it does."""
        tasks = self.window.tasks
        if (
            self.window.terminal is terminal
            and not tasks.is_running("late landings")
            and terminal.checkout.watching_for_late_landings()
        ):
            tasks.run(
                self._cancel_late_landings(terminal),
                key="late landings",
                on_error=lambda e: log.info("late landings: %s", e.text()),
            )

    async def _cancel_late_landings(self, terminal: Terminal) -> None:
        async for canceled in terminal.checkout.watch_late_landings():
            self._late_landings_canceled(canceled)
            self.on_pending_changed()

    def _late_landings_canceled(self, canceled: list[str]) -> None:
        if canceled:
            self.window.messages.show_info(
                f"Canceled {counted(len(canceled), 'transaction')} that reached the service after its charge was "
                "reported as not confirmed; nobody was charged twice."
            )

    def on_pending_changed(self) -> None:
        """After anything that may add to the outbox: the status bar counts what waits, and while anything
        does, it is sent again."""
        window = self.window
        if window.terminal is None:
            return
        pending = window.terminal.pending_changes()
        window.status.show_pending(pending)
        if pending and window.page in (Page.WORKSPACE, Page.TILL) and not window.tasks.is_running("resend"):
            window.tasks.run(
                self._resend(window.terminal), key="resend", on_error=lambda e: log.info("resend: %s", e.text())
            )

    async def _resend(self, terminal: Terminal) -> None:
        from pos_terminal.domain.lifecycle import TxState
        from pos_terminal.services.checkout import ChangeStatus  # loaded with the terminal

        window = self.window
        async for outcomes in terminal.checkout.resend_until_confirmed():
            window.status.show_pending(terminal.pending_changes())
            open_check = terminal.register.current.transaction_id
            if any(o.transaction_id == open_check for o in outcomes):
                window.cashier.charging.refresh_transaction()
            for outcome in outcomes:
                # History's own changes (a refund always; anything of a transaction not on the cashier's screen)
                history = outcome.target is TxState.REFUNDED or outcome.transaction_id != open_check
                if window.workspace.built_history is not None and history and outcome.status is ChangeStatus.DONE:
                    assert outcome.transaction is not None
                    window.workspace.built_history.confirmed_later(outcome.transaction)
