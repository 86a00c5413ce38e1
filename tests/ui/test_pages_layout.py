"""Every other page at 1024×768 and 1920×1080: setup, sign-in, History, Reports, Settings and the F1 help;
nothing clipped, labels level with their fields, buttons side by side of one height."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import httpx
import keyring
import pytest
from keyring.backends import fail

from pos_terminal.app import AppHost
from pos_terminal.paths import Paths
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.signin_view import SignInState
from tests.helpers.ui import authorized_sale, misaligned_labels
from tests.ui.conftest import finish, screenshot, signed_in_window, until
from tests.ui.layout import clipped

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

SMALL, LARGE = (1024, 768), (1920, 1080)


@pytest.mark.slow
async def test_history_reports_settings_and_help_fit_and_line_up(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, tmp_path: Path
) -> None:
    window, _, _ = await authorized_sale(host, make_window, client, "Paige Layout", "Scone", "4.00")
    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: window.cashier.ticket.new_check_button.isVisible(), what="complete")
    history = window.workspace.history
    for size in (SMALL, LARGE):
        window.resize(*size)
        window.show_tab(Tab.HISTORY)
        await until(lambda: history.model.rowCount() > 0 and not history.tasks.busy, what="the sale in History")
        history.scope.setCurrentIndex(history.scope.findData("other"))  # its id field shown too
        assert clipped(window) == [], f"History at {size}"
        heights = {b.height() for b in (history.complete_button, history.cancel_button, history.refund_button)}
        assert len(heights) == 1, f"History's buttons side by side differ in height: {heights}"
        history.scope.setCurrentIndex(0)
        window.show_tab(Tab.SETTINGS)
        QApplication.processEvents()
        assert clipped(window) == [], f"Settings at {size}"
        assert misaligned_labels(window.workspace.settings_view) == []
        settings = window.workspace.settings_view
        assert settings.save_button.height() == settings.disconnect_button.height()
        screenshot(window, f"settings-{size[0]}x{size[1]}", tmp_path)
        window.show_tab(Tab.REPORTS)
        view = window.workspace.reports
        view.scope.setCurrentIndex(view.scope.findData("other"))
        QApplication.processEvents()
        assert clipped(window, view) == [], f"Reports at {size}"
        view.scope.setCurrentIndex(0)
        window.show_tab(Tab.CASHIER)
        window.activateWindow()
        await until(window.isActiveWindow, what="the window active")
        QTest.keyClick(window, Qt.Key.Key_F1)
        assert window.help.isVisible()
        assert clipped(window, window.help) == [], f"the help at {size}"
        assert window.help.last_line.isVisible()
        QTest.keyClick(window.help, Qt.Key.Key_Escape)
    await finish(window, host)


async def test_setup_and_sign_in_fit_and_line_up(
    tmp_path: Path, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    host = AppHost(Paths.profile(tmp_path / "fresh"))
    window = make_window(host)
    window.resize(*SMALL)
    window.start()
    assert window.page is Page.SETUP
    QApplication.processEvents()
    assert clipped(window) == []
    assert misaligned_labels(window.setup) == []
    setup = window.setup
    below = setup.continue_button.mapTo(window, QPoint(0, 0))
    setup.currency_box.setCurrentText("JPY")  # a currency refused: the preview says why, whole, in its place
    QApplication.processEvents()
    assert setup.example.text().startswith("The service counts money in cents")
    assert clipped(window) == [] and misaligned_labels(setup) == []
    assert setup.continue_button.mapTo(window, QPoint(0, 0)) == below, "the refusal moved the form"
    setup.currency_box.setCurrentText("AUD")
    setup.terminal_id.setText("LANE-1")  # none is guessed
    QTest.mouseClick(window.setup.continue_button, Qt.MouseButton.LeftButton)
    sign_in = window.sign_in
    await until(lambda: sign_in.state is SignInState.PENDING, what="a code")
    assert clipped(window) == []
    await finish(window, host, wait=False)


async def test_without_a_keychain_the_sign_in_page_fits(
    profile: Paths, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    keyring.set_keyring(fail.Keyring())
    host = AppHost(profile, service_url=str(client.base_url).rstrip("/"))
    window = make_window(host)
    window.resize(*SMALL)
    window.start()
    await until(lambda: window.sign_in.state is SignInState.FAILED, what="no keychain")
    assert clipped(window) == []
    await finish(window, host)


async def test_the_status_bar_counts_changes_in_words(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    window = await signed_in_window(host, make_window, client)
    window.status.show_pending(1)
    assert window.status.pending.text() == "1 change waiting to be sent"
    window.status.show_pending(3)
    assert window.status.pending.text() == "3 changes waiting to be sent"
    await finish(window, host)


async def test_the_window_opens_maximised_on_its_screen(
    host: AppHost, make_window: Callable[[AppHost], MainWindow]
) -> None:
    window = make_window(host)
    window.open_on_screen()
    screen = window.screen()
    assert screen is not None
    await until(window.isMaximized, what="maximised")
    available = screen.availableGeometry()  # offscreen: 800x800, narrower than the 1024 px the window is made for
    assert window.width() == max(available.width(), window.minimumWidth())
    window.close()


async def test_a_disabled_accent_button_does_not_look_like_one_that_acts() -> None:
    """History's Cancel, disabled for a completed transaction, kept its bold label on a grey fill and no edge: it
    read as a button to press. A disabled accent button has a dashed edge (and a plain label)."""
    from pos_terminal.ui.widgets import button

    page = QWidget()  # polished under the application's style sheet, as a page's buttons are
    for role in ("danger", "primary"):
        disabled = button("Cancel", role=role)
        disabled.setParent(page)
        disabled.setEnabled(False)
        disabled.resize(200, 48)
        image = disabled.grab().toImage()
        edge = [image.pixelColor(x, 1).name() for x in range(20, 180)]
        changes = sum(1 for a, b in itertools.pairwise(edge) if a != b)
        assert changes >= 6, (role, "a dashed edge alternates along the top", set(edge))
