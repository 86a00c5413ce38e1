"""``pos-terminal sandbox ...``: run the sandbox in the foreground (contract section 8)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

if TYPE_CHECKING:
    from pos_terminal.sandbox.state import SandboxSettings


DEMO_ACCOUNTS = "demo/demo, cafe/demo"


def default_db_path() -> Path:
    return Path(platformdirs.user_data_dir("pos-terminal", appauthor=False)) / "sandbox" / "sandbox.sqlite3"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback unless --public)")
    parser.add_argument("--port", type=int, default=0, help="port; 0 picks a free one (default)")
    parser.add_argument("--public", action="store_true", help="allow a non-loopback --host")
    parser.add_argument(
        "--allow-demo-accounts",
        action="store_true",
        help="with --public: start although anyone who can reach it may sign in as demo/demo",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--db", type=Path, help=f"SQLite file (default {default_db_path()})")
    where.add_argument("--memory", action="store_true", help="keep state in memory only")
    parser.add_argument("--auto-cancel-seconds", type=int, default=300)
    parser.add_argument("--token-ttl", type=int, default=3600, help="access token lifetime in seconds")
    parser.add_argument("--device-interval", type=int, default=5, help="device-code polling interval in seconds")
    parser.add_argument("--no-location", action="store_true", help="omit Location on create (forces reconciliation)")
    parser.add_argument(
        "--rotate-refresh-tokens",
        action="store_true",
        help="each refresh gives a new refresh token; reusing a spent one revokes the grant",
    )


def settings_from(args: argparse.Namespace) -> SandboxSettings:
    from pos_terminal.sandbox.state import SandboxSettings

    return SandboxSettings(
        auto_cancel_seconds=args.auto_cancel_seconds,
        token_ttl=args.token_ttl,
        device_interval=args.device_interval,
        location=not args.no_location,
        rotate_refresh_tokens=args.rotate_refresh_tokens,
        db_path=":memory:" if args.memory else str(args.db or default_db_path()),
    )


def run(args: argparse.Namespace) -> int:
    from pos_terminal.sandbox.server import CannotListen, SandboxServer
    from pos_terminal.sandbox.server_guard import is_loopback

    if not args.public and not is_loopback(args.host):
        print(f"refusing to listen on {args.host}: not a loopback address (add --public to insist)")
        return 2
    if args.public and not is_loopback(args.host):
        if not args.allow_demo_accounts:
            print(
                f"refusing to listen on {args.host}: the demo accounts ({DEMO_ACCOUNTS}) would let anyone on the "
                "network sign in and take a merchant token (add --allow-demo-accounts to insist)",
                file=sys.stderr,
            )
            return 2
        print(
            f"WARNING: listening on {args.host} with the demo accounts ({DEMO_ACCOUNTS}): anyone who can reach "
            "this address can sign in as them and act for their merchants",
            file=sys.stderr,
            flush=True,
        )
    try:
        server = SandboxServer(settings_from(args), host=args.host, port=args.port)
    except CannotListen as exc:
        print(exc, file=sys.stderr)
        return 1
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pos-terminal sandbox", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))
