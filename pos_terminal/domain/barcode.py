"""Product codes on the packaging: GTIN-8, UPC-A (GTIN-12), EAN-13 (GTIN-13) and GTIN-14, check digit verified.

A code is kept as written in the catalog, and matched as its GTIN-14 (zeros on the
left), so a UPC-A scanned as the 13-digit EAN its scanner reports ("0" in front)
finds the same product.
"""

from __future__ import annotations

from pos_terminal.errors import UserError

GTIN_LENGTHS = (8, 12, 13, 14)


class BadCheckDigit(UserError):
    hint = "Scan it again, or type the item by hand."


def check_digit(body: str) -> int:
    """The GS1 check digit of ``body`` (every digit but the last): weights 3 and 1 from the right."""
    total = sum(int(digit) * (3 if index % 2 == 0 else 1) for index, digit in enumerate(reversed(body)))
    return (10 - total % 10) % 10


def is_gtin_shaped(code: str) -> bool:
    """Only digits, as many as a GTIN has: a code that must carry a valid check digit."""
    return code.isascii() and code.isdigit() and len(code) in GTIN_LENGTHS


def gtin_key(code: str) -> str:
    """The GTIN-14 of a valid ``code`` (what two spellings of one product share); ``BadCheckDigit`` otherwise."""
    code = code.strip()
    if not is_gtin_shaped(code):
        raise BadCheckDigit(f"“{code[:20]}” is not a product code (8, 12, 13 or 14 digits).")
    if check_digit(code[:-1]) != int(code[-1]):
        raise BadCheckDigit(f"The code {code} was misread: its check digit is wrong.")
    return code.zfill(14)
