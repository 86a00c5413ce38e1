"""Every cashier action with its shortcut, in one table: the menus, buttons and the F1 help are built from it.

A shortcut is written here and nowhere else: a button, a placeholder or a sentence that names a key asks
:func:`key` for it. The module imports no Qt, so the cashier's presenter can name keys too."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Act(StrEnum):
    HELP = "help"
    FIND_CUSTOMER = "find_customer"
    REFRESH_CUSTOMERS = "refresh_customers"
    FIND_PRODUCT = "find_product"
    TYPE_ITEM = "type_item"
    DISCOUNT = "discount"
    CASH = "cash"
    REMOVE_LINE = "remove_line"
    MORE = "more"
    LESS = "less"
    CHARGE = "charge"
    COMPLETE = "complete"
    CANCEL_TX = "cancel_tx"
    NEW_CHECK = "new_check"
    NO_SALE = "no_sale"
    SWITCH_PERSON = "switch_person"
    CASHIER = "cashier"
    HISTORY = "history"
    REPORTS = "reports"
    SETTINGS = "settings"
    SHIFTS = "shifts"
    BACK_OFFICE = "back_office"
    QUIT = "quit"


@dataclass(frozen=True)
class ActionSpec:
    act: Act
    text: str
    shortcut: str
    help: str


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(Act.HELP, "Keyboard help", "F1", "Show or hide this list of shortcuts"),
    ActionSpec(Act.FIND_CUSTOMER, "Find customer", "F2", "Type a name, member number or check-in number"),
    ActionSpec(Act.FIND_PRODUCT, "Find product", "F3", "Type part of a product's name; Enter adds the one found"),
    ActionSpec(Act.DISCOUNT, "Discount", "F4", "Add a discount: an amount or a percent of the check"),
    ActionSpec(Act.REFRESH_CUSTOMERS, "Refresh customers", "F5", "Fetch the checked-in customers again"),
    ActionSpec(Act.CASH, "Cash taken", "F6", "Record the cash the customer gave; over the balance, it is change due"),
    ActionSpec(Act.TYPE_ITEM, "Type an item", "F7", "An item that is not in the catalog: name, price, quantity, tax"),
    ActionSpec(Act.CHARGE, "Charge", "F8", "Charge the customer the balance, or finish a sale paid in cash"),
    ActionSpec(Act.COMPLETE, "Complete", "F9", "Complete the authorized transaction"),
    ActionSpec(Act.CANCEL_TX, "Cancel transaction", "Shift+F9", "Cancel the authorized transaction"),
    ActionSpec(Act.NEW_CHECK, "New check", "Ctrl+N", "Start the next check (asks first if one is being built)"),
    ActionSpec(Act.NO_SALE, "Open drawer", "F10", "Open the cash drawer without a sale (a manager approves)"),
    ActionSpec(Act.SWITCH_PERSON, "Switch person", "F12", "Lock the till for the next person; the check stays"),
    ActionSpec(Act.REMOVE_LINE, "Remove line", "Del", "Remove the selected line of the check"),
    ActionSpec(Act.MORE, "Quantity +1", "+", "One more of the selected item"),
    ActionSpec(Act.LESS, "Quantity −1", "-", "One less of the selected item"),
    ActionSpec(Act.CASHIER, "Cashier", "Ctrl+1", "The check and the customers"),
    ActionSpec(Act.HISTORY, "History", "Ctrl+2", "Transactions: complete, cancel, refund"),
    ActionSpec(Act.REPORTS, "Reports", "Ctrl+3", "Summaries and end-of-day reports"),
    ActionSpec(Act.SETTINGS, "Settings", "Ctrl+4", "Region, terminal, locale, printer, disconnect"),
    ActionSpec(Act.SHIFTS, "Shifts", "Ctrl+5", "Open, X report, close the shift; the Z reports"),
    ActionSpec(Act.BACK_OFFICE, "Back office", "Ctrl+6", "People, the catalog and the store's details (a manager)"),
    ActionSpec(Act.QUIT, "Quit", "Ctrl+Q", "Close the terminal (nothing in progress is lost)"),
)

DISMISS_MESSAGE = "Ctrl+D"  # the message banner's own key: it dismisses what the banner says, no act of the till

_BY_ACT = {spec.act: spec for spec in ACTIONS}


def spec_of(act: Act) -> ActionSpec:
    return _BY_ACT[act]


def key(act: Act) -> str:
    """The shortcut of ``act`` as a person reads it ("F8", "Shift+F9")."""
    return _BY_ACT[act].shortcut
