"""First launch: setup, device-code sign-in against the embedded sandbox, then the cashier; disconnect returns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import keyring
from keyring.backends import fail

from pos_terminal.app import AppHost
from pos_terminal.paths import Paths
from pos_terminal.services.session import SessionState
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.signin_view import SignInState
from tests.keyrings import MemoryKeyring
from tests.ui.conftest import finish, first_manager_and_shift, screenshot, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox


async def test_first_launch_to_signed_in_and_disconnect(
    tmp_path: Path, make_window: Callable[[AppHost], MainWindow], memory_keyring: MemoryKeyring
) -> None:
    host = AppHost(Paths.profile(tmp_path / "fresh"))
    assert host.first_launch
    window = make_window(host)
    window.start()
    assert window.page is Page.SETUP
    assert window.setup.region.currentData() == "sandbox", "the embedded sandbox is preselected"
    window.setup.terminal_id.setText("COUNTER-2")
    screenshot(window, "setup", tmp_path)
    QTest.mouseClick(window.setup.continue_button, Qt.MouseButton.LeftButton)
    assert (host.paths.config_file).exists()

    sign_in = window.sign_in
    await until(lambda: window.page is Page.SIGN_IN and sign_in.state is SignInState.PENDING, what="a code")
    assert sign_in.heading.text() == "Sign in terminal COUNTER-2 to Embedded sandbox"
    assert not window.banner.isVisible(), f"nothing went wrong before the sign-in: {window.banner.text.text()}"
    code = sign_in.user_code.text()
    assert len(code) == 9 and code[4] == "-"
    assert sign_in.qr.text.startswith("http://127.0.0.1:") and code in sign_in.qr.text
    assert "expires in 9:" in sign_in.countdown.text() or "expires in 10:" in sign_in.countdown.text()
    assert sign_in.demo_button.isVisible() and sign_in.demo_button.isEnabled()
    screenshot(window, "sign-in", tmp_path)

    QTest.mouseClick(sign_in.demo_button, Qt.MouseButton.LeftButton)
    await until(lambda: window.page is Page.TILL, what="the till's page after approval: the first manager")
    screenshot(window, "till-first-manager", tmp_path)
    await first_manager_and_shift(window)
    assert window.terminal is not None and window.terminal.settings.terminal_id == "COUNTER-2"
    assert window.terminal.session.state is SessionState.CONNECTED
    assert memory_keyring.secrets, "the tokens are in the keychain"
    assert window.status.badge.isVisible() and window.status.connection.text() == "Connected"
    await until(lambda: window.cashier.customers.model.rowCount() > 0, what="the demo customers")

    window.show_tab(Tab.SETTINGS)
    QTest.mouseClick(window.settings_view.disconnect_button, Qt.MouseButton.LeftButton)
    box = window.settings_view.confirm
    assert isinstance(box, QMessageBox) and box.isVisible()
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    await until(lambda: window.page is Page.SIGN_IN, what="the sign-in page after disconnect")
    assert not memory_keyring.secrets, "disconnect removed the stored sign-in"
    await until(lambda: sign_in.state is SignInState.PENDING, what="a new code")
    await finish(window, host, wait=False)  # the new code is still being polled


async def test_denied_sign_in_offers_a_new_code(
    tmp_path: Path, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    host = AppHost(Paths.profile(tmp_path / "p"), service_url=str(client.base_url).rstrip("/"))
    window = make_window(host)
    window.start()
    sign_in = window.sign_in
    await until(lambda: sign_in.state is SignInState.PENDING, what="a code")
    first = sign_in.user_code.text()
    client.post("/sandbox/device/deny", json={"userCode": first}).raise_for_status()
    await until(lambda: sign_in.state is SignInState.DENIED, what="denied")
    assert sign_in.retry_button.isVisible() and "denied" in sign_in.status.text()
    QTest.mouseClick(sign_in.retry_button, Qt.MouseButton.LeftButton)
    await until(lambda: sign_in.state is SignInState.PENDING and sign_in.user_code.text() != first, what="new code")
    client.post("/sandbox/clock", json={"advanceSeconds": 601}).raise_for_status()
    await until(lambda: sign_in.state is SignInState.EXPIRED, what="expired")
    assert "expired" in sign_in.status.text()
    dead = (sign_in.user_code, sign_in.qr, sign_in.url, sign_in.countdown, sign_in.copy_button, sign_in.demo_button)
    assert not any(w.isVisible() for w in dead), "an expired code leaves the screen"
    assert sign_in.retry_button.isVisible() and sign_in.retry_button.isEnabled()
    screenshot(window, "sign-in-expired", tmp_path)
    await finish(window, host)


async def test_without_a_keychain_the_sign_in_can_be_kept_in_a_file_once_accepted(
    tmp_path: Path, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    keyring.set_keyring(fail.Keyring())  # a machine with no keychain (the fixture puts its own back after)
    host = AppHost(Paths.profile(tmp_path / "p"), service_url=str(client.base_url).rstrip("/"))
    window = make_window(host)
    window.start()
    sign_in = window.sign_in
    await until(lambda: sign_in.state is SignInState.FAILED, what="the refusal to sign in with nowhere to keep it")
    assert sign_in.status.text().startswith("No keychain is available")
    assert sign_in.file_store_button.isVisible() and not sign_in.retry_button.isVisible()
    assert not sign_in.user_code.isVisible() and not sign_in.qr.isVisible()
    buttons = (sign_in.copy_button, sign_in.open_button, sign_in.demo_button)
    assert not any(b.isVisible() for b in buttons), "no button that cannot be used is shown"
    screenshot(window, "sign-in-no-keychain", tmp_path)

    QTest.mouseClick(sign_in.file_store_button, Qt.MouseButton.LeftButton)
    box = window.confirmation
    assert isinstance(box, QMessageBox) and "unencrypted file" in box.text()
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    await until(lambda: sign_in.state is SignInState.PENDING, what="a code, now that the sign-in can be kept")
    assert host.settings.allow_insecure_token_file
    client.post("/sandbox/device/approve", json={"userCode": sign_in.user_code.text(), "merchantId": "mer-cafe"})
    await until(lambda: window.page is Page.TILL, what="signed in: the till asks for its first manager")
    assert host.paths.insecure_token_file.exists()
    assert window.terminal is not None and window.terminal.session.store.insecure
    await finish(window, host)
