"""People at the till: roles, what each may do, the PIN lockout, and manager approvals.

The device sign-in belongs to the terminal; people sign in at the till on top of it
with a name and a PIN. A **manager** may do everything; a **cashier** needs a
manager's approval for each :class:`Guarded` act, given by the manager's PIN at a
prompt right there, without the cashier signing out. Five wrong PINs in a row lock
a person for :data:`LOCK_FOR`; a manager can unlock them sooner.

A terminal on which nobody has been added yet guards nothing: that is how it starts
(the first start asks for the first manager) and how a terminal driven only from
the command line keeps working.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from pos_terminal.domain.text import text_problem
from pos_terminal.errors import UserError

MAX_WRONG_PINS = 5
LOCK_FOR = timedelta(minutes=15)
MAX_NAME = 40
APPROVAL_LIFETIME = timedelta(minutes=2)  # a manager's approval is for the act at hand, not for later
# A person's PIN hash after a manager's reset: they choose a new PIN at their next sign-in. It is not a stored PIN
# (none of a hash's "$"-separated parameters), so no PIN ever matches it (pins.pin_matches); the store keeps it as
# any hash, and it travels to the other tills with the person.
PIN_TO_SET = "new PIN to set"


class Role(StrEnum):
    CASHIER = "cashier"
    MANAGER = "manager"


class Guarded(StrEnum):
    """Acts a cashier may do only with a manager's approval."""

    REFUND = "refund"
    CANCEL_CHARGED = "cancel after charge"  # cancel an authorized transaction: the customer's money is held
    DISCOUNT = "discount above the limit"
    NO_SALE = "open the drawer without a sale"
    CHANGE_SETTINGS = "change the settings"
    DISCONNECT = "disconnect"
    CLOSE_SHIFT = "close the shift"
    MANAGE_PEOPLE = "manage people"
    MANAGE_CATALOG = "manage the catalog"  # and the store's details

    @property
    def sentence(self) -> str:
        """What is asked, as the prompt and the refusal say it ("… needs a manager's approval")."""
        return _SENTENCES[self]


_SENTENCES = {
    Guarded.REFUND: "A refund",
    Guarded.CANCEL_CHARGED: "Canceling a transaction after the customer was charged",
    Guarded.DISCOUNT: "A discount above the limit",
    Guarded.NO_SALE: "Opening the drawer without a sale",
    Guarded.CHANGE_SETTINGS: "Changing the settings",
    Guarded.DISCONNECT: "Disconnecting the terminal",
    Guarded.CLOSE_SHIFT: "Closing the shift",
    Guarded.MANAGE_PEOPLE: "Adding or changing people",
    Guarded.MANAGE_CATALOG: "Changing the catalog or the store's details",
}


def may(role: Role, act: Guarded) -> bool:
    """Whether a person of ``role`` may do ``act`` without anyone's approval."""
    return role is Role.MANAGER


@dataclass(frozen=True, slots=True)
class Person:
    """Someone who works the till. Never carries the PIN or its hash."""

    id: int
    name: str
    role: Role
    active: bool = True
    wrong_pins: int = 0
    locked_until: datetime | None = None
    pin_to_set: bool = False  # a manager reset their PIN: they choose a new one at their next sign-in

    def locked(self, now: datetime) -> bool:
        return self.locked_until is not None and now < self.locked_until

    @property
    def label(self) -> str:
        """``Anna (cashier)``, as the status bar and the audit's readers see a person."""
        return f"{self.name} ({self.role})"


@dataclass(frozen=True, slots=True)
class PinOutcome:
    """What a PIN try leaves on the person: the count of wrong tries in a row, and any lock."""

    wrong_pins: int
    locked_until: datetime | None


def pin_to_set(stored: str) -> bool:
    """Whether a person's stored PIN hash is :data:`PIN_TO_SET`: no PIN until they choose one."""
    return stored == PIN_TO_SET


def after_wrong_pin(person: Person, now: datetime) -> PinOutcome:
    """One more wrong PIN: the fifth in a row locks the person for :data:`LOCK_FOR` (the count starts again)."""
    wrong = person.wrong_pins + 1
    if wrong >= MAX_WRONG_PINS:
        return PinOutcome(0, now + LOCK_FOR)
    return PinOutcome(wrong, None)


def check_name(name: str) -> str:
    """A person's name, trimmed; one sentence when it cannot be one."""
    name = " ".join(name.split())
    if not name:
        raise UserError("The name is empty.", hint="Type the person's name as colleagues know it.")
    if len(name) > MAX_NAME:
        raise UserError(f"The name is longer than {MAX_NAME} characters.", hint="Use a shorter name.")
    if (problem := text_problem(name)) is not None:
        raise UserError(f"The name {problem}.", hint="Type it again.")
    return name


def name_key(name: str) -> str:
    """What makes two names the same person's: case and spacing do not count."""
    return " ".join(name.split()).casefold()


# --- approvals -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Approval:
    """A manager's yes to one act (``subject`` names what: a transaction, a discount), for a short while."""

    act: Guarded
    manager: str
    asked_by: str | None
    at: datetime
    subject: str | None = None
    token: str = ""

    def covers(self, act: Guarded, subject: str | None, now: datetime) -> bool:
        return (
            self.act is act
            and (subject is None or self.subject is None or self.subject == subject)
            and self.at <= now < self.at + APPROVAL_LIFETIME
        )


class ApprovalNeeded(UserError):
    """The person at the till may not do ``act`` alone; a manager's PIN at the prompt lets them."""

    hint = "A manager can approve it with their PIN."

    def __init__(self, act: Guarded, subject: str | None = None) -> None:
        self.act = act
        self.subject = subject
        super().__init__(f"{act.sentence} needs a manager's approval.")


class DiscountNeedsApproval(ApprovalNeeded):
    """The check's discounts (``share_bp`` of its items, ``amount`` cents off) are above the limit: the manager
    is told what the cashier typed (``percent_bp`` of the items, ``fixed`` cents off) with what it takes off, and
    the approval names it (the Z report's "For"). The share decides the limit; it is never shown, as a percent
    worked back from a rounded amount is one nobody typed (15 % of 4,90 € is 0,74 €, which is 15,11 %)."""

    def __init__(self, share_bp: int, amount: int, *, percent_bp: int = 0, fixed: int = 0) -> None:
        self.share_bp = share_bp
        self.amount = amount
        self.percent_bp = percent_bp
        self.fixed = fixed
        super().__init__(Guarded.DISCOUNT)

    def what(self, money: Callable[[int], str], mark: str = ".") -> str:
        """What was typed and what it takes off, by ``money``; ``mark`` is the locale's decimal mark: ``15 %
        (0,74 €)`` for a percent, ``3,00 €`` for an amount, ``10 % and 1,00 € (1,49 €)`` for both."""
        if self.percent_bp and self.fixed:
            percent = percent_text(self.percent_bp, mark)
            return f"{percent} % and {money(self.fixed)} ({money(self.amount)})"
        if self.fixed:
            return money(self.amount)
        return f"{percent_text(self.percent_bp or self.share_bp, mark)} % ({money(self.amount)})"

    def explained(self, money: Callable[[int], str], mark: str = ".") -> str:
        """The sentence of the prompt: ``A discount of 15 % ($3.60) needs a manager's approval.``"""
        return f"A discount of {self.what(money, mark)} needs a manager's approval."


# --- discounts -------------------------------------------------------------------------------------------------


def percent_text(bp: int, mark: str = ".") -> str:
    """Basis points as a person writes the percent: 1500 → ``15``, 1250 → ``12.5`` (``12,5`` with ``mark=","``),
    1001 → ``10.01``."""
    whole, cents = divmod(bp, 100)
    return f"{whole}" if not cents else f"{whole}{mark}{cents:02d}".rstrip("0")


def discount_share_bp(item_total: int, discount_total: int) -> int:
    """The check's discounts as basis points of its items, rounded up (10.01 % is above a 10 % limit)."""
    if item_total <= 0 or discount_total >= 0:
        return 0
    return -((discount_total * 10000) // item_total)  # ceiling of −discount × 10000 / items


def discount_needs_approval(share_bp: int, limit_bp: int, approved_bp: int) -> bool:
    """Above the limit, and above what a manager already approved for this check."""
    return share_bp > limit_bp and share_bp > approved_bp
