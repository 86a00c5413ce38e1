"""A record whose optional lists are ``null`` (as the sandbox sends a check without discounts) is read, not skipped.

Found by the end-of-day report: the terminal listed none of the transactions
without discounts, and the reconciliation showed the summary disagreeing.
"""

from __future__ import annotations

from pos_terminal.api.models import Transaction


def test_null_lists_read_as_empty() -> None:
    record = Transaction.model_validate(
        {
            "transactionId": "t-1",
            "state": "complete",
            "items": None,
            "discounts": None,
            "payments": None,
            "modifiers": None,
        }
    )
    assert (record.items, record.discounts, record.payments, record.modifiers) == ([], [], [], [])
