"""The store database on real servers: a SQLite file and a throwaway PostgreSQL (tests/store/postgres.py).

Setting up and refusing a newer schema, the sentences for what goes wrong,
idempotent replays, a till writing only its own shifts and cash sales, the
merge of edits and lockouts, the change log and its notifications.
"""

from __future__ import annotations

import base64
import socket
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from pos_terminal.domain.details import LOGO_STORED_LIMIT, PNG_SIGNATURE
from pos_terminal.errors import UserError
from pos_terminal.store import schema
from pos_terminal.store.database import (
    CHANNEL,
    BadStoreAddress,
    Lockout,
    SchemaState,
    StoreAccessDenied,
    StoreConflict,
    StoreCurrencyDiffers,
    StoreDamaged,
    StoreDatabase,
    StoreDatabaseMissing,
    StoreSchemaMissing,
    StoreSchemaTooNew,
    StoreUnavailable,
    TillIdTaken,
    WrongTill,
    alembic_config,
)
from pos_terminal.store.schema import Kind
from tests.helpers.store import AT, assert_one_sentence, closed_shift, opened_shift, sale
from tests.store.postgres import PASSWORD, PostgresServer, StoreTarget, free_port

T1, T2 = "LANE-1", "LANE-2"


@pytest.fixture
def store(store_target: StoreTarget) -> StoreDatabase:
    """Till 1's connection to a store database that is set up."""
    database = store_target.open()
    database.init_schema()
    return database


def engine(database: StoreDatabase) -> sa.Engine:
    return database._engine


def count(database: StoreDatabase, table: sa.Table) -> int:
    with engine(database).connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def person(person_id: str = "p-ann", *, version: int, at: datetime, **fields: Any) -> dict[str, Any]:
    record = {
        "id": person_id,
        "name": "Ann",
        "role": "cashier",
        "pin_hash": "scrypt$ann",
        "active": True,
        "version": version,
        "updated_at": at,
    }
    return record | fields


# --- setting up -----------------------------------------------------------------------------------------------


def test_init_creates_the_schema_and_again_changes_nothing(store_target: StoreTarget) -> None:
    database = store_target.open()
    assert database.schema_state() is SchemaState.MISSING
    assert database.init_schema() is SchemaState.CURRENT
    assert database.schema_state() is SchemaState.CURRENT
    tables = set(sa.inspect(engine(database)).get_table_names())
    assert {str(kind) for kind in schema.TABLES} | {"change_log", "alembic_version"} <= tables

    again = store_target.open()
    assert again.schema_state() is SchemaState.CURRENT
    assert again.init_schema() is SchemaState.CURRENT
    assert again.latest_seq() == 0
    with engine(again).connect() as conn:
        assert MigrationContext.configure(conn).get_current_heads() == ("0004",)


def test_the_migration_builds_the_tables_the_code_describes(store: StoreDatabase) -> None:
    with engine(store).connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, schema.metadata) == []


def test_a_schema_from_a_newer_version_is_refused_in_one_sentence(store_target: StoreTarget) -> None:
    first = store_target.open()
    first.init_schema()
    with engine(first).begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))

    later = store_target.open()
    assert later.schema_state() is SchemaState.TOO_NEW
    with pytest.raises(StoreSchemaTooNew) as refused:
        later.init_schema()
    assert refused.value.sentence.startswith("The store database was set up by a newer pos-terminal")
    assert_one_sentence(refused.value, "9999", "0004")
    with pytest.raises(StoreSchemaTooNew):
        later.put("audit", {"id": "a-1", "at": AT, "action": "sign-in"}, terminal_id=T1)
    with engine(later).connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one() == "9999"


def test_a_database_never_set_up_says_so(store_target: StoreTarget) -> None:
    database = store_target.open()
    with pytest.raises(StoreSchemaMissing) as missing:
        database.put("audit", {"id": "a-1", "at": AT, "action": "sign-in"}, terminal_id=T1)
    assert_one_sentence(missing.value, database.where)
    assert "has not been set up" in missing.value.sentence


def test_two_tills_setting_up_at_once_set_up_once(store_target: StoreTarget) -> None:
    tills = [store_target.open(), store_target.open()]
    errors: list[BaseException] = []

    def init(database: StoreDatabase) -> None:
        try:
            database.init_schema()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=init, args=(till,)) for till in tills]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert all(till.schema_state() is SchemaState.CURRENT for till in tills)


# --- what goes wrong, in one sentence -------------------------------------------------------------------------


def test_a_wrong_password(postgres_target: StoreTarget, postgres_server: PostgresServer) -> None:
    server = postgres_server
    database = postgres_target.open(password="not-the-password")
    with pytest.raises(StoreAccessDenied) as refused:
        database.schema_state()
    assert_one_sentence(refused.value, f"{server.host}:{server.port}", server.user)
    assert "not-the-password" not in refused.value.text()
    assert "not-the-password" not in repr(database)


def test_the_password_may_sit_in_the_url(postgres_target: StoreTarget, postgres_server: PostgresServer) -> None:
    server = postgres_server
    url = postgres_target.url.replace(f"{server.user}@", f"{server.user}:{PASSWORD}@")
    database = StoreDatabase(url)
    try:
        assert database.schema_state() is SchemaState.MISSING
        assert PASSWORD not in repr(database)
    finally:
        database.close()


def test_nothing_listening_on_the_port() -> None:
    port = free_port()
    database = StoreDatabase(f"postgresql://pos@127.0.0.1:{port}/shop", password="x")
    try:
        with pytest.raises(StoreUnavailable) as unreachable:
            database.schema_state()
    finally:
        database.close()
    assert_one_sentence(unreachable.value, f"127.0.0.1:{port}")
    assert "connection refused" in unreachable.value.sentence


def test_a_server_that_never_answers_times_out() -> None:
    with socket.socket() as silent:  # accepts connections in the kernel's backlog, never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        database = StoreDatabase(f"postgresql://pos@127.0.0.1:{port}/shop", password="x", connect_timeout=2)
        started = time.monotonic()
        try:
            with pytest.raises(StoreUnavailable) as silent_error:
                database.schema_state()
        finally:
            database.close()
    assert time.monotonic() - started < 10
    assert_one_sentence(silent_error.value, f"127.0.0.1:{port}", "within 2 s")


def test_a_database_the_server_does_not_have(postgres_server: PostgresServer) -> None:
    server = postgres_server
    database = StoreDatabase(server.url("no_such_shop"), password=PASSWORD)
    try:
        with pytest.raises(StoreDatabaseMissing) as missing:
            database.schema_state()
    finally:
        database.close()
    assert_one_sentence(missing.value, f"{server.host}:{server.port}", "no_such_shop")


def test_tls_asked_of_a_server_without_it(postgres_server: PostgresServer) -> None:
    server = postgres_server
    database = StoreDatabase(server.url("postgres", query="sslmode=require"), password=PASSWORD)
    try:
        with pytest.raises(UserError) as refused:
            database.schema_state()
    finally:
        database.close()
    assert_one_sentence(refused.value, f"{server.host}:{server.port}")
    assert "encryption" in refused.value.sentence


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("mysql://pos:secret@shop-server/shop", "mysql://pos:***@shop-server/shop"),
        ("http://shop-server/shop", "http://shop-server/shop"),
        ("postgresql://pos@shop-server:notaport/shop", None),
        ("shop-server:5432", None),
        ("postgresql://pos@shop-server:5432", "postgresql://pos@shop-server:5432"),
        ("postgresql://pos@shop-server/shop?colour=blue", "postgresql://pos@shop-server/shop?colour=blue"),
        ("sqlite://", "sqlite://"),
    ],
)
def test_an_address_pos_terminal_cannot_use(url: str, shown: str | None) -> None:
    with pytest.raises(BadStoreAddress) as bad:
        StoreDatabase(url)
    assert_one_sentence(bad.value, *([shown] if shown else []))
    assert "secret" not in bad.value.text()


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    path.write_bytes(b"this is a shopping list, not a database" * 200)
    with StoreDatabase(f"sqlite:///{path}") as database, pytest.raises(StoreDamaged) as damaged:
        database.schema_state()
    assert_one_sentence(damaged.value, str(path))


def test_a_file_that_is_not_there_is_not_created_until_set_up(tmp_path: Path) -> None:
    path = tmp_path / "shop" / "store.sqlite3"
    with StoreDatabase(f"sqlite:///{path}") as database:
        assert database.schema_state() is SchemaState.MISSING
        assert not path.exists()
        database.init_schema()
        assert path.exists()


# --- writing: idempotent, and each till its own ---------------------------------------------------------------


def test_a_cash_sale_written_twice_is_one_sale_and_one_change(store: StoreDatabase) -> None:
    assert store.put("cash_sale", sale(), terminal_id=T1) is True
    assert store.put("cash_sale", sale(), terminal_id=T1) is False
    assert store.put("cash_sale", sale(terminal_id=T1), terminal_id=T1) is False
    assert count(store, schema.cash_sale) == 1
    assert count(store, schema.change_log) == 1
    stored = store.get("cash_sale", "sale-1")
    assert stored is not None
    assert stored["change"] == 50
    assert stored["terminal_id"] == T1
    assert stored["at"] == AT
    assert stored["at"].tzinfo is not None
    assert stored["check_body"] == {"items": [{"name": "Flat white", "cents": 450}]}


def test_an_audit_entry_written_twice_is_one_entry(store: StoreDatabase) -> None:
    entry = {"id": "a-1", "at": AT.isoformat(), "action": "sign-in", "actor": "Ann", "detail": {"how": "pin"}}
    assert store.put("audit", entry, terminal_id=T1) is True
    assert store.put("audit", entry, terminal_id=T1) is False
    assert count(store, schema.audit) == 1
    assert count(store, schema.change_log) == 1
    assert store.get("audit", "a-1") == {
        "id": "a-1",
        "terminal_id": T1,
        "at": AT,
        "action": "sign-in",
        "actor": "Ann",
        "detail": {"how": "pin"},
    }


def test_a_shift_is_opened_once_and_closed_once(store: StoreDatabase) -> None:
    assert store.put("shift", opened_shift(), terminal_id=T1) is True
    assert store.put("shift", opened_shift(), terminal_id=T1) is False
    assert store.put("shift", closed_shift(), terminal_id=T1) is True
    assert store.put("shift", closed_shift(), terminal_id=T1) is False
    assert store.put("shift", closed_shift(counted_cash=1, closed_by="Eve"), terminal_id=T1) is False
    assert store.put("shift", opened_shift(), terminal_id=T1) is False  # a late replay of the opening
    assert count(store, schema.shift) == 1
    assert [change.kind for change in store.changes_since(0)] == ["shift", "shift"]
    stored = store.get("shift", "shift-1")
    assert stored is not None
    assert (stored["closed_by"], stored["counted_cash"], stored["expected_cash"]) == ("Bob", 14_550, 14_500)
    assert stored["counted_pieces"] == [[5000, 2], [2000, 2], [50, 11]]


def test_a_shift_first_written_closed(store: StoreDatabase) -> None:
    assert store.put("shift", closed_shift("shift-2"), terminal_id=T1) is True
    assert store.put("shift", opened_shift("shift-2"), terminal_id=T1) is False
    stored = store.get("shift", "shift-2")
    assert stored is not None
    assert stored["closed_at"] == AT + timedelta(hours=8)


def test_a_till_writes_only_its_own_shifts_and_cash_sales(store: StoreDatabase) -> None:
    store.put("shift", opened_shift(), terminal_id=T1)
    store.put("cash_sale", sale(), terminal_id=T1)
    before = store.latest_seq()

    with pytest.raises(WrongTill) as refused:
        store.put("shift", opened_shift("shift-9", terminal_id=T1), terminal_id=T2)
    assert_one_sentence(refused.value, T1, T2)
    with pytest.raises(WrongTill):
        store.put("cash_sale", sale("sale-9", terminal_id=T1), terminal_id=T2)
    with pytest.raises(WrongTill):
        store.put("shift", closed_shift(), terminal_id=T2)  # closing till 1's shift
    with pytest.raises(WrongTill):
        store.put("cash_sale", sale(), terminal_id=T2)  # till 1's sale, claimed by till 2
    with pytest.raises(WrongTill):
        store.put("audit", {"id": "a-9", "terminal_id": T1, "at": AT, "action": "x"}, terminal_id=T2)

    assert store.latest_seq() == before
    shift = store.get("shift", "shift-1")
    assert shift is not None
    assert shift["closed_at"] is None
    assert store.get("shift", "shift-9") is None
    assert store.get("cash_sale", "sale-9") is None


@pytest.mark.parametrize(
    ("kind", "record"),
    [
        ("cash_sale", sale(colour="red")),  # no such column
        ("cash_sale", sale(at=datetime(2026, 3, 1, 9, 0))),  # a time without its zone
        ("cash_sale", sale(paid=400)),  # less than the total
        ("cash_sale", sale(change=10)),  # not paid - total
        ("cash_sale", sale(total=2**31)),  # beyond int32
        ("cash_sale", sale(check_body="{}")),  # JSON text instead of the object
        ("shift", opened_shift(closed_at=AT)),  # closed by nobody
        ("person", person(version=0, at=AT, role="owner")),
        ("person", {"id": "p-1", "name": "Ann"}),  # no version, no updated_at
        ("till", {"terminal_id": T1}),
    ],
)
def test_a_record_the_schema_cannot_take_is_a_bug(store: StoreDatabase, kind: str, record: dict[str, Any]) -> None:
    with pytest.raises((ValueError, sa.exc.IntegrityError)):
        store.put(kind, record, terminal_id=T1)
    assert store.latest_seq() == 0


# --- edits: last writer wins, a lockout holds everywhere ------------------------------------------------------


@pytest.mark.parametrize("order", ["A then B", "B then A"])
def test_two_tills_editing_the_same_person_agree_whatever_the_order(store_target: StoreTarget, order: str) -> None:
    one, two = store_target.open(), store_target.open()
    one.init_schema()
    assert one.put("person", person(version=0, at=AT), terminal_id=T1) is True

    renamed = person(version=1, at=AT + timedelta(minutes=1), name="Ann Smith")  # till 1, based on version 1
    promoted = person(version=1, at=AT + timedelta(minutes=2), role="manager")  # till 2, also on version 1, later
    writes = [(one, renamed, T1), (two, promoted, T2)]
    if order == "B then A":
        writes.reverse()
    results = [database.put("person", record, terminal_id=till) for database, record, till in writes]

    stored = one.get("person", "p-ann")
    assert stored is not None
    assert (stored["name"], stored["role"], stored["version"], stored["updated_by_till"]) == ("Ann", "manager", 2, T2)
    assert results == ([True, True] if order == "A then B" else [True, False])
    for database, record, till in writes:  # replays change nothing
        assert database.put("person", record, terminal_id=till) is False
    assert one.latest_seq() == 1 + results.count(True)


def test_an_edit_based_on_an_old_version_loses_however_late(store: StoreDatabase) -> None:
    store.put("person", person(version=0, at=AT), terminal_id=T1)
    store.put("person", person(version=1, at=AT + timedelta(minutes=1), name="Ann Smith"), terminal_id=T1)
    late = person(version=1, at=AT + timedelta(hours=5), name="Ann Jones")  # never saw the rename
    stale = person(version=0, at=AT + timedelta(hours=6), name="Anne")
    assert store.put("person", late, terminal_id=T2) is True  # same base as the rename: the later edit wins
    assert store.put("person", stale, terminal_id=T2) is False
    stored = store.get("person", "p-ann")
    assert stored is not None
    assert (stored["name"], stored["version"]) == ("Ann Jones", 2)
    assert stored["name_key"] == "ann jones"


def test_a_lockout_merges_by_the_greatest(store_target: StoreTarget) -> None:
    one, two = store_target.open(), store_target.open()
    one.init_schema()
    one.put("person", person(version=0, at=AT), terminal_id=T1)
    until = AT + timedelta(minutes=15)

    assert one.report_pin_tries("p-ann", wrong_pins=3, locked_until=None, lock_epoch=0, terminal_id=T1) is True
    assert two.report_pin_tries("p-ann", wrong_pins=5, locked_until=until, lock_epoch=0, terminal_id=T2) is True
    assert one.report_pin_tries("p-ann", wrong_pins=4, locked_until=None, lock_epoch=0, terminal_id=T1) is False
    assert two.report_pin_tries("p-ann", wrong_pins=5, locked_until=until, lock_epoch=0, terminal_id=T2) is False
    # An edit from a till that never heard of the lockout does not lift it.
    assert one.put("person", person(version=1, at=AT + timedelta(minutes=3), name="Ann Smith"), terminal_id=T1)
    stored = one.get("person", "p-ann")
    assert stored is not None
    assert (stored["wrong_pins"], stored["locked_until"], stored["name"]) == (5, until, "Ann Smith")

    # A manager lifts it: the next epoch. Tries counted before, arriving late, no longer count.
    unlock = person(version=2, at=AT + timedelta(minutes=4), wrong_pins=0, locked_until=None, lock_epoch=1)
    assert two.put("person", unlock | {"name": "Ann Smith"}, terminal_id=T2) is True
    assert one.report_pin_tries("p-ann", wrong_pins=5, locked_until=until, lock_epoch=0, terminal_id=T1) is False
    assert one.report_pin_tries("p-ann", wrong_pins=1, locked_until=None, lock_epoch=1, terminal_id=T1) is True
    stored = one.get("person", "p-ann")
    assert stored is not None
    assert (stored["wrong_pins"], stored["locked_until"], stored["lock_epoch"]) == (1, None, 1)

    # A stale edit that loses still carries its lockout, merged all the same.
    stale = person(version=0, at=AT, wrong_pins=4, locked_until=None, lock_epoch=1)
    assert one.put("person", stale, terminal_id=T1) is True
    stored = one.get("person", "p-ann")
    assert stored is not None
    assert (stored["wrong_pins"], stored["version"], stored["name"]) == (4, 3, "Ann Smith")
    assert one.report_pin_tries("nobody", wrong_pins=9, locked_until=None, lock_epoch=0, terminal_id=T1) is False


def test_lockout_merge_rule() -> None:
    until = AT + timedelta(minutes=15)
    assert Lockout(3, None, 0).merge(Lockout(5, until, 0)) == Lockout(5, until, 0)
    assert Lockout(5, until, 0).merge(Lockout(3, until + timedelta(minutes=1), 0)) == Lockout(
        5, until + timedelta(minutes=1), 0
    )
    assert Lockout(5, until, 0).merge(Lockout(0, None, 1)) == Lockout(0, None, 1)
    assert Lockout(0, None, 1).merge(Lockout(5, until, 0)) == Lockout(0, None, 1)


def test_names_and_barcodes_are_the_store_s_to_share(store: StoreDatabase) -> None:
    store.put("person", person(version=0, at=AT), terminal_id=T1)
    with pytest.raises(StoreConflict) as taken:
        store.put("person", person("p-other", version=0, at=AT, name="  ann "), terminal_id=T2)
    assert_one_sentence(taken.value, "ann")

    drinks = {"id": "c-drinks", "name": "Drinks", "position": 1, "version": 0, "updated_at": AT}
    assert store.put("category", drinks, terminal_id=T1) is True
    with pytest.raises(StoreConflict):
        store.put("category", drinks | {"id": "c-other"}, terminal_id=T2)
    coffee = {
        "id": "prod-coffee",
        "name": "Flat white",
        "price": 450,
        "tax_rate_bp": 1000,
        "category_id": "c-drinks",
        "barcodes": ["9300000000019", "036000291452"],
        "version": 0,
        "updated_at": AT,
    }
    assert store.put("product", coffee, terminal_id=T1) is True
    assert store.put("product", coffee | {"id": "prod-tea", "barcodes": []}, terminal_id=T1) is True
    assert store.put("product", coffee | {"id": "prod-chai", "barcodes": [], "tax_rate_bp": None}, terminal_id=T1)
    # the EAN-13 spelling of the UPC-A code on the coffee is the same code
    with pytest.raises(StoreConflict) as barcode:
        store.put("product", coffee | {"id": "prod-latte", "barcodes": ["0036000291452"]}, terminal_id=T2)
    assert_one_sentence(barcode.value, "0036000291452")
    with pytest.raises(ValueError, match="check digit"):
        store.put("product", coffee | {"id": "prod-latte", "barcodes": ["9300000000011"]}, terminal_id=T2)
    chai = store.get("product", "prod-chai")
    assert chai is not None
    assert (chai["tax_rate_bp"], chai["barcodes"]) == (None, [])
    # An edit sent back with the row as pulled (version and updated_by_till included) is an edit like any other;
    # its codes replace the product's.
    pulled = store.get("product", "prod-coffee")
    assert pulled is not None
    assert pulled["barcodes"] == ["9300000000019", "036000291452"]
    moved = pulled | {"price": 480, "barcodes": ["9300000000026"], "updated_at": AT + timedelta(1)}
    assert store.put("product", moved, terminal_id=T2) is True
    edited = store.get("product", "prod-coffee")
    assert edited is not None
    assert (edited["price"], edited["version"], edited["updated_by_till"]) == (480, 2, T2)
    assert edited["barcodes"] == ["9300000000026"]
    # the code the coffee gave up is free for another product, and the change log carries the codes
    latte = coffee | {"id": "prod-latte", "barcodes": ["036000291452"]}
    assert store.put("product", latte, terminal_id=T2) is True
    changes = {change.key: change.record for change in store.changes_since(0) if change.kind is Kind.PRODUCT}
    assert changes["prod-latte"] is not None and changes["prod-latte"]["barcodes"] == ["036000291452"]
    assert changes["prod-coffee"] is not None and changes["prod-coffee"]["barcodes"] == ["9300000000026"]


def test_a_store_of_the_first_schema_keeps_its_barcodes_when_upgraded(store_target: StoreTarget) -> None:
    database = store_target.open()
    with engine(database).begin() as conn:
        command.upgrade(alembic_config(conn), "0001")
        conn.execute(
            sa.text(
                "INSERT INTO category (id, name, position, active, version, updated_at, updated_by_till)"
                " VALUES ('c-1', 'Drinks', 0, true, 1, :at, 'LANE-1')"
            ),
            {"at": AT},
        )
        conn.execute(
            sa.text(
                "INSERT INTO product (id, name, price, tax_rate_bp, category_id, barcode, position, active, version,"
                " updated_at, updated_by_till) VALUES ('p-1', 'Tea', 300, 1000, 'c-1', '036000291452', 0, true, 1,"
                " :at, 'LANE-1')"
            ),
            {"at": AT},
        )
    assert database.schema_state() is SchemaState.BEHIND
    assert database.init_schema() is SchemaState.CURRENT
    tea = database.get("product", "p-1")
    assert tea is not None
    assert (tea["name"], tea["barcodes"]) == ("Tea", ["036000291452"])
    assert "barcode" not in tea


def test_the_store_s_details_are_one_record(store: StoreDatabase) -> None:
    details = {"name": "Café Nord", "address": "1 Quay St", "tax_number": "12 345", "version": 0, "updated_at": AT}
    assert store.put("store_info", details, terminal_id=T1) is True
    assert store.put("store_info", details, terminal_id=T1) is False
    newer = details | {"receipt_footer": "Thank you!", "version": 1, "updated_at": AT + timedelta(1)}
    assert store.put("store_info", newer, terminal_id=T2) is True
    stored = store.get("store_info", "1")
    assert stored is not None
    assert (stored["receipt_footer"], stored["version"], stored["updated_by_till"]) == ("Thank you!", 2, T2)
    with pytest.raises(ValueError, match="id 1"):
        store.put("store_info", details | {"id": 2}, terminal_id=T1)


def test_the_store_s_details_carry_a_logo_as_base64_of_a_png_within_its_bound(store: StoreDatabase) -> None:
    logo = base64.b64encode(PNG_SIGNATURE + bytes(range(256)) * 40).decode("ascii")
    details = {"name": "Café Nord", "logo": logo, "version": 0, "updated_at": AT}
    assert store.put("store_info", details, terminal_id=T1) is True
    stored = store.get("store_info", "1")
    assert stored is not None and stored["logo"] == logo
    removed = details | {"logo": None, "version": 1, "updated_at": AT + timedelta(1)}
    assert store.put("store_info", removed, terminal_id=T2) is True
    stored = store.get("store_info", "1")
    assert stored is not None and stored["logo"] is None
    later = {"version": 2, "updated_at": AT + timedelta(2)}
    not_png = base64.b64encode(b"GIF89a" + bytes(100)).decode("ascii")
    too_big = base64.b64encode(PNG_SIGNATURE + bytes(LOGO_STORED_LIMIT)).decode("ascii")
    for bad, why in ((not_png, "a PNG"), (too_big, "at most"), ("not base64!", "base64"), (b"\x89PNG", "text")):
        with pytest.raises(ValueError, match=why) as refused:
            store.put("store_info", details | later | {"logo": bad}, terminal_id=T1)
        assert len(str(refused.value)) < 200  # the sentence, never the picture
    stored = store.get("store_info", "1")
    assert stored is not None and stored["logo"] is None and stored["version"] == 2


def test_a_till_joins_once_and_is_seen_since(store_target: StoreTarget) -> None:
    clock = [AT]
    database = store_target.open(now=lambda: clock[0])
    database.init_schema()
    assert database.hello(T1, "Front counter") is True
    clock[0] += timedelta(minutes=5)
    assert database.hello(T1) is False
    clock[0] += timedelta(minutes=4)
    assert database.hello(T1, "Window") is True
    till = database.get("till", T1)
    assert till == {
        "terminal_id": T1,
        "name": "Window",
        "joined_at": AT,
        "last_seen_at": AT + timedelta(minutes=9),
        "install_id": None,
    }
    assert [change.kind for change in database.changes_since(0)] == ["till", "till"]


# --- one currency, one till per terminal id ----------------------------------------------------------------------


def test_a_store_set_up_in_euros_refuses_a_till_in_pounds(store_target: StoreTarget) -> None:
    database = store_target.open()
    database.init_schema(currency="EUR")
    with pytest.raises(StoreCurrencyDiffers) as refused:
        database.hello(T1, install_id="install-a", currency="GBP")
    assert refused.value.text() == (
        "This store counts in EUR; this till is set to GBP. Set the till to EUR to join, or join another store."
    )
    assert database.get("till", T1) is None  # refused: not joined
    assert database.hello(T1, install_id="install-a", currency="EUR") is True
    database.init_schema(currency="GBP")  # an upgrade from a till in another currency changes nothing
    assert database.currency() == "EUR"


def test_a_store_with_no_currency_takes_the_first_joining_till_s(store_target: StoreTarget) -> None:
    database = store_target.open()
    database.init_schema()
    assert database.currency() is None
    database.hello(T1, install_id="install-a", currency="EUR")
    assert database.currency() == "EUR"
    with pytest.raises(StoreCurrencyDiffers):
        database.hello(T2, install_id="install-b", currency="GBP")
    assert database.get("till", T2) is None
    assert database.day(AT, AT + timedelta(days=1)).currency == "EUR"


def test_a_terminal_id_belongs_to_one_install(store_target: StoreTarget) -> None:
    database = store_target.open()
    database.init_schema(currency="EUR")
    assert database.hello(T1, install_id="install-a", currency="EUR") is True
    with pytest.raises(TillIdTaken) as refused:
        database.hello(T1, install_id="install-b", currency="EUR")
    assert refused.value.text() == "Another till of this store is already called LANE-1. Choose another terminal id."
    assert database.hello(T1, install_id="install-a", currency="EUR") is False  # the same till, joining again
    till = database.get("till", T1)
    assert till is not None and till["install_id"] == "install-a"


def test_a_till_of_an_older_schema_is_adopted_by_the_first_install_to_join_as_it(store_target: StoreTarget) -> None:
    database = store_target.open()
    with engine(database).begin() as conn:
        command.upgrade(alembic_config(conn), "0003")
        conn.execute(
            sa.text("INSERT INTO till (terminal_id, joined_at, last_seen_at) VALUES ('LANE-1', :at, :at)"),
            {"at": AT},
        )
    assert database.init_schema() is SchemaState.CURRENT
    assert database.currency() is None
    till = database.get("till", T1)
    assert till is not None and till["install_id"] is None
    database.hello(T1, install_id="install-a", currency="EUR")
    till = database.get("till", T1)
    assert till is not None and till["install_id"] == "install-a"
    assert database.currency() == "EUR"
    with pytest.raises(TillIdTaken):
        database.hello(T1, install_id="install-b", currency="EUR")


# --- the change log -------------------------------------------------------------------------------------------


def test_changes_come_in_order_with_their_records(store: StoreDatabase) -> None:
    store.put("person", person(version=0, at=AT), terminal_id=T1)
    store.put("shift", opened_shift(), terminal_id=T1)
    store.put("cash_sale", sale(shift_id="shift-1"), terminal_id=T1)
    store.put("person", person(version=1, at=AT + timedelta(minutes=1), active=False), terminal_id=T2)
    store.put("audit", {"id": "a-1", "at": AT, "action": "sign-in"}, terminal_id=T2)

    changes = store.changes_since(0)
    assert [(c.kind, c.key, c.terminal_id) for c in changes] == [
        ("person", "p-ann", T1),
        ("shift", "shift-1", T1),
        ("cash_sale", "sale-1", T1),
        ("person", "p-ann", T2),
        ("audit", "a-1", T2),
    ]
    assert [c.seq for c in changes] == sorted(c.seq for c in changes)
    assert changes[-1].seq == store.latest_seq()
    assert changes[0].record is not None
    assert changes[0].record["active"] is False  # the record as it is now, not as it was then
    assert changes[2].record is not None
    assert changes[2].record["shift_id"] == "shift-1"
    assert all(c.at.tzinfo is not None for c in changes)

    first_two = store.changes_since(0, limit=2)
    rest = store.changes_since(first_two[-1].seq)
    assert [c.seq for c in first_two + rest] == [c.seq for c in changes]
    assert store.changes_since(changes[-1].seq) == []


def test_tills_writing_at_once_leave_a_complete_log(store_target: StoreTarget) -> None:
    tills = [store_target.open(), store_target.open()]
    tills[0].init_schema()
    errors: list[BaseException] = []

    def sell(database: StoreDatabase, till: str) -> None:
        try:
            for number in range(15):
                database.put("cash_sale", sale(f"{till}-{number}"), terminal_id=till)
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=sell, args=(database, till)) for database, till in zip(tills, (T1, T2), strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    changes = tills[0].changes_since(0)
    assert len(changes) == 30
    assert len({c.key for c in changes}) == 30
    assert [c.seq for c in changes] == sorted(c.seq for c in changes)


def test_a_commit_notifies_listeners_with_its_number(postgres_target: StoreTarget) -> None:
    store = postgres_target.open()
    store.init_schema()
    with psycopg.connect(postgres_target.url, password=postgres_target.password, autocommit=True) as listening:
        listening.execute(f"LISTEN {CHANNEL}")
        store.put("cash_sale", sale(), terminal_id=T1)
        notes = list(listening.notifies(timeout=2, stop_after=1))
    assert [(note.channel, note.payload) for note in notes] == [(CHANNEL, str(store.latest_seq()))]


def test_a_listener_wakes_when_another_till_writes(store_target: StoreTarget) -> None:
    one, two = store_target.open(), store_target.open()
    one.init_schema()
    with one.listen(poll_interval=0.05) as listener:
        assert listener.wait(0, timeout=0) is None
        writer = threading.Thread(target=lambda: two.put("cash_sale", sale(), terminal_id=T2))
        started = time.monotonic()
        writer.start()
        seq = listener.wait(0, timeout=5)
        elapsed = time.monotonic() - started
        writer.join(timeout=10)
    assert seq == one.latest_seq() == 1
    assert elapsed < 2


def test_a_server_that_went_away_and_came_back(postgres_target: StoreTarget, postgres_server: PostgresServer) -> None:
    store = postgres_target.open()
    store.init_schema()
    store.put("cash_sale", sale(), terminal_id=T1)
    postgres_server.stop(mode="immediate")
    try:
        with pytest.raises(StoreUnavailable) as away:
            store.put("cash_sale", sale("sale-2"), terminal_id=T1)
    finally:
        postgres_server.start()
    assert_one_sentence(away.value, f"{postgres_server.host}:{postgres_server.port}")
    assert store.put("cash_sale", sale("sale-2"), terminal_id=T1) is True
    assert [c.key for c in store.changes_since(0)] == ["sale-1", "sale-2"]


def test_a_run_of_products_is_written_as_one_by_one_would(store: StoreDatabase) -> None:
    def product(product_id: str, *codes: str, version: int = 0, **fields: Any) -> tuple[str, dict[str, Any]]:
        record = {"id": product_id, "name": product_id, "price": 100, "barcodes": list(codes)}
        return "product", record | {"version": version, "updated_at": AT} | fields

    assert store.put_many([product("a", "036000291452"), product("b"), product("c", "9300000000019")], terminal_id=T1)
    # a code moving from a to b in one run: a gives it up first, so b may take it
    moved = [product("a", version=1, updated_at=AT + timedelta(1)), product("b", "036000291452", version=1)]
    assert store.put_many([*moved, product("d")], terminal_id=T2) == [True, True, True]
    # a run where one product asks for a code another holds is refused whole: nothing of it lands
    before = store.latest_seq()
    with pytest.raises(StoreConflict) as taken:
        store.put_many([product("e"), product("f", "9300000000019"), product("g")], terminal_id=T2)
    assert_one_sentence(taken.value, "9300000000019")
    assert store.latest_seq() == before and store.get("product", "e") is None
    # a product taken off keeps its code without holding it; an older edit changes nothing
    off = product("c", "9300000000019", version=1, active=False, updated_at=AT + timedelta(2))
    assert store.put_many([off, product("f", "9300000000019"), product("a", version=0)], terminal_id=T2) == [
        True,
        True,
        False,
    ]
    got = {key: store.get("product", key) for key in "abcf"}
    assert {key: (record or {}).get("barcodes") for key, record in got.items()} == {
        "a": [],
        "b": ["036000291452"],
        "c": ["9300000000019"],
        "f": ["9300000000019"],
    }
