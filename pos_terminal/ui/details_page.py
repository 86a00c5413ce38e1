"""The back office's details page (being built)."""

from __future__ import annotations

from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.tasks import Messages

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget


class DetailsPage(QWidget):
    """Signals: ``changed()`` after a change was saved."""

    changed = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self.terminal: Terminal | None = None
        QVBoxLayout(self)

    def attach(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.refresh()

    def detach(self) -> None:
        self.terminal = None

    def refresh(self) -> None:
        """Show the terminal's data as it is now."""
