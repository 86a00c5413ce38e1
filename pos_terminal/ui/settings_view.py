"""Settings: region and addresses, terminal id, locale and currency, method override, printer, catalog,
auto-cancel hint, the discount a cashier may give alone and the idle lock, where the sign-in is kept, the counter's
devices; and Disconnect, which asks first. Saving and disconnecting need a manager (the main window asks).

The printers offered are the system's and a PDF file for each print, in the profile's ``prints`` folder (named on
screen when chosen): a counter with no system printer prints receipts and reports there."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import ValidationError

from pos_terminal.config import CustomUrls, DeviceSettings, Settings, basic_choices, with_changes
from pos_terminal.errors import UserError
from pos_terminal.services.catalog import load_catalog
from pos_terminal.services.counter import check_devices
from pos_terminal.services.setup import check_custom_urls
from pos_terminal.services.store_sync import StoreStatus
from pos_terminal.services.terminal import GIVEN, Terminal
from pos_terminal.ui import widgets
from pos_terminal.ui.setup_view import CURRENCIES, LOCALES, MAX_ADDRESS, MAX_PASSWORD
from pos_terminal.ui.widgets import button, confirm, label, stepped, wheel_when_focused

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtPrintSupport import QPrinterInfo
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)


class SettingsView(QWidget):
    """Signals: ``saved(object)`` new Settings; ``disconnect_confirmed()``; ``about_requested()``;
    ``join_store_requested(str, object)`` the store database's address and its password (or None);
    ``leave_store_confirmed()``."""

    saved = Signal(object)
    disconnect_confirmed = Signal()
    about_requested = Signal()
    join_store_requested = Signal(str, object)
    leave_store_confirmed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = Settings()
        self.confirm: QMessageBox | None = None
        self.region = QComboBox()
        self.region.setAccessibleName("Region")
        self.auth_url = QLineEdit()
        self.pos_url = QLineEdit()
        self.payments_url = QLineEdit()
        for edit, name in (
            (self.auth_url, "Auth address"),
            (self.pos_url, "POS API address"),
            (self.payments_url, "Payments address"),
        ):
            edit.setAccessibleName(name)
            edit.setPlaceholderText("https://…")
        self.terminal_id = QLineEdit()
        self.terminal_id.setMaxLength(64)
        self.terminal_id.setAccessibleName("Terminal id")
        self.locale_box = QComboBox()
        self.locale_box.setEditable(True)
        self.locale_box.addItems(list(LOCALES))
        self.locale_box.setAccessibleName("Locale")
        self.currency_box = QComboBox()
        self.currency_box.setEditable(True)
        self.currency_box.addItems(list(CURRENCIES))
        self.currency_box.setAccessibleName("Currency")
        self.method_override = QCheckBox("Send PATCH as POST with X-HTTP-Method-Override")
        self.printer = QComboBox()
        self.printer.setAccessibleName("Printer")
        self.printer_hint = label(role="hint", wrap=True)
        self.printer_hint.setAccessibleName("Where prints go")
        self.printer_hint.setTextFormat(Qt.TextFormat.PlainText)  # a folder's name is never markup
        self.printer_hint.hide()
        self.printer.currentIndexChanged.connect(self._show_printer_hint)
        self.catalog_file = QLineEdit()
        self.catalog_file.setPlaceholderText("The catalog shipped with the terminal")
        self.catalog_file.setAccessibleName("Catalog file")
        self.catalog_browse = button("Browse…", name="Choose catalog file")
        self.catalog_browse.clicked.connect(self.on_browse_clicked)
        catalog_row = QHBoxLayout()
        catalog_row.addWidget(self.catalog_file, 1)
        catalog_row.addWidget(self.catalog_browse)
        self.auto_cancel = QSpinBox()
        self.auto_cancel.setRange(1, 86_400)
        self.auto_cancel.setSuffix(" s")
        self.auto_cancel.setAccessibleName("Automatic cancellation after")
        self.discount_limit = QSpinBox()
        self.discount_limit.setRange(0, 100)
        self.discount_limit.setSuffix(" %")
        self.discount_limit.setAccessibleName("Discounts above this need a manager")
        self.idle_lock = QSpinBox()
        self.idle_lock.setRange(0, 86_400)
        self.idle_lock.setSuffix(" s")
        self.idle_lock.setSpecialValueText("never")
        self.idle_lock.setAccessibleName("Lock the till after this long without use")
        self.insecure = QCheckBox("Keep the sign-in in a file when no keychain exists (insecure)")
        self.token_keeper = label(role="hint", wrap=True)
        self._device_fields()
        self._store_fields()

        form = widgets.form()
        form.addRow("&Region", self.region)
        form.addRow("Auth address", self.auth_url)
        form.addRow("POS API address", self.pos_url)
        form.addRow("Payments address", self.payments_url)
        form.addRow("&Terminal id", self.terminal_id)
        form.addRow("&Locale", self.locale_box)
        form.addRow("C&urrency", self.currency_box)
        form.addRow("", self.method_override)
        form.addRow("&Printer", self.printer)
        form.addRow("", self.printer_hint)
        form.addRow("Catalog file", catalog_row)
        form.addRow("Auto-cancel hint", stepped(self.auto_cancel, "automatic cancellation"))
        form.addRow("Discount a cashier may give", stepped(self.discount_limit, "discount a cashier may give"))
        form.addRow("Idle lock after", stepped(self.idle_lock, "idle lock"))
        form.addRow("Sign-in kept", self.token_keeper)
        form.addRow("", self.insecure)
        form.addRow(label("Counter devices", role="heading"))
        form.addRow("Receipt printer (ESC/POS)", self.receipt_printer)
        form.addRow("Printer profile", self.printer_profile)
        form.addRow("", self.print_receipts)
        form.addRow("", self.cash_drawer)
        form.addRow("Scanner prefix", self.scanner_prefix)
        form.addRow("Scanner ends codes with", self.scanner_suffix)
        form.addRow("Scanner keys at most", stepped(self.scanner_gap, "pause between a scan's keys"))
        form.addRow("Shortest code", stepped(self.scanner_min_length, "shortest code"))
        form.addRow("", self.customer_display)
        form.addRow("Customer display on", self.display_screen)
        form.addRow(label("Store of several tills", role="heading"))
        form.addRow("This till", self.store_state)
        form.addRow("Store database", self.store_address)
        form.addRow("Its password", self.store_password)
        form.addRow("", self.store_buttons)
        widgets.level_labels(form)
        self.error = label(role="reason", wrap=True)
        self.save_button = button("&Save settings", role="primary", name="Save settings")
        self.disconnect_button = button("&Disconnect…", role="danger", name="Disconnect")
        self.about_button = button("A&bout…", name="About pos-terminal")
        self.about_button.clicked.connect(self.about_requested)
        self.save_button.clicked.connect(self.on_save_clicked)
        self.disconnect_button.clicked.connect(self.ask_disconnect)
        self.region.currentIndexChanged.connect(self._custom_visible)

        inner = QWidget()
        inner_layout = QVBoxLayout(inner)
        inner_layout.addWidget(label("Settings", role="heading"))
        inner_layout.addLayout(form)
        inner_layout.addStretch(1)
        buttons = QHBoxLayout()  # below the scrolling form: always in sight, even at 1024×768
        buttons.addWidget(self.save_button, 2)
        buttons.addWidget(self.disconnect_button, 1)
        buttons.addWidget(self.about_button, 1)
        scroll = QScrollArea()
        scroll.setWidget(inner)
        scroll.setWidgetResizable(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        wheel_when_focused(self)  # scrolling the page changes none of its choices

    def _store_fields(self) -> None:
        self.store_state = label()
        self.store_state.setAccessibleName("Whether this till is part of a store")
        self.store_address = QLineEdit()
        self.store_address.setMaxLength(MAX_ADDRESS)
        self.store_address.setPlaceholderText("postgresql://pos@shop-server:5432/store?sslmode=require")
        self.store_address.setAccessibleName("Store database address")
        self.store_password = QLineEdit()
        self.store_password.setMaxLength(MAX_PASSWORD)
        self.store_password.setEchoMode(QLineEdit.EchoMode.Password)
        self.store_password.setPlaceholderText("Kept in the keychain, never in the settings")
        self.store_password.setAccessibleName("Store database password")
        self.join_store_button = button("&Join the store", name="Join the store")
        self.leave_store_button = button("Lea&ve the store…", name="Leave the store")
        self.join_store_button.clicked.connect(self.on_join_store_clicked)
        self.leave_store_button.clicked.connect(self.ask_leave_store)
        self.store_buttons = QWidget()
        row = QHBoxLayout(self.store_buttons)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.join_store_button)
        row.addWidget(self.leave_store_button)
        row.addStretch(1)

    def show_store(self, status: StoreStatus | None) -> None:
        """How this till stands with its store: the address and the link, or how to join one."""
        linked = status is not None and status.linked
        if status is not None and status.linked:
            self.store_state.setText(
                f"Part of a store · {status.sentence(lambda moment: moment.astimezone().strftime('%H:%M'))}"
            )
            self.store_state.setToolTip(f"The store database at {status.address}")
            self.store_address.setText(status.address or "")
        else:
            self.store_state.setText("Stands alone: its people, catalog and shifts are its own")
            self.store_state.setToolTip(
                "Join a store to share people, the catalog, the store's details, shifts, cash sales and the audit "
                "log with its other tills; the store database is set up once with “pos-terminal store init URL”."
            )
        self.store_address.setEnabled(not linked)
        self.store_password.setEnabled(not linked)
        self.join_store_button.setVisible(not linked)
        self.leave_store_button.setVisible(linked)
        self.store_password.clear()

    def show_link(self, terminal: Terminal) -> None:
        """The store's part after a join or a leave: the link, and where the catalog comes from now."""
        self.show_store(terminal.store.status())
        self._show_catalog_source(terminal)

    def _show_catalog_source(self, terminal: Terminal | None) -> None:
        """The catalog file counts only until the till has a catalog of its own (the store's, or one edited or
        imported here): then the field says where the catalog comes from instead."""
        linked = terminal is not None and terminal.store.linked
        own = terminal is not None and terminal.store.catalog.count() > 0
        self.catalog_file.setEnabled(not (linked or own))
        self.catalog_browse.setEnabled(not (linked or own))  # a file chosen then would not count
        if linked or own:
            self.catalog_file.clear()  # the placeholder says where the catalog comes from; the setting stays
        if linked:
            tip = "This till sells from the store's catalog, the same on every till: change it in the back office."
        elif own:
            tip = "This till sells from its own catalog, edited or imported here: change it in the back office."
        else:
            tip = "The file this till sells from, until its catalog is edited or imported in the back office."
        self.catalog_file.setToolTip(tip)
        self.catalog_file.setPlaceholderText(
            "The store's catalog" if linked else "Its own catalog" if own else "The catalog shipped with the terminal"
        )

    def on_join_store_clicked(self) -> None:
        address = self.store_address.text().strip()
        if not address:
            self.error.setText("The store database's address is empty. Type the address the store's owner gave.")
            self.store_address.setFocus()
            return
        self.error.clear()
        self.join_store_requested.emit(address, self.store_password.text() or None)

    def ask_leave_store(self) -> None:
        self.confirm = confirm(
            self,
            "Leave the store",
            "Leave the store?",
            "This till stands alone again; everything it recorded stays in its journal, and what it has not sent "
            "yet goes if it joins the store again.",
            self.leave_store_confirmed.emit,
        )

    def _device_fields(self) -> None:
        self.receipt_printer = QLineEdit()
        self.receipt_printer.setPlaceholderText("None: tcp://192.168.1.50:9100, usb://04b8:0202, serial:///dev/ttyUSB0")
        self.receipt_printer.setAccessibleName("Receipt printer address")
        self.receipt_printer.setToolTip("An ESC/POS receipt printer: on the network (port 9100), USB or a serial port")
        self.printer_profile = QComboBox()
        self.printer_profile.setEditable(True)
        self.printer_profile.addItems(["default", "TM-T20II", "TM-T88V", "TM-T88IV", "TM-T20"])
        self.printer_profile.setAccessibleName("Printer profile")
        self.printer_profile.setToolTip("The printer's model: its code pages and how many characters fit a line")
        self.print_receipts = QCheckBox("Print the receipt of every charge completed here")
        self.cash_drawer = QCheckBox("A cash drawer hangs on the receipt printer")
        self.scanner_prefix = QLineEdit()
        self.scanner_prefix.setMaxLength(8)
        self.scanner_prefix.setPlaceholderText("None")
        self.scanner_prefix.setAccessibleName("Scanner prefix")
        self.scanner_suffix = QComboBox()
        self.scanner_suffix.addItem("Enter", "enter")
        self.scanner_suffix.addItem("Tab", "tab")
        self.scanner_suffix.setAccessibleName("Scanner suffix")
        self.scanner_gap = QSpinBox()
        self.scanner_gap.setRange(5, 1000)
        self.scanner_gap.setSuffix(" ms apart")
        self.scanner_gap.setAccessibleName("Longest pause between a scan's keys")
        self.scanner_min_length = QSpinBox()
        self.scanner_min_length.setRange(3, 64)
        self.scanner_min_length.setSuffix(" characters")
        self.scanner_min_length.setAccessibleName("Shortest code a scan reads")
        self.customer_display = QCheckBox("Show the check to the customer on a second screen")
        self.display_screen = QComboBox()
        self.display_screen.setAccessibleName("Screen of the customer display")

    def _show_devices(self, devices: DeviceSettings) -> None:
        self.receipt_printer.setText(devices.receipt_printer)
        self.printer_profile.setCurrentText(devices.printer_profile)
        self.print_receipts.setChecked(devices.print_receipts)
        self.cash_drawer.setChecked(devices.cash_drawer)
        self.scanner_prefix.setText(devices.scanner_prefix)
        self.scanner_suffix.setCurrentIndex(max(0, self.scanner_suffix.findData(devices.scanner_suffix)))
        self.scanner_gap.setValue(devices.scanner_gap_ms)
        self.scanner_min_length.setValue(devices.scanner_min_length)
        self.customer_display.setChecked(devices.customer_display)
        self.display_screen.clear()
        self.display_screen.addItem("The last screen", -1)
        for index, screen in enumerate(QGuiApplication.screens()):
            self.display_screen.addItem(f"Screen {index + 1}: {screen.name()}", index)
        self.display_screen.setCurrentIndex(max(0, self.display_screen.findData(devices.customer_display_screen)))

    def _devices(self) -> DeviceSettings:
        try:
            devices = DeviceSettings(
                receipt_printer=self.receipt_printer.text().strip(),
                printer_profile=self.printer_profile.currentText().strip() or "default",
                print_receipts=self.print_receipts.isChecked(),
                cash_drawer=self.cash_drawer.isChecked(),
                scanner_prefix=self.scanner_prefix.text(),
                scanner_suffix=self.scanner_suffix.currentData(),
                scanner_gap_ms=self.scanner_gap.value(),
                scanner_min_length=self.scanner_min_length.value(),
                customer_display=self.customer_display.isChecked(),
                customer_display_screen=self.display_screen.currentData(),
            )
        except ValidationError as exc:
            raise UserError(f"A device setting is invalid: {exc.errors()[0]['msg']}.") from None
        return check_devices(devices)

    def show_settings(
        self,
        settings: Settings,
        regions: list[tuple[str, str]],
        terminal: Terminal | None,
        *,
        prints: Path | None = None,
    ) -> None:
        """Fill the form from ``settings``; ``prints`` is the folder the PDF-file printer saves each print in."""
        self._settings = settings
        self.region.blockSignals(True)
        self.region.clear()
        for key, name in regions:
            self.region.addItem(name, key)
        self.region.addItem("Custom addresses", "custom")
        urls = settings.custom_urls
        given = terminal.service if terminal is not None and terminal.service.region == GIVEN else None
        if given is not None and settings.region == "custom" and urls.pos_url == given.pos_url:
            given = None  # set up with --service URL: the settings name that service already, as they are
        if given is not None:  # started with --service URL: that service, whatever the settings name
            self.region.addItem(f"{given.name}, given with --service", GIVEN)
            urls = CustomUrls(auth_url=given.auth_url, pos_url=given.pos_url, payments_url=given.payments_url)
        self.region.setCurrentIndex(max(0, self.region.findData(GIVEN if given else settings.region)))
        self.region.setEnabled(given is None)
        self.region.setToolTip(
            "This window was started with --service URL: it uses that service, whatever region is saved here."
            if given is not None
            else ""
        )
        self.region.blockSignals(False)
        self.auth_url.setText(urls.auth_url)
        self.pos_url.setText(urls.pos_url)
        self.payments_url.setText(urls.payments_url)
        self.terminal_id.setText(settings.terminal_id)
        self.locale_box.setCurrentText(settings.locale)
        self.currency_box.setCurrentText(settings.currency)
        self.method_override.setChecked(settings.method_override)
        self.printer.clear()
        self.printer.addItem("The system's default printer", None)
        for name in QPrinterInfo.availablePrinterNames():
            self.printer.addItem(name, name)
        if prints is not None:
            from pos_terminal.ui.printing import pdf_folder_printer  # with the form, not at start-up

            self.printer.addItem("A PDF file for each print", pdf_folder_printer(prints))
        if settings.printer and self.printer.findData(settings.printer) < 0:
            self.printer.addItem(f"{settings.printer} (not found)", settings.printer)
        self.printer.setCurrentIndex(max(0, self.printer.findData(settings.printer)))
        self.catalog_file.setText(settings.catalog_file or "")
        self.auto_cancel.setValue(settings.auto_cancel_hint_seconds)
        self.discount_limit.setValue(settings.discount_approval_percent)
        self.idle_lock.setValue(settings.idle_lock_seconds)
        self.insecure.setChecked(settings.allow_insecure_token_file)
        self._show_devices(settings.devices)
        if terminal is not None:
            keeper = terminal.session.keeper
            self.token_keeper.setText(keeper.description + (" — INSECURE" if keeper.insecure else ""))
        self.disconnect_button.setEnabled(terminal is not None)
        self.show_store(terminal.store.status() if terminal is not None else None)
        self._show_catalog_source(terminal)
        self.join_store_button.setEnabled(terminal is not None)
        self.error.clear()
        self._custom_visible()

    def _show_printer_hint(self, _: int = -1) -> None:
        """Where a PDF-file printer puts each print, in one sentence under the printer chosen."""
        printer = self.printer.currentData()
        folder = isinstance(printer, str) and printer.startswith("pdf:") and printer.endswith(("/", os.sep))
        if folder:
            where = printer.removeprefix("pdf:").rstrip("/" + os.sep)
            self.printer_hint.setText(f"Each print is saved as a PDF file of its own in {where}; no printer is needed.")
        self.printer_hint.setVisible(folder)

    def _custom_visible(self) -> None:
        custom = self.region.currentData() == "custom"
        for edit in (self.auth_url, self.pos_url, self.payments_url):
            edit.setEnabled(custom)

    def choices(self) -> Settings:
        """The settings as edited; UserError with one sentence when something is invalid."""
        typed = basic_choices(self.terminal_id.text(), self.locale_box.currentText(), self.currency_box.currentText())
        catalog = self.catalog_file.text().strip() or None
        if not self.catalog_file.isEnabled():
            catalog = self._settings.catalog_file
        elif catalog:
            load_catalog(catalog)
        region = self.region.currentData()
        urls = CustomUrls(
            auth_url=self.auth_url.text().strip(),
            pos_url=self.pos_url.text().strip(),
            payments_url=self.payments_url.text().strip(),
        )
        if region == GIVEN:  # the service of --service is this run's: the saved region stays as it is
            region, urls = self._settings.region, self._settings.custom_urls
        check_custom_urls(region, urls)
        return with_changes(
            self._settings,
            **typed,
            region=region,
            custom_urls=urls,
            method_override=self.method_override.isChecked(),
            printer=self.printer.currentData(),
            catalog_file=catalog,
            auto_cancel_hint_seconds=self.auto_cancel.value(),
            discount_approval_percent=self.discount_limit.value(),
            idle_lock_seconds=self.idle_lock.value(),
            allow_insecure_token_file=self.insecure.isChecked(),
            devices=self._devices(),
        )

    def on_save_clicked(self) -> None:
        try:
            settings = self.choices()
        except UserError as exc:
            self.error.setText(exc.text())
            return
        self.error.clear()
        self.saved.emit(settings)

    def on_browse_clicked(self) -> None:
        dialog = QFileDialog(self, "Choose a catalog file", "", "Catalog (*.json)")
        dialog.fileSelected.connect(self.catalog_file.setText)
        dialog.open()

    def ask_disconnect(self) -> None:
        self.confirm = confirm(
            self,
            "Disconnect",
            "Disconnect this terminal from the service?",
            "The stored sign-in is removed; the terminal must be signed in again.",
            self.disconnect_confirmed.emit,
        )
