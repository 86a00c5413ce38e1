"""The tills' own database users on a real PostgreSQL (tests/store/postgres.py): the server, not only the API,
keeps each till to its own shifts, cash sales and audit entries (pos_terminal/store/roles.py, docs/store.md).

Roles belong to the server, not to one database: LANE-1 and LANE-2 may be left by an earlier test, which is what
running the set-up again meets too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from pos_terminal.store import schema
from pos_terminal.store.database import StoreAccessDenied, StoreDatabase, WrongTill
from pos_terminal.store.roles import (
    OWN_ROWS,
    READ_ONLY,
    TILL_GROUP,
    TILL_WRITES,
    BadTillName,
    NoRolesInAFile,
    NotATill,
    add_till,
    can_refresh_till_roles,
    set_up_till_roles,
)
from tests.helpers.store import AT, assert_one_sentence, closed_shift, opened_shift, sale
from tests.store.postgres import PASSWORD, USER, PostgresServer, StoreTarget

pytestmark = pytest.mark.timeout(60)

T1, T2 = "LANE-1", "LANE-2"
TILL_PASSWORDS = {T1: "lane-one-secret", T2: "lane-two secret ü"}


@pytest.fixture
def shop(postgres_target: StoreTarget) -> StoreTarget:
    """A store set up by its owner, with the tills' role and a user for LANE-1 and for LANE-2."""
    owner = postgres_target.open()
    owner.init_schema()
    set_up_till_roles(owner)
    for terminal_id, password in TILL_PASSWORDS.items():
        add_till(owner, terminal_id, password)
    return postgres_target


def as_till(target: StoreTarget, terminal_id: str) -> StoreDatabase:
    """The store database as the till ``terminal_id`` reaches it: logged in as its own user."""
    assert target.server is not None
    url = target.server.url(target.url.rsplit("/", 1)[-1], user=terminal_id)
    database = StoreDatabase(url, password=TILL_PASSWORDS[terminal_id])
    target.opened.append(database)
    return database


@pytest.fixture
def raw_as(shop: StoreTarget) -> Iterator[Callable[[str], psycopg.Connection[Any]]]:
    """A plain psycopg connection logged in as a till (autocommit: each statement stands alone)."""
    opened: list[psycopg.Connection[Any]] = []
    server = shop.server
    assert server is not None

    def connect(terminal_id: str) -> psycopg.Connection[Any]:
        conn = psycopg.connect(
            host=server.host,
            port=server.port,
            dbname=shop.url.rsplit("/", 1)[-1],
            user=terminal_id,
            password=TILL_PASSWORDS[terminal_id],
            autocommit=True,
            connect_timeout=10,
        )
        opened.append(conn)
        return conn

    yield connect
    for conn in opened:
        conn.close()


def insert(conn: psycopg.Connection[Any], table: str, row: dict[str, Any]) -> None:
    statement = sql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
        sql.Identifier(table),
        sql.SQL(", ").join(map(sql.Identifier, row)),
        sql.SQL(", ").join(sql.Placeholder() * len(row)),
    )
    conn.execute(statement, list(row.values()))


def shift_row(shift_id: str, terminal_id: str) -> dict[str, Any]:
    return {"id": shift_id, "terminal_id": terminal_id, "opened_at": AT, "opened_by": "Ann", "opening_float": 100}


def sale_row(sale_id: str, terminal_id: str) -> dict[str, Any]:
    totals = {"total": 450, "tax": 41, "paid": 500, "change": 50}
    return {"id": sale_id, "terminal_id": terminal_id, "at": AT, **totals, "check_body": json.dumps({"items": []})}


def audit_row(entry_id: str, terminal_id: str) -> dict[str, Any]:
    return {"id": entry_id, "terminal_id": terminal_id, "at": AT, "action": "drawer opened", "detail": "{}"}


CLOSE = "UPDATE shift SET closed_at = %s, closed_by = 'Bob', counted_cash = 100 WHERE id = %s"


def closed_at(shop: StoreTarget, shift_id: str) -> Any:
    return shop.open().get("shift", shift_id)["closed_at"]  # type: ignore[index]


# --- the grants -----------------------------------------------------------------------------------------------


def test_every_table_of_the_schema_says_what_a_till_writes_in_it() -> None:
    """A table a later schema adds must be named in TILL_WRITES (or READ_ONLY): else the tills cannot read it."""
    assert set(TILL_WRITES) == set(schema.metadata.tables), "name the new table in pos_terminal/store/roles.py"
    assert not set(READ_ONLY) & set(TILL_WRITES)
    for table in OWN_ROWS:
        assert "terminal_id" in schema.metadata.tables[table].columns
    for table, writes in TILL_WRITES.items():
        columns = schema.metadata.tables[table].columns
        assert set(writes.update) <= set(columns.keys()), table
        assert not any(columns[name].primary_key for name in writes.update), f"a till never re-keys {table}"


def test_the_set_up_runs_twice_and_grants_exactly_what_a_till_needs(shop: StoreTarget) -> None:
    owner = shop.open()
    set_up_till_roles(owner)  # again: the same grants and policies, no error
    add_till(owner, T1, TILL_PASSWORDS[T1])
    assert can_refresh_till_roles(owner)
    assert shop.server is not None
    with shop.server.admin(shop.url.rsplit("/", 1)[-1]) as admin:
        policies = admin.execute(
            "SELECT tablename, policyname, cmd, roles::text[], qual, with_check FROM pg_policies ORDER BY 1, 2"
        ).fetchall()
        secured = {
            name for (name,) in admin.execute("SELECT relname FROM pg_class WHERE relrowsecurity AND relkind = 'r'")
        }

        def may(privilege: str, table: str, column: str | None = None) -> bool:
            if column is None:
                query = "SELECT has_table_privilege(%s, %s, %s)"
                return bool(admin.execute(query, (T1, table, privilege)).fetchone()[0])  # type: ignore[index]
            query = "SELECT has_column_privilege(%s, %s, %s, %s)"
            return bool(admin.execute(query, (T1, table, column, privilege)).fetchone()[0])  # type: ignore[index]

        assert secured == set(OWN_ROWS)
        own = "(terminal_id = CURRENT_USER)"
        for table in OWN_ROWS:
            mine = sorted((p[1], p[2], p[3], p[4], p[5]) for p in policies if p[0] == table)
            expected = [
                ("pos_till_add_own", "INSERT", [TILL_GROUP], None, own),
                ("pos_till_read", "SELECT", [TILL_GROUP], "true", None),
            ]
            if table == "shift":
                expected.append(("pos_till_change_own", "UPDATE", [TILL_GROUP], "true", own))
            assert mine == sorted(expected), table
        for table in (*schema.metadata.tables, "alembic_version"):
            assert may("SELECT", table), table
            assert may("DELETE", table) is (table == "product_code"), table  # a product's codes are replaced
            assert not may("TRUNCATE", table) and not may("REFERENCES", table), table
        assert not may("INSERT", "alembic_version") and not may("UPDATE", "alembic_version")
        assert may("INSERT", "cash_sale") and not may("UPDATE", "cash_sale") and not may("UPDATE", "audit")
        assert may("UPDATE", "shift", "closed_at") and not may("UPDATE", "shift", "terminal_id")
        assert not may("UPDATE", "shift", "opening_float") and not may("UPDATE", "person", "id")
        assert may("UPDATE", "till", "last_seen_at") and not may("UPDATE", "till", "joined_at")
        stored = admin.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s", (T1,)).fetchone()
        assert stored is not None and stored[0].startswith("SCRAM-SHA-256$"), "sent hashed, never as written"


def test_grants_given_by_hand_beyond_these_are_taken_back(shop: StoreTarget) -> None:
    assert shop.server is not None
    name = shop.url.rsplit("/", 1)[-1]
    with shop.server.admin(name) as admin:
        admin.execute(sql.SQL("GRANT ALL ON shift, audit TO {}").format(sql.Identifier(TILL_GROUP)))
    set_up_till_roles(shop.open())
    with shop.server.admin(name) as admin:
        query = "SELECT has_table_privilege(%s, 'shift', 'DELETE'), has_table_privilege(%s, 'audit', 'UPDATE')"
        assert admin.execute(query, (T2, T2)).fetchone() == (False, False)


# --- what the server refuses ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "row"),
    [("shift", shift_row), ("cash_sale", sale_row), ("audit", audit_row)],
    ids=["shift", "cash_sale", "audit"],
)
def test_a_till_may_add_only_its_own_rows(
    raw_as: Callable[[str], psycopg.Connection[Any]], table: str, row: Callable[[str, str], dict[str, Any]]
) -> None:
    lane_2 = raw_as(T2)
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        insert(lane_2, table, row("theirs", T1))
    insert(lane_2, table, row("mine", T2))
    found = lane_2.execute(sql.SQL("SELECT id, terminal_id FROM {} ORDER BY id").format(sql.Identifier(table)))
    assert found.fetchall() == [("mine", T2)]


def test_a_till_may_close_only_its_own_shift_and_change_nothing_else(
    shop: StoreTarget, raw_as: Callable[[str], psycopg.Connection[Any]]
) -> None:
    assert as_till(shop, T1).put("shift", opened_shift("shift-1"), terminal_id=T1)
    assert as_till(shop, T1).put("cash_sale", sale("sale-1"), terminal_id=T1)
    lane_2 = raw_as(T2)
    insert(lane_2, "shift", shift_row("shift-2", T2))
    later = AT + timedelta(hours=8)
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        lane_2.execute(CLOSE, (later, "shift-1"))
    assert closed_at(shop, "shift-1") is None
    lane_2.execute(CLOSE, (later, "shift-2"))
    assert closed_at(shop, "shift-2") == later
    refused = [
        ("UPDATE shift SET terminal_id = 'LANE-2' WHERE id = 'shift-1'", "permission denied"),  # taking it over
        ("UPDATE shift SET opening_float = 0 WHERE id = 'shift-2'", "permission denied"),  # its own, opened once
        ("UPDATE cash_sale SET total = 0 WHERE id = 'sale-1'", "permission denied"),
        ("DELETE FROM shift WHERE id = 'shift-2'", "permission denied"),
        ("DELETE FROM change_log", "permission denied"),
        ("UPDATE alembic_version SET version_num = '9999'", "permission denied"),
        ("DROP TABLE audit", "must be owner"),
    ]
    for statement, says in refused:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match=says):
            lane_2.execute(statement)
    assert shop.open().get("shift", "shift-1")["terminal_id"] == T1  # type: ignore[index]


def test_the_api_still_says_wrong_till_to_a_till_logged_in_as_itself(shop: StoreTarget) -> None:
    """The API refuses first, with its own sentence; the server's refusal is the second line of defence."""
    lane_1, lane_2 = as_till(shop, T1), as_till(shop, T2)
    assert lane_1.put("shift", opened_shift("shift-1"), terminal_id=T1)
    with pytest.raises(WrongTill) as error:
        lane_2.put("shift", closed_shift("shift-1"), terminal_id=T2)
    assert error.value.sentence == "Till LANE-2 cannot write shift shift-1, which belongs to till LANE-1."
    with pytest.raises(WrongTill) as error:
        lane_2.put("shift", opened_shift("shift-9", terminal_id=T1), terminal_id=T2)
    assert error.value.sentence == "Till LANE-2 cannot write shift shift-9 for till LANE-1."
    assert closed_at(shop, "shift-1") is None and lane_2.get("shift", "shift-9") is None


def test_a_till_logged_in_as_another_is_refused_by_the_server_in_one_sentence(shop: StoreTarget) -> None:
    """A till whose terminal id is LANE-1 but whose address names LANE-2's user: the API cannot tell, the server
    can, and nothing of it lands."""
    lane_2 = as_till(shop, T2)
    seq = lane_2.latest_seq()
    for kind, record in (("shift", opened_shift("shift-1")), ("cash_sale", sale("sale-1"))):
        with pytest.raises(StoreAccessDenied) as error:
            lane_2.put(kind, record, terminal_id=T1)
        assert_one_sentence(error.value, "LANE-2")
        assert error.value.sentence.endswith("lets user “LANE-2” write only the records of till LANE-2.")
    assert lane_2.latest_seq() == seq and lane_2.get("shift", "shift-1") is None


# --- setting it up --------------------------------------------------------------------------------------------


def test_a_file_has_no_roles_and_says_so(tmp_path: Path) -> None:
    with StoreDatabase(f"sqlite:///{tmp_path / 'store.sqlite3'}") as database:
        database.init_schema()
        for attempt in (lambda: set_up_till_roles(database), lambda: add_till(database, T1, "secret")):
            with pytest.raises(NoRolesInAFile) as error:
                attempt()
            assert_one_sentence(error.value, "PostgreSQL", str(tmp_path))
        assert not can_refresh_till_roles(database)


def test_a_till_is_never_given_the_name_of_another_user(shop: StoreTarget, postgres_server: PostgresServer) -> None:
    owner = shop.open()
    with pytest.raises(NotATill) as error:
        add_till(owner, USER, "taken-over")  # the owner's own name: its password must not change
    assert_one_sentence(error.value, USER)
    assert owner.latest_seq() >= 0
    with StoreDatabase(shop.url, password=PASSWORD) as again:  # the owner still logs in with its password
        assert again.latest_seq() >= 0
    for name in ("pg_lane", "L" * 64):
        with pytest.raises(BadTillName):
            add_till(owner, name, "secret")


def test_an_owner_who_may_not_make_users_is_told_so(postgres_server: PostgresServer) -> None:
    with postgres_server.admin() as admin:
        found = admin.execute("SELECT 1 FROM pg_roles WHERE rolname = 'pos_plain'").fetchone()
        if found is None:
            admin.execute("CREATE ROLE pos_plain LOGIN PASSWORD 'plain-password'")
        if admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (TILL_GROUP,)).fetchone() is None:
            admin.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(TILL_GROUP)))
        admin.execute("CREATE DATABASE plain_shop OWNER pos_plain")
    try:
        url = f"postgresql://pos_plain@{postgres_server.host}:{postgres_server.port}/plain_shop"
        with StoreDatabase(url, password="plain-password") as owner:
            owner.init_schema()
            set_up_till_roles(owner)  # the group is there: granting it is the tables' owner's to do
            with pytest.raises(StoreAccessDenied) as error:
                add_till(owner, "LANE-PLAIN", "secret")
            assert_one_sentence(error.value, "pos_plain")
            assert "CREATEROLE" in error.value.hint  # type: ignore[operator]
    finally:
        postgres_server.drop_database("plain_shop")
