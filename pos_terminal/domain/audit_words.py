"""An audit log entry as a sentence: who did what, and what changed from what to what, in words.

The audit log keeps each entry's detail as JSON (its action, who, and a detail object: a catalog or store edit
keeps ``[old, new]`` per field). A report printed that object as it was kept: ``address: [null, "Hafenstraße
12\\n20459 Hamburg"], logo: [null,…`` and ``changed: ["currency", "locale"]``. Here each action has its sentence in
:data:`SENTENCES`, with named placeholders; an action without one (an older or newer release's) is written as
its name and each of its details in words. A value is never shown as JSON: text in quotes on one line, amounts
through the money format, a list as words, a long value (a logo's picture) by what it is.

Pure: the caller gives the money format.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pos_terminal.domain.people import Guarded

Money = Callable[[int], str]

LONG = 80  # characters: a text longer than this is named by its length, not printed

# Each action's sentence. The placeholders are the detail's keys (in words, see _value), and ``who``: the person,
# or "The till" when nobody was signed in at the till.
SENTENCES: Mapping[str, str] = {
    "sign-in": "{who} signed the till in to the service ({how}).",
    "disconnect": "{who} disconnected the till from the service.",
    "person signed in": "{who} signed in at the till ({via}).",
    "till locked": "{who} left the till locked ({why}).",
    "person added": "{who} added {person} as a {role}.",
    "person renamed": "{who} renamed {old_name} to {new_name}.",
    "role changed": "{who} changed {person}'s role from {old_role} to {new_role}.",
    "PIN reset": "{who} reset {person}'s PIN ({newPin}).",
    "PIN set": "{person} set a new PIN.",
    "person unlocked": "{who} unlocked {person}.",
    "person disabled": "{who} disabled {person}.",
    "person enabled": "{who} enabled {person}.",
    "person locked": "{who} was locked out until {until} after wrong PINs.",
    "wrong PIN": "{who} typed a wrong PIN ({wrongInARow} in a row).",
    "approval": "{manager} approved {act} for {who}.",
    "shift opened": "{who} opened shift {shift} with a float of {openingFloat}.",
    "shift closed": "{who} closed shift {shift}: counted {countedCash}, expected {expectedCash}, {verdict}.",
    "charge": "{who} sent the service a charge of {chargeAmount} due from customer {customerId} (check {refId}).",
    "charge refused": "The service refused {who}'s charge of check {refId}: {why}",
    "complete": "{who} completed transaction {transactionId}.",
    "cancel": "{who} canceled transaction {transactionId}.",
    "refund": "{who} refunded transaction {transactionId}.",
    "cash sale": "{who} took a cash sale of {total}: {paid} in cash, {change} in change.",
    "drawer opened": "{who} opened the cash drawer ({reason}).",
    "drawer not opened": "{who} could not open the cash drawer ({reason}): {error}",
    "print canceled": "{who} canceled print job {job}.",
    "receipt printed": "{who} printed the receipt of transaction {transactionId} on {where}.",
    "receipt saved": "{who} saved the receipt of transaction {transactionId} to {where}.",
    "report printed": "{who} printed the report for {scope}, {from} to {to}, on {layout}, on {where}.",
    "report saved": "{who} saved the report for {scope}, {from} to {to}, on {layout}, to {where}.",
    "store joined": "The till joined the store at {store}.",
    "store left": "The till left the store at {store}.",
    "store join asked": "{who} asked to join the store at {store}.",
    "store leave asked": "{who} asked to leave the store.",
    "product added": "{who} added the product {product}.",
    "category added": "{who} added the category {category}.",
    "product moved": "{who} moved the product {product} from place {old_place} to place {new_place}.",
    "category moved": "{who} moved the category {category} from place {old_place} to place {new_place}.",
    "catalog change undone": "{who} undid a change of the catalog: {change}.",
    "catalog published": "{who} made {from} the catalog: {added} added, {changed} changed, {retired} retired.",
}

# Edits whose detail holds [old, new] per field: "{who} changed {subject}: {field} from {old} to {new}, …".
EDITS: Mapping[str, tuple[str, str | None]] = {  # action → its subject, and the detail key naming the thing edited
    "store details changed": ("the store's details", None),
    "settings changed": ("the settings", None),
    "product changed": ("the product", "product"),
    "category changed": ("the category", "category"),
}

# A detail's keys that hold cents.
AMOUNTS = frozenset(
    {"chargeAmount", "total", "paid", "change", "openingFloat", "countedCash", "expectedCash", "overShort", "price"}
)

# Keys that hold ids: written as they are, without quotes.
IDS = frozenset({"transactionId", "refId", "customerId", "job", "shift", "terminalId"})

# The order an edit's fields are told in (as the form has them); others after, by name.
ORDER = ("name", "address", "tax_number", "receipt_header", "receipt_footer", "logo", "price", "tax_rate")

# How a field is called in a sentence, where its key does not say it as a person would.
FIELDS: Mapping[str, str] = {
    "tax_number": "tax number",
    "receipt_header": "receipt header",
    "receipt_footer": "receipt footer",
    "tax_rate": "tax rate",
    "terminal_id": "terminal id",
    "catalog_file": "catalog file",
    "custom_urls": "service addresses",
    "auto_cancel_hint_seconds": "automatic cancel after",
    "request_timeout_seconds": "time a request may take",
    "discount_approval_percent": "discount a cashier may give alone",
    "idle_lock_seconds": "lock after idle",
    "allow_insecure_token_file": "token file without a keychain",
    "legacy_api_token": "API token",
    "method_override": "method override",
    "client_id": "client id",
    "approvedBy": "approved by",
}

# What a manager approved, as the sentence names it.
ACTS: Mapping[str, str] = {
    Guarded.REFUND: "a refund",
    Guarded.CANCEL_CHARGED: "canceling a charge after the customer was charged",
    Guarded.DISCOUNT: "a discount above the limit",
    Guarded.NO_SALE: "opening the drawer without a sale",
    Guarded.CHANGE_SETTINGS: "a change of the settings",
    Guarded.DISCONNECT: "disconnecting the till",
    Guarded.CLOSE_SHIFT: "closing the shift",
    Guarded.MANAGE_PEOPLE: "a change of the people",
    Guarded.MANAGE_CATALOG: "a change of the catalog or the store's details",
}


def field_name(key: str) -> str:
    """A detail's key as a person says it: ``tax_number`` → "tax number", ``openingFloat`` → "opening float"."""
    if key in FIELDS:
        return FIELDS[key]
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key).replace("_", " ").lower()


def _listed(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def _value(key: str, value: object, money: Money | None) -> str:
    """One value in words: an amount by ``money``, a text in quotes on one line, a long text by its length."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int) and key in AMOUNTS and money is not None:
        return money(value)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        if key in IDS and len(value) <= LONG:
            return value
        if key == "logo":
            return value  # "a logo", "a new logo": what it is, never its picture
        line = ", ".join(part.strip() for part in value.splitlines() if part.strip())
        if len(line) > LONG:
            return f"a text of {len(value)} characters"
        return f"“{line}”"
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return _listed([_value(key, item, money) for item in value]) or "nothing"
    if isinstance(value, Mapping):
        return _listed([field_name(str(k)) for k in value]) or "nothing"
    return f"a value of {len(str(value))} characters"  # bytes or anything else: named, not dumped


def _name(value: object) -> str:
    """A person's or a thing's name as it stands in a sentence (no quotes: "Ana Cashier")."""
    return value if isinstance(value, str) and value else "someone"


def _changes(detail: Mapping[str, Any], money: Money | None, skip: str | None) -> list[str]:
    """ "address from none to “Hafenstraße 12, 20459 Hamburg”" for each field of an edit."""
    parts = []
    for key, value in sorted(
        detail.items(), key=lambda kv: (ORDER.index(kv[0]) if kv[0] in ORDER else len(ORDER), kv[0])
    ):
        if key in (skip, "approvedBy"):
            continue
        if key == "changed" and isinstance(value, list):  # the settings' names only, as an older release kept them
            parts.append(_listed([f"the {field_name(str(name))}" for name in value]))
            continue
        if isinstance(value, list) and len(value) == 2:
            old, new = value
            if key == "logo":
                parts.append("the logo: " + ("removed" if new is None else "added" if old is None else "replaced"))
                continue
            parts.append(f"the {field_name(key)} from {_value(key, old, money)} to {_value(key, new, money)}")
        else:
            parts.append(f"the {field_name(key)}: {_value(key, value, money)}")
    return parts


def audit_sentence(action: str, actor: str | None, detail: Mapping[str, Any], money: Money | None = None) -> str:
    """The entry as one sentence (or two, with who approved it)."""
    who = actor or "The till"
    approved = detail.get("approvedBy")
    tail = f" Approved by {approved}." if isinstance(approved, str) and approved else ""
    if action in EDITS:
        subject, key = EDITS[action]
        if key is not None:
            subject = f"{subject} “{detail.get(key, '')}”"
        parts = _changes(detail, money, key)
        if not parts:
            return f"{who} saved {subject} unchanged.{tail}"
        return f"{who} changed {subject}: {'; '.join(parts)}.{tail}"
    template = SENTENCES.get(action)
    if template is None:
        parts = [f"{field_name(k)} {_value(k, v, money)}" for k, v in detail.items() if k != "approvedBy"]
        said = f"{who}: {action}" + (f" ({'; '.join(parts)})" if parts else "")
        return f"{said}.{tail}"
    words: dict[str, str] = {"who": who}
    for key, value in detail.items():
        words[key] = _value(key, value, money)
    if action == "person renamed":
        old, new = (detail.get("name") or [None, None])[:2]
        words |= {"old_name": _name(old), "new_name": _name(new)}
    elif action == "role changed":
        old, new = (detail.get("role") or [None, None])[:2]
        words |= {"old_role": str(old), "new_role": str(new)}
    elif action.endswith(" moved"):
        old, new = (detail.get("place") or [None, None])[:2]
        words |= {"old_place": str(old), "new_place": str(new)}
    elif action == "approval":
        act = detail.get("act")
        about = detail.get("subject")
        words["act"] = ACTS.get(str(act), f"“{act}”") + (f" ({about})" if isinstance(about, str) else "")
        words["manager"] = _name(detail.get("manager"))
    elif action == "shift closed":
        over_short = detail.get("overShort")
        if isinstance(over_short, int) and money is not None:
            words["verdict"] = (
                "the drawer was right"
                if over_short == 0
                else f"{'short' if over_short < 0 else 'over'} by {money(abs(over_short))}"
            )
    elif action == "cancel" and detail.get("reason") == "duplicate":
        template = "{who} canceled transaction {transactionId}, a second one for check {refId}."
    elif action == "PIN reset":
        words["newPin"] = (
            f"{_name(detail.get('person'))} sets a new one at the till"
            if detail.get("newPin") == "at the till"
            else "a new PIN was given"
        )
    for key in ("person", "manager"):  # a person's name stands as it is; a product's is quoted (_value)
        if key in detail:
            words[key] = _name(detail.get(key))
    for moment in ("until", "from", "to"):
        if isinstance(text := detail.get(moment), str) and (when := _moment(text)) is not None:
            words[moment] = when
    if action in ("person signed in", "sign-in", "till locked", "drawer opened", "drawer not opened"):
        for key in ("via", "how", "why", "reason"):
            if isinstance(detail.get(key), str):
                words[key] = str(detail[key])
    if action in ("receipt printed", "receipt saved", "report printed", "report saved"):
        for key in ("where", "scope"):
            if isinstance(detail.get(key), str):
                words[key] = str(detail[key])
        layout = detail.get("layout")
        words["layout"] = {"a4": "A4", "roll": "the 80 mm roll"}.get(str(layout), str(layout))
    if action == "charge refused" and isinstance(detail.get("why"), str):
        words["why"] = str(detail["why"])
    if action == "drawer not opened" and isinstance(detail.get("error"), str):
        words["error"] = str(detail["error"])
    try:
        return template.format_map(words) + tail
    except (KeyError, IndexError, ValueError):  # an entry from a release that kept other details
        parts = [f"{field_name(k)} {_value(k, v, money)}" for k, v in detail.items() if k != "approvedBy"]
        return f"{who}: {action}" + (f" ({'; '.join(parts)})" if parts else "") + "." + tail


def _moment(text: str) -> str | None:
    """An ISO 8601 time of a detail in the computer's local time, to the minute."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment.astimezone() if moment.tzinfo else moment).strftime("%Y-%m-%d %H:%M")
