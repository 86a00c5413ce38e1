"""Composition of the terminal's services for one profile and one service address.

Used by the command line and the GUI alike; neither builds clients or stores
by hand. Starting the embedded sandbox is the caller's business (it sits above
this layer): it passes the sandbox's root address in.

This is the one place where services are built and wired to each other (the
top of the services' layers in pyproject.toml): the others take their client,
journal, settings values and callables in their constructors and never know the
terminal, so :meth:`Terminal.reports` and :func:`store_sync_for` live here.
"""

from __future__ import annotations

import asyncio
import getpass
import ipaddress
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pos_terminal.api.auth import AuthClient
from pos_terminal.api.client import PosClient, make_http_client
from pos_terminal.api.discovery import EndpointChoice
from pos_terminal.api.regions import EMBEDDED, Region, address_problem, load_regions
from pos_terminal.api.routes import Routes
from pos_terminal.api.sandbox_control import SandboxControl
from pos_terminal.config import Settings
from pos_terminal.disk.locks import ProfileLock
from pos_terminal.disk.money_memory import money_format
from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.details import StoreDetails
from pos_terminal.domain.people import Person
from pos_terminal.errors import ConfigError, UserError
from pos_terminal.journal.catalog import CatalogBook
from pos_terminal.journal.journal import FORGET_BATCH, Journal
from pos_terminal.keychain.backend import Backend, Keychain
from pos_terminal.keychain.tokens import TokenKeeper, move_earlier_sign_in, open_token_keeper
from pos_terminal.paths import Paths
from pos_terminal.services.catalog import Catalog, load_catalog, till_catalog
from pos_terminal.services.catalog_editor import CatalogEditor
from pos_terminal.services.checkout import Checkout
from pos_terminal.services.counter import Counter, printer_of
from pos_terminal.services.directory import Customers, History, Summaries
from pos_terminal.services.register import Register
from pos_terminal.services.session import Session
from pos_terminal.services.shifts import Shifts
from pos_terminal.services.staff import Staff
from pos_terminal.services.store_sync import StoreStatus, StoreSync, split_password
from pos_terminal.services.till import Till

if TYPE_CHECKING:
    from pos_terminal.domain.money import MoneyFormat
    from pos_terminal.services.reports import Reports


DONE_KEPT = timedelta(days=31)  # how long the journal keeps what it sent to the store and the slips it printed

log = logging.getLogger(__name__)


GIVEN = "service"  # the region key of a service given with --service URL


@dataclass(frozen=True)
class ServiceAddress:
    """Where the service is, the key its sign-in is stored under, and the region whose sign-in settings apply
    (``service`` for an address given with ``--service``)."""

    name: str
    auth_url: str
    pos_url: str
    payments_url: str
    production: bool
    account: str
    region: str = GIVEN

    @classmethod
    def from_region(cls, key: str, region: Region) -> ServiceAddress:
        return cls(region.name, region.auth_url, region.pos_url, region.payments_url, region.production, key, key)

    @classmethod
    def from_root(cls, root: str, *, name: str, account: str, production: bool) -> ServiceAddress:
        """A service whose auth is at ``root``, POS API at ``root/v4`` and payments at ``root``."""
        root = root.rstrip("/")
        return cls(name, root, f"{root}/v4", root, production, account)


def is_loopback(url: str) -> bool:
    """Whether ``url`` is on this computer alone (localhost, 127.0.0.0/8, ::1)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_service(
    settings: Settings,
    paths: Paths,
    *,
    service_url: str | None = None,
    embedded_root: str | None = None,
) -> ServiceAddress:
    """The service to talk to: ``--service URL``, else the configured region (the embedded sandbox by default)."""
    if service_url:
        if (problem := address_problem(service_url)) is not None:
            raise ConfigError(
                f"The service address “{service_url}” given with --service {problem}.",
                hint="Give it like https://host or http://127.0.0.1:8000.",
            )
        loopback = is_loopback(service_url)
        return ServiceAddress.from_root(
            service_url,
            name=urlsplit(service_url).netloc,  # "127.0.0.1:8000", "pos.example.com": the service as it is
            account=f"service:{service_url.rstrip('/')}",
            production=not loopback,
        )
    if settings.region == "sandbox":
        if embedded_root is None:
            raise ConfigError("The embedded sandbox is not running.")
        return ServiceAddress.from_region("sandbox", Region.for_embedded_sandbox(embedded_root))
    if settings.region == "custom":
        urls = settings.custom_urls
        if not (urls.auth_url and urls.pos_url):
            raise ConfigError(
                "The custom region has no addresses.", hint="Set the auth and POS addresses in the settings."
            )
        for key, url in (("auth_url", urls.auth_url), ("pos_url", urls.pos_url), ("payments_url", urls.payments_url)):
            if url and (problem := address_problem(url)) is not None:
                raise ConfigError(f"The custom address “{key}” in the settings {problem}.", hint="Correct it.")
        name = urlsplit(urls.pos_url).netloc or "custom"  # "Sign in … to pos.example.com", not "… to custom"
        return ServiceAddress(
            name, urls.auth_url, urls.pos_url, urls.payments_url, True, f"custom:{urls.auth_url}", "custom"
        )
    regions = load_regions(paths.regions_file if paths.regions_file.exists() else None)
    if settings.region not in regions:
        raise ConfigError(f"The region “{settings.region}” is unknown.", hint=f"Choose one of {', '.join(regions)}.")
    return ServiceAddress.from_region(settings.region, regions[settings.region])


def sign_in_key(paths: Paths, service: ServiceAddress, terminal_id: str) -> str:
    """The keychain entry of one profile's sign-in with one service deployment, as this terminal.

    The deployment is named by where its tokens come from (the auth address), except the embedded
    sandbox, whose address changes at every start and whose database is the profile's own; the profile
    by its configuration folder, so two profiles on one computer never share a sign-in.
    """
    issuer = "embedded" if service.account == EMBEDDED else service.auth_url
    return f"{service.account}|{issuer}|{terminal_id}|{paths.config_dir}"


def _earlier_sign_in_key(journal: Journal, service: ServiceAddress, terminal_id: str) -> str | None:
    """The key releases before 0.2 kept this sign-in under (shared by every profile), when this profile
    may take it: its journal says it signed in as this terminal and did not disconnect since. A new
    profile never takes another's sign-in."""
    until = journal.now() + timedelta(days=1)
    signed_in = journal.audit.last("sign-in", terminal_id=terminal_id, before=until)
    disconnected = journal.audit.last("disconnect", terminal_id=terminal_id, before=until)
    if signed_in is None or (disconnected is not None and disconnected.at >= signed_in.at):
        return None
    return f"{service.account}|{terminal_id}"


DEMO_MERCHANT_ID = "mer-cafe"  # the sandbox's demo merchant (Harbour Café)


def desktop_user() -> str | None:
    """Who works at this terminal, for the audit log: the desktop's (or the shell's) user."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return None


def store_sync_for(journal: Journal, paths: Paths, settings: Callable[[], Settings]) -> StoreSync:
    """The link to the store of the till whose settings ``settings()`` gives (read again when they change)."""
    current = settings()
    return StoreSync(
        journal,
        now=journal.now,
        terminal_id=current.terminal_id,
        install_id=current.install_id,
        currency=current.currency,
        secrets=_store_secrets(paths, current),
        own_catalog=lambda: till_catalog(CatalogBook(journal), settings().catalog_file),
    )


def _store_secrets(paths: Paths, settings: Settings) -> Callable[[str], TokenKeeper]:
    """Where the store database's password is kept: the keychain, as the sign-in is (or the file the settings
    allow when there is none), under the store's address and this profile."""

    def open_for(address: str) -> TokenKeeper:
        return open_token_keeper(
            account=f"store database {address} for {paths.data_dir}",
            file_path=paths.insecure_token_file,
            allow_insecure_file=settings.allow_insecure_token_file,
        )

    return open_for


async def join_store(
    paths: Paths, settings: Settings, url: str, password: str | None = None, *, kept: bool = True
) -> StoreStatus:
    """``store join`` for a till whose terminal is not running: the command line's ``store join`` and
    ``setup --store``, and the window's first-launch page, which joins before the settings are saved (a store that
    cannot be joined leaves nothing behind). ``url`` may carry the password; it is taken out of it. The journal is
    opened and closed on a worker thread, so a window's loop never waits on the disk.

    ``kept``: ``settings`` are, or will be once joined, the profile's. A profile with no settings joining (``store
    join`` before ``setup``) has no install identity yet to give: the store keeps its till row for the first set-up
    profile that joins with its terminal id."""
    address, in_url = split_password(url)
    journal = await asyncio.to_thread(lambda: Journal(paths.ensure().journal_file))
    try:
        store = store_sync_for(journal, paths, lambda: settings)
        if not kept:
            store.install_id = None
        try:
            return await store.join(address, in_url if in_url is not None else password)
        finally:
            await store.close()
    finally:
        await asyncio.to_thread(journal.close)


class Terminal:
    """Everything one running terminal holds, below the windows."""

    def __init__(self, paths: Paths, settings: Settings, service: ServiceAddress, *, now: Clock = utcnow) -> None:
        """``now`` is the one clock every service of this terminal reads (tests move it rather than sleep)."""
        self.paths = paths.ensure()
        self.settings = settings
        self.service = service
        self.money = money_format(settings.locale, settings.currency, paths.money_file)
        self.journal = Journal(paths.journal_file, now=now)
        self.actor = desktop_user()  # named on every audit entry this terminal writes
        self.http = make_http_client(timeout=settings.request_timeout_seconds)
        self.keychain = Keychain(paths.keychain_file)
        account = sign_in_key(paths, service, settings.terminal_id)

        def tokens_in(backend: Backend) -> TokenKeeper:
            return open_token_keeper(
                account=account,
                file_path=paths.insecure_token_file,
                allow_insecure_file=settings.allow_insecure_token_file,
                backend=backend,
            )

        def keychain_set_up_since() -> TokenKeeper | None:
            """Before a sign-in on a remembered "no keychain": the keychain set up since, if there is one now."""
            found = self.keychain.look_again()
            return tokens_in(found) if found is not None else None

        store = tokens_in(self.keychain.backend)

        def earlier_sign_in() -> bool:
            """No sign-in stored: one a release before 0.2 kept, when this profile may take it, moves here."""
            key = _earlier_sign_in_key(self.journal, service, settings.terminal_id)
            return key is not None and move_earlier_sign_in(
                store,
                key,
                file_path=paths.insecure_token_file,
                allow_insecure_file=settings.allow_insecure_token_file,
                backend=self.keychain.backend,
            )

        sign_in = settings.auth_for(service.region)
        endpoints = EndpointChoice(
            sign_in.token_endpoint, sign_in.device_authorization_endpoint, discovery=sign_in.discovery
        )
        auth = AuthClient(self.http, service.auth_url, settings.client_id, endpoints=endpoints, now=now)
        # a turn lasts one refresh at most, whose answer has the request deadline
        lock = ProfileLock(paths.sign_in_lock, timeout=2 * settings.request_timeout_seconds + 5)
        self.session = Session(
            auth,
            store,
            self.journal,
            terminal_id=settings.terminal_id,
            scope=sign_in.scope,
            actor=self.actor,
            lock=lock,
            better_keeper=keychain_set_up_since,
            earlier=earlier_sign_in,
        )
        self.session.restore()
        self.client = PosClient(
            self.http,
            service.pos_url,
            _LazyCredentials(self.session),
            routes=Routes().with_overrides(settings.routes),
            method_override=settings.method_override,
            now=now,
            states=settings.states,
        )
        self.checkout = Checkout(
            self.client,
            self.journal,
            terminal_id=settings.terminal_id,
            actor=self.actor,
            auto_cancel_hint=timedelta(seconds=settings.auto_cancel_hint_seconds),
            verify_window=timedelta(seconds=max(60.0, 4 * settings.request_timeout_seconds)),
            now=now,
        )
        self.customers = Customers(self.client)
        self.history = History(self.client, self.journal)
        self.summaries = Summaries(self.client)
        self.register = Register(
            self.journal,
            self.checkout,
            self.history,
            auto_cancel_hint=timedelta(seconds=settings.auto_cancel_hint_seconds),
            now=now,
        )
        devices = settings.devices
        self.counter = Counter(
            self.journal,
            printer_of(devices),
            money=self.money.format,
            receipt_of=lambda transaction: self.reports(actor=self.actor).receipt_of(transaction),
            cash_receipt_of=lambda check, customer: self.reports(actor=self.actor).cash_receipt_of(check, customer),
            cash_drawer=devices.cash_drawer,
            print_receipts=devices.print_receipts,
            terminal_id=settings.terminal_id,
            actor=self.actor,
        )
        self.register.on_change(self.counter.on_register_change)
        self.register.on_restore(self.counter.restored)
        self.store = store_sync_for(self.journal, paths, lambda: self.settings)
        self.catalog_editor = CatalogEditor(
            self.store.catalog,
            self.journal,
            terminal_id=settings.terminal_id,
            seed=lambda: load_catalog(self.settings.catalog_file),
        )
        self.staff = Staff(self.journal, terminal_id=settings.terminal_id, store=self.store, now=now)
        self.shifts = Shifts(self.journal, terminal_id=settings.terminal_id, now=now)
        self.till = Till(
            self.staff,
            self.shifts,
            self.journal,
            terminal_id=settings.terminal_id,
            discount_limit_bp=settings.discount_approval_percent * 100,
            idle_lock_seconds=settings.idle_lock_seconds,
            now=now,
        )
        self.checkout.guard = self.till
        self.register.guard = self.till
        self.till.on_change(self._person_changed)

    def at_the_till(self) -> str | None:
        """Who acts at this till now, as the audit log names them: the person signed in at it, else the computer's
        user (a till no person works yet)."""
        return self.till.actor or self.actor

    def _person_changed(self, person: Person | None) -> None:
        """Charges, state changes and the drawer's openings are written with the person at the till."""
        self.checkout.actor = self.counter.actor = person.name if person else self.actor

    def reports(self, *, actor: str | Callable[[], str | None] | None = None) -> Reports:
        """Reports made on this terminal by ``actor`` (its client, journal, service and the store's details).

        The listing looks back at least the configured auto-cancel interval, and never less than 24 hours. The
        reports' modules load with the first report or receipt, not with the till.
        """
        from pos_terminal.domain.report import DEFAULT_LOOKBACK
        from pos_terminal.services.reports import Reports

        hint = timedelta(seconds=self.settings.auto_cancel_hint_seconds)
        return Reports(
            self.client,
            self.journal,
            terminal_id=self.settings.terminal_id,
            region=self.service.name,
            production=self.service.production,
            actor=actor,
            lookback=max(DEFAULT_LOOKBACK, hint + timedelta(minutes=5)),
            money=self.money.format,
            money_in=lambda currency: self.money_of(currency).format,
            now=self.journal.now,
            details=lambda: self.store.details.get(),  # the Counter's receipts are made before the store is
        )

    def money_of(self, currency: str | None) -> MoneyFormat:
        """Amounts in ``currency`` (a report's: the store's day is in the store's) as this till writes its own; the
        till's format when ``currency`` is None or the till's."""
        if currency is None or currency == self.settings.currency:
            return self.money
        return money_format(self.settings.locale, currency, self.paths.money_file)

    def catalog(self) -> Catalog:
        """The catalog this till sells from (:func:`~pos_terminal.services.catalog.till_catalog`); CatalogError
        with one sentence when its file cannot be read."""
        return till_catalog(self.store.catalog, self.settings.catalog_file)

    def set_store_details(self, details: StoreDetails, *, by: str | None) -> bool:
        """Write the store's details (every till's, while this one is part of a store), with the old and new
        values in the audit log (of the logo, only whether there was one and is one); False when nothing changed."""
        before = self.store.details.get()
        if not self.store.details.set(replace(details, updated_by=by)):
            return False
        fields = ("name", "address", "tax_number", "receipt_header", "receipt_footer")
        changes = {
            field: [getattr(before, field, None), getattr(details, field)]
            for field in fields
            if getattr(before, field, None) != getattr(details, field)
        }
        old_logo = before.logo if before is not None else None
        if old_logo != details.logo:  # the log says that it changed; the picture itself is the store's, not the log's
            changes["logo"] = ["a logo" if old_logo else None, "a new logo" if details.logo else None]
        self.journal.audit.record(
            "store details changed", actor=by, terminal_id=self.settings.terminal_id, detail=changes
        )
        return True

    def currency_change_refused(self, currency: str) -> UserError | None:
        """Why this till may not change to ``currency`` now, or None (:func:`services.setup.currency_change_refused`:
        the register keeps every change of its check in the journal)."""
        from pos_terminal.services.setup import currency_change_refused

        return currency_change_refused(self.journal, self.settings.terminal_id, self.settings.currency, currency)

    @property
    def is_sandbox(self) -> bool:
        return not self.service.production

    async def approve_demo_sign_in(self, user_code: str, merchant_id: str = DEMO_MERCHANT_ID) -> None:
        """Sandbox only: approve a pending device sign-in as the demo merchant, as a person on /device would."""
        if self.service.production:
            raise UserError("Only a sandbox can approve a sign-in from the terminal.", hint="Sign in in a browser.")
        await SandboxControl(self.http, self.service.auth_url).approve_device(user_code, merchant_id)

    def forget_done(self, limit: int = FORGET_BATCH) -> int:
        """Let the journal go of up to ``limit`` copies nobody reads again: records the store database took, and
        slips printed or canceled, more than :data:`DONE_KEPT` ago (oldest first, one transaction). Returns how many;
        0 when none is left. The sales, the audit log and the service's records are kept for good."""
        before = self.journal.now() - DONE_KEPT
        return self.store.link.forget_sent(before, limit) or self.journal.prints.forget_finished(before, limit)

    async def forget_all_done(self) -> int:
        """:meth:`forget_done` until nothing is left, a batch at a time on a thread (a sale writes in between);
        returns how many rows went. The window calls it when it is ready, then every day."""
        forgotten = 0
        while batch := await asyncio.to_thread(self.forget_done):
            forgotten += batch
        if forgotten:
            log.info("the journal let go of %d copies done more than %d days ago", forgotten, DONE_KEPT.days)
        return forgotten

    def pending_changes(self) -> int:
        """State changes (complete, cancel, refund) waiting in the outbox for the service to confirm."""
        return len(self.journal.outbox.pending())

    @property
    def journal_path(self) -> Path:
        return self.paths.journal_file

    async def aclose(self) -> None:
        await self.store.close()
        self.counter.close()
        await self.http.aclose()
        self.journal.close()


class _LazyCredentials:
    """Asks the session at each request, so signing in or out takes effect at once."""

    def __init__(self, session: Session) -> None:
        self._session = session

    async def auth_header(self) -> tuple[str, str]:
        return await self._session.credentials().auth_header()

    async def after_unauthorized(self, rejected: tuple[str, str]) -> tuple[str, str] | None:
        return await self._session.credentials().after_unauthorized(rejected)
