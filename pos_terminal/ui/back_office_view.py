"""The back office: people, the catalog and the store's details, each a page of its own, for a manager.

What is edited is the store's data in a store (every till sees the change), the till's own while it stands alone.
Every change needs a manager (the one at the till, or one who approves at the prompt) and goes to the audit log
as who, what, and old → new. The pages say what changed; the main window makes the rest of the till follow (the
till's list of people, the product grid).
"""

from __future__ import annotations

from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.catalog_page import CatalogPage
from pos_terminal.ui.details_page import DetailsPage
from pos_terminal.ui.people_page import PeoplePage
from pos_terminal.ui.tasks import Messages

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget


class BackOfficeView(QWidget):
    """Signals: ``people_changed()``, ``catalog_changed()``, ``details_changed()`` after a change was saved."""

    people_changed = Signal()
    catalog_changed = Signal()
    details_changed = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Back office")
        self.people = PeoplePage(messages)
        self.catalog = CatalogPage(messages)
        self.details = DetailsPage(messages)
        self.pages = QTabWidget()
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.people, "&People")
        self.pages.addTab(self.catalog, "C&atalog")
        self.pages.addTab(self.details, "Store &details")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self.people.changed.connect(self.people_changed)
        self.catalog.changed.connect(self.catalog_changed)
        self.details.changed.connect(self.details_changed)

    def attach(self, terminal: Terminal) -> None:
        for page in (self.people, self.catalog, self.details):
            page.attach(terminal)

    def detach(self) -> None:
        for page in (self.people, self.catalog, self.details):
            page.detach()

    def on_shown(self) -> None:
        """Read again what another till may have changed meanwhile."""
        for page in (self.people, self.catalog, self.details):
            page.refresh()
