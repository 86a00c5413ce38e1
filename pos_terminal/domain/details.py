"""The store's details: what receipts, reports and the customer display say about the store, each bounded.

The logo is a picture kept as the tills print it (a grey PNG at most :data:`LOGO_DOTS` wide, made from the file a
manager chose by :mod:`pos_terminal.reports.logo`); it travels between the journal and the store database as base64
text, bounded by :data:`LOGO_STORED_LIMIT`.
"""

from __future__ import annotations

import base64
import binascii
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


# The logo: a file a manager chooses may be this large; what is kept is at most LOGO_DOTS wide and high (48 mm on
# an 80 mm roll at 203 dpi, within the 72 mm a roll prints), so a kept logo is far below LOGO_STORED_LIMIT.
LOGO_FILE_LIMIT = 512 * 1024
LOGO_FILE_PIXELS = 1024
LOGO_DOTS = 384
LOGO_STORED_LIMIT = 256 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class BadDetail(UserError):
    pass


class BadLogo(BadDetail):
    hint = "Choose a PNG or JPEG picture of at most 512 KB and 1024 × 1024 pixels."


@dataclass(frozen=True)
class StoreDetails:
    """What receipts and reports print about the store."""

    name: str
    address: str | None = None
    tax_number: str | None = None
    receipt_header: str | None = None
    receipt_footer: str | None = None
    updated_by: str | None = None
    logo: bytes | None = None  # a grey PNG as it prints (see LOGO_DOTS); None: no logo

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
    return StoreDetails(
        name,
        address=checked["address"],
        tax_number=checked["tax_number"],
        receipt_header=checked["receipt_header"],
        receipt_footer=checked["receipt_footer"],
        updated_by=updated_by,
    )


def logo_text(logo: bytes | None) -> str | None:
    """The logo as the journal and the store database keep it: base64 text."""
    return None if logo is None else base64.b64encode(logo).decode("ascii")


def logo_of_text(text: str | None) -> bytes | None:
    """The logo kept as ``text``; ValueError when it is not base64 of a PNG within :data:`LOGO_STORED_LIMIT`."""
    if text is None:
        return None
    if len(text) > (LOGO_STORED_LIMIT + 2) // 3 * 4:
        raise ValueError(f"a logo is at most {LOGO_STORED_LIMIT} bytes")
    try:
        data = base64.b64decode(text.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error):
        raise ValueError("a logo is base64 text") from None
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("a logo is a PNG")
    return data
