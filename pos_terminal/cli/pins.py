"""PINs and passwords, read without echo or from a file descriptor, and the person a command acts as."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from pos_terminal.errors import UserError

if TYPE_CHECKING:
    from pos_terminal.domain.people import Person
    from pos_terminal.services.terminal import Terminal


class NoPeople(UserError):
    sentence = "Nobody works this terminal yet."
    hint = "Add the first manager: pos-terminal people add NAME --role manager."


def read_secret(prompt: str, fd: int | None, *, what: str = "PIN", option: str = "--pin-fd") -> str:
    """A PIN (or ``what``): one line from file descriptor ``fd``, or typed at the terminal without echo; never an
    argument. ``option`` is the one that gives ``fd``, for the sentence when there is neither."""
    if fd is not None:
        data = bytearray()
        try:
            while not data.endswith(b"\n"):
                chunk = os.read(fd, 1)
                if not chunk:
                    break
                data += chunk
        except OSError as exc:
            raise UserError(f"The {what} cannot be read from file descriptor {fd} ({exc.strerror}).") from exc
        except OverflowError:
            raise UserError(f"{fd} is not a file descriptor.", hint="Give the number of an open one.") from None
        pin = data.decode("utf-8", errors="replace").strip()
        if not pin:
            raise UserError(f"No {what} came on file descriptor {fd}.", hint=f"Write the {what} and a new line to it.")
        return pin
    if not sys.stdin.isatty():
        article = "An" if what[0].lower() in "aeiou" else "A"
        raise UserError(
            f"{article} {what} is needed.", hint=f"Type it at a terminal, or give {option} N and write it to fd N."
        )
    import getpass

    return getpass.getpass(prompt)


def new_pin(name: str, fd: int | None) -> str:
    if fd is not None:
        return read_secret("", fd)
    pin = read_secret(f"New PIN for {name}: ", None)
    if read_secret("The same PIN again: ", None) != pin:
        raise UserError("The two PINs differ.", hint="Type the same PIN twice.")
    return pin


async def act_as(terminal: Terminal, args: argparse.Namespace, *, manager: bool = False) -> Person | None:
    """Sign in, for this command, the person named by --as (a manager when ``manager``); their PIN is read from
    the terminal or from --pin-fd. A terminal nobody works acts as before people existed."""
    from pos_terminal.domain.people import Role
    from pos_terminal.services.till import NotAManager

    till = terminal.till
    if not till.guarding:
        if manager and args.command in ("shift", "people"):
            raise NoPeople()
        return None
    name = args.person
    if not name and manager and len(managers := terminal.staff.managers()) == 1:
        name = managers[0].name
    if not name:
        raise UserError("Say who does this with --as NAME.", hint="pos-terminal people list shows the names.")
    if (chosen := till.staff.find(name)).active and chosen.pin_to_set:
        from pos_terminal.services.staff import PinToSet

        raise PinToSet(chosen)  # before asking for a PIN: none would open
    person = await till.sign_in(name, read_secret(f"PIN for {name}: ", args.pin_fd), how="command line")
    if manager and person.role is not Role.MANAGER:
        till.lock("command line")
        raise NotAManager(f"{person.name} is not a manager.", hint="Give a manager's name with --as.")
    return person
