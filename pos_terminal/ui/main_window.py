"""The main window: composes the views and wires them; the flow is setup → sign-in → till → workspace.

Wiring sits in ``_connect_signals``; the function keys come from the one table in
:mod:`pos_terminal.ui.actions` (bound by :mod:`pos_terminal.ui.key_bindings`). The till page
(:mod:`pos_terminal.ui.till_view`) stands in front of the workspace whenever nobody is at the
till: at start, after switching person and after the idle lock; the open check and its work go
on behind it. The window keeps the page flow; its parts live beside it: the tabs and their views
(:mod:`~pos_terminal.ui.workspace`), the till (:mod:`~pos_terminal.ui.till_flow`,
:mod:`~pos_terminal.ui.idle_lock`), what a manager approves (:mod:`~pos_terminal.ui.approvals`),
the settings (:mod:`~pos_terminal.ui.settings_flow`), the store (:mod:`~pos_terminal.ui.store_link`),
the outbox (:mod:`~pos_terminal.ui.outbox_work`) and the counter's hardware
(:mod:`~pos_terminal.ui.counter_hardware`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from pos_terminal.errors import UserError
from pos_terminal.ui.actions import Act, key
from pos_terminal.ui.approvals import Approvals
from pos_terminal.ui.cashier_presenter import charge_under_way
from pos_terminal.ui.cashier_view import CashierView
from pos_terminal.ui.counter_hardware import CounterHardware
from pos_terminal.ui.host import Host
from pos_terminal.ui.idle_lock import IdleLock
from pos_terminal.ui.key_bindings import bind_keys
from pos_terminal.ui.outbox_work import OutboxWork
from pos_terminal.ui.pages import Page, Tab
from pos_terminal.ui.script_fonts import add_fallback_fonts
from pos_terminal.ui.settings_flow import SettingsFlow
from pos_terminal.ui.statusbar import StatusBar
from pos_terminal.ui.store_link import StoreLink
from pos_terminal.ui.tasks import CONNECT, CRASH, Messages, Tasks
from pos_terminal.ui.till_flow import TillFlow
from pos_terminal.ui.widgets import Banner, Waiting, confirm, label, on_first_paint
from pos_terminal.ui.workspace import Workspace

if TYPE_CHECKING:
    import asyncio

    # asyncio, the settings and the terminal's services load after the first screen is painted (pos_terminal.app), the
    # views below when first shown.
    from pos_terminal.domain.shift import Shift
    from pos_terminal.services.session import SessionState
    from pos_terminal.services.terminal import Terminal
    from pos_terminal.ui.help_overlay import HelpOverlay
    from pos_terminal.ui.setup_view import SetupView
    from pos_terminal.ui.signin_view import SignInView
    from pos_terminal.ui.till_view import TillView

from PySide6.QtCore import QEvent, QMargins, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QResizeEvent, QShowEvent, QWindowStateChangeEvent
from PySide6.QtWidgets import (
    QApplication,
    QGridLayout,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

log = logging.getLogger(__name__)

FORGET_EVERY_MS = 24 * 3600 * 1000  # how often a running till lets go of old copies (MainWindow.forget_done)

SESSION = "session"  # the topic of messages about the sign-in: they go once the terminal is signed in again
APP = "pos-terminal"  # last in every title: which program the window is, in a task bar


def window_title(store: str | None, till: str | None, person: str | None, *, locked: bool = False) -> str:
    """``Café Nord · Till LANE-1 · Ana Cashier — pos-terminal``: two tills on one desktop or in a task bar are told
    apart by their store and till, and the person at each (``locked`` while the till waits for one)."""
    parts = [part for part in (store, f"Till {till}" if till else None) if part]
    if person:
        parts.append(person)
    elif locked:
        parts.append("locked")
    return f"{' · '.join(parts)} — {APP}" if parts else APP


class MainWindow(QMainWindow):
    """Signals: ``closed()`` when the window has closed (the application then shuts down);
    ``page_changed(str)`` a :class:`Page`; ``cashier_painted()`` once, when the cashier's screen is first on the
    screen; ``workspace_ready()`` once the cashier screen shows a terminal (behind the till's sign-in when nobody is
    at the till)."""

    closed = Signal()
    page_changed = Signal(str)
    cashier_painted = Signal()
    workspace_ready = Signal()

    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.terminal: Terminal | None = None
        self.messages = Messages(self)
        self.tasks = Tasks(self.messages, self)
        self.setWindowTitle(APP)
        self.resize(1280, 800)
        self.setMinimumSize(960, 640)

        self.banner = Banner()
        self.built_setup: SetupView | None = None  # the first-launch and sign-in pages are built when first shown
        self.connecting = label("Connecting…", role="heading")
        self.connecting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.connecting.setAccessibleName("Connecting")
        self.connect_wait = Waiting(self.connecting.setText, self)
        self.first_wait: Waiting | None = None  # the first screen's, until the first connection is made
        self.entered = False  # the workspace was shown once: the open check has been in sight since
        self.built_sign_in: SignInView | None = None
        # Built from the window down, each widget put in its place as it is made: with the style sheet applied,
        # moving a built subtree into another widget polishes it all again (a third of the window's build).
        central = QWidget()
        self.setCentralWidget(central)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(8, 4, 8, 0)
        layout.setSpacing(4)
        strip = QWidget(central)
        layout.addWidget(strip)
        self.pages = QStackedWidget(central)
        layout.addWidget(self.pages, 1)
        self.tabs = QTabWidget(self.pages)
        self.tabs.setDocumentMode(True)
        self.cashier = CashierView(self.messages, self.tabs)
        on_first_paint(self.cashier, self.cashier_painted.emit)
        self.built_till: TillView | None = None
        # Each flow is handed what it uses of the window, named by a Protocol in the flow's own module; the
        # workspace takes its parts, and what its views ask for comes back as its signals (_connect_signals).
        self.settings_flow = SettingsFlow(self, self)
        self.workspace = Workspace(
            self.tabs, self.cashier, self.messages, host, lambda: self.terminal, lambda: self.page, self
        )
        self.outbox = OutboxWork(self, self)
        self.store_link = StoreLink(self, self)
        self.approvals = Approvals(self, self.messages, self.tasks, lambda: self.terminal)
        self.till_flow = TillFlow(self, self)
        self.idle = IdleLock(self.till_flow.on_idle, self)
        self._forget_timer = QTimer(self)
        self._forget_timer.setInterval(FORGET_EVERY_MS)
        self._forget_timer.timeout.connect(self.forget_done)
        self.page_widgets: dict[Page, QWidget] = {Page.CONNECTING: self.connecting, Page.WORKSPACE: self.tabs}
        for widget in self.page_widgets.values():
            self.pages.addWidget(widget)
        # The banner's place: a hint while no message is up; a message never moves what is below it.
        self.idle_hint = label(f"{key(Act.HELP)} lists every keyboard shortcut.", role="hint")
        self.idle_hint.setAccessibleName("Hint")
        self.banner.showing.connect(lambda shown: self.idle_hint.setVisible(not shown))
        place = QGridLayout(strip)
        place.setContentsMargins(0, 0, 0, 0)
        place.addWidget(self.idle_hint, 0, 0)
        place.addWidget(self.banner, 0, 0)
        self.status = StatusBar()
        self.setStatusBar(self.status)
        # The counter's hardware: the printer's queue and the drawer in the status bar, the barcode scanner
        # anywhere on the cashier's screen, the customer display when the settings ask for it.
        self.hardware = CounterHardware(self, self.status, self.messages, self.tasks, self._scans_count)
        self.central = central
        self.built_help: HelpOverlay | None = None
        self.confirmation: QMessageBox | None = None
        self._make_actions()
        self._connect_signals()

    def forget_done(self) -> None:
        """The journal lets go of the copies done more than a month ago (the store's, the slips), behind the sale:
        once the cashier screen is ready, then every day."""
        if (terminal := self.terminal) is not None:
            self.tasks.run(
                terminal.forget_all_done(), key="forget", on_error=lambda e: log.info("letting go: %s", e.text())
            )

    def on_people_changed(self) -> None:
        """Who is at the till, and who may sign in, as the back office left them."""
        self.till.refresh_people()
        self.till_flow.show_status()

    def detach_views(self) -> None:
        """The cashier's screen and History let go of the terminal."""
        self.cashier.detach()
        if self.workspace.built_history is not None:
            self.workspace.built_history.detach()

    @property
    def help(self) -> HelpOverlay:
        """F1's list of shortcuts, built the first time it is asked for: laying out its rich text is among
        the dearest things the window builds."""
        if self.built_help is None:
            from pos_terminal.ui.help_overlay import HelpOverlay

            self.built_help = HelpOverlay(self.central)
        return self.built_help

    @property
    def till(self) -> TillView:
        """The till's sign-in page, built the first time nobody is at the till."""
        if self.built_till is None:
            from pos_terminal.ui.till_view import TillView

            self.built_till = TillView(self.messages)
            self.built_till.ready.connect(self.till_flow.on_person_ready)
            self._add_page(Page.TILL, self.built_till)
        return self.built_till

    # --- wiring ----------------------------------------------------------------------------------

    def _make_actions(self) -> None:
        handlers: dict[Act, Callable[[], None]] = {
            Act.HELP: lambda: self.help.toggle(),
            Act.FIND_CUSTOMER: self.on_find_customer,
            Act.REFRESH_CUSTOMERS: self.cashier.customers.refresh,
            Act.FIND_PRODUCT: lambda: self._cashier_entry(self.cashier.products.search),
            Act.TYPE_ITEM: lambda: self._cashier_entry(self.cashier.keypad_page.item_name),
            Act.DISCOUNT: lambda: self._cashier_entry(self.cashier.keypad_page.discount_input),
            Act.CASH: lambda: self._cashier_entry(self.cashier.keypad_page.cash_input),
            Act.CHARGE: lambda: self._in_cashier(self.cashier.charging.charge),
            Act.COMPLETE: lambda: self._in_cashier(self.cashier.charging.complete),
            Act.CANCEL_TX: lambda: self._in_cashier(self.cashier.charging.cancel_transaction),
            Act.NEW_CHECK: lambda: self._in_cashier(self.cashier.request_new_check),
            Act.NO_SALE: self.on_no_sale,
            Act.SWITCH_PERSON: self.till_flow.switch_person,
            Act.CASHIER: lambda: self.show_tab(Tab.CASHIER),
            Act.HISTORY: lambda: self.show_tab(Tab.HISTORY),
            Act.REPORTS: lambda: self.show_tab(Tab.REPORTS),
            Act.SETTINGS: lambda: self.show_tab(Tab.SETTINGS),
            Act.BACK_OFFICE: lambda: self.show_tab(Tab.BACK_OFFICE),
            Act.SHIFTS: self.on_shifts_key,
            Act.QUIT: self.quit,
        }
        # a shortcut read off F1's list and pressed acts on the window, which the list would still cover
        handlers = {
            act: handler if act is Act.HELP else self._help_closed(handler) for act, handler in handlers.items()
        }
        line_keys = {
            Act.MORE: lambda: self.cashier.change_quantity(+1),
            Act.LESS: lambda: self.cashier.change_quantity(-1),
            Act.REMOVE_LINE: self.cashier.remove_line,
        }
        self.actions_by_act = bind_keys(self, handlers, line_keys, self.cashier.ticket.table)

    def _help_closed(self, handler: Callable[[], None]) -> Callable[[], None]:
        def act() -> None:
            if self.built_help is not None:
                self.built_help.hide()
            handler()

        return act

    def _connect_signals(self) -> None:
        # messages
        self.messages.posted.connect(lambda kind, text, topic: self.banner.show_message(text, kind, topic))
        self.messages.resolved.connect(self.banner.resolve)
        # status bar (History's own, once it is built)
        self.cashier.changed.connect(self.outbox.on_pending_changed)
        self.cashier.open_shift_requested.connect(self.till_flow.open_shift)
        self.tabs.currentChanged.connect(self.workspace.on_tab_changed)
        # what the workspace's views ask for
        self.workspace.pending_changed.connect(self.outbox.on_pending_changed)
        self.workspace.shift_report_requested.connect(self.on_shift_report_requested)
        self.workspace.open_shift_requested.connect(self.till_flow.open_shift)
        self.workspace.close_shift_requested.connect(self.approvals.close_shift)
        self.workspace.settings_saved.connect(self.settings_flow.on_settings_saved)
        self.workspace.disconnect_confirmed.connect(self.approvals.disconnect_terminal)
        self.workspace.about_requested.connect(self.settings_flow.on_about_requested)
        self.workspace.join_store_requested.connect(self.approvals.join_store)
        self.workspace.leave_store_confirmed.connect(self.approvals.leave_store)
        self.workspace.people_changed.connect(self.on_people_changed)
        self.workspace.catalog_changed.connect(self.cashier.load_catalog)
        self.workspace.details_changed.connect(self.hardware.on_store_details_changed)
        self.workspace.details_changed.connect(self.show_title)
        # the till
        self.status.switch_button.clicked.connect(self.till_flow.switch_person)
        # what a manager approved
        self.approvals.settings_approved.connect(self.settings_flow.save_settings)
        self.approvals.join_approved.connect(self.store_link.join)
        self.approvals.leave_approved.connect(self.store_link.leave)
        self.approvals.disconnect_approved.connect(self.settings_flow.disconnected)
        self.approvals.shift_counted.connect(self.till_flow.close_shift)
        # counter hardware
        self.hardware.scanner.scanned.connect(self.cashier.on_scanned)
        self.hardware.bar.open_drawer.connect(self.on_no_sale)

    # --- pages -----------------------------------------------------------------------------------

    @property
    def setup(self) -> SetupView:
        """The first-launch page, built the first time it is needed (most starts never show it)."""
        if self.built_setup is None:
            from pos_terminal.ui.setup_view import SetupView

            self.built_setup = SetupView(self.host.settings, self.host.region_choices(), self.host.paths, self.messages)
            self.built_setup.done.connect(self.settings_flow.on_setup_done)
            self._add_page(Page.SETUP, self.built_setup)
        return self.built_setup

    @property
    def sign_in(self) -> SignInView:
        """The sign-in page, built the first time it is needed: a signed-in start goes straight to the cashier."""
        if self.built_sign_in is None:
            from pos_terminal.ui.signin_view import SignInView

            self.built_sign_in = SignInView(self.messages)
            self.built_sign_in.signed_in.connect(self.on_signed_in)
            self.built_sign_in.open_settings.connect(self.settings_flow.on_settings_from_sign_in)
            self.built_sign_in.file_store_requested.connect(self.settings_flow.on_file_store_requested)
            self._add_page(Page.SIGN_IN, self.built_sign_in)
        return self.built_sign_in

    def _add_page(self, page: Page, widget: QWidget) -> None:
        self.page_widgets[page] = widget
        self.pages.addWidget(widget)

    def stop_sign_in(self) -> None:
        if self.built_sign_in is not None:
            self.built_sign_in.stop()

    @property
    def page(self) -> Page:
        current = self.pages.currentWidget()
        return next(page for page, widget in self.page_widgets.items() if widget is current)

    def show_title(self) -> None:
        """The title names the store (its name from the store's details, when set), the till and who is at it; the
        set-up page says so before the till has an id."""
        terminal = self.terminal
        if terminal is None:
            setting_up = self.built_setup is not None and self.pages.currentWidget() is self.built_setup
            self.setWindowTitle(f"Setting up a till — {APP}" if setting_up else APP)
            return
        try:
            details = terminal.store.details.get()
        except UserError:  # a damaged row says so where the details are shown; the title goes on without the name
            details = None
        person = terminal.till.current
        self.setWindowTitle(
            window_title(
                details.name if details is not None else None,
                terminal.settings.terminal_id,
                person.name if person is not None else None,
                locked=terminal.till.guarding,
            )
        )

    def show_page(self, page: Page) -> None:
        widget: QWidget
        if page is Page.SETUP:
            widget = self.setup
        elif page is Page.SIGN_IN:
            widget = self.sign_in
        elif page is Page.TILL:
            widget = self.till
        else:
            widget = self.page_widgets[page]
        self.pages.setCurrentWidget(widget)
        self.show_title()
        self.page_changed.emit(str(page))

    def show_tab(self, tab: Tab) -> None:
        if self.page is not Page.WORKSPACE:
            return
        index = list(Tab).index(tab)
        if self.tabs.isTabEnabled(index):
            self.tabs.setCurrentIndex(index)

    def show_first_screen(self) -> None:
        """What a start shows before the settings and the terminal's services are loaded (``pos_terminal.app``
        paints it first): the cashier's screen, waiting for its terminal. A first launch shows nothing yet: its
        set-up page needs the settings' defaults."""
        if self.host.first_launch:
            return
        self.tabs.setCurrentWidget(self.cashier)
        self.show_page(Page.WORKSPACE)
        self.status.show_terminal(None, connecting=True)
        self.first_wait = self.cashier.customers.waiting
        self.first_wait.start("Connecting to the service…")

    def start(self) -> None:
        """Setup on first launch, else connect with the saved settings; first, say if the last run crashed."""
        if self.host.crash_notice:
            self.messages.show_error(self.host.crash_notice, topic=CRASH)
        if self.host.first_launch:
            if self.first_wait is not None:  # a settings file without a terminal id: found only once it was read
                self.first_wait.stop()
                self.first_wait = None
            self.show_page(Page.SETUP)
            self.setup.terminal_id.setFocus()
        else:
            self.connect_terminal()

    def connect_terminal(self) -> None:
        """Connect with the settings as they are now. The first connection is waited for on the first screen
        (:meth:`show_first_screen`); a later one, after the settings changed, on the Connecting page."""
        wait, self.first_wait = self.first_wait, None
        if wait is None:
            self.show_page(Page.CONNECTING)
            wait = self.connect_wait
            wait.start("Connecting to the service…")
        self.tasks.run(self._connect(wait), key="connect", on_error=self._connect_failed)

    async def _connect(self, wait: Waiting) -> None:
        person = self.terminal.till.current if self.terminal is not None else None
        self._detach()
        self.status.show_terminal(None, connecting=True)
        try:
            terminal = await self.host.connect()
        finally:
            wait.stop()
        self.messages.resolve(CONNECT)
        self.terminal = terminal
        if person is not None:
            terminal.till.resume(person.id)  # new settings: the same person stays at the till
        terminal.session.on_state(self.on_session_state)
        terminal.till.on_change(lambda _: self.till_flow.show_status())
        terminal.register.on_change(lambda state: self.outbox.on_check_changed(terminal, state))
        self.status.show_terminal(terminal)
        from pos_terminal.services.session import SessionState  # loaded with the terminal

        if terminal.session.state is SessionState.CONNECTED:
            await self._enter_workspace(terminal)
        else:
            self.enter_sign_in(terminal)

    def _connect_failed(self, error: UserError) -> None:
        self.status.show_terminal(None)
        self.messages.show_error(error, topic=CONNECT)
        self.settings_flow.settings_without_sign_in()

    def enter_sign_in(self, terminal: Terminal) -> None:
        self.workspace.enable(signed_in=False)
        self.show_page(Page.SIGN_IN)
        self.sign_in.begin(terminal)

    async def _enter_workspace(self, terminal: Terminal) -> None:
        self.workspace.enable(signed_in=True)
        restored = self.cashier.attach(terminal)
        if self.workspace.built_history is not None:
            self.workspace.built_history.attach(terminal)
        if self.workspace.built_back_office is not None:
            self.workspace.built_back_office.attach(terminal)
        if self.workspace.built_reports is not None:
            self.workspace.built_reports.attach(terminal)
        if self.workspace.built_shifts is not None:
            self.workspace.built_shifts.attach(terminal)
        self.hardware.attach(terminal)
        self.tabs.setCurrentWidget(self.cashier)
        if terminal.till.current is None:
            self.show_page(Page.TILL)
            self.till.begin(terminal)
        else:
            self.show_page(Page.WORKSPACE)
            self.cashier.customers.focus_search()
        self.till_flow.show_status()
        self.idle.start()
        if restored and not self.entered:
            self.messages.show_info(restored)  # news after a start; a connection made again keeps the check in sight
        self.entered = True
        self.workspace_ready.emit()
        QTimer.singleShot(0, add_fallback_fonts)  # names in scripts the system has no font for; not before ready
        self.outbox.resume(terminal)
        self.store_link.start(terminal)
        self.forget_done()
        self._forget_timer.start()

    def _detach(self) -> None:
        self.tasks.cancel("resend")
        self.tasks.cancel("late landings")
        self.tasks.cancel("store")
        self.tasks.cancel("forget")  # its next batch would meet the terminal's journal closed
        self._forget_timer.stop()
        self.stop_sign_in()
        self.detach_views()
        if self.workspace.built_reports is not None:
            self.workspace.built_reports.detach()
        if self.workspace.built_shifts is not None:
            self.workspace.built_shifts.detach()
        if self.workspace.built_back_office is not None:
            self.workspace.built_back_office.detach()
        self.idle.stop()
        self.hardware.detach()
        self.terminal = None
        self.status.show_terminal(None)
        self.show_title()

    # --- the counter's hardware ------------------------------------------------------------------

    def _scans_count(self) -> bool:
        """A scan adds to the check while the cashier's screen shows and no dialog is up."""
        return (
            self.page is Page.WORKSPACE
            and self.terminal is not None
            and self.tabs.currentWidget() is self.cashier
            and QApplication.activeModalWidget() is None
        )

    def on_no_sale(self) -> None:
        if self.page is Page.WORKSPACE:
            self.approvals.no_sale()

    # --- slots -----------------------------------------------------------------------------------

    def on_signed_in(self) -> None:
        self.messages.resolve(SESSION)
        if self.terminal is not None:
            self.status.show_terminal(self.terminal)
            self.tasks.run(self._enter_workspace(self.terminal), key="enter")

    # --- the till ----------------------------------------------------------------------------------

    def on_shifts_key(self) -> None:
        if self.page is Page.WORKSPACE and self.tabs.isTabEnabled(2):
            self.show_tab(Tab.REPORTS)
            self.workspace.report_tabs.setCurrentWidget(self.workspace.shifts)

    def on_shift_report_requested(self, shift: Shift) -> None:
        self.workspace.report_tabs.setCurrentWidget(self.workspace.reports)
        self.workspace.reports.show_shift(shift)

    def on_session_state(self, state: SessionState) -> None:
        from pos_terminal.services.session import SessionState  # loaded with the terminal

        self.status.show_connection(state, self.terminal.session.ends_at if self.terminal is not None else None)
        if state is SessionState.CONNECTED:
            self.messages.resolve(SESSION)
        if state in (SessionState.EXPIRED, SessionState.REVOKED) and self.terminal is not None:
            self.messages.show_error(
                "The sign-in is no longer valid. Sign in again; the open check is kept.", topic=SESSION
            )
            self.detach_views()
            self.enter_sign_in(self.terminal)

    def on_find_customer(self) -> None:
        self._cashier_focus(self.cashier.customers.search)
        self.cashier.customers.search.selectAll()

    def _in_cashier(self, run: Callable[[], None]) -> None:
        if self.page is Page.WORKSPACE and self.tabs.currentWidget() is self.cashier and self.terminal is not None:
            run()

    def _cashier_focus(self, widget: QWidget) -> None:
        if self.page is Page.WORKSPACE and self.terminal is not None:
            self.tabs.setCurrentWidget(self.cashier)
            widget.setFocus()

    def _cashier_entry(self, field: QWidget) -> None:
        """F3, F4, F6, F7: the cashier's screen, with the field to type in (or why the check takes none now)."""
        if self.page is Page.WORKSPACE and self.terminal is not None:
            self.tabs.setCurrentWidget(self.cashier)
            self.cashier.focus_entry(field)

    def quit(self) -> None:
        """Ctrl+Q: closes the window; during a charge it asks first. Nothing is lost either way (the journal
        resumes the charge at the next start), but a customer at the counter waits on it."""
        under_way = self._charge_under_way()
        if under_way is None:
            self.close()
            return
        self.confirmation = confirm(
            self,
            "Quit",
            "Quit during a charge?",
            f"{under_way} The terminal takes it up again at the next start; until then the customer's "
            "charge stays as it is.",
            self._close_now,
            answers=("&Quit", "&Stay with the charge"),
        )

    def _close_now(self) -> None:
        self.close()

    def _charge_under_way(self) -> str | None:
        """What the open check's charge is doing, said in a sentence; None when nothing is under way."""
        terminal = self.terminal
        if terminal is None:
            return None
        return charge_under_way(terminal.register.current, terminal.money.format)

    def open_on_screen(self) -> None:
        """Open maximised on the screen it is on, as a counter's screen is used; where the platform cannot
        maximise, the window takes the screen's available area (its task bar left free).

        Placed by its frame (``move``), not by its inside (``setGeometry``): X is then told the frame's corner, and a
        window manager restoring the window keeps its title bar on the screen. Placed by its inside at 0, 0, the
        restored window's title bar sat above the screen, out of reach, and the window could no longer be moved.

        And active: a window manager makes a new window active, but a counter's kiosk session runs none, and X
        then gives the window the keys typed into its fields but not its shortcuts (F1, F2, F8 …), which stayed
        dead until the screen was touched."""
        screen = self.screen()
        if screen is not None:
            available = screen.availableGeometry()
            self.resize(available.size())
            self.move(available.topLeft())
        self.showMaximized()
        self.activateWindow()

    def background_work(self) -> list[asyncio.Task[object]]:
        """Every view's coroutines still running."""
        return [task for tasks in self.findChildren(Tasks) for task in tasks.running()]

    async def wind_down(self, timeout: float = 1.5) -> None:  # noqa: ASYNC109 (a bound on what closing waits for)
        """Cancel every view's work and let it end, so the terminal closes its journal after the last write.

        A charge canceled here stays in the journal as it stood (its intent, its outbox), and the next
        start resumes it; ``timeout`` bounds the wait for work that ignores its cancellation.
        """
        self._forget_timer.stop()
        running = self.background_work()
        for task in running:
            task.cancel()
        if self.workspace.built_reports is not None:
            self.workspace.built_reports.worker.close()  # a report being made in its child process ends with it
        if running:
            import asyncio  # the loop runs by now

            _, stuck = await asyncio.wait(running, timeout=timeout)
            for task in stuck:
                log.warning("still running at shutdown: %r", task)

    # --- Qt events -------------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if (
            isinstance(event, QWindowStateChangeEvent)
            and event.oldState() & Qt.WindowState.WindowMaximized
            and not self.isMaximized()
        ):
            self._fit_restored()

    def _fit_restored(self) -> None:
        """Restored from maximised, the window sits inside the screen's area with room for any frame around it.

        It was opened as large as the screen's area (a kiosk session without a window manager keeps that size), so
        the window manager restored it to the whole screen, and its title bar and edges reached past the foot.
        Sized here from the screen alone, at the state change: waiting to read the frame's margins lost the race
        with the window manager's notice of them, which can come after the last move or resize."""
        available = self.screen().availableGeometry()
        room = QMargins(
            available.width() // 20, available.height() // 20, available.width() // 20, available.height() // 20
        )
        self.setGeometry(available.marginsRemoved(room))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.built_help is not None and self.built_help.isVisible():
            self.built_help.hide()
            self.built_help.toggle()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self.idle)  # once: Qt keeps one entry per filter object

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt's name)
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self.idle)
        self.idle.stop()
        self.hardware.scanner.remove()
        self.hardware.close_display()
        self.tasks.cancel_all()
        self.stop_sign_in()
        self.detach_views()
        super().closeEvent(event)
        self.closed.emit()
