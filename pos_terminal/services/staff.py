"""The people who work the till: adding them, checking their PINs, locking and unlocking them.

Who may add, disable or unlock someone is the till's business
(:class:`~pos_terminal.services.till.Till`); this class keeps the people and checks
PINs. A PIN is hashed and checked off the event loop's thread (the hash is slow on
purpose), five wrong PINs in a row lock the person for a while, and every change
is in the audit log with who made it. Neither a PIN nor its hash is ever logged (they cross to the worker
thread as :class:`~pos_terminal.domain.pins.Secret`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from pos_terminal.domain.clock import Clock, utcnow
from pos_terminal.domain.people import (
    MAX_WRONG_PINS,
    PIN_TO_SET,
    Person,
    Role,
    after_wrong_pin,
    check_name,
    name_key,
)
from pos_terminal.domain.pins import Secret, check_pin, hash_secret, secret_matches
from pos_terminal.errors import UserError
from pos_terminal.journal.journal import Journal
from pos_terminal.journal.staff import PeopleBook

if TYPE_CHECKING:
    from pos_terminal.services.store_sync import StoreSync

log = logging.getLogger(__name__)


class UnknownPerson(UserError):
    hint = "Choose a name from the list, or ask a manager to add you."


class PersonDisabled(UserError):
    hint = "A manager can enable them again by resetting their PIN."


class WrongPin(UserError):
    hint = "Type it again."


class PinToSet(UserError):
    """A manager reset the person's PIN: no PIN opens until they choose a new one at the till (one sentence, which
    says so: the command line's answer to ``--as NAME``)."""

    def __init__(self, person: Person) -> None:
        super().__init__(f"{person.name} must choose a new PIN at the till before signing in, as a manager reset it.")


class PinAlreadySet(UserError):
    hint = "Sign in with it; a manager can reset it again."


class PersonLocked(UserError):
    """Too many wrong PINs in a row."""

    hint = "Wait, or ask a manager to unlock them."


class Staff:
    """The people of one terminal (its journal), and their PINs."""

    def __init__(
        self,
        journal: Journal,
        *,
        terminal_id: str | None,
        store: StoreSync | None = None,
        now: Clock = utcnow,
    ) -> None:
        self.book = PeopleBook(journal)
        self.journal = journal
        self.terminal_id = terminal_id
        self.store = store  # a till that is part of a store adds people only while the store can be reached
        self.now = now

    # --- who there is ----------------------------------------------------------------------------------------

    def people(self, *, active_only: bool = False) -> list[Person]:
        return [p for p in self.book.all() if p.active or not active_only]

    def has_people(self) -> bool:
        return self.book.count() > 0

    def managers(self) -> list[Person]:
        """Active managers, by name."""
        return [p for p in self.people(active_only=True) if p.role is Role.MANAGER]

    def find(self, name: str) -> Person:
        person = self.book.find(name)
        if person is None:
            raise UnknownPerson(f"No one called “{' '.join(name.split())}” works on this terminal.")
        return person

    # --- PINs ------------------------------------------------------------------------------------------------

    async def verify(self, name: str, pin: str) -> Person:
        """The person called ``name`` when ``pin`` is theirs; one sentence when not (wrong, locked, disabled)."""
        person = self.find(name)
        if not person.active:
            raise PersonDisabled(f"{person.name} is disabled on this terminal.")
        now = self.now()
        if person.locked(now):
            raise self._locked(person)
        if person.pin_to_set:  # no PIN matches; not a wrong try either, so nothing counts towards a lock
            raise PinToSet(person)
        matched = await asyncio.to_thread(secret_matches, Secret(pin), Secret(self.book.pin_hash(person.id)))
        if matched:
            if person.wrong_pins or person.locked_until is not None:
                self.book.record_pin_try(person.id, 0, None)
            refreshed = self.book.get(person.id)
            assert refreshed is not None
            return refreshed
        outcome = after_wrong_pin(person, now)
        self.book.record_pin_try(person.id, outcome.wrong_pins, outcome.locked_until)
        if outcome.locked_until is not None:
            log.warning("%s is locked after too many wrong PINs", person.name)
            self._audit("person locked", person.name, {"until": outcome.locked_until.isoformat()})
            locked = self.book.get(person.id)
            assert locked is not None
            raise self._locked(locked)
        self._audit("wrong PIN", person.name, {"wrongInARow": outcome.wrong_pins})
        left = MAX_WRONG_PINS - outcome.wrong_pins
        raise WrongPin(
            f"That is not {person.name}'s PIN; {left} more wrong {'try locks' if left == 1 else 'tries lock'} them."
        )

    def _locked(self, person: Person) -> PersonLocked:
        until = person.locked_until.astimezone().strftime("%H:%M") if person.locked_until else "later"
        return PersonLocked(f"{person.name} is locked after too many wrong PINs, until {until}.")

    # --- changes (the till checks who may make them) ----------------------------------------------------------

    async def add(self, name: str, role: Role, pin: str, *, by: str | None) -> Person:
        name = check_name(name)
        check_pin(pin)
        if self.store is not None:
            # the store decides who a name belongs to: two tills apart must not each make their own "Ana"
            await self.store.require_online("New people can be added")
        pin_hash = await asyncio.to_thread(hash_secret, Secret(pin))
        person = self.book.add(name, role, pin_hash.reveal())
        self._audit("person added", by, {"person": person.name, "role": str(role)})
        if self.store is not None:
            with contextlib.suppress(UserError):  # it is queued: it goes with the next exchange if not now
                await self.store.sync()
        return person

    async def reset_pin(self, name: str, pin: str | None = None, *, by: str | None) -> Person:
        """Reset ``name``'s PIN: without ``pin`` they choose a new one at their next sign-in (until then no PIN
        opens); with it (typed by a manager, from the command line) that is their PIN. Either way it also unlocks
        and enables them."""
        person = self.find(name)
        if pin is None:
            pin_hash = PIN_TO_SET
        else:
            check_pin(pin)
            pin_hash = (await asyncio.to_thread(hash_secret, Secret(pin))).reveal()
        self.book.set_pin(person.id, pin_hash)
        self.book.set_active(person.id, True)
        self._audit("PIN reset", by, {"person": person.name, "newPin": "at the till" if pin is None else "given"})
        return self._again(person)

    async def set_own_pin(self, name: str, pin: str) -> Person:
        """``name`` chooses their new PIN after a manager's reset (only then: a PIN that is set is changed by a
        reset). It is written like any edit of the person, so it reaches the store and the other tills."""
        person = self.find(name)
        if not person.active:
            raise PersonDisabled(f"{person.name} is disabled on this terminal.")
        if not person.pin_to_set:
            raise PinAlreadySet(f"{person.name} already has a PIN.")
        check_pin(pin)
        pin_hash = await asyncio.to_thread(hash_secret, Secret(pin))
        person = self.find(name)  # read again after the hash: a reset or a new PIN may have come meanwhile
        if not person.pin_to_set:
            raise PinAlreadySet(f"{person.name} already has a PIN.")
        self.book.set_pin(person.id, pin_hash.reveal())
        self._audit("PIN set", person.name, {"person": person.name})
        return self._again(person)

    def unlock(self, name: str, *, by: str | None) -> Person:
        person = self.find(name)
        self.book.unlock(person.id)
        self._audit("person unlocked", by, {"person": person.name})
        refreshed = self.book.get(person.id)
        assert refreshed is not None
        return refreshed

    def disable(self, name: str, *, by: str | None) -> Person:
        person = self.find(name)
        if person.role is Role.MANAGER and person.active and len(self.managers()) == 1:
            raise UserError(f"{person.name} is the only manager left.", hint="Add another manager first.")
        self.book.set_active(person.id, False)
        self._audit("person disabled", by, {"person": person.name})
        refreshed = self.book.get(person.id)
        assert refreshed is not None
        return refreshed

    def enable(self, name: str, *, by: str | None) -> Person:
        """Let a disabled person sign in again (their PIN as it was)."""
        person = self.find(name)
        if not person.active:
            self.book.set_active(person.id, True)
            self._audit("person enabled", by, {"person": person.name})
        return self._again(person)

    async def rename(self, name: str, new_name: str, *, by: str | None) -> Person:
        """Call ``name`` ``new_name`` from now on (history keeps the name each record was written with)."""
        person = self.find(name)
        new_name = check_name(new_name)
        if new_name == person.name:
            return person
        if self.store is not None and name_key(new_name) != name_key(person.name):
            # a name is the store's to give, as for a new person
            await self.store.require_online("People can be renamed")
        self.book.rename(person.id, new_name)
        self._audit("person renamed", by, {"person": new_name, "name": [person.name, new_name]})
        return self._again(person)

    def set_role(self, name: str, role: Role, *, by: str | None) -> Person:
        person = self.find(name)
        if person.role is role:
            return person
        if person.role is Role.MANAGER and person.active and len(self.managers()) == 1:
            raise UserError(f"{person.name} is the only manager left.", hint="Make someone else a manager first.")
        self.book.set_role(person.id, role)
        self._audit("role changed", by, {"person": person.name, "role": [str(person.role), str(role)]})
        return self._again(person)

    def _again(self, person: Person) -> Person:
        refreshed = self.book.get(person.id)
        assert refreshed is not None
        return refreshed

    def _audit(self, action: str, actor: str | None, detail: dict[str, object]) -> None:
        self.journal.audit.record(action, actor=actor, terminal_id=self.terminal_id, detail=detail)
