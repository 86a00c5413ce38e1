"""Sign-in by device code (RFC 8628): the code large, copy, open browser, QR, countdown and every outcome."""

from __future__ import annotations

from enum import StrEnum

from pos_terminal.api.auth import DevicePhase, DeviceStatus
from pos_terminal.api.errors import AccessDenied, ExpiredToken
from pos_terminal.api.models import DeviceAuthorization
from pos_terminal.domain.clock import utcnow
from pos_terminal.errors import UserError
from pos_terminal.keychain.tokens import NoKeychain
from pos_terminal.services.terminal import Terminal, is_loopback
from pos_terminal.ui.qr import QrCode
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import Waiting, button, label, set_role

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QVBoxLayout, QWidget

FORM_WIDTH = 960  # the page's text and QR code at most, margins included


class SignInState(StrEnum):
    STARTING = "starting"
    PENDING = "pending"
    SLOWED_DOWN = "slowed down"
    NETWORK_TROUBLE = "network trouble"
    DENIED = "denied"
    EXPIRED = "expired"
    FAILED = "failed"
    SIGNED_IN = "signed in"


_PHASES = {
    DevicePhase.PENDING: SignInState.PENDING,
    DevicePhase.SLOWED_DOWN: SignInState.SLOWED_DOWN,
    DevicePhase.NETWORK_TROUBLE: SignInState.NETWORK_TROUBLE,
}


class SignInView(QWidget):
    """Signals: ``signed_in()`` once the tokens are stored; ``open_settings()`` to change the region;
    ``file_store_requested()`` when, with no keychain, the person asks to keep the sign-in in a file."""

    signed_in = Signal()
    open_settings = Signal()
    file_store_requested = Signal()

    def __init__(self, messages: Messages, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.messages = messages
        self.tasks = Tasks(messages, self)
        self.terminal: Terminal | None = None
        self.authorization: DeviceAuthorization | None = None
        self.state = SignInState.STARTING

        self.heading = label("Sign in this terminal", role="heading")
        self.instructions = label(wrap=True)
        self.instructions.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.instructions.setOpenExternalLinks(False)
        self.user_code = label("…", role="usercode")
        self.user_code.setAccessibleName("Sign-in code")
        self.user_code.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.url = label(role="hint")
        self.url.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.url.setAccessibleName("Sign-in address")
        self.countdown = label(role="hint")
        self.countdown.setAccessibleName("Time left")
        self.status = label(role="phase", wrap=True)
        self.status.setAccessibleName("Sign-in status")
        self.qr = QrCode()

        self.copy_button = button("&Copy code", name="Copy code")
        self.open_button = button("&Open browser", name="Open browser")
        self.demo_button = button("&Approve as demo merchant", name="Approve as demo merchant")
        self.retry_button = button("&Get a new code", role="primary", name="Get a new code")
        self.settings_button = button("Change &region…", name="Change region")
        self.file_store_button = button("&Keep the sign-in in a file…", name="Keep the sign-in in a file")
        self.file_store_button.hide()
        self.file_store_button.clicked.connect(self.file_store_requested)
        self.copy_button.clicked.connect(self.on_copy_clicked)
        self.open_button.clicked.connect(self.on_open_clicked)
        self.demo_button.clicked.connect(self.on_demo_clicked)
        self.retry_button.clicked.connect(self.start)
        self.settings_button.clicked.connect(self.open_settings)

        text = QVBoxLayout()
        text.addWidget(self.heading)
        text.addWidget(self.instructions)
        text.addWidget(self.user_code)
        text.addWidget(self.url)
        text.addWidget(self.countdown)
        text.addWidget(self.status)
        buttons = QHBoxLayout()
        for widget in (self.copy_button, self.open_button, self.demo_button):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        text.addLayout(buttons)
        text.addWidget(self.retry_button)
        text.addWidget(self.file_store_button)
        text.addStretch(1)
        text.addWidget(self.settings_button, 0, Qt.AlignmentFlag.AlignLeft)
        # the code, its address and the QR code together and centred: at 1920 px they spread over 1,260 px
        self.form_box = QWidget(self)
        self.form_box.setMaximumWidth(FORM_WIDTH)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addStretch(1)
        outer.addWidget(self.form_box, 100)
        outer.addStretch(1)
        grid = QGridLayout(self.form_box)
        grid.setContentsMargins(48, 32, 48, 32)
        grid.addLayout(text, 0, 0)
        grid.addWidget(self.qr, 0, 1, Qt.AlignmentFlag.AlignTop)
        grid.setColumnStretch(0, 1)

        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._update_countdown)
        self.waiting = Waiting(self.status.setText, self)
        self._show_code(None)
        self._show_state(SignInState.STARTING, "Asking the service for a sign-in code…")

    # --- flow ---------------------------------------------------------------------------------

    def begin(self, terminal: Terminal) -> None:
        self.terminal = terminal
        sandbox = terminal.is_sandbox and "sandbox" not in terminal.service.name.lower()
        name = terminal.service.name + (" (sandbox)" if sandbox else "")
        self.heading.setText(f"Sign in terminal {terminal.settings.terminal_id} to {name}")
        self.start()

    def start(self) -> None:
        self.tasks.run(self._sign_in(), key="sign-in", on_error=self._failed)

    def stop(self) -> None:
        self.tasks.cancel_all()
        self._tick.stop()

    async def _sign_in(self) -> None:
        assert self.terminal is not None
        session = self.terminal.session
        self.authorization = None
        self._show_code(None)
        self._show_state(SignInState.STARTING, "")
        self.waiting.start("Asking the service for a sign-in code…")
        try:
            authorization = await session.start_device_sign_in()
        finally:
            self.waiting.stop()
        self.authorization = authorization
        self._show_code(authorization)
        self._show_state(SignInState.PENDING, "Waiting for approval.")
        self._tick.start()
        try:
            await session.finish_device_sign_in(authorization, self.on_device_status)
        except AccessDenied:
            self._finished(SignInState.DENIED, "The sign-in was denied. Get a new code to try again.")
            return
        except ExpiredToken:
            self._finished(SignInState.EXPIRED, "The code expired before it was approved. Get a new code.")
            return
        self._finished(SignInState.SIGNED_IN, "Signed in.")
        self.signed_in.emit()

    def _failed(self, error: UserError) -> None:
        no_keychain = isinstance(error, NoKeychain)
        text = error.text()
        if no_keychain:
            hint = "Unlock or install a keychain (GNOME Keyring, KWallet) and restart, or keep it in a file."
            text = f"{error.sentence} {hint}"
        self._finished(SignInState.FAILED, text)
        if no_keychain:
            # Asking for a new code cannot help; keeping the sign-in in a file can, if the person accepts it.
            self.retry_button.hide()
            self.file_store_button.show()
            self.file_store_button.setFocus()

    def _finished(self, state: SignInState, text: str) -> None:
        self._tick.stop()
        self.waiting.stop()
        self._show_code(None)
        self._show_state(state, text)

    def on_device_status(self, status: DeviceStatus) -> None:
        self._show_state(_PHASES.get(status.phase, SignInState.PENDING), status.message)

    # --- showing --------------------------------------------------------------------------------

    def _show_code(self, authorization: DeviceAuthorization | None) -> None:
        """The code, its address and QR code, and the buttons that act on it: shown only while there is a code
        to approve; a code that expired or was denied leaves the screen, the way to a new one stays."""
        has_code = authorization is not None
        for action in (self.copy_button, self.open_button, self.demo_button):
            action.setEnabled(has_code)
        for widget in (self.user_code, self.qr, self.url, self.countdown, self.copy_button, self.open_button):
            widget.setVisible(has_code)
        self.demo_button.setVisible(has_code and self.terminal is not None and self.terminal.is_sandbox)
        if authorization is None:
            self.user_code.clear()
            self.url.clear()
            self.qr.set_text("")
            self.instructions.setText("")
            return
        self.user_code.setText(authorization.user_code)
        self.url.setText(authorization.verification_uri)
        # a sandbox on this computer answers only here: a phone that scanned its address would find nothing
        here_only = is_loopback(authorization.verification_uri)
        self.qr.set_text("" if here_only else authorization.verification_uri_complete or authorization.verification_uri)
        self.qr.setVisible(not here_only)
        self.instructions.setText(
            "In a browser on this computer (Open browser), open the address below, sign in, and enter this code to "
            "approve the terminal:"
            if here_only
            else "On a phone or computer, open the address below (or scan the QR code), sign in, and enter this code "
            "to approve the terminal:"
        )
        self._update_countdown()

    def _show_state(self, state: SignInState, text: str) -> None:
        self.state = state
        self.status.setText(text)
        ended = state in (SignInState.DENIED, SignInState.EXPIRED, SignInState.FAILED)
        set_role(self.status, "reason" if ended else "phase")
        self.file_store_button.hide()
        self.retry_button.setVisible(ended)
        if ended:
            for widget in (self.copy_button, self.open_button, self.demo_button):
                widget.setEnabled(False)
            self.retry_button.setFocus()

    def _update_countdown(self) -> None:
        if self.authorization is None:
            return
        left = max(0, int((self.authorization.expires_at - utcnow()).total_seconds()))
        self.countdown.setText(f"The code expires in {left // 60}:{left % 60:02d}")

    # --- slots ----------------------------------------------------------------------------------

    def on_copy_clicked(self) -> None:
        if self.authorization is not None:
            QGuiApplication.clipboard().setText(self.authorization.user_code)
            self.messages.show_info("The code was copied.")

    def on_open_clicked(self) -> None:
        if self.authorization is not None:
            address = self.authorization.verification_uri_complete or self.authorization.verification_uri
            if not QDesktopServices.openUrl(QUrl(address)):
                self.messages.show_error(f"No browser could be opened. Open {address} on another device.")
            else:  # the system may start a helper that finds no browser, and say nothing: the way out is said here
                self.messages.show_info(f"Opening {address} in a browser; if none opens, open it on another device.")

    def on_demo_clicked(self) -> None:
        if self.terminal is not None and self.authorization is not None:
            self.demo_button.setEnabled(False)
            self.demo_button.setText("Approving…")
            self.tasks.run(self._approve_demo(self.terminal, self.authorization.user_code))

    async def _approve_demo(self, terminal: Terminal, user_code: str) -> None:
        try:
            await terminal.approve_demo_sign_in(user_code)
        finally:  # approved (the next poll signs in), or refused with its sentence: the button is itself again
            self.demo_button.setText("&Approve as demo merchant")
            self.demo_button.setEnabled(self.authorization is not None)
