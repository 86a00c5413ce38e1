"""The window's acts that a cashier needs a manager for: each asks for the approval, then does it or hands it on.

Opening the drawer with no sale, saving the settings, joining or leaving a store, disconnecting the terminal and
closing a shift are guarded (:class:`~pos_terminal.domain.people.Guarded`): the person at the till does them
when they may, else a manager's PIN approves them (:func:`~pos_terminal.ui.approval_dialog.with_approval`).
Once approved and written to the audit log, the drawer opens here; the rest is the window's work, asked for by
a signal. The discount over the limit and the cancel of a charge are asked for on the cashier's screen, as the
open check's own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_terminal.domain.people import Approval, Guarded
from pos_terminal.errors import UserError
from pos_terminal.ui.approval_dialog import ANSWERS, ManagerPrompt, with_approval
from pos_terminal.ui.widgets import confirm

if TYPE_CHECKING:
    from collections.abc import Callable

    from pos_terminal.config import Settings
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.close_shift_dialog import CloseShiftDialog
    from pos_terminal.ui.tasks import Messages, Tasks

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget


class Approvals(QObject):
    """Signals, each once the act was approved (and written to the audit log):
    ``settings_approved(Settings)`` the settings to save; ``join_approved(Terminal, str, str | None)`` the store's
    address and password; ``leave_approved(Terminal)``; ``disconnect_approved(Terminal, str | None)`` the manager
    who approved, if one had to; ``shift_counted(Terminal, DrawerCount, Approval | None, bool)`` the drawer counted
    to close the shift, and whether its Z report is printed."""

    settings_approved = Signal(object)
    join_approved = Signal(object, str, object)
    leave_approved = Signal(object)
    disconnect_approved = Signal(object, object)
    shift_counted = Signal(object, object, object, bool)

    def __init__(
        self, parent: QWidget, messages: Messages, tasks: Tasks, terminal: Callable[[], Terminal | None]
    ) -> None:
        super().__init__(parent)
        self.parent_widget = parent
        self.messages = messages
        self.tasks = tasks
        self._terminal = terminal
        self.prompt: ManagerPrompt | None = None  # a manager's approval being asked for
        self.confirmation: QMessageBox | None = None
        self.close_dialog: CloseShiftDialog | None = None

    def no_sale(self) -> None:
        """F10: open the cash drawer with no sale; a cashier needs a manager. The opening is in the audit log with
        who asked and who approved (or why the drawer did not open)."""
        terminal = self._terminal()
        if terminal is None:
            return
        if not terminal.counter.cash_drawer:
            from pos_terminal.services.counter import NoDrawer

            self.messages.show_error(NoDrawer())
            return

        def approved(approval: Approval | None) -> None:
            try:
                manager = terminal.till.no_sale(approval)
            except UserError as exc:
                self.messages.show_error(exc)
                return
            self.tasks.run(terminal.counter.open_drawer("no sale", approved_by=manager), key="drawer")

        if terminal.till.may(Guarded.NO_SALE):  # a manager at the till, or nobody signs in here: asked once
            self.confirmation = confirm(
                self.parent_widget,
                "Open the cash drawer",
                "Open the cash drawer with no sale?",
                "The opening is written to the audit log.",
                lambda: approved(None),
                answers=ANSWERS[Guarded.NO_SALE],
            )
            return
        self.prompt = with_approval(
            self.parent_widget, terminal.till, Guarded.NO_SALE, "Open the cash drawer without a sale?", approved
        )

    def save_settings(self, terminal: Terminal, settings: Settings, saved: Callable[[], Settings]) -> None:
        """Saved when the person at the till may change the settings, else once a manager approved; the audit
        entry names what changed from the ``saved`` settings."""

        def save(approval: Approval | None) -> None:
            old, new = saved().model_dump(), settings.model_dump()
            changed = sorted(k for k, v in new.items() if old[k] != v)
            # each plain setting from what to what (the audit log says it as a sentence); the others by name
            detail: dict[str, object] = {k: [old[k], new[k]] for k in changed if not isinstance(new[k], dict | list)}
            if rest := [k for k in changed if k not in detail]:
                detail["changed"] = rest
            try:
                terminal.till.perform(Guarded.CHANGE_SETTINGS, approval, "settings changed", detail)
            except UserError as exc:
                self.messages.show_error(exc)
                return
            self.settings_approved.emit(settings)

        self.prompt = with_approval(
            self.parent_widget, terminal.till, Guarded.CHANGE_SETTINGS, "Save the new settings?", save
        )

    def join_store(self, address: str, password: str | None) -> None:
        """Join the store at ``address`` once a manager approves (it shares this till's people and records)."""
        terminal = self._terminal()
        if terminal is None:
            return

        def join(approval: Approval | None) -> None:
            try:
                terminal.till.perform(Guarded.CHANGE_SETTINGS, approval, "store join asked", {"store": address})
            except UserError as exc:
                self.messages.show_error(exc)
                return
            self.join_approved.emit(terminal, address, password)

        self.prompt = with_approval(
            self.parent_widget, terminal.till, Guarded.CHANGE_SETTINGS, f"Join the store at {address}?", join
        )

    def leave_store(self) -> None:
        terminal = self._terminal()
        if terminal is None:
            return

        def leave(approval: Approval | None) -> None:
            try:
                terminal.till.perform(Guarded.CHANGE_SETTINGS, approval, "store leave asked", {})
            except UserError as exc:
                self.messages.show_error(exc)
                return
            self.leave_approved.emit(terminal)

        self.prompt = with_approval(
            self.parent_widget, terminal.till, Guarded.CHANGE_SETTINGS, "Leave the store?", leave
        )

    def disconnect_terminal(self) -> None:
        terminal = self._terminal()
        if terminal is None:
            return

        def disconnect(approval: Approval | None) -> None:
            try:
                approved_by = terminal.till.require(Guarded.DISCONNECT, approval)
            except UserError as exc:
                self.messages.show_error(exc)
                return
            self.disconnect_approved.emit(terminal, approved_by)

        self.prompt = with_approval(
            self.parent_widget, terminal.till, Guarded.DISCONNECT, "Disconnect this terminal?", disconnect
        )

    def close_shift(self) -> None:
        """Count the drawer to close the shift (a cashier needs a manager first); the window then closes it."""
        terminal = self._terminal()
        if terminal is None:
            return
        shift = terminal.shifts.current()
        if shift is None:
            self.messages.show_error("No shift is open on this terminal.")
            return

        def count(approval: Approval | None) -> None:
            from pos_terminal.ui.close_shift_dialog import CloseShiftDialog

            dialog = CloseShiftDialog(shift, terminal.money, self.parent_widget)
            dialog.counted.connect(
                lambda counted, print_it: self.shift_counted.emit(terminal, counted, approval, print_it)
            )
            self.close_dialog = dialog
            dialog.open()

        self.prompt = with_approval(
            self.parent_widget,
            terminal.till,
            Guarded.CLOSE_SHIFT,
            f"Close shift {shift.id}?",
            count,
            subject=str(shift.id),
        )
