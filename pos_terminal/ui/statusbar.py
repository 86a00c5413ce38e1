"""The status bar: region, terminal id, connection state, SANDBOX badge, state changes waiting to be sent,
and who is at the till with the shift (and the key that switches person)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from pos_terminal.domain.words import counted
from pos_terminal.ui.actions import Act, key
from pos_terminal.ui.widgets import ElidedLabel, button, label, set_role

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QSizePolicy, QStatusBar, QWidget

if TYPE_CHECKING:  # the service's side loads after the first screen is painted (pos_terminal.app)
    from pos_terminal.services.session import SessionState
    from pos_terminal.services.store_sync import StoreStatus
    from pos_terminal.services.terminal import Terminal

# by the states' values (SessionState is a StrEnum): its module comes with the terminal
_CONNECTION = {
    "connected": "Connected",
    "signed out": "Not signed in",
    "expired": "Sign-in expired — sign in again",
    "revoked": "Sign-in revoked — sign in again",
}


class StatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.badge = label("SANDBOX", role="badge")
        self.badge.setAccessibleName("Sandbox: not a production service")
        self.region = label()
        self.region.setAccessibleName("Region")
        self.terminal_id = label()
        self.terminal_id.setAccessibleName("Terminal id")
        self.connection = label()
        self.connection.setAccessibleName("Connection")
        # these three say less when the bar is short of room (a long name, a three-digit count at 1024 px), and
        # shorten with "…" last: each keeps its whole text in its tool tip and accessible description
        self.pending = ElidedLabel()
        self.pending.setAccessibleName("State changes waiting to be sent")
        self.store = ElidedLabel(yields=True)  # its stretch gives it the room left over
        self.store.setAccessibleName("The store database: online or not, and what waits to be sent there")
        self.store.hide()
        self.till = ElidedLabel(keep=16)  # an everyday name and shift whole while the store says less
        self.till.setAccessibleName("Who is at the till, and the shift")
        for part in (self.pending, self.store, self.till):
            part.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)  # its width, or less
        self.switch_button: QPushButton = button("Switch", name="Switch person", shortcut=key(Act.SWITCH_PERSON))
        self.switch_button.hide()
        for widget in (self.badge, self.region, self.terminal_id, self.connection):
            self.addWidget(widget)
        self.addWidget(self.store, 1)
        for text in (self.region, self.terminal_id, self.connection, self.store, self.pending, self.till):
            text.setContentsMargins(0, 0, 6, 0)  # room for a last letter's overhang: none is cut
            text.setTextFormat(Qt.TextFormat.PlainText)  # a person's name as typed: "<b>Mia</b>" is not bold
        self.addPermanentWidget(self.till)
        self.addPermanentWidget(self.switch_button)
        self.addPermanentWidget(self.pending)
        self.show_terminal(None)

    def show_terminal(self, terminal: Terminal | None, *, connecting: bool = False) -> None:
        """The terminal's region, id, connection and changes; without one, "Connecting…" while one is being made."""
        if terminal is None:
            self.badge.hide()
            self.region.setText("Connecting…" if connecting else "Not connected")
            self.terminal_id.clear()
            self.connection.clear()
            self.pending.clear()
            self.show_store(None)
            self.show_till(None)
            return
        self.badge.setVisible(terminal.is_sandbox)
        # short, so the till, the changes waiting and the printer's buttons fit beside them at 1024 px
        self.region.setText(terminal.service.name)
        self.region.setToolTip(f"Region: {terminal.service.name}")
        self.terminal_id.setText(terminal.settings.terminal_id)
        self.terminal_id.setToolTip(f"Terminal: {terminal.settings.terminal_id}")
        self.show_connection(terminal.session.state, terminal.session.ends_at)
        self.show_pending(terminal.pending_changes())
        self.show_store(terminal.store.status())

    def show_store(self, status: StoreStatus | None) -> None:
        """ "Store online", "Store offline since 14:02 · 12 changes waiting"; nothing for a till that stands alone."""
        if status is None or not status.linked:
            self.store.hide()
            return
        clock: Callable[[datetime], str] = lambda moment: moment.astimezone().strftime("%H:%M")  # noqa: E731
        sentence = status.sentence(clock)
        self.store.set_texts(sentence, status.sentence(clock, short=True))
        set_role(self.store, "reason" if status.offline_since is not None else "")
        tip = f"{sentence}\nStore database: {status.address}"
        if status.last_error:
            tip += f"\n{status.last_error}"
        if status.refused:
            tip += f"\n{counted(len(status.refused), 'record')} refused by the store: {status.refused[0].reason}"
        self.store.setToolTip(tip)
        self.store.show()

    def show_connection(self, state: SessionState, ends_at: datetime | None = None) -> None:
        """The connection; a sign-in that cannot be renewed says when it ends, once, in this one label."""
        text = _CONNECTION.get(state, str(state))
        if state == "connected" and ends_at is not None:
            text += f" — the sign-in ends at {ends_at.astimezone().strftime('%H:%M')} and cannot be renewed"
            self.connection.setToolTip(
                "The service gave no refresh token: sign in again when it ends. Some services renew only "
                "with the scope offline_access (auth.REGION.scope in the settings)."
            )
        else:
            self.connection.setToolTip("")
        self.connection.setText(text)

    def show_pending(self, count: int) -> None:
        """State changes waiting for the service; nothing at all when none waits (the bar has little room at 1024 px,
        with the store's part beside it)."""
        if count:
            self.pending.set_texts(f"{counted(count, 'change')} waiting to be sent", f"{count} to send")
        else:
            self.pending.setText("")
        self.pending.setVisible(bool(count))

    def show_till(self, text: str | None, *, locked: bool = False) -> None:
        """``Ana (cashier) · shift 3``; None when nobody works the till (no people, or no terminal). The switch
        button shows while someone is at the till."""
        self.till.setText(text or "")
        self.till.setVisible(bool(text))
        self.switch_button.setVisible(bool(text) and not locked)
