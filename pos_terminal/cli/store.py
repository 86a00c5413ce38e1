"""``store``: a store of several tills, its shared database set up, joined, left and looked at; and the one
exchange with it that every command of a till of a store makes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pos_terminal.cli.arguments import Commands, action_commands, profile_options
from pos_terminal.cli.output import EXIT_OK, Output, local_time
from pos_terminal.cli.pins import read_secret
from pos_terminal.errors import UserError
from pos_terminal.logs import configure_logging
from pos_terminal.paths import Paths

if TYPE_CHECKING:
    from pos_terminal.config import Settings
    from pos_terminal.services.store_sync import StoreStatus, StoreSync


def register(commands: Commands) -> None:
    store = commands.add_parser("store", help="a store of several tills: its shared database")
    store.set_defaults(profile_handler=_store_command)
    store_commands = action_commands(store, "store_command")
    for name, text in (
        ("init", "set up (or upgrade) the store database at URL"),
        ("join", "make this till part of the store whose database is at URL"),
    ):
        action = store_commands.add_parser(name, help=text)
        profile_options(action)
        action.add_argument(
            "url", metavar="URL", help="postgresql://USER@HOST:PORT/DB[?sslmode=require] or sqlite:///FILE"
        )
        action.add_argument(
            "--password-fd", dest="password_fd", metavar="N", type=int, help="read the password from file descriptor N"
        )
        if name == "init":
            action.add_argument(
                "--currency",
                metavar="CODE",
                help="the store's one currency, like EUR (default: this profile's, once it is set up)",
            )
            action.add_argument(
                "--till-roles",
                dest="till_roles",
                action="store_true",
                help="PostgreSQL: also set up the role for tills, so each writes only its own records (docs/store.md)",
            )
    add_till = store_commands.add_parser(
        "add-till", help="PostgreSQL: a database user of its own for the till TERMINAL_ID (as the store's owner)"
    )
    profile_options(add_till)
    add_till.add_argument("url", metavar="URL", help="postgresql://OWNER@HOST:PORT/DB[?sslmode=require]")
    add_till.add_argument("terminal_id", metavar="TERMINAL_ID", help="the till's terminal id, which is its user name")
    add_till.add_argument(
        "--password-fd", dest="password_fd", metavar="N", type=int, help="read the owner's password from fd N"
    )
    add_till.add_argument(
        "--till-password-fd",
        dest="till_password_fd",
        metavar="N",
        type=int,
        help="read the till's new password from fd N",
    )
    for name, text in (
        ("status", "whether the store database is reached, and what waits to be sent"),
        ("leave", "stop being part of the store (nothing is lost)"),
    ):
        profile_options(store_commands.add_parser(name, help=text))


def _store_command(paths: Paths, args: argparse.Namespace, out: Output) -> int:
    import asyncio

    return asyncio.run(_store(paths, args, out))


async def store_pass(store: StoreSync, out: Output, *, quiet: bool = False) -> bool:
    """One exchange with the store database, for a till that is part of a store: a command never fails for it.
    Whether the store was reached (False for a till that stands alone)."""
    if not store.linked:
        return False
    try:
        await store.sync()
    except UserError as exc:
        if not quiet:
            status = store.status()
            out.note(f"{status.sentence(local_time)}: {exc.sentence}")
        return False
    return True


async def _store(paths: Paths, args: argparse.Namespace, out: Output) -> int:
    """``store init|add-till|join|status|leave``: the journal and the keychain, no sign-in to the service needed."""
    from pos_terminal.config import load_settings, set_up_till
    from pos_terminal.services.terminal import store_sync_for

    paths = paths.ensure()
    configure_logging(paths.log_file, f"pos-terminal store {args.store_command}")
    settings, set_up = load_settings(paths.config_file)
    if args.store_command in ("init", "add-till"):
        return await _store_owner(args, out, settings.currency if set_up else None)
    settings = set_up_till(settings, set_up)  # joins, leaves and reports as this till
    from pos_terminal.journal.journal import Journal

    with Journal(paths.journal_file) as journal:
        store = store_sync_for(journal, paths, lambda: settings)
        try:
            if args.store_command == "join":
                await store.close()
                status = await join_store_as_asked(paths, settings, args, out, kept=set_up)
            elif args.store_command == "leave":
                status = await store.leave()
                out.line("This till is no longer part of a store; everything it recorded stays in its journal.")
            else:
                if store.linked:
                    await store_pass(store, out)
                status = store.status()
        finally:
            await store.close()
    out.data(_store_status_json(status))
    if status.linked:
        out.line(f"Store:       {status.address}")
        out.line(f"Link:        {status.sentence(local_time)}")
        out.line(f"Last change: {local_time(status.last_change_at) if status.last_change_at else 'none yet'}")
        for refused in status.refused:
            out.line(f"Refused:     {refused.kind} {refused.key}: {refused.reason}")
    elif args.store_command == "status":
        out.line("This till is not part of a store.")
    return EXIT_OK


async def _store_owner(args: argparse.Namespace, out: Output, profile_currency: str | None) -> int:
    """``store init`` and ``store add-till``: the store's owner sets up the schema, the tills' role, a till's user.
    ``profile_currency``: this profile's currency, when it is set up (a new store's currency unless one is given)."""
    import asyncio

    from pos_terminal.services.store_owner import set_up_store
    from pos_terminal.services.store_sync import split_password
    from pos_terminal.store.database import StoreDatabase
    from pos_terminal.store.roles import add_till, require_roles

    address, password = _store_address(args, split_password)
    if args.store_command == "add-till":
        with StoreDatabase(address, password=password) as database:
            require_roles(database)  # before the till's password is asked
            till_password = _till_password(args.terminal_id, args.till_password_fd)
            await asyncio.to_thread(add_till, database, args.terminal_id, till_password)
        user = _with_user(address, args.terminal_id)
        out.line(f"Till {args.terminal_id} logs in to the store database as “{args.terminal_id}”: on it, run")
        out.line(f"  pos-terminal store join {user}")
        out.data({"address": address, "till": args.terminal_id, "joinAddress": user})
        return EXIT_OK
    currency = _currency_given(args.currency) if args.currency is not None else profile_currency
    done = await asyncio.to_thread(set_up_store, address, password, currency=currency, till_roles=bool(args.till_roles))
    if args.currency is not None and done.currency != currency:
        raise UserError(
            f"The store database {address} counts in {done.currency} already; a store's currency does not change.",
            hint=f"Leave out --currency, or set up another store for {currency}.",
        )
    counts = f" It counts in {done.currency}." if done.currency else " Its currency is the first joining till's."
    out.line(
        f"The store database {address} is set up"
        + (", with a role for its tills." if done.till_roles else ".")
        + counts
    )
    out.data({"address": address, "schema": "current", "tillRoles": done.till_roles, "currency": done.currency})
    return EXIT_OK


def _currency_given(code: str) -> str:
    """``--currency`` checked as the set-up page checks a currency (one sentence for one that is unknown)."""
    from pos_terminal.domain.money import MoneyFormat

    currency = code.strip().upper()
    MoneyFormat("en", currency)
    return currency


def _till_password(terminal_id: str, fd: int | None) -> str:
    """A till's new password: from fd ``fd``, or typed twice without echo."""
    if fd is not None:
        return read_secret("", fd, what="password")
    asked = {"what": "password", "option": "--till-password-fd"}
    password = read_secret(f"New password of till {terminal_id} for the store database: ", None, **asked)
    if read_secret("The same password again: ", None, **asked) != password:
        raise UserError("The two passwords differ.", hint="Type the same password twice.")
    return password


def _with_user(address: str, user: str) -> str:
    """``address`` with ``user`` as its user name (quoted as a URL needs)."""
    from urllib.parse import quote, urlsplit, urlunsplit

    parts = urlsplit(address)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = f"{quote(user, safe='')}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _store_address(args: argparse.Namespace, split: Callable[[str], tuple[str, str | None]]) -> tuple[str, str | None]:
    """The address without its password, and the password: from the address, --password-fd, or typed."""
    address, password = split(args.url)
    if password is None and args.password_fd is not None:
        password = read_secret("", args.password_fd, what="password")
    elif password is None and address.startswith("postgresql") and sys.stdin.isatty():
        import getpass

        password = getpass.getpass("Password of the store database (empty for none): ") or None
    return address, password


def _store_status_json(status: StoreStatus) -> dict[str, Any]:
    def when(moment: datetime | None) -> str | None:
        return moment.isoformat() if moment else None

    return {
        "linked": status.linked,
        "address": status.address,
        "online": status.online,
        "offlineSince": when(status.offline_since),
        "lastChangeAt": when(status.last_change_at),
        "lastContactAt": when(status.last_contact_at),
        "waiting": status.waiting,
        "lastError": status.last_error,
        "refused": [{"kind": r.kind, "key": r.key, "reason": r.reason} for r in status.refused],
    }


async def join_store_as_asked(
    paths: Paths, settings: Settings, args: argparse.Namespace, out: Output, *, kept: bool = True
) -> StoreStatus:
    """``store join`` (and ``setup --store``): this till, with ``settings``, becomes part of the store at args.url;
    ``kept``: the settings are the profile's (or will be, for ``setup``), not the defaults of one never set up."""
    from pos_terminal.services.store_sync import split_password
    from pos_terminal.services.terminal import join_store

    address, password = _store_address(args, split_password)
    status = await join_store(paths, settings, address, password, kept=kept)
    out.line(f"This till ({settings.terminal_id}) is part of the store {address}.")
    return status
