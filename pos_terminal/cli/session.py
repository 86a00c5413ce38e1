"""``login``, ``logout`` and ``status``: this terminal's sign-in to the service."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from pos_terminal.cli.arguments import Commands, common_options, person_options
from pos_terminal.cli.output import EXIT_OK, Output, local_time
from pos_terminal.cli.pins import act_as
from pos_terminal.domain.words import counted, duration
from pos_terminal.errors import UserError

if TYPE_CHECKING:
    from pos_terminal.api.auth import DeviceStatus
    from pos_terminal.services.session import Session
    from pos_terminal.services.terminal import Terminal


def register(commands: Commands) -> None:
    login = commands.add_parser("login", help="sign in with a device code (or a token created by hand)")
    common_options(login)
    login.add_argument(
        "--token",
        help="store a token created by hand instead of the device flow; - reads it from standard input "
        "(a token in the arguments is visible to every user of this computer)",
    )
    login.add_argument("--legacy", action="store_true", help="send the token as X-Api-Token")
    login.add_argument("--demo", action="store_true", help="sandbox only: approve at once as the demo merchant")
    login.set_defaults(handler=_login)
    logout = commands.add_parser("logout", help="disconnect: remove the stored sign-in")
    common_options(logout)
    person_options(logout, manager=True)
    logout.set_defaults(handler=_logout)
    status = commands.add_parser("status", help="connection and journal")
    common_options(status)
    status.set_defaults(handler=_status)


async def _login(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    session = terminal.session
    if args.token:
        from_stdin = args.token == "-"  # noqa: S105 (the conventional name of standard input, not a secret)
        import asyncio

        token = (await asyncio.to_thread(_given_on_stdin)).strip() if from_stdin else args.token
        if not token:
            raise UserError(
                "No token came on standard input.", hint="Pipe the token into “pos-terminal login --token -”."
            )
        client = terminal.client
        checked = await session.sign_in_with_token(
            token, legacy=args.legacy, check=lambda credentials: client.signed_with(credentials).list_customers()
        )
        out.line("Signed in with the token given.")
        if not checked:
            out.note("The service could not be asked whether it accepts the token now; it is kept as given.")
        out.data({"state": session.state.value})
        return EXIT_OK
    authorization = await session.start_device_sign_in()
    out.note(f"To sign in, open {authorization.verification_uri} and enter the code {authorization.user_code}")
    if authorization.verification_uri_complete:
        out.note(f"or open {authorization.verification_uri_complete}")
    out.note(f"Waiting for approval (the code expires in {duration(authorization.expires_in)})...")
    if args.demo:
        await terminal.approve_demo_sign_in(authorization.user_code)
    shown: list[str] = []

    def on_status(status: DeviceStatus) -> None:
        if not shown or shown[-1] != status.message:
            shown.append(status.message)
            out.note(f"... {status.message}")

    await session.finish_device_sign_in(authorization, on_status)
    out.line("Signed in.")
    if (ends := _renewal_note(session)) is not None:
        out.note(ends)
    out.data({"state": session.state.value})
    return EXIT_OK


def _given_on_stdin() -> str:
    """A line typed at a terminal; else all that was piped in (an authorization server's answer may span lines),
    up to a size no token reaches."""
    if sys.stdin.isatty():
        return sys.stdin.readline()
    return sys.stdin.read(1 << 20)


def _renewal_note(session: Session) -> str | None:
    """The one sentence for a sign-in that cannot be renewed, with the time it ends."""
    ends = session.ends_at
    if ends is None:
        return None
    return (
        f"This sign-in ends at {local_time(ends)} and cannot be renewed: the service gave no refresh token. "
        "Sign in again then (some services renew only with the scope offline_access; see auth.REGION.scope)."
    )


async def _logout(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    person = await act_as(terminal, args, manager=True)
    terminal.session.disconnect(actor=person.name if person else None)
    out.line("Disconnected: the stored sign-in was removed.")
    out.data({"state": terminal.session.state.value})
    return EXIT_OK


async def _status(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    journal = terminal.journal
    status: dict[str, Any] = {
        "service": terminal.service.name,
        "production": terminal.service.production,
        "authUrl": terminal.service.auth_url,
        "posUrl": terminal.service.pos_url,
        "terminalId": terminal.settings.terminal_id,
        "session": terminal.session.state.value,
        "signInEnds": terminal.session.ends_at.isoformat() if terminal.session.ends_at else None,
        "tokenStore": terminal.session.keeper.description,
        "insecureTokenStore": terminal.session.keeper.insecure,
        "pendingStateChanges": len(journal.outbox.pending()),
        "unfinishedCharges": len(journal.intents.unfinished()),
    }
    out.data(status)
    badge = "" if terminal.service.production else " [SANDBOX]"
    out.line(f"Service:     {terminal.service.name}{badge} ({terminal.service.pos_url})")
    out.line(f"Terminal:    {status['terminalId']}")
    out.line(f"Connection:  {status['session']}")
    if (ends := _renewal_note(terminal.session)) is not None:
        out.line(f"Sign-in:     {ends}")
    out.line(f"Sign-in in:  {status['tokenStore']}" + (" — INSECURE" if status["insecureTokenStore"] else ""))
    charges, changes = status["unfinishedCharges"], status["pendingStateChanges"]
    out.line(f"Pending:     {counted(charges, 'charge')} verifying, {counted(changes, 'state change')} to send")
    if not terminal.session.keeper.can_keep:  # a sign-in kept in a keychain this run does not reach is not gone
        from pos_terminal.services.session import NoKeychainHere

        out.note(NoKeychainHere().text())
    return EXIT_OK
