"""Database roles for a store on PostgreSQL: the server, and not only the API, keeps each till to its own records.

The API refuses a till's write of another till's shift, cash sale or audit entry (:class:`WrongTill`). A shop
that wants the server to refuse it too gives each till a login role of its own, named after its terminal id, in
one group role, :data:`TILL_GROUP`, that holds what every till may do:

* read every table (the store's day, the other tills' changes, the schema's version in ``alembic_version``);
* write only what :data:`TILL_WRITES` lists: add and edit people, the catalog and the store's details, announce
  itself in ``till``, give a store that has no currency yet its own, add shifts, cash sales, audit entries and
  ``change_log`` rows, and close a shift;
* in ``shift``, ``cash_sale`` and ``audit`` (:data:`OWN_ROWS`), row-level security lets a till add only rows
  whose ``terminal_id`` is its own login (``current_user``), and close only its own shifts. An attempt on another
  till's row is an error, never a silent no-op: the update policy sees every row and checks the new one.

No till alters or migrates anything, nor deletes anything but the barcodes of a product it edits (the edit
replaces them): the store's owner (who runs ``store init``) owns the tables and is not bound by the policies.
``pg_advisory_xact_lock``, ``NOTIFY`` and ``LISTEN`` need no privilege, and the
``change_log`` number comes from an identity column, whose sequence needs none either.

:func:`set_up_till_roles` (``pos-terminal store init URL --till-roles``) and :func:`add_till`
(``pos-terminal store add-till URL TERMINAL_ID``) run as the store's owner, who needs ``CREATEROLE``. Both may
run again: the group's grants and policies are replaced, as one transaction, by exactly these; a till's role
gets its new password. ``store init`` run by the tables' owner refreshes the grants whenever the group exists
(:func:`can_refresh_till_roles`), so a table a later schema adds is granted as the upgrade lands. Roles are the
server's, not one database's: a till's role serves one store per server. SQLite has no roles: both refuse a file
with one sentence (:class:`NoRolesInAFile`).

Every name reaches the server through :mod:`psycopg.sql` (``Identifier``), never pasted into a statement; a
till's password is hashed (SCRAM-SHA-256) by libpq before it is sent, so the server's log never holds it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

import psycopg
from psycopg import sql
from sqlalchemy.engine import Connection

from pos_terminal.store import schema
from pos_terminal.store.database import Backend, StoreAccessDenied, StoreDatabase, StoreDatabaseError

TILL_GROUP = "pos_till"
OWN_ROWS = ("shift", "cash_sale", "audit")  # terminal_id = current_user for every row a till adds or changes
MAX_ROLE_NAME = 63  # bytes: PostgreSQL cuts a longer name short, and the till's id would no longer be its login
_POLICIES = ("pos_till_read", "pos_till_add_own", "pos_till_change_own")


@dataclass(frozen=True)
class Writes:
    """What a till may write in one table: add rows, and change these columns."""

    insert: bool = False
    update: tuple[str, ...] = ()
    delete: bool = False  # only a product's barcodes: an edit of the product replaces them


def _all_but_key(table: str) -> tuple[str, ...]:
    """Every column of an edited record but its key: an edit changes the record, never which record it is."""
    columns = schema.metadata.tables[table].columns
    return tuple(column.name for column in columns if not column.primary_key)


# Every table of the schema, and what a till writes in it (nothing: a table it only reads). A table the schema
# adds must be named here (tests/store/test_roles.py checks), so the tills' grants never lag behind the schema.
TILL_WRITES: dict[str, Writes] = {
    "store_info": Writes(insert=True, update=_all_but_key("store_info")),
    "till": Writes(insert=True, update=("name", "last_seen_at", "install_id")),
    "store_currency": Writes(insert=True),  # the first till to join a store with none gives it its own
    "person": Writes(insert=True, update=_all_but_key("person")),
    "category": Writes(insert=True, update=_all_but_key("category")),
    "product": Writes(insert=True, update=_all_but_key("product")),
    "product_code": Writes(insert=True, delete=True),
    "shift": Writes(insert=True, update=("closed_at", "closed_by", "counted_cash", "counted_pieces", "expected_cash")),
    "cash_sale": Writes(insert=True),
    "audit": Writes(insert=True),
    "change_log": Writes(insert=True),
}
READ_ONLY = ("alembic_version",)  # Alembic's own table: a till reads the schema's version, never writes it


class NoRolesInAFile(StoreDatabaseError):
    hint = "Keep the store in a file for tills on one computer, or move it to PostgreSQL for roles per till."


class TillRolesMissing(StoreDatabaseError):
    hint = "Set them up once, as the store's owner: pos-terminal store init URL --till-roles."


class BadTillName(StoreDatabaseError):
    hint = "Give the till a terminal id of at most 63 bytes that does not start with pg_."


class NotATill(StoreDatabaseError):
    hint = "A till's role is named after its terminal id; choose a terminal id no other user of the server has."


def set_up_till_roles(database: StoreDatabase) -> None:
    """Create :data:`TILL_GROUP` if the server has none, and give it exactly the grants and policies of the module
    docstring (any it had before are revoked in the same transaction). The schema must be current."""
    require_roles(database)
    database.require_current()
    with _owner_transaction(database) as (conn, raw):
        if not _role_exists(raw, TILL_GROUP):
            _create_role(database, raw, sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(TILL_GROUP)))
        _grant(database, conn, raw)


def can_refresh_till_roles(database: StoreDatabase) -> bool:
    """Whether the tills have their group role and this user owns the store's tables, and so can give the group
    its grants again (after an upgrade). Always False for a file."""
    if database.backend is not Backend.POSTGRESQL:
        return False
    with _owner_transaction(database) as (_conn, raw):
        owned = raw.execute(
            "SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = %s"
            " AND tableowner = current_user",
            (schema.change_log.name,),
        ).fetchone()
        return owned is not None and _role_exists(raw, TILL_GROUP)


def add_till(database: StoreDatabase, terminal_id: str, password: str) -> None:
    """Give the till ``terminal_id`` a login role of that name, with ``password``, in :data:`TILL_GROUP`; a till
    that has one gets the new password. Refuses a name the server has for anyone but a till."""
    require_roles(database)
    if not terminal_id or len(terminal_id.encode()) > MAX_ROLE_NAME or terminal_id.lower().startswith("pg_"):
        raise BadTillName(f"The terminal id “{terminal_id}” cannot be the name of a PostgreSQL user.")
    if not password:
        raise StoreAccessDenied(f"Till {terminal_id} needs a password of its own for the store database.")
    with _owner_transaction(database) as (_conn, raw):
        if not _role_exists(raw, TILL_GROUP):
            raise TillRolesMissing(f"The store database at {database.where} has no roles for tills yet.")
        role = sql.Identifier(terminal_id)
        hashed = raw.pgconn.encrypt_password(password.encode(), terminal_id.encode(), b"scram-sha-256").decode()
        if _role_exists(raw, terminal_id):
            if not _in_group(raw, terminal_id):
                raise NotATill(
                    f"The store database server at {database.server} has a user “{terminal_id}” that is not a till."
                )
            statement = sql.SQL("ALTER ROLE {} WITH LOGIN PASSWORD {}").format(role, sql.Literal(hashed))
            _create_role(database, raw, statement)
        else:
            statement = sql.SQL("CREATE ROLE {} WITH LOGIN INHERIT PASSWORD {} IN ROLE {}").format(
                role, sql.Literal(hashed), sql.Identifier(TILL_GROUP)
            )
            _create_role(database, raw, statement)


# --- the grants -----------------------------------------------------------------------------------------------


def _grant(database: StoreDatabase, conn: Connection, raw: psycopg.Connection[Any]) -> None:
    group = sql.Identifier(TILL_GROUP)
    namespace = str(conn.exec_driver_sql("SELECT current_schema()").scalar_one())
    database_name = str(conn.exec_driver_sql("SELECT current_database()").scalar_one())

    def table(name: str) -> sql.Identifier:
        return sql.Identifier(namespace, name)

    statements = [
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database_name), group),
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(namespace), group),
    ]
    for name in (*TILL_WRITES, *READ_ONLY):
        statements += [
            sql.SQL("REVOKE ALL ON {} FROM {}").format(table(name), group),
            sql.SQL("GRANT SELECT ON {} TO {}").format(table(name), group),
        ]
        writes = TILL_WRITES.get(name, Writes())
        if writes.insert:
            statements.append(sql.SQL("GRANT INSERT ON {} TO {}").format(table(name), group))
        if writes.update:
            columns = sql.SQL(", ").join(sql.Identifier(column) for column in writes.update)
            statements.append(sql.SQL("GRANT UPDATE ({}) ON {} TO {}").format(columns, table(name), group))
        if writes.delete:
            statements.append(sql.SQL("GRANT DELETE ON {} TO {}").format(table(name), group))
    own = sql.SQL("terminal_id = current_user")
    for name in OWN_ROWS:
        statements.append(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(table(name)))
        statements += [
            sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(sql.Identifier(policy), table(name))
            for policy in _POLICIES
        ]
        statements += [
            sql.SQL("CREATE POLICY {} ON {} FOR SELECT TO {} USING (true)").format(
                sql.Identifier("pos_till_read"), table(name), group
            ),
            sql.SQL("CREATE POLICY {} ON {} FOR INSERT TO {} WITH CHECK ({})").format(
                sql.Identifier("pos_till_add_own"), table(name), group, own
            ),
        ]
        if TILL_WRITES[name].update:
            # USING (true): another till's row is seen, and its new version fails the check, loudly
            statements.append(
                sql.SQL("CREATE POLICY {} ON {} FOR UPDATE TO {} USING (true) WITH CHECK ({})").format(
                    sql.Identifier("pos_till_change_own"), table(name), group, own
                )
            )
    try:
        for statement in statements:
            raw.execute(statement)
    except psycopg.errors.InsufficientPrivilege:
        user = database.url.username or "(default)"
        raise StoreAccessDenied(
            f"User “{user}” does not own the tables of the store database at {database.where}, so it cannot grant"
            " the tills theirs.",
            hint="Run it as the user that ran store init.",
        ) from None


# --- plumbing -------------------------------------------------------------------------------------------------


def require_roles(database: StoreDatabase) -> None:
    """:class:`NoRolesInAFile` unless the store is on PostgreSQL (before anything is done)."""
    if database.backend is not Backend.POSTGRESQL:
        raise NoRolesInAFile(
            f"Database users for tills exist only on PostgreSQL: the store database file {database.where} has none."
        )


@contextmanager
def _owner_transaction(database: StoreDatabase) -> Iterator[tuple[Connection, psycopg.Connection[Any]]]:
    """One transaction under the schema's lock (two owners setting roles up at once do it one after the other),
    as SQLAlchemy's connection and the psycopg one under it (for :mod:`psycopg.sql`)."""
    with database.schema_transaction() as conn:
        yield conn, cast("psycopg.Connection[Any]", conn.connection.dbapi_connection)


def _role_exists(raw: psycopg.Connection[Any], name: str) -> bool:
    return raw.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone() is not None


def _in_group(raw: psycopg.Connection[Any], name: str) -> bool:
    found = raw.execute(
        "SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member JOIN pg_roles g ON g.oid = m.roleid"
        " WHERE r.rolname = %s AND g.rolname = %s",
        (name, TILL_GROUP),
    ).fetchone()
    return found is not None


def _create_role(database: StoreDatabase, raw: psycopg.Connection[Any], statement: sql.Composed) -> None:
    try:
        raw.execute(statement)
    except psycopg.errors.InsufficientPrivilege:
        user = database.url.username or "(default)"
        raise StoreAccessDenied(
            f"User “{user}” may not create or change users on the store database server at {database.server}.",
            hint=f"Give it the right once, as a superuser: ALTER ROLE {user} CREATEROLE.",
        ) from None
