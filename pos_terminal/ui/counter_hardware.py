"""The counter's hardware as the window shows it: the printer's queue and the drawer in the status bar, the
barcode scanner anywhere on the cashier's screen, the customer display when the settings ask for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pos_terminal.ui.counter_bar import NO_DISPLAY, CounterBar
from pos_terminal.ui.scanner import ScanFilter

if TYPE_CHECKING:
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.customer_display import CustomerDisplay
    from pos_terminal.ui.statusbar import StatusBar
    from pos_terminal.ui.tasks import Messages, Tasks

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

NO_SECOND_SCREEN = "customer display"  # the topic of the sentence that the display has no screen of its own


class CounterHardware(QObject):
    """The counter of one window. ``bar`` is in the window's status bar; ``scanner`` reads scans while
    ``scans_count()`` says a scan adds to the check; ``customer_display`` is built when first asked for."""

    def __init__(
        self, window: QWidget, status: StatusBar, messages: Messages, tasks: Tasks, scans_count: Callable[[], bool]
    ) -> None:
        super().__init__(window)
        self.window = window
        self.messages = messages
        self.tasks = tasks
        self.terminal: Terminal | None = None
        self.bar = CounterBar()
        status.addPermanentWidget(self.bar)
        self.scanner = ScanFilter(window, None, scans_count)  # the devices' settings come with the terminal
        self.customer_display: CustomerDisplay | None = None
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.screenAdded.connect(self._screens_changed)
            app.screenRemoved.connect(self._screens_changed)
        self.bar.retry.connect(lambda: self.terminal.counter.retry_now() if self.terminal else None)
        self.bar.cancel.connect(lambda job: self.terminal.counter.cancel(job) if self.terminal else None)

    def attach(self, terminal: Terminal) -> None:
        """The printer queue, the drawer, the scanner's settings and the customer display, for ``terminal``."""
        self.terminal = terminal
        devices = terminal.settings.devices
        counter = terminal.counter
        self.scanner.configure(devices)
        self.bar.set_devices(printer=counter.printer is not None, drawer=counter.cash_drawer)
        counter.on_problem(self.on_problem)
        counter.on_queue(self.bar.show_jobs)
        counter.on_work(lambda: self._run(terminal))
        self.bar.show_jobs(counter.queued())
        if devices.customer_display:
            if self.customer_display is None:
                from pos_terminal.ui.customer_display import CustomerDisplay

                self.customer_display = CustomerDisplay(terminal.money)
            details = terminal.store.details
            self.customer_display.attach(
                terminal.register, terminal.money, lambda: found.name if (found := details.get()) else None
            )
            self.place_display()
        elif self.customer_display is not None:
            self.close_display()

    def _screens_changed(self, screen: QScreen) -> None:
        QTimer.singleShot(0, self.place_display)  # once Qt has moved the windows of a screen that went

    def place_display(self) -> None:
        """The customer display on its screen, never on the cashier's: where there is no other screen it waits
        hidden, and shows once one is connected (a screen removed takes it away again, rather than Qt moving it over
        the cashier's window)."""
        display, terminal = self.customer_display, self.terminal
        if display is None or terminal is None:
            return
        placed = display.place(terminal.settings.devices.customer_display_screen, self.window.screen())
        self.bar.show_display_missing(not placed)
        if placed:
            self.messages.resolve(NO_SECOND_SCREEN)
            self.window.activateWindow()  # the keyboard and the scanner stay with the cashier
        else:
            self.messages.show_info(NO_DISPLAY, topic=NO_SECOND_SCREEN)

    def detach(self) -> None:
        if self.terminal is not None:
            self.terminal.counter.on_work(None)
        if self.customer_display is not None:
            self.customer_display.detach()
        self.terminal = None

    def close_display(self) -> None:
        self.bar.show_display_missing(False)
        self.messages.resolve(NO_SECOND_SCREEN)
        if self.customer_display is not None:
            self.customer_display.detach()
            self.customer_display.close()
            self.customer_display.deleteLater()
            self.customer_display = None

    def on_store_details_changed(self) -> None:
        """The customer display's welcome names the store as it is now called."""
        if self.customer_display is not None and self.customer_display.shown is None:
            self.customer_display.show_state(None)

    def _run(self, terminal: Terminal) -> None:
        """The counter has work (the drawer to open, slips to print): one run at a time, as a task of the window."""
        if self.terminal is terminal and not self.tasks.is_running("counter"):
            self.tasks.run(terminal.counter.drain(), key="counter")

    def on_problem(self, kind: str, problem: str | None) -> None:
        if problem is None:
            self.messages.resolve(kind)
        else:
            self.messages.show_error(problem, topic=kind)
