"""First launch: region (the embedded sandbox preselected; a window started with ``--service URL`` shows that service
as custom addresses), terminal id, locale and currency, and optionally the store this till joins (its database's
address and password). The terminal id is typed: none is guessed.

With no store address the till stands alone, as ever. With one, Continue joins the store before the page is left
(:func:`pos_terminal.services.terminal.join_store`, as ``pos-terminal setup --store`` does): a store that cannot be
joined says why in one sentence here, and nothing is saved, so the address can be mended or cleared. A store
database with no schema yet is offered to be set up here, a new store counting in the currency chosen, with its
owner's password (:func:`pos_terminal.services.store_owner.set_up_store`, as ``pos-terminal store init URL``);
then the join goes on."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pos_terminal.config import CustomUrls, Settings
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.errors import UserError
from pos_terminal.services.setup import CUSTOM, set_up
from pos_terminal.services.store_owner import set_up_store
from pos_terminal.services.store_sync import StoreStatus, split_password
from pos_terminal.services.terminal import join_store
from pos_terminal.store.store_errors import StoreCurrencyDiffers, StoreSchemaMissing, TillIdTaken
from pos_terminal.ui import widgets
from pos_terminal.ui.tasks import Messages, Tasks
from pos_terminal.ui.widgets import Waiting, button, label, least_room, wheel_when_focused

if TYPE_CHECKING:
    from pos_terminal.paths import Paths

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

FORM_WIDTH = 720  # the setup's fields at most, margins included

LOCALES = ("en_AU", "en_NZ", "en_GB", "en_SG", "en_US", "de_DE", "fr_FR")
CURRENCIES = ("AUD", "NZD", "GBP", "SGD", "USD", "EUR")
MAX_ADDRESS = 500  # a store database's address, with its options
MAX_PASSWORD = 200


class SetupView(QWidget):
    """Signals: ``done(Settings)`` when the cashier confirms valid choices (and the till has joined the store
    asked for, whose status is then :attr:`joined`)."""

    done = Signal(object)

    def __init__(
        self,
        settings: Settings,
        regions: list[tuple[str, str]],
        paths: Paths,
        messages: Messages,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._settings = settings
        self._regions = [key for key, _ in regions]
        self._paths = paths
        self.tasks = Tasks(messages, self)
        self.joined: StoreStatus | None = None
        # the fields keep a width a person reads across, centred: at 1920 px they stretched to about 1,260 px
        self.form_box = QWidget(self)
        self.form_box.setMaximumWidth(FORM_WIDTH)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addStretch(1)
        outer.addWidget(self.form_box, 100)
        outer.addStretch(1)
        layout = QVBoxLayout(self.form_box)
        # room at 1024×768 for the page at its fullest: the custom addresses, and the offer to set up a store
        layout.setContentsMargins(48, 8, 48, 8)
        layout.addWidget(label("Welcome to pos-terminal", role="heading"))
        self.intro = label(
            "Choose where this terminal works. The embedded sandbox needs no account: "
            "every feature works against it, with demo customers.",
            role="hint",
            wrap=True,
        )
        layout.addWidget(self.intro)
        form = widgets.form()
        form.setVerticalSpacing(4)
        self.region = QComboBox()
        self.region.setAccessibleName("Region")
        for key, name in regions:
            self.region.addItem(name, key)
        self.region.addItem("Custom addresses", CUSTOM)
        self.region.setCurrentIndex(max(0, self.region.findData(settings.region)))
        self.auth_url = QLineEdit(settings.custom_urls.auth_url)
        self.pos_url = QLineEdit(settings.custom_urls.pos_url)
        self.payments_url = QLineEdit(settings.custom_urls.payments_url)
        for edit, name in (
            (self.auth_url, "Auth address"),
            (self.pos_url, "POS API address"),
            (self.payments_url, "Payments address"),
        ):
            edit.setAccessibleName(name)
            edit.setPlaceholderText("https://…")
            edit.setMaxLength(MAX_ADDRESS)
        self.terminal_id = QLineEdit(settings.terminal_id)
        self.terminal_id.setPlaceholderText("A short name of its own, like LANE-1")
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
        self.example = label(role="hint", wrap=True)  # a currency refused says why: it must not widen the form
        least_room(self.example, 2)  # nor move it, as typing goes from a refusal to an example and back
        self.example.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)  # level with its label
        self.store_address = QLineEdit()
        self.store_address.setMaxLength(MAX_ADDRESS)
        self.store_address.setPlaceholderText("postgresql://till@host/shop or sqlite:///path")
        self.store_address.setAccessibleName("Store database address")
        self.store_address.setToolTip("Leave it empty for a till that stands alone, as most are.")
        self.store_password = QLineEdit()
        self.store_password.setMaxLength(MAX_PASSWORD)
        self.store_password.setEchoMode(QLineEdit.EchoMode.Password)
        self.store_password.setPlaceholderText("PostgreSQL only; kept in the keychain, never in the settings")
        self.store_password.setAccessibleName("Store database password")
        form.addRow("&Region", self.region)
        form.addRow("Auth address", self.auth_url)
        form.addRow("POS API address", self.pos_url)
        form.addRow("Payments address", self.payments_url)
        form.addRow("&Terminal id", self.terminal_id)
        form.addRow("&Locale", self.locale_box)
        form.addRow("C&urrency", self.currency_box)
        form.addRow("Amounts look like", self.example)
        self.store_hint = label(
            "Optional, for a shop with several tills: the store database they share (people, the catalog, shifts, "
            "cash sales, the audit log); one with no store in it yet is set up from here. Left empty, this till "
            "stands alone.",
            role="hint",
            wrap=True,
        )
        self.store_hint.setContentsMargins(0, 12, 0, 0)  # a part of its own, apart from the till's own choices
        form.addRow(self.store_hint)
        form.addRow("&Store database", self.store_address)
        form.addRow("Its pass&word", self.store_password)
        widgets.level_labels(form)
        layout.addLayout(form)
        self.form = form
        self.error = label(role="reason", wrap=True)
        self.error.setAccessibleName("Why not")
        # a refusal coming or going moves nothing, Continue least of all (a line kept: the page at its fullest, with
        # the three addresses and the offer to set up a store, has no room for two at 1024×768)
        least_room(self.error, 1)
        layout.addWidget(self.error)
        self._set_up_offer(layout)
        self.progress = label(role="hint")
        self.progress.setAccessibleName("Joining the store")
        kept = self.progress.sizePolicy()
        kept.setRetainSizeWhenHidden(True)  # beside Continue, in room of its own: above it, it moved Continue
        self.progress.setSizePolicy(kept)
        self.progress.hide()
        self.waiting = Waiting(self.progress.setText, self)
        self.continue_button = button("&Continue", role="primary", name="Continue")
        self.continue_button.setDefault(True)
        self.continue_button.clicked.connect(self.on_continue_clicked)
        go = QHBoxLayout()
        go.addWidget(self.continue_button, 2)
        go.addWidget(self.progress, 1)
        layout.addLayout(go)
        layout.addStretch(1)
        self.inputs: tuple[QWidget, ...] = (
            self.region,
            self.auth_url,
            self.pos_url,
            self.payments_url,
            self.terminal_id,
            self.locale_box,
            self.currency_box,
            self.store_address,
            self.store_password,
            self.owner_password,
            self.set_up_button,
        )
        self.locale_box.currentTextChanged.connect(self._preview)
        self.currency_box.currentTextChanged.connect(self._preview)
        self.store_address.textChanged.connect(self._password_wanted)
        self.region.currentIndexChanged.connect(self._custom_visible)
        self.store_address.textChanged.connect(self._hide_offer)
        for edit in (self.terminal_id, self.store_address, self.store_password):
            edit.returnPressed.connect(self.on_continue_clicked)
        self._preview()
        self._password_wanted()
        self._custom_visible()
        wheel_when_focused(self)

    def _custom_visible(self) -> None:
        """The addresses only for the custom region: the others bring their own. The words on the embedded sandbox
        give them their room (at 1024×768 the store's hint was cut)."""
        custom = self.region.currentData() == CUSTOM
        for edit in (self.auth_url, self.pos_url, self.payments_url):
            self.form.setRowVisible(edit, custom)
        self.intro.setVisible(not custom)

    def _set_up_offer(self, layout: QVBoxLayout) -> None:
        """The offer to set up a store database that has no schema yet, shown when a join finds one."""
        self.offer = QWidget(self.form_box)
        self.offer.setAccessibleName("Set up a new store")
        box = QVBoxLayout(self.offer)
        box.setContentsMargins(0, 0, 0, 0)
        self.offer_text = label(role="hint", wrap=True)
        box.addWidget(self.offer_text)
        row = QHBoxLayout()
        self.owner_password = QLineEdit()
        self.owner_password.setMaxLength(MAX_PASSWORD)
        self.owner_password.setEchoMode(QLineEdit.EchoMode.Password)
        self.owner_password.setPlaceholderText("The password of the database's owner")
        self.owner_password.setAccessibleName("Owner's password")
        self.owner_password.returnPressed.connect(self.on_set_up_clicked)
        row.addWidget(self.owner_password, 1)
        self.set_up_button = button("Set &up the store", name="Set up the store")
        self.set_up_button.clicked.connect(self.on_set_up_clicked)
        row.addWidget(self.set_up_button)
        box.addLayout(row)
        layout.addWidget(self.offer)
        self.offer.hide()

    def _offer_set_up(self, address: str, currency: str) -> None:
        """The join found no schema: say so, and offer to set the store up here, in the currency chosen."""
        where, _ = split_password(address)
        in_a_file = where.lower().startswith("sqlite")
        if in_a_file:
            text = f"Set it up here as a new store that counts in {currency}, then join it."
        else:
            owner = urlsplit(where).username or "the user in the address"
            text = (
                f"Set it up here as a new store that counts in {currency}, then join it, with the password of {owner}"
                " (who must own the database)."
            )
        self.offer_text.setText(text)
        self.owner_password.setVisible(not in_a_file)
        self.store_hint.hide()  # the offer says what the database is for now; both did not fit at 1024 × 768
        self.offer.show()
        (self.owner_password if self.owner_password.isVisible() else self.set_up_button).setFocus()

    def _hide_offer(self) -> None:
        """Another address: the offer was for the one that had no schema."""
        self.offer.hide()
        self.store_hint.show()
        self.owner_password.clear()

    def _preview(self) -> None:
        try:
            self.example.setText(
                MoneyFormat(self.locale_box.currentText(), self.currency_box.currentText()).format(123456)
            )
        except UserError as exc:
            self.example.setText(exc.sentence)

    def _password_wanted(self) -> None:
        """A password only for a store on a server: none with no store, nor for a file."""
        address = self.store_address.text().strip()
        self.store_password.setEnabled(bool(address) and not address.lower().startswith("sqlite"))

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
            custom_urls=CustomUrls(
                auth_url=self.auth_url.text().strip(),
                pos_url=self.pos_url.text().strip(),
                payments_url=self.payments_url.text().strip(),
            ),
        )

    @property
    def joining(self) -> bool:
        return self.tasks.is_running("join")

    def on_continue_clicked(self) -> None:
        if self.joining:
            return
        try:
            settings = self.choices()
        except UserError as exc:
            self.error.setText(exc.text())
            return
        self.error.clear()
        address = self.store_address.text().strip()
        if not address:
            self.joined = None
            self.done.emit(settings)
            return
        self._hide_offer()
        password = self._password()  # read before the fields are disabled for the join
        self._show_joining(True)
        self.tasks.run(self._join(settings, address, password), key="join", on_error=self._join_failed)

    def on_set_up_clicked(self) -> None:
        """Set up the store database the join found without a schema (as ``store init``), then join it."""
        if self.joining:
            return
        try:
            settings = self.choices()
        except UserError as exc:
            self.error.setText(exc.text())
            return
        address = self.store_address.text().strip()
        if not address:
            self._hide_offer()
            return
        self.error.clear()
        where, in_url = split_password(address)
        owner = (self.owner_password.text() or None) if self.owner_password.isVisible() else None
        password = self._password()  # read before the fields are disabled
        self._show_joining(True, "Setting up the store database…")
        self.tasks.run(
            self._set_up_and_join(settings, address, password, where, owner or in_url),
            key="join",
            on_error=self._set_up_failed,
        )

    def _password(self) -> str | None:
        return (self.store_password.text() or None) if self.store_password.isEnabled() else None

    async def _set_up_and_join(
        self, settings: Settings, address: str, password: str | None, where: str, owner: str | None
    ) -> None:
        try:
            await asyncio.to_thread(set_up_store, where, owner, currency=settings.currency)
        except BaseException:
            self._show_joining(False)
            raise
        self._hide_offer()
        self.waiting.start("Joining the store…")
        await self._join(settings, address, password)

    async def _join(self, settings: Settings, address: str, password: str | None) -> None:
        """No manager approves this join: at the first launch there is nobody yet (the store brings its people)."""
        try:
            self.joined = await join_store(self._paths, settings, address, password)
        finally:
            self._show_joining(False)
        self.done.emit(settings)

    def _join_failed(self, error: UserError) -> None:
        """One sentence; every field stays as typed, to mend the address or clear it and stand alone. A store
        database with no schema yet is offered to be set up here instead of sending the owner to a terminal."""
        if isinstance(error, StoreSchemaMissing):
            self.error.setText(error.sentence)
            self._offer_set_up(self.store_address.text().strip(), self.currency_box.currentText().strip().upper())
            return
        self.error.setText(error.text())
        if isinstance(error, StoreCurrencyDiffers):
            self.currency_box.setFocus()
        elif isinstance(error, TillIdTaken):
            self.terminal_id.setFocus()
        else:
            self.store_address.setFocus()

    def _set_up_failed(self, error: UserError) -> None:
        """One sentence (no right to create tables, a newer schema, a wrong password); the offer stays."""
        self.error.setText(error.text())
        (self.owner_password if self.owner_password.isVisible() else self.set_up_button).setFocus()

    def _show_joining(self, joining: bool, what: str = "Joining the store…") -> None:
        for widget in self.inputs:
            widget.setEnabled(not joining)
        self.continue_button.setEnabled(not joining)
        self.progress.setVisible(joining)
        if joining:
            self.waiting.start(what)
        else:
            self.waiting.stop()
            self._password_wanted()
