"""The store's details: what receipts, reports and the customer display say about the store, each bounded."""

from __future__ import annotations

from dataclasses import dataclass

from pos_terminal.errors import UserError

# The longest each may be: a roll receipt is 42 characters wide, and a header or footer a few lines of it.
LIMITS = {"name": 80, "address": 200, "tax_number": 40, "receipt_header": 400, "receipt_footer": 400}
MULTILINE = frozenset({"address", "receipt_header", "receipt_footer"})
LABELS = {
    "name": "store's name",
    "address": "address",
    "tax_number": "tax number",
    "receipt_header": "receipt header",
    "receipt_footer": "receipt footer",
}


class BadDetail(UserError):
    pass


@dataclass(frozen=True)
class StoreDetails:
    """What receipts and reports print about the store."""

    name: str
    address: str | None = None
    tax_number: str | None = None
    receipt_header: str | None = None
    receipt_footer: str | None = None
    updated_by: str | None = None

    def head_lines(self) -> tuple[str, ...]:
        """What a receipt prints under the store's name: its address, tax number, then the header's lines."""
        result = (self.address or "").splitlines()
        if self.tax_number:
            result.append(f"Tax number {self.tax_number}")
        result += (self.receipt_header or "").splitlines()
        return tuple(line.strip() for line in result if line.strip())

    def foot_lines(self) -> tuple[str, ...]:
        """What a receipt prints at its foot."""
        return tuple(line.strip() for line in (self.receipt_footer or "").splitlines() if line.strip())


def checked_detail(field: str, text: str) -> str | None:
    """``text`` as the ``field`` of the store's details keeps it (None when empty), or BadDetail naming the field."""
    text = text.replace("\r\n", "\n").strip()
    label = LABELS[field]
    if len(text) > LIMITS[field]:
        raise BadDetail(f"The {label} is longer than {LIMITS[field]} characters.", hint="Shorten it.")
    if any((ord(ch) < 32 and ch != "\n") or ch == "\x7f" for ch in text) or ("\n" in text and field not in MULTILINE):
        raise BadDetail(f"The {label} holds a character a receipt cannot print.", hint="Type it again.")
    if field == "name" and not text:
        raise BadDetail("The store needs a name.", hint="Type the name printed at the top of a receipt.")
    return text or None


def details_of(values: dict[str, str | None], updated_by: str | None = None) -> StoreDetails:
    """The store's details from text typed for each field (None: not given), each checked."""
    checked = {field: checked_detail(field, values.get(field) or "") for field in LIMITS}
    name = checked.pop("name")
    assert name is not None
    return StoreDetails(name, **checked, updated_by=updated_by)
