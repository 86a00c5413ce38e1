"""What a scanned code stands for: a product of the catalog (GTIN, EAN-13, UPC-A), or a checked-in customer's card.

A product code is looked up by its GTIN, whatever its spelling; a customer's card carries
the member number. A code that is neither is one sentence, and so is a product code whose
check digit shows it was misread.
"""

from __future__ import annotations

from collections.abc import Iterable

from pos_terminal.api.models import Customer
from pos_terminal.domain.barcode import BadCheckDigit, is_gtin_shaped
from pos_terminal.errors import UserError
from pos_terminal.services.catalog import Catalog, CatalogEntry


class UnknownCode(UserError):
    hint = "Add the item by hand (F7), or find the customer by name (F2)."


def resolve_scan(code: str, catalog: Catalog, customers: Iterable[Customer]) -> CatalogEntry | Customer:
    """The product or the checked-in customer ``code`` names; UnknownCode or BadCheckDigit otherwise."""
    misread: BadCheckDigit | None = None
    if is_gtin_shaped(code):
        try:
            entry = catalog.by_code(code)
        except BadCheckDigit as exc:
            misread = exc  # unless a member number happens to look like a product code
        else:
            if entry is not None:
                return entry
    wanted = code.casefold()
    for customer in customers:
        if customer.member_no and customer.member_no.casefold() == wanted:
            return customer
    if misread is not None:
        raise misread
    raise UnknownCode(f"No product and no checked-in customer has the code {code}.")
