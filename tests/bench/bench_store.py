"""A store of 20 tills on one real PostgreSQL: what the store costs a sale, how soon the others see it, and what
the server spends on it.

Each till is what the terminal builds for one: its own journal file and its own :class:`StoreSync`, joined to
the same store database, its :meth:`StoreSync.run` loop running as an asyncio task (the store's I/O on worker
threads, the journal on the loop's thread, as in the window). Each till writes RATE records a second, on a fixed
timetable, in the mix of :data:`MIX`: cash sales (``journal.cash_sales.record``), audit entries
(``journal.audit.record``), and a shift opened or closed (``ShiftBook``). Beside each till stands a twin journal linked
to no store: every cash sale is written on both, in alternating order, so the two are timed under the same load.

Measured:

* **the sale at the till**: ``record_cash_sale`` on the linked journal (which queues the sale for the store in
  the same transaction) against the same write on the twin that stands alone, p50 and p99; the goal is that the
  store adds under 5 ms to the p99;
* **replication lag**: from a record's local write (the moment ``record_cash_sale``, ``audit``, ``open`` or
  ``close`` returned) to the end of the pass in which another till applied it (``changes_since`` through a
  subclass of :class:`StoreDatabase` that notes what it returned, :meth:`StoreSync.on_sync` for the moment),
  at every other till, p50 and p99; the goal is under 2 s at p99;
* **PostgreSQL's CPU**: utime + stime (and what reaped children left in cutime + cstime) of the postmaster and
  every process under it, from ``/proc``, over the writing part of the run, as a share of one core;
* **exactly once**: after the tills have sent everything and caught up, the store's cash sales, audit entries
  and shifts of each till are the ones its journal holds, each with one change (a shift: one more for its
  close), and every till applied every change of the run once.

Also shown, as evidence for what the load does to StoreSync and StoreDatabase: the lag split at the store
(written -> in the store's change_log, in the store -> applied elsewhere), how long ``put`` and ``changes_since``
take and how many backends wait for the store's write lock (``pg_stat_activity``), passes per second and changes
per pass, the tills' transactions per record, connections and server sessions opened, the journal writes StoreSync
makes on each till's event loop, the largest backlog in the outboxes, the loop's lag and how far the writers fell
behind their timetable, the machine's CPU, and the lag and the server's CPU by quarter of the run (growing over
time, or not).

One process or several: the 20 tills run in PROCESSES = 5 spawned processes of 4 tills each, each process with
one event loop and a pool of worker threads large enough that every till's listener can wait while the others
send. One process cannot keep up on 2 cores: the 20 tills' Python work (every till fetches and decodes every
change of the store, and makes its journal writes) needs more than one core, so in one interpreter it queues
for the GIL: measured there, the process sat at 90-95 % of one core, the event loop lagged about 300 ms at p99,
the writers fell 300 ms behind their timetable and the replication lag was 4-11 s at p99, an artefact of the
tills sharing an interpreter that a store, with one till per machine, does not have. Two processes still lagged
(loop p99 100 ms, lag p99 6.7 s); from four processes on the writers keep their timetable within about 20 ms
and the loop's lag stays near 30 ms; ten or twenty processes gain nothing more, they only compete with
PostgreSQL for the two cores (the sale's p50 went from 3.5 ms to 5.7 ms). ``processes`` (or the second
argument of the script) chooses another split; 1 runs every till in this process.

Run by the test (``tests/bench/test_bench_store.py``): briefly by default (SMOKE_SECONDS), for real with
``POS_BENCH_STORE_SECONDS=120 .venv/bin/python -m pytest tests/bench/test_bench_store.py -s``. As a script,
starting its own PostgreSQL (``tests/store/postgres.py``)::

    .venv/bin/python tests/bench/bench_store.py [SECONDS [PROCESSES]]
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import event

from pos_terminal.domain.shift import DrawerCount, Shift
from pos_terminal.journal.journal import Journal
from pos_terminal.journal.staff import ShiftBook
from pos_terminal.journal.store_link import LinkBook
from pos_terminal.services.store_sync import StoreSync, SyncReport
from pos_terminal.store.database import Change, ChangeListener, StoreDatabase
from pos_terminal.store.schema import Kind
from tests.helpers.services import Secrets

if TYPE_CHECKING:
    from multiprocessing.queues import Queue
    from multiprocessing.synchronize import Barrier

    import psycopg

    from tests.store.postgres import PostgresServer

TILLS = 20
PROCESSES = 5  # the tills are spread over this many processes (the module docstring says why)
RATE = 5.0  # records a second, each till
SMOKE_SECONDS = 10.0
SECONDS_VARIABLE = "POS_BENCH_STORE_SECONDS"
ADDED_P99_GOAL_MS = 5.0
LAG_P99_GOAL_S = 2.0
DRAIN_LIMIT_S = 60.0  # after the writing, for the outboxes to empty and every till to catch up
BARRIER_LIMIT_S = 300.0  # for the other processes to have joined their tills
# Ten records, two seconds of one till: six cash sales, three audit entries, a shift opened (or closed).
MIX = ("sale", "audit", "sale", "sale", "audit", "sale", "shift", "sale", "audit", "sale")
CHECK = {
    "version": 1,
    "items": [
        {"name": "Flat white", "quantity": 2, "unit_price": 550, "tax_rate_bp": 1000},
        {"name": "Banana bread", "quantity": 1, "unit_price": 620, "tax_rate_bp": 1000},
        {"name": "Cookie", "quantity": 3, "unit_price": 150, "tax_rate_bp": 1000},
    ],
    "discounts": [],
    "payments": [{"kind": "cash", "amount": 2500}],
}
_TICKS = os.sysconf("SC_CLK_TCK")


def seconds_from_environment() -> float:
    """How long the tills write: POS_BENCH_STORE_SECONDS, else a short smoke run."""
    return float(os.environ.get(SECONDS_VARIABLE) or SMOKE_SECONDS)


# --- one till ---------------------------------------------------------------------------------------------------


class ObservedDatabase(StoreDatabase):
    """The store database as a till opens it, noting the changes it hands the till and the connections it opens."""

    def __init__(self, url: str, password: str | None) -> None:
        super().__init__(url, password=password)
        self.observing = False
        self.fetched: list[Change] = []
        self.connections = 0
        self.transactions = 0
        self.listeners = 0
        self.put_ms: list[float] = []  # each write of a batch of records, from asking to committed
        self.changes_ms: list[float] = []  # each changes_since
        event.listen(self._engine, "connect", self._connected)
        event.listen(self._engine, "begin", self._began)

    def _connected(self, _dbapi_connection: Any, _record: Any) -> None:
        self.connections += 1

    def _began(self, _conn: Any) -> None:
        self.transactions += 1

    def put_many(self, records: Sequence[tuple[str, Mapping[str, Any]]], *, terminal_id: str) -> list[bool]:
        began = time.perf_counter()
        try:
            return super().put_many(records, terminal_id=terminal_id)
        finally:
            if self.observing:
                self.put_ms.append((time.perf_counter() - began) * 1000)

    def changes_since(self, seq: int, limit: int = 500, *, records_of: Collection[Kind] | None = None) -> list[Change]:
        began = time.perf_counter()
        changes = super().changes_since(seq, limit, records_of=records_of)
        if self.observing:
            self.changes_ms.append((time.perf_counter() - began) * 1000)
            self.fetched.extend(changes)
        return changes

    def listen(self, *, poll_interval: float = 0.5) -> ChangeListener:
        self.listeners += 1
        return super().listen(poll_interval=poll_interval)


class TimedLinkBook(LinkBook):
    """The journal's store link, timing the journal writes StoreSync makes (on worker threads): a record sent, the
    changes applied, the store reached (each a durable SQLite commit)."""

    def __init__(self, journal: Journal) -> None:
        super().__init__(journal)
        self.observing = False
        self.writes_ms: list[float] = []

    def _timed(self, began: float) -> None:
        if self.observing:
            self.writes_ms.append((time.perf_counter() - began) * 1000)

    def sent_many(self, entry_ids: list[int]) -> None:
        began = time.perf_counter()
        super().sent_many(entry_ids)
        self._timed(began)

    def applied(self, seq: int, *, changed: bool) -> None:
        began = time.perf_counter()
        super().applied(seq, changed=changed)
        self._timed(began)

    def reached(self) -> None:
        began = time.perf_counter()
        super().reached()
        self._timed(began)


class TimedStoreSync(StoreSync):
    """StoreSync, noting when each pass began (the pass's listeners see how long it took)."""

    began = 0.0

    async def _sync_once(self) -> SyncReport:
        self.began = time.perf_counter()
        return await super()._sync_once()


@dataclass
class Till:
    """One till of the store, its twin that stands alone, and what was seen on it."""

    n: int
    terminal_id: str
    journal: Journal
    alone: Journal
    sync: TimedStoreSync
    link: TimedLinkBook
    shifts: ShiftBook
    databases: list[ObservedDatabase] = field(default_factory=list)
    open_shift: Shift | None = None
    sales: int = 0
    first_seq: int = 0  # the last change applied when the run began
    applied_seqs: list[int] = field(default_factory=list)
    seen: Counter[tuple[str, str]] = field(default_factory=Counter)
    passes: int = 0

    @property
    def database(self) -> ObservedDatabase:
        return self.databases[-1]


def _open_till(n: int, folder: Path) -> Till:
    terminal_id = f"TILL-{n:02d}"
    journal = Journal(folder / f"{terminal_id}.sqlite3")
    secrets = Secrets()
    databases: list[ObservedDatabase] = []

    def open_database(address: str, password: str | None) -> StoreDatabase:
        databases.append(ObservedDatabase(address, password))
        return databases[-1]

    sync = TimedStoreSync(
        journal, terminal_id=terminal_id, secrets=lambda _address: secrets, open_database=open_database
    )
    sync.link = link = TimedLinkBook(journal)
    alone = Journal(folder / f"{terminal_id}-alone.sqlite3")
    return Till(n, terminal_id, journal, alone, sync, link, ShiftBook(journal), databases)


# --- what one process does --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DriveSpec:
    """The tills one process drives, and for how long."""

    url: str
    password: str | None
    tills: tuple[int, ...]
    of: int  # the tills in the store
    seconds: float
    rate: float
    folder: str


@dataclass
class Raw:
    """What one process measured, merged by :func:`run` (times are wall-clock seconds, comparable across
    processes)."""

    linked_ms: list[float] = field(default_factory=list)
    alone_ms: list[float] = field(default_factory=list)
    written: dict[tuple[str, str], list[float]] = field(default_factory=dict)  # (kind, key): each write's time
    # kind, key, occurrence, arrived in the store (change_log.at), applied on another till
    seen: list[tuple[str, str, int, float, float]] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    behind_ms: list[float] = field(default_factory=list)  # how late each write was on the timetable
    loop_lag_ms: list[float] = field(default_factory=list)
    backlog: list[tuple[float, int]] = field(default_factory=list)  # (seconds into the run, records waiting)
    passes: int = 0
    fetched: int = 0
    connections: int = 0
    transactions: int = 0
    listeners: int = 0
    put_ms: list[float] = field(default_factory=list)
    changes_ms: list[float] = field(default_factory=list)
    link_ms: list[float] = field(default_factory=list)  # StoreSync's journal writes, on worker threads
    passes_ms: list[float] = field(default_factory=list)  # each pass of StoreSync.sync
    sent_per_pass: list[int] = field(default_factory=list)
    cpu_s: float = 0.0  # this process's CPU over the writing and draining
    drain_s: float = 0.0
    started_at: float = 0.0
    journals: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # till: kind: ids its journal holds
    closed_shifts: dict[str, set[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def drive(spec: DriveSpec, barrier: Barrier | None = None) -> Raw:
    """Join spec.tills to the store, write for spec.seconds, let them catch up; what was measured."""
    return asyncio.run(_drive(spec, barrier))


async def _drive(spec: DriveSpec, barrier: Barrier | None) -> Raw:
    loop = asyncio.get_running_loop()
    # Every till's listener holds a worker thread while it waits: the default pool (cores + 4) would starve.
    executor = ThreadPoolExecutor(max_workers=3 * len(spec.tills) + 4, thread_name_prefix="store-io")
    loop.set_default_executor(executor)
    folder = Path(spec.folder)
    raw = Raw()
    checker = StoreDatabase(spec.url, password=spec.password)  # the benchmark's own questions to the store
    tills: list[Till] = []
    runs: list[asyncio.Task[None]] = []
    try:
        for n in spec.tills:
            tills.append(_open_till(n, folder))
            await tills[-1].sync.join(spec.url, spec.password)
        if barrier is not None:
            await asyncio.to_thread(barrier.wait, BARRIER_LIMIT_S)
        for till in tills:
            state = till.sync.link.state()
            assert state is not None
            till.first_seq = state.last_seq
            till.database.observing = till.link.observing = True
            till.sync.on_sync(_observer(till, raw))
        runs += [asyncio.create_task(till.sync.run(), name=f"run {till.terminal_id}") for till in tills]
        cpu_before = _process_cpu()
        raw.started_at = time.time()
        start = time.monotonic() + 0.2
        stop_at = start + spec.seconds
        watching = asyncio.create_task(_watch(tills, raw, start))
        # the store's tills take turns: till n writes n / (rate * tills) s after the first
        await asyncio.gather(
            *(_write(till, raw, start + till.n / (spec.rate * spec.of), stop_at, spec.rate) for till in tills)
        )
        drained = time.monotonic()
        await _drain(tills, checker, barrier, drained + DRAIN_LIMIT_S, raw)
        raw.drain_s = time.monotonic() - drained
        raw.cpu_s = _process_cpu() - cpu_before
        watching.cancel()
        for task in runs:
            task.cancel()
        for result in await asyncio.gather(*runs, watching, return_exceptions=True):
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raw.problems.append(f"a till's run ended with {result!r}")
        await _check_applied(tills, checker, raw)
        for till in tills:
            _collect(till, raw)
    finally:
        for task in runs:
            task.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
        for till in tills:
            await till.sync.close()
            till.journal.close()
            till.alone.close()
        checker.close()
        executor.shutdown(wait=False, cancel_futures=True)
    return raw


def _observer(till: Till, raw: Raw) -> Callable[[SyncReport], None]:
    """After each pass of ``till``: the changes it applied, each timed by now."""

    def passed(report: SyncReport) -> None:
        now = time.time()
        raw.passes_ms.append((time.perf_counter() - till.sync.began) * 1000)
        raw.sent_per_pass.append(report.sent)
        database = till.database
        batch, database.fetched = database.fetched, []
        till.passes += 1
        for change in batch:
            till.applied_seqs.append(change.seq)
            if change.terminal_id == till.terminal_id:
                continue
            key = (str(change.kind), change.key)
            raw.seen.append((key[0], key[1], till.seen[key], change.at.timestamp(), now))
            till.seen[key] += 1

    return passed


async def _write(till: Till, raw: Raw, start: float, stop_at: float, rate: float) -> None:
    """RATE records a second on a timetable; a write that falls behind goes at once (and counts as late)."""
    k = 0
    while (due := start + k / rate) < stop_at:
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        raw.behind_ms.append((time.monotonic() - due) * 1000)
        what = MIX[k % len(MIX)]
        if what == "sale":
            _sell(till, raw)
        elif what == "audit":
            entry = till.journal.audit.record("bench note", actor="Ana", terminal_id=till.terminal_id, detail={"k": k})
            raw.written[("audit", entry.uid)] = [time.time()]
        else:
            _shift(till, raw)
        raw.kinds[what] += 1
        k += 1


def _sell(till: Till, raw: Raw) -> None:
    """One cash sale on the till and on its twin that stands alone, in turns first."""
    till.sales += 1
    total = 2_000 + till.sales % 500
    order = (till.journal, till.alone) if till.sales % 2 else (till.alone, till.journal)
    for journal in order:
        began = time.perf_counter()
        sale = journal.cash_sales.record(
            terminal_id=till.terminal_id,
            customer=None,
            total=total,
            tax=total // 11,
            paid=total + 500,
            check=CHECK,
            actor="Ana",
        )
        elapsed_ms = (time.perf_counter() - began) * 1000
        if journal is till.journal:
            raw.written[("cash_sale", sale.uid)] = [time.time()]
            raw.linked_ms.append(elapsed_ms)
        else:
            raw.alone_ms.append(elapsed_ms)


def _shift(till: Till, raw: Raw) -> None:
    if till.open_shift is None:
        till.open_shift = shift = till.shifts.open(till.terminal_id, "Ana", 20_000, datetime.now(UTC))
    else:
        shift, till.open_shift = till.open_shift, None
        till.shifts.close(shift.id, "Ana", DrawerCount(20_000), 20_000, datetime.now(UTC))
    uid = str(till.journal.read("SELECT uid FROM shift WHERE id = ?", (shift.id,))[0][0])
    raw.written.setdefault(("shift", uid), []).append(time.time())


async def _watch(tills: list[Till], raw: Raw, start: float) -> None:
    """The event loop's lag every 0.1 s; the records waiting in the outboxes every second."""
    tick = 0
    while True:
        before = time.monotonic()
        await asyncio.sleep(0.1)
        raw.loop_lag_ms.append((time.monotonic() - before - 0.1) * 1000)
        tick += 1
        if tick % 10 == 0:
            raw.backlog.append((time.monotonic() - start, sum(till.sync.link.waiting_count() for till in tills)))


async def _drain(tills: list[Till], checker: StoreDatabase, barrier: Barrier | None, deadline: float, raw: Raw) -> None:
    """Until every outbox is empty (in every process), then every till has applied the store's last change."""
    while any(till.sync.link.waiting_count() for till in tills):
        if time.monotonic() > deadline:
            raw.problems.append(f"the outboxes still held records {DRAIN_LIMIT_S:.0f} s after the writing ended")
            break
        await asyncio.sleep(0.05)
    if barrier is not None:
        try:
            await asyncio.to_thread(barrier.wait, max(1.0, deadline - time.monotonic()))
        except threading.BrokenBarrierError:
            raw.problems.append("another process's tills did not send everything in time")
    latest = await asyncio.to_thread(checker.latest_seq)
    while behind := [till.terminal_id for till in tills if _last_seq(till) < latest]:
        if time.monotonic() > deadline:
            raw.problems.append(f"{', '.join(behind)} had not applied change {latest} {DRAIN_LIMIT_S:.0f} s after")
            return
        await asyncio.sleep(0.05)


def _last_seq(till: Till) -> int:
    state = till.sync.link.state()
    return 0 if state is None else state.last_seq


async def _check_applied(tills: list[Till], checker: StoreDatabase, raw: Raw) -> None:
    """Every till applied each change of the run once (the seqs after the one it had applied at the start)."""
    first = min(till.first_seq for till in tills)
    changes: list[Change] = []
    while batch := await asyncio.to_thread(checker.changes_since, changes[-1].seq if changes else first, 1000):
        changes += batch
    logged = [change.seq for change in changes]
    for till in tills:
        expected = [seq for seq in logged if seq > till.first_seq]
        twice = [seq for seq, times in Counter(till.applied_seqs).items() if times > 1]
        if twice:
            raw.problems.append(f"{till.terminal_id} applied {len(twice)} changes twice (first {twice[0]})")
        if sorted(set(till.applied_seqs)) != expected:
            missed = sorted(set(expected) - set(till.applied_seqs))
            raw.problems.append(f"{till.terminal_id} did not apply {len(missed)} changes (first {missed[:3]})")


def _collect(till: Till, raw: Raw) -> None:
    """The till's own records as its journal holds them, and the counters of its store I/O."""
    journal = till.journal
    raw.journals[till.terminal_id] = {
        "cash_sale": {sale.uid for sale in journal.cash_sales.all()},
        "audit": {entry.uid for entry in journal.audit.all()},
        "shift": {str(row[0]) for row in journal.read("SELECT uid FROM shift")},
    }
    raw.closed_shifts[till.terminal_id] = {
        str(row[0]) for row in journal.read("SELECT uid FROM shift WHERE closed_at IS NOT NULL")
    }
    raw.passes += till.passes
    raw.fetched += len(till.applied_seqs)
    raw.connections += sum(database.connections for database in till.databases)
    raw.transactions += sum(database.transactions for database in till.databases)
    raw.link_ms += till.link.writes_ms
    for database in till.databases:
        raw.put_ms += database.put_ms
        raw.changes_ms += database.changes_ms
    raw.listeners += sum(database.listeners for database in till.databases)


def _process_cpu() -> float:
    times = os.times()
    return times.user + times.system


def _drive_in_child(spec: DriveSpec, barrier: Barrier, results: Queue[Raw | str]) -> None:
    try:
        results.put(drive(spec, barrier))
    except BaseException as exc:
        barrier.abort()
        results.put(f"{spec.tills}: {exc!r}")
        raise


# --- the server -------------------------------------------------------------------------------------------------


class ServerProbe:
    """What the PostgreSQL server spends: CPU from /proc (the postmaster and every process under it), and its
    statistics for the store's database, through the superuser's socket."""

    def __init__(self, server: PostgresServer, database: str) -> None:
        self.server = server
        self.database = database
        self.version = ""

    def postmaster(self) -> int:
        return int((self.server.data / "postmaster.pid").read_text().split()[0])

    def cpu_seconds(self) -> float:
        """Everything the server's processes have used, those gone included (their parent reaped them)."""
        root = self.postmaster()
        children: dict[int, list[int]] = defaultdict(list)
        ticks: dict[int, int] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                text = Path(entry.path, "stat").read_text()
            except OSError:
                continue  # gone meanwhile
            fields = text[text.rindex(")") + 2 :].split()
            pid = int(entry.name)
            children[int(fields[1])].append(pid)
            ticks[pid] = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
        total, todo = 0, [root]
        while todo:
            pid = todo.pop()
            total += ticks.get(pid, 0)
            todo += children.get(pid, [])
        return total / _TICKS

    def connect(self) -> psycopg.Connection[Any]:
        return self.server.admin(self.database)

    def statistics(self, admin: psycopg.Connection[Any]) -> dict[str, int]:
        admin.execute("SELECT pg_stat_clear_snapshot()")
        row = admin.execute(
            "SELECT xact_commit, xact_rollback, sessions, tup_returned, tup_fetched, tup_inserted, tup_updated"
            " FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
        assert row is not None
        names = ("commits", "rollbacks", "sessions", "returned", "fetched", "inserted", "updated")
        return dict(zip(names, (int(value) for value in row), strict=True))

    def backends(self, admin: psycopg.Connection[Any]) -> tuple[int, int]:
        """The store database's backends, and how many of them wait for an advisory lock (the write lock)."""
        row = admin.execute(
            "SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock' AND wait_event = 'advisory')"
            " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
        return (0, 0) if row is None else (int(row[0]), int(row[1]))


def machine_ticks() -> tuple[int, int]:
    """All cores' busy and total ticks so far (/proc/stat): busy is all but idle and iowait."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal (guest is counted in user)
    return total - fields[3] - fields[4], total


@dataclass(frozen=True)
class Sample:
    at: float
    server_cpu_s: float
    backends: int
    machine_busy: int
    machine_total: int


class ServerWatch(threading.Thread):
    """Samples the server's CPU, its backends on the store's database and the machine's CPU every second, and the
    backends waiting for the store's write lock five times a second."""

    def __init__(self, probe: ServerProbe) -> None:
        super().__init__(name="server watch", daemon=True)
        self.probe = probe
        self.stopping = threading.Event()
        self.samples: list[Sample] = []
        self.lock_waiters: list[tuple[float, int]] = []
        self.admin = probe.connect()

    def sample(self) -> None:
        busy, total = machine_ticks()
        backends, _ = self.probe.backends(self.admin)
        self.samples.append(Sample(time.time(), self.probe.cpu_seconds(), backends, busy, total))

    def run(self) -> None:
        ticks = 0
        while not self.stopping.wait(0.2):
            self.lock_waiters.append((time.time(), self.probe.backends(self.admin)[1]))
            ticks += 1
            if ticks % 5 == 0:
                self.sample()

    def stop(self) -> None:
        self.stopping.set()
        self.join()
        self.sample()


# --- the figures ------------------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Nearest rank; NaN of nothing."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))]


@dataclass
class Figures:
    tills: int
    processes: int
    seconds: float
    rate: float
    records: int
    kinds: dict[str, int]
    linked_p50_ms: float
    linked_p99_ms: float
    alone_p50_ms: float
    alone_p99_ms: float
    lag_p50_s: float
    lag_p99_s: float
    lag_max_s: float
    lag_samples: int
    lag_p99_by_quarter_s: list[float]
    send_p50_s: float  # written on the till -> in the store (change_log.at)
    send_p99_s: float
    apply_p50_s: float  # in the store -> applied on another till
    apply_p99_s: float
    pg_cpu_share: float  # of one core, over the writing and the catching up
    pg_cpu_by_quarter: list[float]
    tills_cpu_share: float  # the tills' processes, of one core
    machine_busy_share: float  # of all the machine's cores, whoever used them
    cores: int
    passes_per_s: float
    changes_per_pass: float
    fetched_per_record: float  # changes the tills fetched (with their records) per record written
    transactions_per_record: float  # the tills' transactions on the store per record written
    put_p50_ms: float  # StoreDatabase.put_many (a batch), the write lock's wait included
    put_p99_ms: float
    changes_p50_ms: float  # StoreDatabase.changes_since
    changes_p99_ms: float
    lock_waiters_mean: float  # backends waiting for the store's write lock (pg_stat_activity, 5 times a second)
    lock_waiters_max: int
    pass_p50_ms: float  # StoreSync.sync: send what waits, then apply the store's changes
    pass_p99_ms: float
    pass_max_ms: float
    sent_per_pass_max: int  # the most records one pass sent before it applied anything
    link_writes_per_s: float  # StoreSync's journal writes (worker threads), each till
    link_ms_per_s: float  # the time they took, each till
    link_p99_ms: float
    connections: int  # opened by the tills' pools
    listeners: int
    sessions: int  # opened on the server during the run
    max_backends: int
    backlog_max: int
    behind_p99_ms: float
    behind_max_ms: float
    loop_lag_p99_ms: float
    loop_lag_max_ms: float
    drain_s: float
    elapsed_s: float  # the whole run, setting up and checking included
    problems: list[str]

    @property
    def added_p99_ms(self) -> float:
        return self.linked_p99_ms - self.alone_p99_ms

    @property
    def added_p50_ms(self) -> float:
        return self.linked_p50_ms - self.alone_p50_ms

    @property
    def exactly_once(self) -> bool:
        return not self.problems

    def goals_met(self) -> bool:
        return self.added_p99_ms < ADDED_P99_GOAL_MS and self.lag_p99_s < LAG_P99_GOAL_S and self.exactly_once

    def lines(self) -> list[str]:
        quarters = " / ".join(f"{value:.2f}" for value in self.lag_p99_by_quarter_s)
        cpu_quarters = " / ".join(f"{value:.0%}" for value in self.pg_cpu_by_quarter)
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(self.kinds.items()))
        plural = "es" if self.processes > 1 else ""
        return [
            f"store of {self.tills} tills on one PostgreSQL, {self.seconds:.0f} s at {self.rate:g} records/s each"
            f" ({self.processes} process{plural}): {self.records} records ({kinds})",
            f"  sale at the till (record_cash_sale): linked p50 {self.linked_p50_ms:.2f} ms p99"
            f" {self.linked_p99_ms:.2f} ms; alone p50 {self.alone_p50_ms:.2f} ms p99 {self.alone_p99_ms:.2f} ms;"
            f" the store adds p50 {self.added_p50_ms:+.2f} ms, p99 {self.added_p99_ms:+.2f} ms"
            f" (goal < {ADDED_P99_GOAL_MS:g} ms)",
            f"  replication lag (written -> applied on another till): p50 {self.lag_p50_s:.3f} s, p99"
            f" {self.lag_p99_s:.3f} s, max {self.lag_max_s:.3f} s over {self.lag_samples} arrivals"
            f" (goal p99 < {LAG_P99_GOAL_S:g} s); p99 by quarter of the run {quarters} s",
            f"    of which written -> in the store p50 {self.send_p50_s:.3f} s p99 {self.send_p99_s:.3f} s;"
            f" in the store -> applied p50 {self.apply_p50_s:.3f} s p99 {self.apply_p99_s:.3f} s",
            f"  CPU: PostgreSQL {self.pg_cpu_share:.0%} of one core (by quarter {cpu_quarters});"
            f" the tills' process{plural} {self.tills_cpu_share:.0%} of one core;"
            f" the machine {self.machine_busy_share:.0%} busy on {self.cores} cores",
            f"  store I/O: put_many (a batch) p50 {self.put_p50_ms:.1f} ms p99 {self.put_p99_ms:.1f} ms,"
            " backends waiting for the"
            f" write lock {self.lock_waiters_mean:.1f} on average ({self.lock_waiters_max} at most);"
            f" changes_since p50 {self.changes_p50_ms:.1f} ms p99 {self.changes_p99_ms:.1f} ms",
            f"    passes: {self.passes_per_s:.0f}/s over all tills, {self.changes_per_pass:.1f} changes each, taking"
            f" p50 {self.pass_p50_ms:.0f} ms p99 {self.pass_p99_ms:.0f} ms max {self.pass_max_ms:.0f} ms;"
            f" the most records one pass sent before it applied anything: {self.sent_per_pass_max}",
            f"    per record written: {self.transactions_per_record:.1f} transactions of the tills,"
            f" {self.fetched_per_record:.1f} fetches of it; opened: {self.connections} pool connections +"
            f" {self.listeners} listeners, {self.sessions} server sessions; {self.max_backends} backends at most",
            f"  StoreSync's journal writes, each till (sent, applied, reached):"
            f" {self.link_writes_per_s:.1f}/s taking {self.link_ms_per_s:.1f} ms/s, p99 {self.link_p99_ms:.1f} ms",
            f"  tills: outbox backlog at most {self.backlog_max}; writers behind their timetable p99"
            f" {self.behind_p99_ms:.1f} ms (max {self.behind_max_ms:.1f}); event loop lag p99"
            f" {self.loop_lag_p99_ms:.1f} ms (max {self.loop_lag_max_ms:.1f}); caught up {self.drain_s:.2f} s"
            " after the writing",
            f"  exactly once: {'yes' if self.exactly_once else 'NO'}"
            + "".join(f"\n    {problem}" for problem in self.problems[:20]),
            f"  whole run {self.elapsed_s:.1f} s; goals {'met' if self.goals_met() else 'MISSED'}",
        ]

    def properties(self) -> dict[str, object]:
        def rounded(value: float, digits: int) -> float | None:
            return None if math.isnan(value) else round(value, digits)

        return {
            "tills": self.tills,
            "processes": self.processes,
            "seconds": self.seconds,
            "records": self.records,
            "sale_linked_p50_ms": rounded(self.linked_p50_ms, 3),
            "sale_linked_p99_ms": rounded(self.linked_p99_ms, 3),
            "sale_alone_p50_ms": rounded(self.alone_p50_ms, 3),
            "sale_alone_p99_ms": rounded(self.alone_p99_ms, 3),
            "sale_added_p99_ms": rounded(self.added_p99_ms, 3),
            "lag_p50_s": rounded(self.lag_p50_s, 4),
            "lag_p99_s": rounded(self.lag_p99_s, 4),
            "lag_max_s": rounded(self.lag_max_s, 4),
            "lag_p99_by_quarter_s": [rounded(value, 4) for value in self.lag_p99_by_quarter_s],
            "send_p99_s": rounded(self.send_p99_s, 4),
            "apply_p99_s": rounded(self.apply_p99_s, 4),
            "pg_cpu_share_of_one_core": rounded(self.pg_cpu_share, 4),
            "tills_cpu_share_of_one_core": rounded(self.tills_cpu_share, 4),
            "machine_busy_share": rounded(self.machine_busy_share, 4),
            "passes_per_s": rounded(self.passes_per_s, 1),
            "changes_per_pass": rounded(self.changes_per_pass, 2),
            "transactions_per_record": rounded(self.transactions_per_record, 2),
            "pass_p99_ms": rounded(self.pass_p99_ms, 1),
            "pass_max_ms": rounded(self.pass_max_ms, 1),
            "sent_per_pass_max": self.sent_per_pass_max,
            "put_p50_ms": rounded(self.put_p50_ms, 2),
            "put_p99_ms": rounded(self.put_p99_ms, 2),
            "changes_since_p99_ms": rounded(self.changes_p99_ms, 2),
            "write_lock_waiters_mean": rounded(self.lock_waiters_mean, 2),
            "sync_journal_writes_per_s_per_till": rounded(self.link_writes_per_s, 2),
            "sync_journal_ms_per_s_per_till": rounded(self.link_ms_per_s, 2),
            "pool_connections": self.connections,
            "server_sessions": self.sessions,
            "backlog_max": self.backlog_max,
            "loop_lag_p99_ms": rounded(self.loop_lag_p99_ms, 2),
            "drain_s": rounded(self.drain_s, 3),
            "exactly_once": self.exactly_once,
            "elapsed_s": rounded(self.elapsed_s, 2),
        }


def _quarters(samples: list[tuple[float, float]], start: float, length: float) -> list[list[float]]:
    """Values by quarter of the run, from (time, value) pairs."""
    buckets: list[list[float]] = [[], [], [], []]
    for moment, value in samples:
        buckets[max(0, min(3, int((moment - start) / length * 4)))].append(value)
    return buckets


def _rate(samples: list[Sample], start: float, end: float) -> float:
    """The server's CPU seconds per second between the samples nearest ``start`` and ``end``."""
    first = min(samples, key=lambda sample: abs(sample.at - start))
    last = min(samples, key=lambda sample: abs(sample.at - end))
    if last.at <= first.at:
        return math.nan
    return (last.server_cpu_s - first.server_cpu_s) / (last.at - first.at)


# --- the whole store --------------------------------------------------------------------------------------------


def run(
    url: str,
    password: str | None,
    probe: ServerProbe,
    *,
    seconds: float,
    folder: Path,
    tills: int = TILLS,
    rate: float = RATE,
    processes: int = PROCESSES,
) -> Figures:
    """The store of ``tills`` tills at ``url`` (set up, empty), writing for ``seconds``; the figures."""
    began = time.monotonic()
    processes = max(1, min(processes, tills))
    groups = [tuple(range(i, tills, processes)) for i in range(processes)]
    specs = [DriveSpec(url, password, group, tills, seconds, rate, str(folder)) for group in groups]
    watch = ServerWatch(probe)
    before = probe.statistics(watch.admin)
    watch.sample()
    watch.start()
    try:
        raws = [drive(specs[0])] if processes == 1 else _drive_in_processes(specs, seconds)
    finally:
        watch.stop()
    after = probe.statistics(watch.admin)
    try:
        problems = [problem for raw in raws for problem in raw.problems]
        problems += _check_store(watch.admin, raws)
    finally:
        watch.admin.close()
    return _figures(raws, watch, before, after, problems, tills, processes, seconds, rate, began)


def _drive_in_processes(specs: list[DriveSpec], seconds: float) -> list[Raw]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(len(specs))
    results: Queue[Raw | str] = context.Queue()
    children = [context.Process(target=_drive_in_child, args=(spec, barrier, results)) for spec in specs]
    for child in children:
        child.start()
    try:
        answers = [results.get(timeout=BARRIER_LIMIT_S + seconds + DRAIN_LIMIT_S + 120) for _ in children]
    finally:
        for child in children:
            child.join(timeout=30)
            if child.is_alive():
                child.kill()
    failures = [answer for answer in answers if isinstance(answer, str)]
    if failures:
        raise RuntimeError("; ".join(failures))
    return [answer for answer in answers if isinstance(answer, Raw)]


def _check_store(admin: psycopg.Connection[Any], raws: list[Raw]) -> list[str]:
    """Each till's cash sales, audit entries and shifts are in the store as its journal holds them, each logged
    once (a closed shift twice: opened, closed)."""
    problems = []
    journals = {till: kinds for raw in raws for till, kinds in raw.journals.items()}
    closed = {till: shifts for raw in raws for till, shifts in raw.closed_shifts.items()}
    logged: dict[tuple[str, str], int] = {
        (str(kind), str(key)): int(count)
        for kind, key, count in admin.execute(
            "SELECT kind, key, count(*) FROM change_log WHERE kind IN ('cash_sale', 'audit', 'shift') GROUP BY 1, 2"
        ).fetchall()
    }
    for table in ("cash_sale", "audit", "shift"):
        stored: dict[str, set[str]] = defaultdict(set)
        for terminal_id, key in admin.execute(f"SELECT terminal_id, id FROM {table}").fetchall():  # noqa: S608
            stored[str(terminal_id)].add(str(key))
        for till, kinds in sorted(journals.items()):
            mine, theirs = kinds[table], stored.get(till, set())
            if mine != theirs:
                problems.append(
                    f"{till} {table}: {len(mine - theirs)} missing from the store, {len(theirs - mine)} not written"
                )
            for key in sorted(mine):
                want = 2 if table == "shift" and key in closed[till] else 1
                if logged.get((table, key), 0) != want:
                    problems.append(f"{till} {table} {key}: {logged.get((table, key), 0)} changes, not {want}")
        strangers = set(stored) - set(journals)
        if strangers:
            problems.append(f"{table}: rows of tills that did not write: {sorted(strangers)}")
    closed_stored = {
        str(key) for (key,) in admin.execute("SELECT id FROM shift WHERE closed_at IS NOT NULL").fetchall()
    }
    if closed_stored != set().union(*closed.values()):
        problems.append("the shifts closed in the store are not the ones closed on the tills")
    return problems


def _figures(
    raws: list[Raw],
    watch: ServerWatch,
    before: dict[str, int],
    after: dict[str, int],
    problems: list[str],
    tills: int,
    processes: int,
    seconds: float,
    rate: float,
    began: float,
) -> Figures:
    samples = watch.samples
    written: dict[tuple[str, str], list[float]] = {}
    for raw in raws:
        written.update(raw.written)
    start = min(raw.started_at for raw in raws)
    end = max(raw.started_at + seconds + raw.drain_s for raw in raws)
    waiters = [float(count) for moment, count in watch.lock_waiters if start <= moment <= end]
    span = max(end - start, 1e-9)
    lags: list[tuple[float, float]] = []  # (written at, lag)
    sending: list[float] = []
    applying: list[float] = []
    for raw in raws:
        for kind, key, occurrence, arrived, applied in raw.seen:
            times = written.get((kind, key))
            if times is not None and occurrence < len(times):
                lags.append((times[occurrence], applied - times[occurrence]))
                sending.append(arrived - times[occurrence])
                applying.append(applied - arrived)
    lag_values = [lag for _, lag in lags]
    kinds: Counter[str] = Counter()
    for raw in raws:
        kinds.update(raw.kinds)
    records = sum(kinds.values())
    quarter = seconds / 4
    first = min(samples, key=lambda sample: abs(sample.at - start))
    last = min(samples, key=lambda sample: abs(sample.at - end))
    machine = (last.machine_busy - first.machine_busy) / max(last.machine_total - first.machine_total, 1)
    backlog: dict[int, int] = defaultdict(int)
    for raw in raws:
        for moment, waiting in raw.backlog:
            backlog[round(moment)] += waiting
    passes = sum(raw.passes for raw in raws)
    behind = [value for raw in raws for value in raw.behind_ms]
    loop_lag = [value for raw in raws for value in raw.loop_lag_ms]
    linked = [value for raw in raws for value in raw.linked_ms]
    puts = [value for raw in raws for value in raw.put_ms]
    reads = [value for raw in raws for value in raw.changes_ms]
    bookkeeping = [value for raw in raws for value in raw.link_ms]
    passes_ms = [value for raw in raws for value in raw.passes_ms]
    alone = [value for raw in raws for value in raw.alone_ms]
    return Figures(
        tills=tills,
        processes=processes,
        seconds=seconds,
        rate=rate,
        records=records,
        kinds=dict(kinds),
        linked_p50_ms=percentile(linked, 50),
        linked_p99_ms=percentile(linked, 99),
        alone_p50_ms=percentile(alone, 50),
        alone_p99_ms=percentile(alone, 99),
        lag_p50_s=percentile(lag_values, 50),
        lag_p99_s=percentile(lag_values, 99),
        lag_max_s=max(lag_values, default=math.nan),
        lag_samples=len(lag_values),
        lag_p99_by_quarter_s=[percentile(bucket, 99) for bucket in _quarters(lags, start, seconds)],
        send_p50_s=percentile(sending, 50),
        send_p99_s=percentile(sending, 99),
        apply_p50_s=percentile(applying, 50),
        apply_p99_s=percentile(applying, 99),
        pg_cpu_share=_rate(samples, start, end),
        pg_cpu_by_quarter=[_rate(samples, start + q * quarter, start + (q + 1) * quarter) for q in range(4)],
        tills_cpu_share=sum(raw.cpu_s for raw in raws) / span,
        machine_busy_share=machine,
        cores=os.cpu_count() or 1,
        passes_per_s=passes / span,
        changes_per_pass=sum(raw.fetched for raw in raws) / max(passes, 1),
        fetched_per_record=sum(raw.fetched for raw in raws) / max(records, 1),
        transactions_per_record=sum(raw.transactions for raw in raws) / max(records, 1),
        put_p50_ms=percentile(puts, 50),
        put_p99_ms=percentile(puts, 99),
        changes_p50_ms=percentile(reads, 50),
        changes_p99_ms=percentile(reads, 99),
        lock_waiters_mean=sum(waiters) / len(waiters) if waiters else math.nan,
        lock_waiters_max=int(max(waiters, default=0)),
        pass_p50_ms=percentile(passes_ms, 50),
        pass_p99_ms=percentile(passes_ms, 99),
        pass_max_ms=max(passes_ms, default=math.nan),
        sent_per_pass_max=max((sent for raw in raws for sent in raw.sent_per_pass), default=0),
        link_writes_per_s=len(bookkeeping) / span / tills,
        link_ms_per_s=sum(bookkeeping) / span / tills,
        link_p99_ms=percentile(bookkeeping, 99),
        connections=sum(raw.connections for raw in raws),
        listeners=sum(raw.listeners for raw in raws),
        sessions=after["sessions"] - before["sessions"],
        max_backends=max((sample.backends for sample in samples), default=0),
        backlog_max=max(backlog.values(), default=0),
        behind_p99_ms=percentile(behind, 99),
        behind_max_ms=max(behind, default=math.nan),
        loop_lag_p99_ms=percentile(loop_lag, 99),
        loop_lag_max_ms=max(loop_lag, default=math.nan),
        drain_s=max(raw.drain_s for raw in raws),
        elapsed_s=time.monotonic() - began,
        problems=problems,
    )


def main(argv: list[str]) -> int:
    """Start a PostgreSQL of its own, run the store on it, print the figures; 1 when a goal is missed."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.store.postgres import PostgresServer, find_binaries, missing

    seconds = float(argv[1]) if len(argv) > 1 else seconds_from_environment()
    processes = int(argv[2]) if len(argv) > 2 else PROCESSES
    reason = missing()
    if reason is not None:
        print(reason, file=sys.stderr)
        return 2
    binaries = find_binaries()
    assert binaries is not None
    server = PostgresServer.create(binaries)
    try:
        name = server.create_database()
        with StoreDatabase(server.url(name), password=server.password) as database:
            database.init_schema()
        with tempfile.TemporaryDirectory(prefix="bench-store-") as folder:
            figures = run(
                server.url(name),
                server.password,
                ServerProbe(server, name),
                seconds=seconds,
                folder=Path(folder),
                processes=processes,
            )
    finally:
        server.destroy()
    print("\n".join(figures.lines()))
    return 0 if figures.goals_met() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
