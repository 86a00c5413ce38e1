"""The settings as the window follows them: the first launch's set-up saved, the sign-in kept in a file when no
keychain exists, the settings alone while no sign-in lets the other tabs work, saved (once approved) and
connected again, the terminal disconnected, and the About box."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pos_terminal.errors import UserError
from pos_terminal.ui.pages import Page
from pos_terminal.ui.widgets import confirm

if TYPE_CHECKING:
    from pos_terminal.config import Settings
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.approvals import Approvals
    from pos_terminal.ui.host import Host
    from pos_terminal.ui.setup_view import SetupView
    from pos_terminal.ui.statusbar import StatusBar
    from pos_terminal.ui.tasks import Messages
    from pos_terminal.ui.workspace import Workspace

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDialog, QMessageBox, QTabWidget, QWidget


class SettingsPages(Protocol):
    """What the settings' flow uses of the window that holds it: the host that keeps the settings, the pages and
    tabs, the connection made again, the approvals and the window's messages."""

    @property
    def host(self) -> Host: ...
    @property
    def terminal(self) -> Terminal | None: ...
    @property
    def setup(self) -> SetupView: ...
    @property
    def tabs(self) -> QTabWidget: ...
    @property
    def workspace(self) -> Workspace: ...
    @property
    def approvals(self) -> Approvals: ...
    @property
    def status(self) -> StatusBar: ...
    @property
    def messages(self) -> Messages: ...
    def show_page(self, page: Page) -> None: ...
    def connect_terminal(self) -> None: ...
    def stop_sign_in(self) -> None: ...
    def detach_views(self) -> None: ...
    def enter_sign_in(self, terminal: Terminal) -> None: ...


class SettingsFlow(QObject):
    def __init__(self, window: SettingsPages, parent: QWidget) -> None:
        """``parent`` is the widget the flow's dialogs open over."""
        super().__init__(parent)
        self.window = window
        self.dialogs = parent
        self.confirmation: QMessageBox | None = None
        self.about: QDialog | None = None

    def on_setup_done(self, settings: Settings) -> None:
        """Saved, then connected. A till that joined a store on the way has the store's people in its journal by
        now: once signed in to the service, the till's page lists them (no first manager to make), and the status
        bar shows the store from the terminal's link."""
        try:
            self.window.host.save_settings(settings)
        except UserError as exc:
            self.window.messages.show_error(exc)
            return
        joined = self.window.setup.joined
        if joined is not None:
            self.window.messages.show_info(f"This till is part of the store at {joined.address} now.")
        self.window.connect_terminal()

    def on_file_store_requested(self) -> None:
        """No keychain: keep the sign-in in a file, once the person has accepted what that means."""

        def accepted() -> None:
            from pos_terminal.config import with_changes

            try:
                self.window.host.save_settings(with_changes(self.window.host.settings, allow_insecure_token_file=True))
            except UserError as exc:
                self.window.messages.show_error(exc)
                return
            self.window.connect_terminal()

        self.confirmation = confirm(
            self.dialogs,
            "Keep the sign-in in a file",
            "Keep the sign-in in an unencrypted file on this computer?",
            "Anyone who can read this computer's files could act for the merchant with it. "
            "The settings show the sign-in as insecure; Disconnect removes the file.",
            accepted,
        )

    def on_settings_from_sign_in(self) -> None:
        self.window.stop_sign_in()
        self.settings_without_sign_in()

    def settings_without_sign_in(self) -> None:
        """The settings alone (to change the region) while no sign-in lets the other tabs work."""
        self.window.workspace.enable(signed_in=False)
        self.window.show_page(Page.WORKSPACE)
        settings = self.window.workspace.settings_view
        if self.window.tabs.currentWidget() is settings:
            self.window.workspace.show_settings()
        else:
            self.window.tabs.setCurrentWidget(settings)  # on_tab_changed fills it

    def on_settings_saved(self, settings: Settings) -> None:
        """Saved when the person at the till may change the settings, else once a manager approved."""
        terminal = self.window.terminal
        if terminal is None:  # no terminal could be built (a bad region): the settings are how to fix that
            self.save_settings(settings)
            return
        if (refused := terminal.currency_change_refused(settings.currency)) is not None:
            self.window.messages.show_error(refused)
            return
        self.window.approvals.save_settings(terminal, settings, lambda: self.window.host.settings)

    def save_settings(self, settings: Settings) -> None:
        try:
            self.window.host.save_settings(settings)
        except UserError as exc:
            self.window.messages.show_error(exc)
            return
        self.window.messages.show_info("Settings saved.")
        self.window.connect_terminal()

    def disconnected(self, terminal: Terminal, approved_by: str | None) -> None:
        """Disconnect approved (by ``approved_by``, when a manager had to): the stored sign-in goes."""
        terminal.session.disconnect(actor=terminal.till.actor, approved_by=approved_by)
        self.window.detach_views()
        self.window.messages.show_info("Disconnected: the stored sign-in was removed.")
        self.window.enter_sign_in(terminal)
        self.window.status.show_terminal(terminal)

    def on_about_requested(self) -> None:
        from pos_terminal.ui.about import AboutDialog

        self.about = AboutDialog(self.window.host.paths, self.window.host.settings, self.window.terminal, self.dialogs)
        self.about.open()
