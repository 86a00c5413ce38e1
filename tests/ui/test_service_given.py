"""A window started with ``--service URL``: a new profile is set up first (its terminal id typed, never guessed), the
service given fills the set-up page's region and addresses, and Settings, the status bar and the sign-in page name
that service as it is, not "Embedded sandbox" or "sandbox"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.config import load_settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.signin_view import SignInState
from tests.helpers.ui import misaligned_labels
from tests.ui.conftest import finish, first_manager_and_shift, screenshot, signed_in_window, until
from tests.ui.layout import clipped

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def shots(window: MainWindow, name: str, tmp_path: Path) -> None:
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        QApplication.processEvents()
        screenshot(window, f"{name}-{width}x{height}", tmp_path)
    window.resize(1280, 800)


async def test_a_new_profile_started_with_a_service_is_set_up_first_with_that_service(
    tmp_path: Path, sandbox: SandboxServer, client: httpx.Client, make_window: Callable[[AppHost], MainWindow]
) -> None:
    host = AppHost(Paths.profile(tmp_path / "fresh"), service_url=sandbox.url)
    assert host.first_launch, "a new profile is set up first, whatever --service says"
    window = make_window(host)
    window.start()
    assert window.page is Page.SETUP
    setup = window.setup
    assert (setup.region.currentData(), setup.region.currentText()) == ("custom", "Custom addresses")
    addresses = (setup.auth_url.text(), setup.pos_url.text(), setup.payments_url.text())
    assert addresses == (sandbox.url, f"{sandbox.url}/v4", sandbox.url)
    assert all(edit.isVisible() for edit in (setup.auth_url, setup.pos_url, setup.payments_url))
    assert setup.terminal_id.text() == "", "no terminal id is guessed"
    shots(window, "identity-setup-service", tmp_path)
    for size in ((1024, 768), (1920, 1080)):
        window.resize(*size)
        problems = clipped(window)
        assert problems == [], f"the set-up page with the addresses at {size}: {problems}"
        assert misaligned_labels(setup) == []

    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    assert setup.error.text() == "The terminal id is empty. Give this terminal a short name, like LANE-1."
    assert not host.paths.config_file.exists()
    QTest.keyClicks(setup.terminal_id, "CAFE-2")
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    saved, existed = load_settings(host.paths.config_file)
    assert existed and saved.terminal_id == "CAFE-2"
    assert (saved.region, saved.custom_urls.auth_url, saved.custom_urls.pos_url) == (
        "custom",
        sandbox.url,
        f"{sandbox.url}/v4",
    )

    where = sandbox.url.removeprefix("http://")  # 127.0.0.1:PORT
    sign_in = window.sign_in
    await until(lambda: window.page is Page.SIGN_IN and sign_in.state is SignInState.PENDING, what="a code")
    assert sign_in.heading.text() == f"Sign in terminal CAFE-2 to {where} (sandbox)", "the service by its host"
    client.post("/sandbox/device/approve", json={"userCode": sign_in.user_code.text(), "merchantId": "mer-cafe"})
    await first_manager_and_shift(window)
    assert window.status.region.text() == where

    window.show_tab(Tab.SETTINGS)
    view = window.workspace.settings_view
    assert (view.region.currentData(), view.region.currentText()) == ("custom", "Custom addresses")
    assert (view.auth_url.text(), view.pos_url.text(), view.payments_url.text()) == addresses, "as they are saved"
    assert view.terminal_id.text() == "CAFE-2"
    shots(window, "identity-settings-service", tmp_path)
    await finish(window, host)


async def test_settings_and_the_status_bar_name_a_service_given_to_a_till_set_up_for_the_sandbox(
    host: AppHost,
    sandbox: SandboxServer,
    client: httpx.Client,
    make_window: Callable[[AppHost], MainWindow],
    tmp_path: Path,
) -> None:
    assert host.settings.region == "sandbox"  # set up for the embedded sandbox, started with --service URL
    window = await signed_in_window(host, make_window, client)
    where = sandbox.url.removeprefix("http://")
    assert window.status.region.text() == where, "not “sandbox”"
    window.show_tab(Tab.SETTINGS)
    view = window.workspace.settings_view
    assert view.region.currentText() == f"{where}, given with --service", "not “Embedded sandbox”"
    assert (view.auth_url.text(), view.pos_url.text(), view.payments_url.text()) == (
        sandbox.url,
        f"{sandbox.url}/v4",
        sandbox.url,
    )
    assert not view.region.isEnabled() and "--service" in view.region.toolTip()
    shots(window, "identity-settings-given", tmp_path)
    assert view.choices().region == "sandbox", "saving keeps the region saved: --service is this run's"
    await finish(window, host)


async def test_a_settings_file_without_a_terminal_id_is_set_up_first(
    tmp_path: Path, sandbox: SandboxServer, make_window: Callable[[AppHost], MainWindow]
) -> None:
    paths = Paths.profile(tmp_path / "written-by-hand").ensure()
    paths.config_file.write_text('schema_version = 1\nlocale = "de_DE"\ncurrency = "EUR"\n')
    host = AppHost(paths, service_url=sandbox.url)
    window = make_window(host)
    window.show_first_screen()  # as a start does: painted before the settings are read
    host.settings  # noqa: B018 (read then, as the start reads them)
    window.start()
    assert window.page is Page.SETUP and window.terminal is None, "no till runs as nobody"
    assert window.first_wait is None and not window.cashier.customers.waiting.active
    assert (window.setup.terminal_id.text(), window.setup.currency_box.currentText()) == ("", "EUR")
    await finish(window, host)
