"""Shared fixtures: a real sandbox over loopback HTTP with its state in a real SQLite file."""

from __future__ import annotations

import faulthandler
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import keyring
import pytest

from pos_terminal.domain import pins
from pos_terminal.sandbox import SandboxServer, SandboxSettings
from tests.api.fake_service import FakeService
from tests.helpers.bench import RATIO_PROPERTY, Ratio, table
from tests.helpers.http import http_client
from tests.keyrings import MemoryKeyring
from tests.store.postgres import BACKENDS, PostgresServer, StoreTarget, find_binaries, missing

if TYPE_CHECKING:
    from pos_terminal.api.models import DeviceAuthorization
    from pos_terminal.services.session import Session

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    # a counter's two screens, the cashier's (primary, Qt's offscreen default) and the customer's; the
    # configuration file is read when the application is made (Qt's offscreen plugin, configfile=)
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={Path(__file__).with_name('offscreen_counter.json')}"

# After the last test, the run must end too: a stuck thread or a Qt object that blocks the
# interpreter's exit dumps every thread's stack and ends the process (pytest-timeout covers tests).
EXIT_LIMIT_SECONDS = 60

DEMO_MERCHANT = "mer-cafe"
OTHER_MERCHANT = "mer-bistro"


@pytest.hookimpl(tryfirst=True)
def pytest_addoption(parser: pytest.Parser) -> None:
    """Here rather than in tests/bench/conftest.py: pytest reads options only from the conftest files it starts with."""
    parser.addoption(
        "--measure",
        action="store_true",
        default=False,
        help="a measuring run of tests/bench: more rounds, and each benchmark's target held (make bench)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, each group still in pytest-randomly's order (its shuffle runs before this).

    ``make test`` hands the workers one test at a time (``--maxschedchunk=1``), so the longest start at once,
    beside each other and beside the short ones, instead of whichever fell last in the shuffle (the short soak
    takes 80 s of a full run) running alone on one core at the end while the other has nothing left to do.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Collects the benchmarks' ratios from the tests' reports: here, and in the main process when the tests run in
    workers (a worker's report comes back with its user properties)."""
    if report.when == "call":
        _collected.extend(Ratio(**value) for key, value in report.user_properties if key == RATIO_PROPERTY)


_collected: list[Ratio] = []  # the run's benchmark ratios, in the order their tests ended


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if not _collected:
        return
    terminalreporter.section("benchmarks")
    for line in table(_collected, measuring=bool(config.getoption("measure"))):
        terminalreporter.write_line(line)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run's end has its time limit here, in the process that ends the run. A worker of pytest-xdist is not
    timed: it finishes when its own tests do and then waits, rightly, until the last worker is done and the
    controller ends them all (and kills one that does not end)."""
    if not hasattr(config, "workerinput"):
        faulthandler.dump_traceback_later(EXIT_LIMIT_SECONDS, exit=True, file=sys.__stderr__)


# scrypt's N for the PINs a test sets: 2**10 (1 MiB, a few milliseconds) instead of the terminal's 2**15 (32 MiB,
# 0.1-0.15 s of a core), which the suite's 360-odd PINs spent a minute and a half of its workers on. A stored
# hash names its N and checking reads it from there, so every path is the one a till takes with the hash of an
# earlier, cheaper release. tests/unit/test_people_and_drawer.py checks the terminal's own cost.
TEST_PIN_LOG2_N = 10


@pytest.fixture(autouse=True)
def quick_pin_hashes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("real_pin_cost") is None:
        monkeypatch.setattr(pins, "LOG2_N", TEST_PIN_LOG2_N)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """The keychain of this test: in memory, put back as it was afterwards."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def make_sandbox(tmp_path: Path) -> Iterator[Callable[..., SandboxServer]]:
    """Start sandboxes on port 0 with a SQLite file in ``tmp_path``; all stopped afterwards."""
    servers: list[SandboxServer] = []

    def start(**settings: Any) -> SandboxServer:
        settings.setdefault("db_path", str(tmp_path / f"sandbox-{len(servers)}.sqlite3"))
        server = SandboxServer(SandboxSettings(**settings))
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def sandbox(make_sandbox: Callable[..., SandboxServer]) -> SandboxServer:
    """A sandbox with default settings except a 1 s device polling interval."""
    return make_sandbox(device_interval=1)


@pytest.fixture
def client(sandbox: SandboxServer) -> Iterator[httpx.Client]:
    """Unauthenticated client at the sandbox's root (auth service, /sandbox control)."""
    with http_client(base_url=sandbox.url, timeout=10) as http:
        yield http


def mint_token(http: httpx.Client, merchant_id: str = DEMO_MERCHANT, **extra: Any) -> str:
    response = http.post("/sandbox/tokens", json={"merchantId": merchant_id, **extra})
    response.raise_for_status()
    return str(response.json()["access_token"])


@pytest.fixture
def pos(sandbox: SandboxServer, client: httpx.Client) -> Iterator[httpx.Client]:
    """Client at the POS API base (``/v4``) with a ``posapi`` bearer token of the demo merchant."""
    token = mint_token(client)
    with http_client(base_url=f"{sandbox.url}/v4", headers={"Authorization": f"Bearer {token}"}, timeout=10) as http:
        yield http


def new_checked_in_customer(http: httpx.Client, merchant_id: str = DEMO_MERCHANT, **fields: Any) -> dict[str, Any]:
    """A fresh customer checked in at ``merchant_id``: the POS customer (2.5) plus ``balance``."""
    body = {"firstName": "Test", "lastName": "Customer", "balance": 100_000, **fields}
    created = http.post("/sandbox/customers", json=body)
    created.raise_for_status()
    customer = created.json()
    checkin = http.post("/sandbox/checkins", json={"merchantId": merchant_id, "customerId": customer["customerId"]})
    checkin.raise_for_status()
    return {**checkin.json(), "balance": customer["balance"]}


def check_body(customer: dict[str, Any], amount: int = 1_000, **overrides: Any) -> dict[str, Any]:
    """A valid one-item create request (2.6) charging ``amount`` cents."""
    body: dict[str, Any] = {
        "refId": overrides.pop("refId", "check-1"),
        "terminalId": overrides.pop("terminalId", "T1"),
        "chargeAmount": amount,
        "itemTotal": amount,
        "itemTax": amount // 11,
        "total": amount,
        "tax": amount // 11,
        "balance": amount,
        "customer": {"customerId": customer["customerId"], "checkInId": customer["checkInId"]},
        "items": [{"id": "sku-1", "name": "Item", "quantity": 1, "amount": amount, "tax": amount // 11}],
    }
    body.update(overrides)
    return body


def transactions_of(http: httpx.Client, customer_id: str) -> list[dict[str, Any]]:
    """Every transaction that ever touched the customer's money, from the sandbox's ledger (a duplicate the terminal
    canceled included): what the service holds for one check of that customer."""
    seen: dict[str, dict[str, Any]] = {}
    for entry in http.get(f"/sandbox/customers/{customer_id}/ledger").json():
        reference = entry["reference"]
        if (
            entry["kind"] != "topup"
            and reference
            and reference not in seen
            and reference not in ("sandbox", "demo data")
        ):
            seen[reference] = http.get(f"/sandbox/transactions/{reference}").json()
    return list(seen.values())


def ledger_kinds(http: httpx.Client, customer_id: str) -> list[str]:
    """How the customer's money moved (reserve, charge, release, refund), oldest first; top-ups left out."""
    entries = http.get(f"/sandbox/customers/{customer_id}/ledger").json()
    return [str(e["kind"]) for e in entries if e["kind"] != "topup"]


def create_transaction(pos: httpx.Client, body: dict[str, Any]) -> str:
    """Create and return the new transaction's id (taken from ``Location``)."""
    response = pos.post("/transactions", json=body)
    assert response.status_code == 201, response.text
    return response.headers["location"].rsplit("/", 1)[-1]


async def finish_at_once(session: Session, authorization: DeviceAuthorization) -> None:
    """Finish a device sign-in that is approved already: the first poll gets the tokens, without the interval's wait."""

    async def no_wait(_: float) -> None:
        return None

    session.auth.sleep = no_wait
    await session.finish_device_sign_in(authorization)


@pytest.fixture
def fake_service() -> Iterator[FakeService]:
    """A scripted HTTP server on loopback (tests/api/fake_service.py) for answers the sandbox never gives."""
    with FakeService().running() as service:
        yield service


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server for the whole run (tests/store/postgres.py); skips without the binaries."""
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    binaries = find_binaries()
    assert binaries is not None
    server = PostgresServer.create(binaries)
    yield server
    server.destroy()


@pytest.fixture
def postgres_target(postgres_server: PostgresServer) -> Iterator[StoreTarget]:
    """An empty store database of its own on the PostgreSQL server (``CREATE DATABASE test_N``), dropped afterwards."""
    name = postgres_server.create_database()
    target = StoreTarget("postgresql", postgres_server.url(name), postgres_server.password, postgres_server)
    yield target
    target.close_all()
    postgres_server.drop_database(name)


@pytest.fixture(params=BACKENDS)
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreTarget]:
    """An empty store database, once in a SQLite file and once on the PostgreSQL server (``postgres_target``)."""
    if request.param == "postgresql":
        yield request.getfixturevalue("postgres_target")
        return
    target = StoreTarget("sqlite", f"sqlite:///{tmp_path / 'store.sqlite3'}")
    yield target
    target.close_all()
