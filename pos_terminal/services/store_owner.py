"""The store's owner sets up its database: ``pos-terminal store init URL`` and the first-launch page's offer to set
up a store database that has no schema yet run this one code path."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class StoreSetUp:
    """What :func:`set_up_store` did."""

    address: str
    currency: str | None  # the store's currency now: the one given, or the one it kept
    till_roles: bool  # the tills' role has its grants (asked for, or refreshed after an upgrade)


def set_up_store(address: str, password: str | None, *, currency: str | None, till_roles: bool = False) -> StoreSetUp:
    """Create the schema of the store database at ``address`` (without its password), or upgrade it; ``currency``
    becomes the store's when it has none yet. With ``till_roles``, also the tills' role (PostgreSQL); the role's
    grants are refreshed whenever the tills have one. Blocks: a window runs it on a worker thread.

    A user who may not create tables there, a schema set up by a newer pos-terminal: one sentence each."""
    from pos_terminal.store.database import StoreAccessDenied, StoreDatabase
    from pos_terminal.store.roles import can_refresh_till_roles, require_roles, set_up_till_roles

    with StoreDatabase(address, password=password) as database:
        if till_roles:
            require_roles(database)  # a file has none: said before anything is set up
        database.schema_state()  # reached, and let in: a wrong password or host says so in its own words
        try:
            database.init_schema(currency=currency)
        except StoreAccessDenied as exc:
            user = urlsplit(address).username or "(default)"
            raise StoreAccessDenied(
                f"User “{user}” may not create the store's tables in the database at {database.where}.",
                hint="Give the address of the database's owner, or ask the owner to set it up.",
            ) from exc
        roles = till_roles or can_refresh_till_roles(database)
        if roles:
            set_up_till_roles(database)
        return StoreSetUp(address, database.currency(), roles)
