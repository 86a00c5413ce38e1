"""First launch: setup, device-code sign-in against the embedded sandbox, then the cashier; disconnect returns.
Joining a store on the set-up page (a SQLite file and a real PostgreSQL), and what it says when it cannot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
import keyring
import pytest
from keyring.backends import fail

from pos_terminal.api.models import DeviceAuthorization
from pos_terminal.app import AppHost
from pos_terminal.paths import Paths
from pos_terminal.services.session import SessionState
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.signin_view import SignInState, SignInView
from pos_terminal.ui.tasks import Messages
from pos_terminal.ui.till_view import TillMode
from tests.conftest import StoreTarget
from tests.keyrings import MemoryKeyring
from tests.store.postgres import free_port
from tests.ui.conftest import finish, first_manager_and_shift, screenshot, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox


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
    assert window.setup.store_address.text() == "", "no store unless one is typed: the till stands alone"
    assert not window.setup.store_password.isEnabled(), "no password without a store on a server"
    screenshot(window, "setup", tmp_path)
    QTest.mouseClick(window.setup.continue_button, Qt.MouseButton.LeftButton)
    assert (host.paths.config_file).exists()
    assert window.setup.joined is None

    sign_in = window.sign_in
    await until(lambda: window.page is Page.SIGN_IN and sign_in.state is SignInState.PENDING, what="a code")
    assert sign_in.heading.text() == "Sign in terminal COUNTER-2 to Embedded sandbox"
    assert not window.banner.isVisible(), f"nothing went wrong before the sign-in: {window.banner.text.text()}"
    code = sign_in.user_code.text()
    assert len(code) == 9 and code[4] == "-"
    # the sandbox answers on this computer alone: no QR code for a phone that could not reach it
    assert not sign_in.qr.isVisible() and sign_in.url.text().startswith("http://127.0.0.1:")
    assert sign_in.instructions.text().startswith("In a browser on this computer")
    assert "expires in 9:" in sign_in.countdown.text() or "expires in 10:" in sign_in.countdown.text()
    assert sign_in.demo_button.isVisible() and sign_in.demo_button.isEnabled()
    screenshot(window, "sign-in", tmp_path)

    QTest.mouseClick(sign_in.demo_button, Qt.MouseButton.LeftButton)
    # the approval takes a moment (the next poll signs in): the button says so rather than only greying
    assert sign_in.demo_button.text() == "Approving…" and not sign_in.demo_button.isEnabled()
    await until(lambda: window.page is Page.TILL, what="the till's page after approval: the first manager")
    screenshot(window, "till-first-manager", tmp_path)
    await first_manager_and_shift(window)
    assert window.terminal is not None and window.terminal.settings.terminal_id == "COUNTER-2"
    assert window.terminal.session.state is SessionState.CONNECTED
    assert memory_keyring.secrets, "the tokens are in the keychain"
    assert window.status.badge.isVisible() and window.status.connection.text() == "Connected"
    assert not window.terminal.store.linked and not window.status.store.isVisible(), "a till that stands alone"
    await until(lambda: window.cashier.customers.model.rowCount() > 0, what="the demo customers")

    window.show_tab(Tab.SETTINGS)
    QTest.mouseClick(window.workspace.settings_view.disconnect_button, Qt.MouseButton.LeftButton)
    box = window.workspace.settings_view.confirm
    assert isinstance(box, QMessageBox) and box.isVisible()
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    await until(lambda: window.page is Page.SIGN_IN, what="the sign-in page after disconnect")
    assert not memory_keyring.secrets, "disconnect removed the stored sign-in"
    await until(lambda: sign_in.state is SignInState.PENDING, what="a new code")
    await finish(window, host, wait=False)  # the new code is still being polled


async def test_denied_sign_in_offers_a_new_code(
    tmp_path: Path, profile: Paths, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    host = AppHost(profile, service_url=str(client.base_url).rstrip("/"))
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
    profile: Paths, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    keyring.set_keyring(fail.Keyring())  # a machine with no keychain (the fixture puts its own back after)
    host = AppHost(profile, service_url=str(client.base_url).rstrip("/"))
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
    box = window.settings_flow.confirmation
    assert isinstance(box, QMessageBox) and "unencrypted file" in box.text()
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    await until(lambda: sign_in.state is SignInState.PENDING, what="a code, now that the sign-in can be kept")
    assert host.settings.allow_insecure_token_file
    client.post("/sandbox/device/approve", json={"userCode": sign_in.user_code.text(), "merchantId": "mer-cafe"})
    await until(lambda: window.page is Page.TILL, what="signed in: the till asks for its first manager")
    assert host.paths.insecure_token_file.exists()
    assert window.terminal is not None and window.terminal.session.keeper.insecure
    await finish(window, host)


OWNER, OWNER_PIN = "Olga Owner", "736195028461"


async def test_first_launch_joins_a_store_and_its_manager_signs_in_here(
    tmp_path: Path,
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    store_target: StoreTarget,
) -> None:
    """Another till (its own profile) made the store's first manager; a new till joins the store on its set-up page
    and goes from the service's sign-in straight to the till's, with that manager to choose (no first manager to
    make here), whose PIN works."""
    store_target.open().init_schema()
    store_target.close_all()
    other = await host.connect()  # LANE-1, through the real services, as its own window would
    await other.store.join(store_target.url, store_target.password)
    await other.till.create_first_manager(OWNER, OWNER_PIN)
    await other.store.sync()
    assert other.store.status().waiting == 0, "the manager reached the store"
    await host.aclose()

    fresh = AppHost(Paths.profile(tmp_path / "fresh"))
    assert fresh.first_launch
    window = make_window(fresh)
    window.start()
    setup = window.setup
    setup.terminal_id.setText("LANE-2")
    QTest.keyClicks(setup.store_address, store_target.url)
    postgres = store_target.backend == "postgresql"
    assert setup.store_password.isEnabled() is postgres, "a password only for a store on a server"
    if postgres:
        QTest.keyClicks(setup.store_password, store_target.password or "")
        assert setup.store_password.echoMode() is QLineEdit.EchoMode.Password
        for width, height in ((1024, 768), (1920, 1080)):
            window.resize(width, height)
            screenshot(window, f"setup-store-{width}x{height}", tmp_path)
            for widget in (setup.store_address, setup.store_password, setup.continue_button):
                assert widget.isVisible() and widget.width() >= widget.minimumSizeHint().width()
        window.resize(1280, 800)
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    assert not setup.continue_button.isEnabled() and not setup.store_address.isEnabled(), "one join at a time"
    assert setup.progress.isVisible() and setup.progress.text().startswith("Joining the store…")
    assert not fresh.paths.config_file.exists(), "nothing is saved before the store is joined"

    sign_in = window.sign_in
    await until(lambda: window.page is Page.SIGN_IN and sign_in.state is SignInState.PENDING, what="a code")
    assert setup.error.text() == "", setup.error.text()
    assert fresh.paths.config_file.exists() and fresh.settings.terminal_id == "LANE-2"
    terminal = window.terminal
    assert terminal is not None and terminal.store.linked
    assert terminal.store.status().address == store_target.url
    assert window.status.store.isVisible() and window.status.store.text() == "Store online"
    assert f"part of the store at {store_target.url}" in window.banner.text.text()

    QTest.mouseClick(sign_in.demo_button, Qt.MouseButton.LeftButton)
    await until(lambda: window.page is Page.TILL, what="the till's page after the service's sign-in")
    till = window.till
    assert till.mode is TillMode.SIGN_IN, "the store has a manager: none is made here"
    assert till.stack.currentWidget() is till.pages[TillMode.SIGN_IN]
    assert [b.text() for b in till.person_buttons] == [f"{OWNER}\nmanager"]
    assert till.chosen is not None and till.chosen.name == OWNER, "the one person is chosen"
    QTest.keyClicks(till.pin, OWNER_PIN)
    QTest.keyClick(till.pin, Qt.Key.Key_Return)
    await until(lambda: till.mode is TillMode.OPEN_SHIFT, what="the store's manager signed in with her PIN")
    assert terminal.till.actor == OWNER
    assert [p.name for p in terminal.staff.people()] == [OWNER]
    await finish(window, fresh, wait=False)  # the till exchanges with the store for as long as it runs


async def test_a_store_that_cannot_be_joined_at_first_launch_says_why_and_the_till_can_stand_alone(
    tmp_path: Path,
    make_window: Callable[[AppHost], MainWindow],
    postgres_target: StoreTarget,
    memory_keyring: MemoryKeyring,
) -> None:
    host = AppHost(Paths.profile(tmp_path / "fresh"))
    window = make_window(host)
    window.start()
    setup = window.setup
    setup.terminal_id.setText("LANE-3")
    setup.currency_box.setCurrentText("NZD")

    async def refused(address: str, password: str, why: str) -> str:
        setup.error.clear()
        setup.store_address.setText(address)
        setup.store_password.setText(password)
        QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
        assert setup.joining and not setup.continue_button.isEnabled()
        await until(lambda: not setup.joining, timeout=30, what=why)
        sentence = setup.error.text()
        assert why in sentence, sentence
        assert "\n" not in sentence and "Traceback" not in sentence
        assert window.page is Page.SETUP and setup.continue_button.isEnabled() and not setup.progress.isVisible()
        assert setup.store_address.text() == address and setup.store_password.text() == password, "kept as typed"
        assert setup.terminal_id.text() == "LANE-3" and setup.currency_box.currentText() == "NZD"
        assert not host.paths.config_file.exists(), "nothing is saved"
        assert not window.banner.isVisible(), "the sentence is on the page, not in the banner"
        return sentence

    right, password = postgres_target.url, postgres_target.password or ""
    await refused("mysql://till@host/shop", "", "address")
    await refused(right, password, "has not been set up")  # the database is there; its schema is not, yet
    postgres_target.open().init_schema()
    postgres_target.close_all()
    await refused(right, "not-the-password", "password")
    server = postgres_target.server
    assert server is not None
    port = free_port()
    await refused(right.replace(f":{server.port}/", f":{port}/"), password, "cannot be reached")
    keyring.set_keyring(fail.Keyring())  # a machine with no keychain, and no file allowed
    window.resize(1024, 768)
    await refused(right, password, "keychain")  # the longest sentence, at the smallest screen: nothing clipped
    keyring.set_keyring(memory_keyring)
    QApplication.processEvents()
    assert setup.error.height() >= setup.error.heightForWidth(setup.error.width())
    bottom = setup.continue_button.mapTo(window, setup.continue_button.rect().bottomLeft()).y()
    assert bottom < window.status.mapTo(window, window.status.rect().topLeft()).y(), "Continue stays in sight"
    window.resize(1280, 800)
    assert not memory_keyring.secrets, "no password was kept for a store that was not joined"

    setup.store_address.clear()  # the till stands alone after all
    assert not setup.store_password.isEnabled()
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    await until(lambda: window.page is Page.SIGN_IN, what="the sign-in, standing alone")
    assert window.terminal is not None and not window.terminal.store.linked
    assert not window.status.store.isVisible()
    assert host.settings.terminal_id == "LANE-3" and host.settings.currency == "NZD"
    await finish(window, host, wait=False)  # the code is still being polled


@pytest.mark.parametrize(
    ("address", "scanned"),
    [("https://auth.example.com/device", True), ("http://127.0.0.1:8000/device", False), ("http://[::1]:80/d", False)],
)
def test_a_qr_code_is_shown_only_for_an_address_a_phone_can_reach(
    qapp: QApplication, address: str, scanned: bool
) -> None:
    view = SignInView(Messages())
    view.show()
    complete = f"{address}?user_code=ABCD-EFGH"
    view._show_code(
        DeviceAuthorization(
            device_code="d", user_code="ABCD-EFGH", verification_uri=address, verification_uri_complete=complete
        )
    )
    assert view.qr.isVisible() is scanned and (view.qr.text == complete) is scanned
    assert view.url.text() == address
    assert view.instructions.text().startswith("On a phone" if scanned else "In a browser on this computer")
    view.close()
