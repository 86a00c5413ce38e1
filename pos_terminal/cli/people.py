"""``people``: who works this terminal's till, their roles and PINs (a manager's PIN)."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pos_terminal.cli.arguments import Commands, action_commands, common_options, person_options
from pos_terminal.cli.output import EXIT_OK, Handler, Output, local_time
from pos_terminal.cli.pins import act_as, new_pin
from pos_terminal.errors import UserError

if TYPE_CHECKING:
    from pos_terminal.domain.people import Person
    from pos_terminal.services.terminal import Terminal


def register(commands: Commands) -> None:
    people = commands.add_parser("people", help="who works this terminal's till (a manager's PIN)")
    people_commands = action_commands(people, "people_command")
    add = people_commands.add_parser("add", help="add a person (the first one is a manager, with no PIN asked)")
    common_options(add)
    person_options(add, manager=True)
    add.add_argument("name")
    add.add_argument("--role", choices=("cashier", "manager"), default="cashier")
    add.add_argument("--new-pin-fd", dest="new_pin_fd", metavar="N", type=int, help="read the new PIN from fd N")
    add.set_defaults(handler=_people_add)
    listing = people_commands.add_parser("list", help="the people of this terminal")
    common_options(listing)
    person_options(listing, manager=True)
    listing.set_defaults(handler=_people_list)
    for name, text in (
        ("disable", "a person can no longer sign in"),
        (
            "reset-pin",
            "the person chooses a new PIN at the till at their next sign-in (--new-pin-fd: give it here instead);"
            " it also unlocks and enables them",
        ),
        ("unlock", "lift the lock after five wrong PINs"),
        ("enable", "a disabled person can sign in again"),
        ("rename", "call a person by another name (history keeps the old one)"),
        ("role", "make a person a cashier or a manager"),
    ):
        action = people_commands.add_parser(name, help=text)
        common_options(action)
        person_options(action, manager=True)
        action.add_argument("name")
        action.set_defaults(handler=_people_change(name))
        if name == "rename":
            action.add_argument("new_name", metavar="NEW_NAME")
        if name == "role":
            action.add_argument("role", choices=("cashier", "manager"))
        if name == "reset-pin":
            action.add_argument(
                "--new-pin-fd",
                dest="new_pin_fd",
                metavar="N",
                type=int,
                help="set the new PIN here, read from fd N (without it, the person chooses it at the till)",
            )


def _person_json(person: Person, now: datetime) -> dict[str, Any]:
    return {
        "name": person.name,
        "role": str(person.role),
        "active": person.active,
        "locked": person.locked(now),
        "lockedUntil": person.locked_until.isoformat() if person.locked_until and person.locked(now) else None,
        "pinToSet": person.pin_to_set,
    }


async def _people_add(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.domain.people import Role

    till = terminal.till
    if not till.guarding:
        if args.role != "manager":
            raise UserError("The first person on a terminal is a manager.", hint="Add them with --role manager.")
        person = await till.create_first_manager(args.name, new_pin(args.name, args.new_pin_fd))
    else:
        await act_as(terminal, args, manager=True)
        person = await till.add_person(args.name, Role(args.role), new_pin(args.name, args.new_pin_fd))
    out.data(_person_json(person, terminal.till.now()))
    out.line(f"{person.name} can now sign in at the till, as a {person.role}.")
    return EXIT_OK


async def _people_list(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    await act_as(terminal, args, manager=True)
    now = terminal.till.now()
    people = terminal.staff.people()
    out.data([_person_json(p, now) for p in people])
    for p in people:
        state = (
            "disabled"
            if not p.active
            else "locked until " + local_time(p.locked_until)
            if p.locked_until and p.locked(now)
            else "new PIN to set at the till"
            if p.pin_to_set
            else ""
        )
        out.line(f"{p.name:<24} {p.role:<8} {state}")
    return EXIT_OK


def _people_change(change: str) -> Handler:
    async def run(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
        await act_as(terminal, args, manager=True)
        till = terminal.till
        if change == "reset-pin" and args.new_pin_fd is not None:
            person = await till.reset_pin(args.name, new_pin(args.name, args.new_pin_fd))
            done = f"{person.name} has a new PIN."
        elif change == "reset-pin":
            person = await till.reset_pin(args.name)
            done = f"{person.name} sets a new PIN at their next sign-in at the till."
        elif change == "unlock":
            person = till.unlock(args.name)
            done = f"{person.name} can sign in again."
        elif change == "enable":
            person = till.enable(args.name)
            done = f"{person.name} can sign in again."
        elif change == "rename":
            before = terminal.staff.find(args.name).name
            person = await till.rename(args.name, args.new_name)
            done = f"{before} is now called {person.name}."
        elif change == "role":
            from pos_terminal.domain.people import Role

            person = till.set_role(args.name, Role(args.role))
            done = f"{person.name} is now a {person.role}."
        else:
            person = till.disable(args.name)
            done = f"{person.name} can no longer sign in."
        out.data(_person_json(person, terminal.till.now()))
        out.line(done)
        return EXIT_OK

    return run
