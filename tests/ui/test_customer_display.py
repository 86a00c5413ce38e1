"""The customer display follows a check on real widgets: lines and total as they are added, the cash paid, then
"Charging $X to NAME", authorized and thank you; and nothing of that customer once the next check starts."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.config import DeviceSettings, Settings, save_settings
from pos_terminal.domain.sale import Phase
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.register import OpenCheck
from pos_terminal.ui.customer_display import CustomerDisplay, display_screen
from pos_terminal.ui.main_window import MainWindow
from tests.conftest import new_checked_in_customer
from tests.helpers.ui import choose
from tests.ui.conftest import TERMINAL_ID, finish, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel


def shown_text(display: CustomerDisplay) -> str:
    """Every text the customer can see on the display now."""
    return " | ".join(
        label.text() for label in display.findChildren(QLabel) if label.isVisibleTo(display) and label.text()
    )


def picture(display: CustomerDisplay, name: str, tmp_path: Path, size: tuple[int, int]) -> Path:
    folder = Path(os.environ.get("POS_TERMINAL_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    display.resize(*size)
    QApplication.processEvents()
    path = folder / f"{name}.png"
    assert display.grab().save(str(path)), path
    return path


async def test_the_display_follows_a_check_through_charge_and_complete(
    profile: Paths,
    sandbox: SandboxServer,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    save_settings(profile.config_file, Settings(terminal_id=TERMINAL_ID, devices=DeviceSettings(customer_display=True)))
    host = AppHost(profile, service_url=sandbox.url)
    customer = new_checked_in_customer(client, firstName="Zoë", lastName="Display", balance=50_000)
    window = await signed_in_window(host, make_window, client, listing=customer)
    display = window.hardware.customer_display
    assert display is not None and display.isVisible()
    assert display.welcome.isVisible() and shown_text(display) == "Welcome"
    assert host.terminal is not None
    register = host.terminal.register
    seen: list[tuple[Phase, str]] = []

    def follow(state: OpenCheck) -> None:  # called after the display's own listener
        seen.append((state.phase, display.status.text()))
        if state.phase is Phase.CHARGING:
            picture(display, "customer-display-charging-1024x768", tmp_path, (1024, 768))

    register.on_change(follow)

    cashier = window.cashier
    choose(window, "Display")
    assert display.welcome.isVisible(), "a customer alone shows nothing of them"
    tile = next(b for b in cashier.products.tiles if "Flat white" in b.text())
    QTest.mouseClick(tile, Qt.MouseButton.LeftButton)
    QTest.mouseClick(tile, Qt.MouseButton.LeftButton)
    croissant = next(b for b in cashier.products.tiles if "Croissant" in b.text())
    QTest.mouseClick(croissant, Qt.MouseButton.LeftButton)
    text = shown_text(display)
    assert "2 × | Flat white | $9.60" in text and "Croissant | $5.50" in text and "Total | $15.10" in text
    assert "Cash paid" not in text
    QTest.keyClick(window, Qt.Key.Key_F6)
    QTest.keyClicks(cashier.keypad_page.cash_input, "5")
    QTest.keyClick(cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    text = shown_text(display)
    assert "Cash paid | $5.00" in text and "To pay | $10.10" in text
    picture(display, "customer-display-check-1024x768", tmp_path, (1024, 768))

    QTest.keyClick(window, Qt.Key.Key_F8)
    await until(lambda: register.current.phase is Phase.AUTHORIZED, what="authorized")
    assert (Phase.CHARGING, "Charging $10.10 to Zoë Display") in seen
    assert display.status.text() == "Authorized: $10.10"
    picture(display, "customer-display-authorized-1920x1080", tmp_path, (1920, 1080))

    QTest.keyClick(window, Qt.Key.Key_F9)
    await until(lambda: register.current.phase is Phase.COMPLETE, what="complete")
    text = shown_text(display)
    assert text == "Thank you! | $10.10 charged", text
    assert "Flat white" not in text and "Zoë" not in text, "a finished check shows no lines and no name"
    picture(display, "customer-display-thanks-1024x768", tmp_path, (1024, 768))
    # the thanks are for the customer who paid: not at the next start (the check restored finished), nor after
    # they went (a refund made later from History changes the finished check again)
    restarted = CustomerDisplay(host.terminal.money)
    restarted.attach(register, host.terminal.money)
    assert shown_text(restarted) == "Welcome"
    restarted.detach()
    restarted.deleteLater()
    display._thanks.timeout.emit()  # the thanks shown long enough
    display.show_state(register.current)
    assert shown_text(display) == "Welcome"

    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: display.welcome.isVisible(), what="the welcome")
    assert shown_text(display) == "Welcome"
    other = new_checked_in_customer(client, firstName="Ola", lastName="Next")
    cashier.on_customer_chosen(await host.terminal.customers.find(other["customerId"]))
    QTest.mouseClick(croissant, Qt.MouseButton.LeftButton)
    assert "Zoë" not in shown_text(display) and "Flat white" not in shown_text(display)
    assert "Croissant | $5.50" in shown_text(display)

    await finish(window, host)
    assert window.hardware.customer_display is None, "the display goes with the window"


async def test_the_welcome_names_the_store_once_it_has_a_name(
    profile: Paths,
    sandbox: SandboxServer,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    from pos_terminal.domain.details import StoreDetails

    save_settings(profile.config_file, Settings(terminal_id=TERMINAL_ID, devices=DeviceSettings(customer_display=True)))
    host = AppHost(profile, service_url=sandbox.url)
    window = await signed_in_window(host, make_window, client)
    display = window.hardware.customer_display
    assert display is not None and shown_text(display) == "Welcome"
    terminal = host.terminal
    assert terminal is not None
    assert terminal.set_store_details(StoreDetails("Café Nord", address="1 Quay St"), by=None)
    window.workspace.back_office.details_changed.emit()  # what the back office says after it saved the details
    assert shown_text(display) == "Welcome to Café Nord"
    picture(display, "customer-display-welcome-1024x768", tmp_path, (1024, 768))
    await finish(window, host)


def test_the_display_never_takes_the_cashiers_screen(qapp: QApplication) -> None:
    """On the test counter's two screens (tests/offscreen_counter.json): the customer's by default, the cashier's
    never, and no screen at all on a till of one screen (the display, screen-sized, had covered the till)."""
    cashiers, customers = QGuiApplication.screens()
    assert QGuiApplication.primaryScreen() is cashiers
    assert display_screen([cashiers, customers], -1, cashiers) is customers
    assert display_screen([cashiers, customers], 1, cashiers) is customers
    assert display_screen([cashiers, customers], 7, cashiers) is customers, "a screen since removed: the last"
    assert display_screen([cashiers, customers], 0, cashiers) is None
    assert display_screen([cashiers], -1, cashiers) is None
    assert display_screen([], -1, None) is None


async def test_the_display_on_the_cashiers_screen_waits_hidden_and_says_why(
    profile: Paths,
    sandbox: SandboxServer,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
) -> None:
    devices = DeviceSettings(customer_display=True, customer_display_screen=0)  # the cashier's own screen
    save_settings(profile.config_file, Settings(terminal_id=TERMINAL_ID, devices=devices))
    host = AppHost(profile, service_url=sandbox.url)
    window = await signed_in_window(host, make_window, client)
    display = window.hardware.customer_display
    assert display is not None and not display.isVisible()
    window.hardware.place_display()  # as a screen connected or removed makes it look again (the shift's opening
    # had been said over the first sentence)
    assert not display.isVisible()
    assert window.banner.text.text() == (
        "The customer display needs a screen of its own: it shows as soon as a second screen is connected."
    )
    missing = window.hardware.bar.no_display
    assert missing.isVisible() and missing.text() == "No customer screen", "said in the status bar until it shows"

    assert host.terminal is not None
    saved = host.terminal.settings.devices.model_copy(update={"customer_display_screen": 1})
    host.terminal.settings = host.terminal.settings.model_copy(update={"devices": saved})
    window.hardware.place_display()  # as a screen connected since does
    assert display.isVisible() and display.screen() is QGuiApplication.screens()[1]
    assert display.isFullScreen()
    assert not window.banner.isVisible() or "customer display" not in window.banner.text.text()
    assert not missing.isVisible()
    await finish(window, host)
