"""A till's part in a store of several tills: sending what it wrote, taking what the others wrote.

The till writes people, shifts and drawer counts, cash sales and the audit log in its own journal first, and each
record is queued there for the store database in the same transaction (:mod:`pos_terminal.journal.store_link`). A sale
never waits on the store: :meth:`StoreSync.sync` sends the queue, oldest first, and then applies the store's
changes since the last one applied, and :meth:`StoreSync.run` does that whenever the store says something changed
(PostgreSQL's LISTEN/NOTIFY; a poll on SQLite) or this till queued something. When the store cannot be reached the
till goes on with the copy it has, and the status says since when and how much waits.

What the till takes from the store: people (their names, roles, PIN hashes and lockouts), merged by the rules in
``docs/store.md``: the store's record wins, except that an edit this till has not sent yet waits for the store's
verdict on it, and a lockout known anywhere holds everywhere. A till writes only its own shifts, cash sales and
audit entries; the store's day reads every till's from the store database (:mod:`pos_terminal.services.reports`).

The store database is reached from a worker thread (the driver blocks); nothing here blocks the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit, urlunsplit

from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.words import counted
from pos_terminal.errors import UserError
from pos_terminal.journal.catalog import CatalogBook, DetailsBook
from pos_terminal.journal.journal import Journal, audit_record, cash_sale_record
from pos_terminal.journal.staff import PeopleBook, ShiftBook
from pos_terminal.journal.store_link import LinkBook, LinkState, Refused, Waiting
from pos_terminal.keychain.tokens import TokenKeeper
from pos_terminal.services.catalog import Catalog, drafts_of

if TYPE_CHECKING:
    from pos_terminal.store.database import Change, ChangeListener, StoreDatabase, StoreDayRecords

log = logging.getLogger(__name__)

BATCH = 200  # records sent, or changes applied, per round trip
IDLE_WAIT = 0.5  # seconds between looks at this till's queue while nothing comes from the store
MAX_BACKOFF = 10.0  # seconds between tries while the store cannot be reached


class NotInAStore(UserError):
    sentence = "This till is not part of a store."
    hint = "Join one with “pos-terminal store join URL” (or in Settings)."


class StoreOffline(UserError):
    """Something only the store may decide, asked for while it cannot be reached."""

    about = "store"


@dataclass(frozen=True)
class StoreStatus:
    """How this till's link to its store stands, for the status bar and ``store status``."""

    linked: bool
    address: str | None = None
    joined_at: datetime | None = None
    online: bool | None = None  # None: no contact yet since the till started
    offline_since: datetime | None = None
    last_change_at: datetime | None = None
    last_contact_at: datetime | None = None
    waiting: int = 0
    last_error: str | None = None
    refused: tuple[Refused, ...] = ()

    def sentence(self, local_time: Callable[[datetime], str], *, short: bool = False) -> str:
        """One line: "Store online", "Store offline since 14:02 · 12 changes waiting"; ``short`` for a narrow bar,
        without the time and the noun: "Store offline · 12 waiting"."""
        if not self.linked:
            return "Not part of a store"
        waiting = ""
        if self.waiting:
            waiting = f" · {self.waiting} waiting" if short else f" · {counted(self.waiting, 'change')} waiting"
        if self.offline_since is not None:
            return (
                f"Store offline{waiting}" if short else f"Store offline since {local_time(self.offline_since)}{waiting}"
            )
        if self.online is None:
            return f"Store: connecting…{waiting}"
        return f"Store online{waiting}"


@dataclass
class SyncReport:
    """What one pass did."""

    sent: int = 0
    refused: list[str] = field(default_factory=list)  # the store's sentences for records it will never take
    applied: int = 0  # changes of the store applied here
    people_changed: bool = False  # the local copy of people moved (the till's list of names must be read again)
    catalog_changed: bool = False  # the copy of the store's catalog moved (the product grid must be built again)
    details_changed: bool = False  # the store's name, address, receipt header or footer changed

    def add(self, other: SyncReport) -> None:
        self.sent += other.sent
        self.applied += other.applied
        self.refused += other.refused
        self.people_changed = self.people_changed or other.people_changed
        self.catalog_changed = self.catalog_changed or other.catalog_changed
        self.details_changed = self.details_changed or other.details_changed


class StoreSync:
    """One till's link to its store database (none for a till that stands alone)."""

    def __init__(
        self,
        journal: Journal,
        *,
        terminal_id: str,
        secrets: Callable[[str], TokenKeeper],
        open_database: Callable[[str, str | None], StoreDatabase] | None = None,
        now: Clock = utcnow,
        own_catalog: Callable[[], Catalog] | None = None,
        install_id: str | None = None,
        currency: str | None = None,
    ) -> None:
        """``own_catalog``: the till's catalog while it stands alone (its file), which it offers, when it joins, to
        a store that has no catalog yet. ``install_id`` (the profile's identity) and ``currency`` are what the store
        checks at a join: one till per terminal id, one currency per store."""
        self.journal = journal
        self.terminal_id = terminal_id
        self.install_id = install_id
        self.currency = currency
        self.link = LinkBook(journal)
        self.people = PeopleBook(journal)
        self.shifts = ShiftBook(journal)
        self.catalog = CatalogBook(journal)
        self.details = DetailsBook(journal)
        self._own_catalog = own_catalog
        self._secrets = secrets
        self._open_database = open_database or _open_database
        self.now = now
        self._database: StoreDatabase | None = None
        self._database_for: str | None = None
        self._pass = asyncio.Lock()
        self._listeners: list[Callable[[SyncReport], None]] = []

    def on_sync(self, listener: Callable[[SyncReport], None]) -> None:
        """Call ``listener`` after every pass (the status bar, the till's list of people)."""
        self._listeners.append(listener)

    # --- how it stands -----------------------------------------------------------------------------------------

    @property
    def linked(self) -> bool:
        return self.link.state() is not None

    def status(self) -> StoreStatus:
        state = self.link.state()
        if state is None:
            return StoreStatus(linked=False, waiting=self.link.waiting_count())
        contacted = state.last_contact_at is not None or state.offline_since is not None  # answered, or failed to
        return StoreStatus(
            linked=True,
            address=state.address,
            joined_at=state.joined_at,
            online=state.offline_since is None if contacted else None,
            offline_since=state.offline_since,
            last_change_at=state.last_change_at,
            last_contact_at=state.last_contact_at,
            waiting=self.link.waiting_count(),
            last_error=state.last_error,
            refused=tuple(self.link.refused()),
        )

    # --- joining and leaving -----------------------------------------------------------------------------------

    async def join(self, address: str, password: str | None) -> StoreStatus:
        """Make this till part of the store at ``address`` (its password goes to the keychain, never the address).

        The store must be set up (``store init``), and refuses a till whose currency is not the store's, or whose
        terminal id another till of it has (:meth:`StoreDatabase.hello`). People the store has by the same name
        become the store's (its record wins: it is the store's person); the till's other people, its shifts, cash
        sales and audit log are queued and sent, once each. The till sells from the store's catalog from then on; a
        store with no catalog yet gets this till's, and one with no details yet this till's details.
        """
        # on a worker thread: the first store of a process loads SQLAlchemy and the driver (the window's loop waits
        # for nothing)
        database = await asyncio.to_thread(self._open_database, address, password)
        try:
            joining = {"install_id": self.install_id, "currency": self.currency}
            await asyncio.to_thread(partial(database.check_join, self.terminal_id, **joining))
            changes = await asyncio.to_thread(_all_people, database)
            has_catalog, has_details = await asyncio.to_thread(_store_has, database)
            own = self._own_catalog() if self._own_catalog is not None and not has_catalog else None
            if password:  # no keychain and no opt-in to the file: one sentence, and nothing is joined
                self._secrets(address).save({"password": password})
            # the store knows this till (its install) only now: a join refused before leaves no till row behind
            await asyncio.to_thread(partial(database.hello, self.terminal_id, **joining))
        except BaseException:
            await asyncio.to_thread(database.close)
            raise
        adopted = {str(c["id"]) for c in changes}
        for record in changes:
            self.people.take_from_store(record, keep_edits=False)
        await asyncio.to_thread(self.catalog.clear)  # the store's catalog, not one from a store joined before
        if own is not None:
            # not a change anyone made: nothing for the catalog's undo to take back (it took every product off sale
            # at every till, as undoing an import of all of them)
            await asyncio.to_thread(partial(self.catalog.publish, *drafts_of(own), undoable=False))
        records: list[tuple[str, str, dict[str, Any]]] = []
        records += self.catalog.records()
        if not has_details and (details := self.details.record()) is not None:
            records.append(("store_info", "1", details))
        records += [("person", str(p["id"]), p) for p in self.people.records() if str(p["id"]) not in adopted]
        records += [("shift", str(s["id"]), s) for s in self.shifts.records()]
        records += [("cash_sale", sale.uid, cash_sale_record(sale)) for sale in self.journal.cash_sales.all()]
        records += [("audit", entry.uid, audit_record(entry)) for entry in self.journal.audit.all()]
        self._use(address, database)
        self.link.join(address, self.terminal_id, records)
        self.journal.audit.record("store joined", terminal_id=self.terminal_id, detail={"store": address})  # queued too
        await self.sync()
        return self.status()

    async def leave(self) -> StoreStatus:
        """Stop being part of the store, after sending what waits if the store can be reached. Nothing is lost:
        the journal keeps every record, and what is still queued goes if the till joins a store again."""
        state = self._state()
        self.journal.audit.record(
            "store left", terminal_id=self.terminal_id, detail={"store": state.address}
        )  # sent too
        try:
            await self.sync()
        except UserError as exc:
            log.info("leaving the store without sending what waits: %s", exc.sentence)
        self.link.leave()
        await self.close()
        return self.status()

    # --- one pass ----------------------------------------------------------------------------------------------

    async def sync(self) -> SyncReport:
        """Send everything that waits and apply what the store changed, a batch at a time; a store out of reach is
        recorded, and raised."""
        report = await self._sync_once()
        while report.sent and self.link.waiting_count():  # each pass sends one batch; stop if one sends nothing
            more = await self._sync_once()
            report.add(more)
            if not more.sent:
                break
        return report

    async def _sync_once(self) -> SyncReport:
        """Send one batch of what waits, then apply what the store changed (the run loop's step: between two
        batches the changes of the other tills are applied, however busy this till is)."""
        state = self._state()
        async with self._pass:
            report = SyncReport()
            try:
                database = self._connected(state.address)
                await self._send(database, report)
                await self._apply(database, state, report)
                if state.offline_since is not None or state.last_contact_at is None or report.sent or report.applied:
                    await asyncio.to_thread(self.link.reached)
            except UserError as exc:
                if _out_of_reach(exc):
                    self.link.unreachable(exc.sentence)
                raise
            finally:
                for listener in list(self._listeners):
                    listener(report)
            return report

    async def _send(self, database: StoreDatabase, report: SyncReport) -> None:
        """Send what waited when the pass began, in one transaction of the store (one lock, one commit); a pass
        that also sent what was queued meanwhile would apply nothing for as long as the till keeps writing. When
        the store refuses one record of the batch, the records go one by one, and the refused one leaves the queue
        with the store's sentence."""
        waiting = await asyncio.to_thread(self.link.waiting, BATCH)
        if not waiting:
            return
        records = [(entry.kind, entry.body) for entry in waiting]
        try:
            await asyncio.to_thread(database.put_many, records, terminal_id=self.terminal_id)
        except (UserError, ValueError) as exc:
            if isinstance(exc, UserError) and _out_of_reach(exc):
                raise
            await self._send_one_by_one(database, waiting, report)
            return
        await asyncio.to_thread(self.link.sent_many, [entry.id for entry in waiting])
        report.sent += len(waiting)

    async def _send_one_by_one(self, database: StoreDatabase, waiting: list[Waiting], report: SyncReport) -> None:
        for entry in waiting:
            try:
                await asyncio.to_thread(database.put_many, [(entry.kind, entry.body)], terminal_id=self.terminal_id)
            except UserError as exc:
                if _out_of_reach(exc):
                    raise
                log.warning("the store refused %s %s: %s", entry.kind, entry.key, exc.sentence)
                await asyncio.to_thread(self.link.refuse, entry.id, exc.sentence)
                report.refused.append(exc.sentence)
                continue
            except ValueError as exc:  # a record the store's schema cannot take: a bug, never accepted
                log.error("the store cannot take %s %s: %s", entry.kind, entry.key, exc)
                await asyncio.to_thread(self.link.refuse, entry.id, f"The store cannot take this record ({exc}).")
                report.refused.append(str(exc))
                continue
            await asyncio.to_thread(self.link.sent_many, [entry.id])
            report.sent += 1

    async def _apply(self, database: StoreDatabase, state: LinkState, report: SyncReport) -> None:
        """Apply the store's changes after the last one applied here (only the records a till keeps a copy of are
        read: the rest of what other tills write is read by the store's day report, from the store)."""
        from pos_terminal.store.schema import Kind

        seq = state.last_seq
        kept = {Kind.PERSON, Kind.CATEGORY, Kind.PRODUCT, Kind.STORE_INFO}
        while changes := await asyncio.to_thread(database.changes_since, seq, BATCH, records_of=kept):
            await asyncio.to_thread(self._take, changes, report)
            seq = changes[-1].seq

    def _take(self, changes: list[Change], report: SyncReport) -> None:
        """The journal's part of applying ``changes`` (on a worker thread: each write waits for the disk)."""
        editing = {kind: self.link.waiting_keys(kind) for kind in ("person", "category", "product", "store_info")}
        from_others = False
        catalog: list[tuple[str, dict[str, Any]]] = []
        for change in changes:
            from_others = from_others or change.terminal_id != self.terminal_id
            kind, record = str(change.kind), change.record
            report.applied += 1
            if record is None or kind not in editing:
                continue
            keep = change.key in editing[kind]
            if kind == "person":
                changed = self.people.take_from_store(record, keep_edits=keep)
                report.people_changed = report.people_changed or changed
            elif kind == "store_info":
                changed = self.details.take_from_store(record, keep_edits=keep)
                report.details_changed = report.details_changed or changed
            else:
                catalog.append((kind, record))
        if catalog:  # a whole catalog's changes in one write, not one per product
            changed = self.catalog.take_from_store(catalog, keep=editing["category"] | editing["product"])
            report.catalog_changed = report.catalog_changed or changed
        self.link.applied(changes[-1].seq, changed=from_others)

    # --- all day -----------------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Sync whenever the store or this till has something new, until canceled; back off while out of reach."""
        backoff = 1.0
        listener: ChangeListener | None = None
        try:
            while self.linked:
                try:
                    await self._sync_once()
                    if listener is None:
                        listener = await asyncio.to_thread(self._connected(self._state().address).listen)
                    await self._wait_for_news(listener)
                except UserError as exc:
                    log.info("store: %s", exc.sentence)
                    if listener is not None:
                        await asyncio.to_thread(listener.close)
                        listener = None
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, MAX_BACKOFF)
                    continue
                backoff = 1.0
        finally:
            if listener is not None:
                await asyncio.to_thread(listener.close)

    async def _wait_for_news(self, listener: ChangeListener) -> None:
        """Until the store announces a change or this till queues a record (looked at every IDLE_WAIT s)."""
        while self.link.waiting_count() == 0:
            state = self._state()
            if await asyncio.to_thread(listener.wait, state.last_seq, IDLE_WAIT) is not None:
                return

    async def day(self, start: datetime, end: datetime) -> StoreDayRecords:
        """Every till's records of ``[start, end)`` from the store database (after sending this till's own)."""
        state = self._state()
        with contextlib.suppress(UserError):
            await self.sync()  # this till's latest records are part of the day; the read below says if it is away
        return await asyncio.to_thread(self._connected(state.address).day, start, end)

    async def require_online(self, what: str) -> None:
        """Before something only the store may decide (a new person): one pass, or :class:`StoreOffline`."""
        if not self.linked:
            return
        try:
            await self.sync()
        except UserError as exc:
            if _out_of_reach(exc):
                raise StoreOffline(
                    f"{what} only while the store database can be reached.",
                    hint=f"{exc.sentence} The till goes on selling meanwhile.",
                ) from exc
            raise

    async def close(self) -> None:
        database, self._database = self._database, None
        self._database_for = None
        if database is not None:
            await asyncio.to_thread(database.close)

    # --- plumbing ----------------------------------------------------------------------------------------------

    def _state(self) -> LinkState:
        state = self.link.state()
        if state is None:
            raise NotInAStore()
        return state

    def _connected(self, address: str) -> StoreDatabase:
        if self._database is None or self._database_for != address:
            # a file has no password: the keychain is asked only for a server's (a locked one must not stop a till)
            secret = {} if address.startswith("sqlite") else self._secrets(address).load() or {}
            self._use(address, self._open_database(address, secret.get("password")))
        assert self._database is not None
        return self._database

    def _use(self, address: str, database: StoreDatabase) -> None:
        if self._database is not None and self._database is not database:
            self._database.close()
        self._database, self._database_for = database, address


def split_password(url: str) -> tuple[str, str | None]:
    """The store database's address without its password, and the password (None when the address has none):
    only the address is written anywhere; the password goes to the keychain."""
    parts = urlsplit(url.strip())
    if parts.password is None:
        return url.strip(), None
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = f"{parts.username or ''}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc)), unquote(parts.password)


def _open_database(address: str, password: str | None) -> StoreDatabase:
    from pos_terminal.store.database import StoreDatabase  # SQLAlchemy and the driver load only for a store

    return StoreDatabase(address, password=password)


def _out_of_reach(error: UserError) -> bool:
    """The store could not be asked (network, server, credentials, schema): nothing to do with one record."""
    from pos_terminal.store.database import StoreConflict, StoreDatabaseError, WrongTill

    return isinstance(error, StoreDatabaseError) and not isinstance(error, StoreConflict | WrongTill)


def _store_has(database: StoreDatabase) -> tuple[bool, bool]:
    """Whether the store has a catalog (a product, active or not), and its details."""
    from pos_terminal.store.schema import Kind

    return database.has(Kind.PRODUCT), database.get(Kind.STORE_INFO, "1") is not None


def _all_people(database: StoreDatabase) -> list[dict[str, Any]]:
    """Every person the store has, as it has them now."""
    people: dict[str, dict[str, Any]] = {}
    seq = 0
    from pos_terminal.store.schema import Kind

    while changes := database.changes_since(seq, BATCH, records_of={Kind.PERSON}):
        for change in changes:
            seq = change.seq
            if str(change.kind) == "person" and change.record is not None:
                people[change.key] = change.record
    return list(people.values())
