"""The receipt printer's queue and the cash drawer, in the status bar: shown only when a printer is set up; and
"No customer screen" while the customer display is set up but has no screen of its own.

While slips wait for the printer it says how many, on "Print 1 slip" (ask the printer again now)
and "Cancel" (give up the oldest one); "Drawer" (F10) opens the drawer with no sale, once a
manager approves. Short words: it shares the status bar with the connection's figures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_terminal.domain.words import counted
from pos_terminal.ui.widgets import button, label

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QWidget

if TYPE_CHECKING:  # the service's side loads after the first screen is painted (pos_terminal.app)
    from pos_terminal.journal.journal import PrintJob


NO_DISPLAY = "The customer display needs a screen of its own: it shows as soon as a second screen is connected."


class CounterBar(QWidget):
    """Signals: ``retry()`` ask the printer again now; ``cancel(int)`` give up that print job;
    ``open_drawer()`` the no-sale opening was asked for."""

    retry = Signal()
    cancel = Signal(int)
    open_drawer = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.jobs: list[PrintJob] = []
        self.retry_button = button("Print", name="Ask the receipt printer again now")
        self.cancel_button = button("Cancel", name="Cancel the oldest slip waiting for the printer")
        self.drawer_button = button("Drawer", name="Open the cash drawer with no sale")
        self.cancel_button.setToolTip("Cancel the oldest slip waiting for the printer")
        self.drawer_button.setToolTip("Open the cash drawer with no sale (a manager approves)")
        self.retry_button.clicked.connect(self.retry)
        self.cancel_button.clicked.connect(lambda: self.cancel.emit(self.jobs[0].id) if self.jobs else None)
        self.drawer_button.clicked.connect(self.open_drawer)
        self.no_display = label("No customer screen", role="hint")
        self.no_display.setAccessibleName("Customer display")
        self.no_display.setToolTip(NO_DISPLAY)
        self.no_display.hide()
        self.printer = False
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.no_display, self.retry_button, self.cancel_button, self.drawer_button):
            row.addWidget(widget)
        self.set_devices(printer=False, drawer=False)

    def set_devices(self, *, printer: bool, drawer: bool) -> None:
        self.printer = printer
        self.drawer_button.setVisible(printer and drawer)
        self.setVisible(printer or self.no_display.isVisibleTo(self))
        self.show_jobs([])

    def show_display_missing(self, missing: bool) -> None:
        """The customer display is set up and has no screen of its own (True), or it has one or is not set up."""
        self.no_display.setVisible(missing)
        self.setVisible(self.printer or missing)

    def show_jobs(self, jobs: list[PrintJob]) -> None:
        self.jobs = jobs
        waiting = len(jobs)
        slips = counted(waiting, "slip")
        self.retry_button.setText(f"Print {slips}")
        self.retry_button.setToolTip(f"{slips} waiting for the receipt printer: ask it again now")
        self.retry_button.setAccessibleName(f"Print the {slips} waiting now")
        self.retry_button.setVisible(bool(waiting))
        self.cancel_button.setVisible(bool(waiting))
