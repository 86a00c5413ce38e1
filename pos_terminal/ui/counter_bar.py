"""The receipt printer's queue and the cash drawer, in the status bar: shown only when a printer is set up.

While slips wait for the printer it says how many, with "Print now" (ask the printer again)
and "Cancel" (give up the oldest one); "Open drawer" (F10) opens the drawer with no sale,
once a manager approves.
"""

from __future__ import annotations

from pos_terminal.store.journal import PrintJob
from pos_terminal.ui.widgets import button, label

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QWidget


class CounterBar(QWidget):
    """Signals: ``retry()`` ask the printer again now; ``cancel(int)`` give up that print job;
    ``open_drawer()`` the no-sale opening was asked for."""

    retry = Signal()
    cancel = Signal(int)
    open_drawer = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.jobs: list[PrintJob] = []
        self.queue_text = label()
        self.queue_text.setAccessibleName("Receipt printer queue")
        self.retry_button = button("Print now", name="Ask the receipt printer again now")
        self.cancel_button = button("Cancel slip", name="Cancel the oldest slip waiting for the printer")
        self.drawer_button = button("Open drawer (F10)", name="Open the cash drawer with no sale")
        self.retry_button.clicked.connect(self.retry)
        self.cancel_button.clicked.connect(lambda: self.cancel.emit(self.jobs[0].id) if self.jobs else None)
        self.drawer_button.clicked.connect(self.open_drawer)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.queue_text, self.retry_button, self.cancel_button, self.drawer_button):
            row.addWidget(widget)
        self.set_devices(printer=False, drawer=False)

    def set_devices(self, *, printer: bool, drawer: bool) -> None:
        self.setVisible(printer)
        self.drawer_button.setVisible(drawer)
        self.show_jobs([])

    def show_jobs(self, jobs: list[PrintJob]) -> None:
        self.jobs = jobs
        waiting = len(jobs)
        self.queue_text.setText(
            f"{waiting} slip{'s' if waiting != 1 else ''} waiting for the printer" if waiting else "Receipt printer"
        )
        self.retry_button.setVisible(bool(waiting))
        self.cancel_button.setVisible(bool(waiting))
