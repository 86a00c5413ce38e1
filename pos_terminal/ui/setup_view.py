"""First launch: region (the embedded sandbox preselected), terminal id, locale and currency."""

from __future__ import annotations

from pos_terminal.config import Settings, suggested_terminal_id
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.errors import UserError
from pos_terminal.services.setup import set_up
from pos_terminal.ui import widgets
from pos_terminal.ui.widgets import button, label

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLineEdit, QVBoxLayout, QWidget

LOCALES = ("en_AU", "en_NZ", "en_GB", "en_SG", "en_US", "de_DE", "fr_FR")
CURRENCIES = ("AUD", "NZD", "GBP", "SGD", "USD", "EUR")


class SetupView(QWidget):
    """Signals: ``done(Settings)`` when the cashier confirms valid choices."""

    done = Signal(object)

    def __init__(self, settings: Settings, regions: list[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self._regions = [key for key, _ in regions]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 32, 48, 32)
        layout.addWidget(label("Welcome to pos-terminal", role="heading"))
        layout.addWidget(
            label(
                "Choose where this terminal works. The embedded sandbox needs no account: "
                "every feature works against it, with demo customers.",
                role="hint",
                wrap=True,
            )
        )
        form = widgets.form()
        self.region = QComboBox()
        self.region.setAccessibleName("Region")
        for key, name in regions:
            self.region.addItem(name, key)
        self.region.setCurrentIndex(max(0, self.region.findData(settings.region)))
        self.terminal_id = QLineEdit(settings.terminal_id or suggested_terminal_id())
        self.terminal_id.setAccessibleName("Terminal id")
        self.terminal_id.setMaxLength(64)
        self.locale_box = QComboBox()
        self.locale_box.setEditable(True)
        self.locale_box.setAccessibleName("Locale")
        self.locale_box.addItems(list(LOCALES))
        self.locale_box.setCurrentText(settings.locale)
        self.currency_box = QComboBox()
        self.currency_box.setEditable(True)
        self.currency_box.setAccessibleName("Currency")
        self.currency_box.addItems(list(CURRENCIES))
        self.currency_box.setCurrentText(settings.currency)
        self.example = label(role="hint")
        form.addRow("&Region", self.region)
        form.addRow("&Terminal id", self.terminal_id)
        form.addRow("&Locale", self.locale_box)
        form.addRow("C&urrency", self.currency_box)
        form.addRow("Amounts look like", self.example)
        widgets.level_labels(form)
        layout.addLayout(form)
        self.error = label(role="reason", wrap=True)
        layout.addWidget(self.error)
        self.continue_button = button("&Continue", role="primary", name="Continue")
        self.continue_button.setDefault(True)
        self.continue_button.clicked.connect(self.on_continue_clicked)
        layout.addWidget(self.continue_button)
        layout.addStretch(1)
        self.locale_box.currentTextChanged.connect(self._preview)
        self.currency_box.currentTextChanged.connect(self._preview)
        self.terminal_id.returnPressed.connect(self.on_continue_clicked)
        self._preview()

    def _preview(self) -> None:
        try:
            self.example.setText(
                MoneyFormat(self.locale_box.currentText(), self.currency_box.currentText()).format(123456)
            )
        except UserError as exc:
            self.example.setText(exc.sentence)

    def choices(self) -> Settings:
        """The settings as chosen; raises UserError with one sentence when a choice is invalid
        (the checks of ``pos-terminal setup``)."""
        return set_up(
            self._settings,
            regions=self._regions,
            region=self.region.currentData(),
            terminal_id=self.terminal_id.text(),
            locale=self.locale_box.currentText(),
            currency=self.currency_box.currentText(),
        )

    def on_continue_clicked(self) -> None:
        try:
            settings = self.choices()
        except UserError as exc:
            self.error.setText(exc.text())
            return
        self.error.clear()
        self.done.emit(settings)
