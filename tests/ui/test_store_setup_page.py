"""The set-up page and a real PostgreSQL store: a till in another currency, or with another till's terminal id, is
refused in one sentence; a store database with no schema yet is set up from the page, then joined. Settings keeps a
joined till's currency."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from psycopg import sql

from pos_terminal.app import AppHost
from pos_terminal.config import Settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.store_owner import set_up_store
from pos_terminal.services.terminal import join_store
from pos_terminal.store.database import StoreDatabase
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.setup_view import SetupView
from tests.conftest import StoreTarget
from tests.keyrings import MemoryKeyring
from tests.ui.conftest import finish, screenshot, signed_in_window, until
from tests.ui.layout import clipped

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def _fill(setup: SetupView, terminal_id: str, locale: str, currency: str, address: str, password: str) -> None:
    setup.terminal_id.setText(terminal_id)
    setup.locale_box.setCurrentText(locale)
    setup.currency_box.setCurrentText(currency)
    QTest.keyClicks(setup.store_address, address)
    QTest.keyClicks(setup.store_password, password)


async def _refused(window: MainWindow, host: AppHost, sentence: str, shot: str, tmp_path: Path) -> None:
    """Continue, and the join is refused with ``sentence`` on the page; nothing saved; shown at both sizes."""
    setup = window.setup
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    await until(lambda: not setup.joining, timeout=30, what="the store's answer")
    assert setup.error.text() == sentence
    assert window.page is Page.SETUP and not host.paths.config_file.exists(), "a till that cannot join is not set up"
    assert not setup.offer.isVisible()
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        screenshot(window, f"{shot}-{width}x{height}", tmp_path)
        assert setup.error.height() >= setup.error.heightForWidth(setup.error.width()), "the sentence is whole"


async def test_a_till_in_pounds_is_refused_by_a_store_in_euros_on_the_set_up_page(
    tmp_path: Path,
    make_window: Callable[[AppHost], MainWindow],
    postgres_target: StoreTarget,
    memory_keyring: MemoryKeyring,
) -> None:
    password = postgres_target.password or ""
    postgres_target.open().init_schema()  # a store set up before it had a currency: the first till gives it EUR
    postgres_target.close_all()
    euros = Settings(terminal_id="CAFE-1", locale="de_DE", currency="EUR")
    await join_store(Paths.profile(tmp_path / "euros"), euros, postgres_target.url, password)
    host = AppHost(Paths.profile(tmp_path / "pounds"))
    window = make_window(host)
    window.start()
    _fill(window.setup, "CAFE-2", "en_GB", "GBP", postgres_target.url, password)
    await _refused(
        window,
        host,
        "This store counts in EUR; this till is set to GBP. Set the till to EUR to join, or join another store.",
        "store-refused-currency",
        tmp_path,
    )
    with StoreDatabase(postgres_target.url, password=password) as database:
        assert database.get("till", "CAFE-2") is None
    await finish(window, host, wait=False)


async def test_a_second_till_called_as_a_till_of_the_store_is_refused_on_the_set_up_page(
    tmp_path: Path,
    make_window: Callable[[AppHost], MainWindow],
    postgres_target: StoreTarget,
    memory_keyring: MemoryKeyring,
) -> None:
    password = postgres_target.password or ""
    postgres_target.open().init_schema()
    postgres_target.close_all()
    first = Settings(terminal_id="CAFE-1", locale="de_DE", currency="EUR")
    await join_store(Paths.profile(tmp_path / "first"), first, postgres_target.url, password)

    host = AppHost(Paths.profile(tmp_path / "second"))  # another profile, on the same computer, told it is CAFE-1
    window = make_window(host)
    window.start()
    _fill(window.setup, "CAFE-1", "de_DE", "EUR", postgres_target.url, password)
    await _refused(
        window,
        host,
        "Another till of this store is already called CAFE-1. Choose another terminal id.",
        "store-refused-duplicate-id",
        tmp_path,
    )
    with StoreDatabase(postgres_target.url, password=password) as database:
        till = database.get("till", "CAFE-1")
    assert till is not None and till["install_id"] == first.install_id
    await finish(window, host, wait=False)


async def test_a_store_database_with_no_schema_is_set_up_from_the_set_up_page_and_joined(
    tmp_path: Path,
    make_window: Callable[[AppHost], MainWindow],
    postgres_target: StoreTarget,
    memory_keyring: MemoryKeyring,
) -> None:
    server = postgres_target.server
    assert server is not None
    owner_password = postgres_target.password or ""
    database_name = postgres_target.url.rsplit("/", 1)[1]
    till_user = f"till_{database_name}"  # a user who may connect, and not create tables
    with server.admin() as admin:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'till-pw'").format(sql.Identifier(till_user)))
    till_url = server.url(database_name, user=till_user)

    host = AppHost(Paths.profile(tmp_path / "new-store"))
    window = make_window(host)
    window.start()
    setup = window.setup
    _fill(setup, "CAFE-1", "de_DE", "EUR", till_url, "till-pw")
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    await until(lambda: setup.offer.isVisible(), timeout=30, what="the offer to set the store up")
    assert "has not been set up yet" in setup.error.text()
    assert "pos-terminal store init" not in setup.error.text(), "no terminal is needed for it"
    assert "counts in EUR" in setup.offer_text.text() and till_user in setup.offer_text.text()
    assert setup.owner_password.isVisible() and setup.owner_password.hasFocus()
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        screenshot(window, f"store-init-offer-{width}x{height}", tmp_path)
        for text in (setup.error, setup.offer_text):  # whole, not squeezed to fit
            assert text.height() >= text.heightForWidth(text.width()), text.text()
        for field in (setup.region, setup.terminal_id, setup.store_address, setup.owner_password):
            assert field.height() >= field.sizeHint().height(), field.accessibleName()
        bottom = setup.continue_button.mapTo(window, setup.continue_button.rect().bottomLeft()).y()
        assert bottom < window.status.mapTo(window, window.status.rect().topLeft()).y(), "Continue stays in sight"

    QTest.keyClicks(setup.owner_password, "till-pw")  # the till's user owns nothing: one sentence
    QTest.mouseClick(setup.set_up_button, Qt.MouseButton.LeftButton)
    await until(lambda: not setup.joining, timeout=30, what="the refusal")
    assert setup.error.text() == (
        f"User “{till_user}” may not create the store's tables in the database at {server.host}:{server.port}/"
        f"{database_name}. Give the address of the database's owner, or ask the owner to set it up."
    )
    assert setup.offer.isVisible() and not host.paths.config_file.exists()
    window.resize(1024, 768)  # the longest sentence with the offer, at the smallest screen
    screenshot(window, "store-init-refused-1024x768", tmp_path)
    for text in (setup.error, setup.offer_text):
        assert text.height() >= text.heightForWidth(text.width()), text.text()
    for field in (setup.region, setup.store_address, setup.owner_password, setup.continue_button):
        assert field.height() >= field.sizeHint().height(), field.accessibleName()

    setup.store_address.setText(postgres_target.url)  # the owner's address: the offer is for the new one
    assert not setup.offer.isVisible()
    setup.store_password.setText(owner_password)
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    await until(lambda: setup.offer.isVisible(), timeout=30, what="the offer again")
    QTest.keyClicks(setup.owner_password, owner_password)
    QTest.keyClick(setup.owner_password, Qt.Key.Key_Return)
    await until(lambda: window.page is Page.SIGN_IN, timeout=30, what="set up, joined, and on to the sign-in")
    assert setup.error.text() == ""
    terminal = window.terminal
    assert terminal is not None and terminal.store.linked
    assert host.settings.currency == "EUR" and host.paths.config_file.exists()
    with StoreDatabase(postgres_target.url, password=owner_password) as database:
        assert database.currency() == "EUR"
        till = database.get("till", "CAFE-1")
    assert till is not None and till["install_id"] == host.settings.install_id
    await finish(window, host, wait=False)


async def test_settings_keep_the_currency_of_a_till_that_is_part_of_a_store(
    tmp_path: Path,
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    memory_keyring: MemoryKeyring,
) -> None:
    address = f"sqlite:///{tmp_path / 'shop' / 'store.sqlite3'}"
    set_up_store(address, None, currency="AUD")
    await join_store(host.paths, host.settings, address)
    window = await signed_in_window(host, make_window, client)
    window.show_tab(Tab.SETTINGS)
    settings = window.workspace.settings_view
    settings.currency_box.setCurrentText("GBP")
    QTest.mouseClick(settings.save_button, Qt.MouseButton.LeftButton)
    assert window.banner.text.text() == (
        f"The currency cannot change while this till is part of the store at {address}, which counts in AUD."
        " Leave the store first to count in another currency."
    )
    assert host.settings.currency == "AUD" and window.approvals.prompt is None
    await finish(window, host, wait=False)  # the till exchanges with the store for as long as it runs


async def test_a_store_in_a_new_file_is_set_up_from_the_set_up_page_with_no_password(
    tmp_path: Path, make_window: Callable[[AppHost], MainWindow], memory_keyring: MemoryKeyring
) -> None:
    address = f"sqlite:///{tmp_path / 'shop' / 'store.sqlite3'}"
    host = AppHost(Paths.profile(tmp_path / "till"))
    window = make_window(host)
    window.start()
    setup = window.setup
    setup.terminal_id.setText("CAFE-1")
    setup.currency_box.setCurrentText("NZD")
    QTest.keyClicks(setup.store_address, address)
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    await until(lambda: setup.offer.isVisible(), timeout=30, what="the offer to set the store up")
    assert not setup.owner_password.isVisible() and setup.set_up_button.hasFocus(), "a file has no owner's password"
    assert "counts in NZD" in setup.offer_text.text()
    QTest.keyClick(setup.set_up_button, Qt.Key.Key_Space)
    await until(lambda: window.page is Page.SIGN_IN, timeout=30, what="set up, joined, and on to the sign-in")
    with StoreDatabase(address) as database:
        assert database.currency() == "NZD"
    await finish(window, host, wait=False)


async def test_the_offer_to_set_up_a_store_fits_beside_the_addresses_of_a_service_given(
    tmp_path: Path,
    sandbox: SandboxServer,
    make_window: Callable[[AppHost], MainWindow],
    postgres_target: StoreTarget,
    memory_keyring: MemoryKeyring,
) -> None:
    """The page at its fullest: a window started with ``--service URL`` shows the three addresses, and a store
    database with no schema adds the offer and its password; nothing is cut, and Continue stays in sight."""
    host = AppHost(Paths.profile(tmp_path / "given"), service_url=sandbox.url)
    window = make_window(host)
    window.start()
    setup = window.setup
    assert setup.region.currentData() == "custom"
    _fill(setup, "CAFE-1", "de_DE", "EUR", postgres_target.url, postgres_target.password or "")
    QTest.mouseClick(setup.continue_button, Qt.MouseButton.LeftButton)
    await until(lambda: setup.offer.isVisible(), timeout=30, what="the offer to set the store up")
    assert all(edit.isVisible() for edit in (setup.auth_url, setup.pos_url, setup.payments_url))
    for width, height in ((1024, 768), (1920, 1080)):
        window.resize(width, height)
        QApplication.processEvents()
        screenshot(window, f"store-init-offer-service-{width}x{height}", tmp_path)
        assert clipped(window) == [], (width, height)
        for text in (setup.error, setup.offer_text):
            assert text.height() >= text.heightForWidth(text.width()), text.text()
        bottom = setup.continue_button.mapTo(window, setup.continue_button.rect().bottomLeft()).y()
        assert bottom < window.status.mapTo(window, window.status.rect().topLeft()).y(), "Continue stays in sight"
    await finish(window, host, wait=False)
