"""Tills sharing one store database (a SQLite file, and a real PostgreSQL): what each writes arrives once,
people and lockouts reach every till, and a till that loses the store goes on and catches up.

Each till here is what the terminal builds for one (its journal, :class:`StoreSync`, :class:`Staff`), without the
service: the store database holds what the service does not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pos_terminal.domain.details import StoreDetails
from pos_terminal.domain.people import PIN_TO_SET, Role
from pos_terminal.domain.shift import DrawerCount
from pos_terminal.journal.journal import Journal
from pos_terminal.journal.staff import ShiftBook
from pos_terminal.services.catalog import drafts_of, load_catalog
from pos_terminal.services.staff import PersonLocked, PinToSet, Staff, WrongPin
from pos_terminal.services.store_sync import StoreOffline, StoreSync, split_password
from pos_terminal.store.database import StoreUnavailable
from tests.conftest import StoreTarget
from tests.helpers.services import Secrets, rows

PIN = "4821"


@dataclass
class Till:
    journal: Journal
    store: StoreSync
    staff: Staff
    shifts: ShiftBook
    terminal_id: str
    sales: list[str] = field(default_factory=list)

    def sell(self, total: int = 450) -> str:
        sale = self.journal.cash_sales.record(
            terminal_id=self.terminal_id,
            customer=None,
            total=total,
            tax=total // 11,
            paid=total + 50,
            check={"version": 1, "items": [], "discounts": [], "payments": []},
            actor="Ana",
        )
        self.sales.append(sale.uid)
        return sale.uid


@pytest.fixture
def make_till(tmp_path: Path) -> Iterator[Callable[[str], Till]]:
    opened: list[Till] = []
    secrets: dict[str, Secrets] = {}

    def make(terminal_id: str) -> Till:
        journal = Journal(tmp_path / f"{terminal_id}.sqlite3")
        store = StoreSync(
            journal, terminal_id=terminal_id, secrets=lambda address: secrets.setdefault(address, Secrets())
        )
        till = Till(
            journal, store, Staff(journal, terminal_id=terminal_id, store=store), ShiftBook(journal), terminal_id
        )
        opened.append(till)
        return till

    yield make
    for till in opened:
        till.journal.close()


async def joined(make_till: Callable[[str], Till], target: StoreTarget, *terminal_ids: str) -> list[Till]:
    tills = []
    for terminal_id in terminal_ids:
        till = make_till(terminal_id)
        await till.store.join(target.url, target.password)
        tills.append(till)
    return tills


@pytest.fixture
def store(store_target: StoreTarget) -> StoreTarget:
    database = store_target.open()
    database.init_schema()
    return store_target


async def test_what_a_till_writes_reaches_the_store_once(make_till: Callable[[str], Till], store: StoreTarget) -> None:
    [till] = await joined(make_till, store, "LANE-1")
    opened = till.shifts.open("LANE-1", "Ana", 20_000, datetime.now(UTC))
    for total in (450, 980, 1_200):
        till.sell(total)
    till.shifts.close(opened.id, "Ana", DrawerCount(23_030), 23_030, datetime.now(UTC))
    assert till.store.status().waiting > 0
    report = await till.store.sync()
    assert report.sent > 0 and not report.refused
    assert till.store.status().waiting == 0
    # a till killed after the store wrote a record, before it marked it sent, sends it again: it lands once
    till.journal.write("UPDATE store_outbox SET sent_at = NULL")
    await till.store.sync()
    sales = rows(store, "cash_sale")
    assert sorted(s["id"] for s in sales) == sorted(till.sales)
    [shift] = rows(store, "shift")
    assert (shift["terminal_id"], shift["counted_cash"], shift["closed_by"]) == ("LANE-1", 23_030, "Ana")
    local_audit = {e.uid for e in till.journal.audit.all()}
    assert {a["id"] for a in rows(store, "audit")} == local_audit


async def test_a_person_added_on_one_till_signs_in_on_the_other(
    make_till: Callable[[str], Till], store: StoreTarget
) -> None:
    one, two = await joined(make_till, store, "LANE-1", "LANE-2")
    await one.staff.add("Ana Cashier", Role.CASHIER, PIN, by=None)
    assert one.store.status().waiting == 0, "a new person is sent at once"
    report = await two.store.sync()
    assert report.people_changed
    assert (await two.staff.verify("Ana Cashier", PIN)).name == "Ana Cashier"
    # a till that joins later takes the store's people too
    [three] = await joined(make_till, store, "LANE-3")
    assert [p.name for p in three.staff.people()] == ["Ana Cashier"]


async def test_a_lockout_on_one_till_holds_on_every_till_and_an_unlock_lifts_it_everywhere(
    make_till: Callable[[str], Till], store: StoreTarget
) -> None:
    one, two = await joined(make_till, store, "LANE-1", "LANE-2")
    await one.staff.add("Ana Cashier", Role.CASHIER, PIN, by=None)
    await two.store.sync()
    for _ in range(4):
        with pytest.raises(WrongPin):
            await one.staff.verify("Ana Cashier", "0000")
    with pytest.raises(PersonLocked):
        await one.staff.verify("Ana Cashier", "0000")
    await one.store.sync()
    await two.store.sync()
    with pytest.raises(PersonLocked):
        await two.staff.verify("Ana Cashier", PIN)  # locked out on one till: locked out here too
    two.staff.unlock("Ana Cashier", by="Maria Manager")
    await two.store.sync()
    await one.store.sync()
    assert (await one.staff.verify("Ana Cashier", PIN)).name == "Ana Cashier"


async def test_the_same_person_edited_on_two_tills_apart_ends_the_same_on_both(
    make_till: Callable[[str], Till], store: StoreTarget
) -> None:
    """Last writer wins per person (docs/store.md): the later edit, whichever till sends it first."""
    one, two = await joined(make_till, store, "LANE-1", "LANE-2")
    await one.staff.add("Ana Cashier", Role.CASHIER, PIN, by=None)
    await one.staff.add("Maria Manager", Role.MANAGER, PIN, by=None)
    await two.store.sync()
    # both apart from the store: one resets Ana's PIN, then two disables her
    await one.staff.reset_pin("Ana Cashier", "7777", by="Maria Manager")
    later = datetime.now(UTC) + timedelta(seconds=1)
    two.journal.now = lambda: later
    two.staff.disable("Ana Cashier", by="Maria Manager")
    await two.store.sync()  # the later edit reaches the store first
    await one.store.sync()  # the earlier one arrives after it, and loses
    await two.store.sync()
    ana_one, ana_two = one.staff.find("Ana Cashier"), two.staff.find("Ana Cashier")
    assert ana_one.active is False and ana_two.active is False
    [stored] = [p for p in rows(store, "person") if p["name"] == "Ana Cashier"]
    assert stored["active"] is False or stored["active"] == 0


async def test_a_pin_reset_on_one_till_is_set_by_the_person_on_another_and_holds_on_both(
    make_till: Callable[[str], Till], store: StoreTarget
) -> None:
    """A reset leaves the PIN to the person (docs/shifts.md): it travels with the person like any edit, no PIN opens
    on any till until they choose one, and the PIN they choose on LANE-2 opens on LANE-1 after a sync."""
    one, two = await joined(make_till, store, "LANE-1", "LANE-2")
    await one.staff.add("Ana Cashier", Role.CASHIER, PIN, by=None)
    await two.store.sync()
    await one.staff.reset_pin("Ana Cashier", by="Maria Manager")
    with pytest.raises(PinToSet):
        await one.staff.verify("Ana Cashier", PIN)
    assert (await two.staff.verify("Ana Cashier", PIN)).name == "Ana Cashier"  # LANE-2 has not heard of it yet
    await one.store.sync()
    await two.store.sync()
    [stored] = rows(store, "person")
    assert stored["pin_hash"] == PIN_TO_SET
    assert two.staff.find("Ana Cashier").pin_to_set
    with pytest.raises(PinToSet):
        await two.staff.verify("Ana Cashier", PIN)  # the old PIN no longer opens here either

    await two.staff.set_own_pin("Ana Cashier", "135790")
    await two.store.sync()
    await one.store.sync()
    assert not one.staff.find("Ana Cashier").pin_to_set
    assert (await one.staff.verify("Ana Cashier", "135790")).name == "Ana Cashier"
    with pytest.raises(WrongPin):
        await one.staff.verify("Ana Cashier", PIN)
    [stored] = rows(store, "person")
    assert stored["pin_hash"] not in (PIN_TO_SET, "135790") and stored["updated_by_till"] == "LANE-2"


async def test_a_pin_chosen_on_two_tills_apart_is_the_later_one_on_both(
    make_till: Callable[[str], Till], store: StoreTarget
) -> None:
    """Both tills heard of the reset, then lost the store; the person chose a PIN on each: the later choice is
    their PIN everywhere (last writer wins per person, docs/store.md)."""
    one, two = await joined(make_till, store, "LANE-1", "LANE-2")
    await one.staff.add("Ana Cashier", Role.CASHIER, PIN, by=None)
    await one.staff.reset_pin("Ana Cashier", by="Maria Manager")
    await one.store.sync()
    await two.store.sync()
    await one.staff.set_own_pin("Ana Cashier", "111111")
    later = datetime.now(UTC) + timedelta(seconds=1)
    two.journal.now = lambda: later
    await two.staff.set_own_pin("Ana Cashier", "222222")
    await two.store.sync()  # the later choice reaches the store first
    await one.store.sync()  # the earlier one arrives after it, and loses
    for till in (one, two):
        assert (await till.staff.verify("Ana Cashier", "222222")).name == "Ana Cashier"
        with pytest.raises(WrongPin):
            await till.staff.verify("Ana Cashier", "111111")


def test_the_password_is_taken_out_of_the_address() -> None:
    assert split_password("postgresql://pos:s%40cret@shop:5432/store?sslmode=require") == (
        "postgresql://pos@shop:5432/store?sslmode=require",
        "s@cret",
    )
    assert split_password("sqlite:///tmp/store.sqlite3") == ("sqlite:///tmp/store.sqlite3", None)


@pytest.fixture
def pg_store(postgres_target: StoreTarget) -> StoreTarget:
    postgres_target.open().init_schema()
    return postgres_target


async def test_tills_keep_selling_while_postgresql_is_down_and_every_record_arrives_once(
    make_till: Callable[[str], Till], pg_store: StoreTarget
) -> None:
    """Three tills; PostgreSQL stopped with -m immediate in the middle of the shift; 50 checks each meanwhile."""
    tills = await joined(make_till, pg_store, "LANE-1", "LANE-2", "LANE-3")
    for till in tills:
        till.sell()
        await till.store.sync()
    server = pg_store.server
    assert server is not None
    pg_store.close_all()
    server.stop(mode="immediate")
    try:
        for till in tills:
            for _ in range(50):
                till.sell()
            with pytest.raises(StoreUnavailable):
                await till.store.sync()
            status = till.store.status()
            assert status.offline_since is not None
            assert status.waiting >= 50
            assert status.sentence(lambda t: t.strftime("%H:%M")).startswith("Store offline since ")
            assert f"· {status.waiting} changes waiting" in status.sentence(lambda t: t.strftime("%H:%M"))
        with pytest.raises(StoreOffline, match="New people can be added only while the store database can be reached"):
            await tills[0].staff.add("Bo Cashier", Role.CASHIER, PIN, by=None)
        assert [p.name for p in tills[0].staff.people()] == []
    finally:
        server.start()
    for till in tills:
        await till.store.sync()
        assert till.store.status().waiting == 0
    stored = rows(pg_store, "cash_sale")
    assert len(stored) == 153
    assert sorted(s["id"] for s in stored) == sorted(uid for till in tills for uid in till.sales)
    assert len(rows(pg_store, "audit")) == len({a["id"] for a in rows(pg_store, "audit")})


async def test_a_store_in_a_file_never_asks_the_keychain(tmp_path: Path) -> None:
    """A locked keychain stops nothing when the store has no password (a file): it is never asked."""
    from pos_terminal.keychain.tokens import KeychainError

    store_target = StoreTarget("sqlite", f"sqlite:///{tmp_path / 'store.sqlite3'}")
    store_target.open().init_schema()

    class Locked(Secrets):
        def load(self) -> dict[str, Any] | None:
            raise KeychainError("The system keychain could not read the sign-in (KeyringLocked).")

    journal = Journal(tmp_path / "lane.sqlite3")
    try:
        store = StoreSync(journal, terminal_id="LANE-9", secrets=lambda _: Locked())
        await store.join(store_target.url, None)
        journal.cash_sales.record(terminal_id="LANE-9", customer=None, total=100, tax=9, paid=100, check={})
        await store.close()  # a new connection, as a restart makes
        assert (await store.sync()).sent == 1
    finally:
        journal.close()
        store_target.close_all()


@pytest.fixture
def shop_with_till_users(postgres_target: StoreTarget) -> Callable[[str], tuple[str, str]]:
    """A store whose owner gave LANE-1 and LANE-2 database users of their own (``store add-till``): for a terminal
    id, the address and password that till joins with."""
    from pos_terminal.store.roles import add_till, set_up_till_roles

    owner = postgres_target.open()
    owner.init_schema()
    set_up_till_roles(owner)
    passwords = {"LANE-1": "lane-1-password", "LANE-2": "lane-2-password"}
    for terminal_id, password in passwords.items():
        add_till(owner, terminal_id, password)
    server = postgres_target.server
    assert server is not None
    name = postgres_target.url.rsplit("/", 1)[-1]
    return lambda terminal_id: (server.url(name, user=terminal_id), passwords[terminal_id])


async def test_tills_logged_in_as_themselves_do_all_a_till_does(
    make_till: Callable[[str], Till],
    shop_with_till_users: Callable[[str], tuple[str, str]],
    postgres_target: StoreTarget,
) -> None:
    """Each till with its own database user, bound by the server to its own shifts, cash sales and audit: joining,
    people and their edits, PIN tries and lockouts, shifts opened and closed, cash sales, the change log and its
    notifications, the till's row, the schema's version and the store's day all work, and everything arrives."""
    one, two = make_till("LANE-1"), make_till("LANE-2")
    for till in (one, two):
        await till.store.join(*shop_with_till_users(till.terminal_id))
    await one.staff.add("Maria Manager", Role.MANAGER, PIN, by=None)
    await one.staff.add("Ana Cashier", Role.CASHIER, PIN, by="Maria Manager")
    assert (await two.store.sync()).people_changed
    with two.store._connected(
        shop_with_till_users("LANE-2")[0]
    ).listen() as listener:  # LISTEN as LANE-2; LANE-1's writes wake it
        seq = listener.wait(0, timeout=5)
        assert seq is not None
        now = datetime.now(UTC)
        shifts = {
            till.terminal_id: till.shifts.open(till.terminal_id, "Maria Manager", 10_000, now) for till in (one, two)
        }
        for till in (one, two):
            till.sell(450)
            till.sell(1_200)
        await one.store.sync()
        woke = listener.wait(seq, timeout=5)
        assert woke is not None and woke > seq
    for _ in range(4):  # PIN tries on LANE-2 lock Ana out on LANE-1 too
        with pytest.raises(WrongPin):
            await two.staff.verify("Ana Cashier", "0000")
    with pytest.raises(PersonLocked):
        await two.staff.verify("Ana Cashier", "0000")
    await two.store.sync()
    await one.store.sync()
    with pytest.raises(PersonLocked):
        await one.staff.verify("Ana Cashier", PIN)
    one.staff.unlock("Ana Cashier", by="Maria Manager")  # an edit of a person on LANE-1, a new PIN on LANE-2
    await one.store.sync()
    await two.store.sync()
    await two.staff.reset_pin("Ana Cashier", "7777", by="Maria Manager")
    later = datetime.now(UTC)
    for till in (one, two):
        till.shifts.close(shifts[till.terminal_id].id, "Maria Manager", DrawerCount(11_650), 11_650, later)
    # the catalog and the store's details: a product's barcodes replaced by a later import on the other till
    categories, products = drafts_of(load_catalog(None))
    coded = next(index for index, product in enumerate(products) if product.barcodes)
    one.store.catalog.publish(categories, products)
    two.store.details.set(StoreDetails("Café Nord", address="1 Quay St"))
    for till in (one, two):
        assert (await till.store.sync()).refused == []
    products[coded] = replace(products[coded], barcodes=(), price=products[coded].price + 10)
    two.store.catalog.publish(categories, products)
    for till in (one, two, one):
        report = await till.store.sync()
        assert report.refused == []
    assert [p.barcodes for p in one.store.catalog.products() if p.name == products[coded].name] == [()]
    [stored] = [p for p in rows(postgres_target, "product") if p["name"] == products[coded].name]
    assert (stored["price"], stored["updated_by_till"]) == (products[coded].price, "LANE-2")
    assert not [c for c in rows(postgres_target, "product_code") if c["product_id"] == stored["id"]]
    assert [i["name"] for i in rows(postgres_target, "store_info")] == ["Café Nord"]
    for till in (one, two):
        status = till.store.status()
        assert (status.waiting, status.last_error, status.refused) == (0, None, ())
    assert (await one.staff.verify("Ana Cashier", "7777")).name == "Ana Cashier"

    stored_shifts = {s["id"]: s for s in rows(postgres_target, "shift")}
    assert {(s["terminal_id"], s["counted_cash"]) for s in stored_shifts.values()} == {
        ("LANE-1", 11_650),
        ("LANE-2", 11_650),
    }
    day = await two.store.day(now - timedelta(hours=1), datetime.now(UTC) + timedelta(hours=1))
    assert sorted((s["terminal_id"], s["closed_by"]) for s in day.shifts) == [
        ("LANE-1", "Maria Manager"),
        ("LANE-2", "Maria Manager"),
    ]
    assert sorted(s["id"] for s in day.cash_sales) == sorted(one.sales + two.sales)
    assert [t["terminal_id"] for t in day.tills] == ["LANE-1", "LANE-2"]
    for till in (one, two):
        local = {e.uid for e in till.journal.audit.all()}
        assert local and local <= {a["id"] for a in day.audit if a["terminal_id"] == till.terminal_id}
    [ana] = [p for p in rows(postgres_target, "person") if p["name"] == "Ana Cashier"]
    assert (ana["wrong_pins"], ana["locked_until"], ana["version"]) == (0, None, 3)
