"""Reading from the service: checked-in customers, transaction history, summaries."""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from pos_terminal.api.client import Listing, PosClient
from pos_terminal.api.models import Customer, Summary, Transaction, TransactionRow
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import CashSale, Journal


class CustomerNotFound(UserError):
    hint = "Check that the customer is checked in at this merchant, then refresh the list."


class Customers:
    """The customers checked in at the merchant, as last fetched."""

    def __init__(self, client: PosClient) -> None:
        self.client = client
        self.checked_in: list[Customer] = []

    async def refresh(self) -> list[Customer]:
        self.checked_in = await self.client.list_customers()
        return self.checked_in

    async def find(self, key: str) -> Customer:
        """A checked-in customer by customer id, check-in id, member number or check-in number."""
        for customer in await self.refresh():
            if key in (customer.customer_id, customer.check_in_id, customer.member_no, customer.check_in_number):
                return customer
        raise CustomerNotFound(f"No checked-in customer matches “{key}”.")


Listed = TypeVar("Listed", Transaction, TransactionRow)
Read = TypeVar("Read")  # what a listing is read as: whole records, or the listing as sent


class History:
    """Transactions by range and terminal; what the terminal learns is kept in its journal.

    A range is by this terminal's clock; the service stamps and lists by its own. The range asked of it is
    moved by how far the service's clock is off (known from the ``Date`` of its answers): otherwise a service
    three hours ahead stamps a sale made at nine in the evening after midnight, outside "today".
    """

    def __init__(self, client: PosClient, journal: Journal) -> None:
        self.client = client
        self.journal = journal

    async def list(self, start: datetime, end: datetime, terminal_id: str | None) -> list[Transaction]:
        """Whole records: for the command line's output. The window lists :meth:`rows`."""
        transactions = await self._listing(self.client.list_transactions, start, end, terminal_id)
        self._learn_states(transactions)
        return transactions

    async def rows(self, start: datetime, end: datetime, terminal_id: str | None) -> builtins.list[TransactionRow]:
        """The same listing, each entry read only as far as a list shows it (a tenth of a whole record in
        memory: a day of records kept on screen no longer costs a day's worth of models)."""
        return self.rows_of(await self.listing(start, end, terminal_id))

    async def listing(self, start: datetime, end: datetime, terminal_id: str | None) -> Listing:
        """The listing as the service sent it, one object however long the day: read by :meth:`rows_of` once the
        rows it replaces on a screen are let go of (a day's rows twice at once, at every visit, raised the window's
        memory with the day: docs/memory.md)."""
        return await self._listing(self.client.transaction_listing, start, end, terminal_id)

    def rows_of(self, listing: Listing) -> builtins.list[TransactionRow]:
        rows = listing.read(TransactionRow)
        self._learn_states(rows)
        return rows

    async def _listing(
        self,
        read: Callable[..., Awaitable[Read]],
        start: datetime,
        end: datetime,
        terminal_id: str | None,
    ) -> Read:
        """The range by the service's clock; read again when its answer showed that clock further off than the
        range asked for allowed (the first request of a process learns it)."""
        asked = self._by_service_clock(start, end)
        listed = await read(*asked, terminal_id=terminal_id)
        moved = self._by_service_clock(start, end)
        if moved != asked:
            listed = await read(*moved, terminal_id=terminal_id)
        return listed

    def _by_service_clock(self, start: datetime, end: datetime) -> tuple[datetime, datetime]:
        skew = self.client.clock_offset or timedelta(0)
        return start + skew, end + skew

    def cash_sales(self, start: datetime, end: datetime, terminal_id: str | None, own: str) -> builtins.list[CashSale]:
        """This till's cash sales (``own`` is its id) in the range by its own clock, for a list of ``terminal_id``'s
        sales (None: every terminal's). The service never sees a cash sale: each is this till's own record, kept
        in its journal, so a list of another terminal has none of them (that till's History lists its own)."""
        if terminal_id is not None and terminal_id != own:
            return []
        return self.journal.cash_sales.between(start, end, terminal_id=own)

    async def get(self, transaction_id: str) -> Transaction:
        transaction = await self.client.get_transaction(transaction_id)
        if self.journal.transactions.get(transaction.transaction_id) is not None:
            self.journal.transactions.remember(
                transaction_id=transaction.transaction_id,
                ref_id=transaction.ref_id,
                state=str(transaction.state),
                record=transaction.model_dump(by_alias=True, mode="json"),
            )
        return transaction

    async def refresh_authorized(self) -> None:
        """Read again each transaction of this terminal's charges that the journal last knew as authorized: one the
        service canceled on its own, or a till completed while this one was away, no longer counts as held (the
        till refuses to close a shift while one is). One that cannot be read now stays as the journal knows it."""
        for transaction_id in self.journal.intents.authorized_charges():
            with contextlib.suppress(UserError):
                await self.get(transaction_id)

    def _learn_states(self, listed: Sequence[Transaction | TransactionRow]) -> None:
        """The journal keeps the last state of the transactions it knows: one read, and one write for those whose
        state moved (a write per listed transaction, each waiting for the disk, took seconds for a day)."""
        known = self.journal.transactions.states([t.transaction_id for t in listed])
        moved = {t.transaction_id: str(t.state) for t in listed if t.transaction_id in known}
        self.journal.transactions.update_states({tid: state for tid, state in moved.items() if known[tid] != state})


class Summaries:
    def __init__(self, client: PosClient) -> None:
        self.client = client

    async def fetch(
        self, start: datetime, end: datetime | None, *, terminal_id: str | None, merge: bool
    ) -> list[Summary]:
        result = await self.client.summary(start, end, terminal_id=terminal_id, merge=merge)
        return result if isinstance(result, list) else [result]
