"""The terminal's charge against a bare httpx POST doing the same create on the same sandbox route.

The terminal's charge (:meth:`Checkout.charge`) builds and validates the request, writes the intent and the
audit entry to the journal (SQLite, WAL, ``synchronous=FULL``) before the request, sends it, reads the id from
``Location`` and records the transaction. The bare POST sends the same check, with a new ``refId`` and a new
line each time as the terminal's are, with the same token on a kept-alive :class:`httpx.AsyncClient`: the
sandbox creates a transaction for both. (It once reused one ``refId``: the sandbox answered it as a replay,
which is less work, and the "overhead" included that difference.) Both run interleaved against one sandbox,
in one event loop; the ratio of their medians is the benchmark.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import keyring
import pytest
from keyring.backends import fail

from pos_terminal.api.client import USER_AGENT
from pos_terminal.api.models import Customer
from pos_terminal.config import Settings
from pos_terminal.domain.check import Check, Discount, Item
from pos_terminal.domain.lifecycle import Action
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer, SandboxSettings
from pos_terminal.services.checkout import ChangeStatus, ChargeStatus
from pos_terminal.services.terminal import ServiceAddress, Terminal
from tests.bench.conftest import Bench
from tests.conftest import mint_token, new_checked_in_customer

TARGET = 2.0
CI_BOUND = 6.0
SALE_TARGET = 2.0
CUSTOMERS = 25
SALE_CI_BOUND = 6.0
CHECK = (
    Check()
    .add_item(Item(name="Flat white", quantity=2, unit_price=550, tax_rate_bp=1000))
    .add_item(Item(name="Banana bread", quantity=1, unit_price=620, tax_rate_bp=1000))
    .add_discount(Discount(name="Staff", percent_bp=1000))
)


@dataclass
class Lane:
    """One terminal and one bare client against one sandbox, driven from one event loop."""

    loop: asyncio.AbstractEventLoop
    terminal: Terminal
    customers: list[Customer]
    bare: httpx.AsyncClient
    create_url: str
    sales: int = 0

    @property
    def customer(self) -> Customer:
        """The customer of this sale: a counter's customers come and go (one customer charged a hundred times,
        every charge still held, is no day at a till; the check for a second hold reads each of theirs)."""
        return self.customers[self.sales % len(self.customers)]

    def _next_check(self) -> Check:
        # each sale its own check: the same check for the same customer, still authorized, would be refused
        self.sales += 1
        return CHECK.add_item(Item(name=f"Cookie {self.sales}", unit_price=150, tax_rate_bp=1000))

    def terminal_charge(self) -> str:
        check = self._next_check()
        outcome = self.loop.run_until_complete(self.terminal.checkout.charge(check, self.customer))
        assert outcome.status is ChargeStatus.AUTHORIZED and outcome.transaction_id, outcome
        return outcome.transaction_id

    def terminal_sale(self) -> None:
        """The whole sale as the window makes it: charge, complete, then History's listing of the day."""
        transaction_id = self.terminal_charge()
        done = self.loop.run_until_complete(self.terminal.checkout.change_state(transaction_id, Action.COMPLETE))
        assert done.status is ChangeStatus.DONE, done
        rows = self.loop.run_until_complete(self.terminal.history.rows(*self.today, "BENCH"))
        assert any(row.transaction_id == transaction_id for row in rows)

    def bare_sale(self) -> None:
        """The same three requests, bare: create, complete, list."""
        location = self.bare_post()
        done = self.loop.run_until_complete(self.bare.patch(location, json={"state": "complete"}))
        assert done.status_code == 200, done.text
        start, end = (moment.isoformat().replace("+00:00", "Z") for moment in self.today)
        listed = self.loop.run_until_complete(
            self.bare.get(self.create_url, params={"from": start, "to": end, "terminalId": "BENCH-BARE"})
        )
        assert listed.status_code == 200 and location.rsplit("/", 1)[-1] in listed.text

    @property
    def today(self) -> tuple[datetime, datetime]:
        now = datetime.now(UTC)
        return now - timedelta(hours=1), now + timedelta(minutes=1)

    def bare_post(self) -> str:
        body = self._next_check().charge_request(
            customer=self.customer.reference(), ref_id=f"bench-bare-{self.sales}", terminal_id="BENCH-BARE"
        )
        response = self.loop.run_until_complete(self.bare.post(self.create_url, json=body))
        assert response.status_code == 201, response.text
        return response.headers["location"]


@pytest.fixture(scope="module")
def lane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lane]:
    base: Path = tmp_path_factory.mktemp("bench-create")
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # no keychain here: the sign-in goes to the opted-in file
    server = SandboxServer(SandboxSettings(db_path=str(base / "sandbox.sqlite3")))
    server.start()
    loop = asyncio.new_event_loop()
    try:
        with httpx.Client(base_url=server.url, timeout=10) as control:
            token = mint_token(control, expiresIn=0)
            checked_in = [new_checked_in_customer(control, balance=2_000_000_000) for _ in range(CUSTOMERS)]
        service = ServiceAddress.from_root(server.url, name="sandbox", account="bench", production=False)
        settings = Settings(terminal_id="BENCH", allow_insecure_token_file=True, request_timeout_seconds=10)
        terminal = Terminal(Paths.profile(base / "profile"), settings, service)
        loop.run_until_complete(terminal.session.sign_in_with_token(token))
        customers = [loop.run_until_complete(terminal.customers.find(c["customerId"])) for c in checked_in]
        bare = httpx.AsyncClient(
            timeout=10,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json", "Authorization": f"Bearer {token}"},
        )
        yield Lane(loop, terminal, customers, bare, f"{service.pos_url}/transactions")
        loop.run_until_complete(bare.aclose())
        loop.run_until_complete(terminal.aclose())
    finally:
        loop.close()
        server.stop()
        keyring.set_keyring(previous)


def test_the_terminal_charge_against_a_bare_post(lane: Lane, bench: Bench) -> None:
    """Both sides create a transaction; the terminal's also journals its intent before and its answer after."""
    rounds = bench.rounds(measuring=60, smoke=10)
    charge_ms, bare_ms = bench.interleaved(lane.terminal_charge, lane.bare_post, rounds=rounds, warm=3)
    bench.hold(
        "create a transaction",
        measured=("terminal charge", charge_ms),
        baseline=("bare httpx POST", bare_ms),
        target=TARGET,
        ci_bound=CI_BOUND,
        rounds=rounds,
    )
    assert lane.terminal.journal.transactions.get(lane.terminal_charge()) is not None


def test_a_whole_sale_against_its_bare_requests(lane: Lane, bench: Bench) -> None:
    """Charge, complete and History's listing, against the same three requests bare (the listing is of each
    side's own terminal, which holds as many sales as the other's)."""
    rounds = bench.rounds(measuring=40, smoke=5)
    sale_ms, bare_ms = bench.interleaved(lane.terminal_sale, lane.bare_sale, rounds=rounds, warm=2)
    bench.hold(
        "a whole sale: create, complete, list",
        measured=("terminal: charge, complete, History", sale_ms),
        baseline=("three bare httpx requests", bare_ms),
        target=SALE_TARGET,
        ci_bound=SALE_CI_BOUND,
        rounds=rounds,
    )
