"""How an audit entry's detail reads on a report: amounts kept in cents written as money, whatever else as it was
kept. A shift's float read "openingFloat: 20000" and a price edit "price: [450, 480]"."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pos_terminal.domain.money import MoneyFormat
from pos_terminal.services.reports import Repeated, audit_row
from pos_terminal.store.audit import AuditEntry

EURO = MoneyFormat("de_DE", "EUR")
m = EURO.format


@pytest.mark.parametrize(
    ("detail", "written"),
    [
        ({"shift": 3, "openingFloat": 20_000}, f"opening float: {m(20_000)}, shift: 3"),
        (
            {"shift": 3, "countedCash": 21_030, "expectedCash": 21_080, "overShort": -50},
            f"cash counted: {m(21_030)}, cash expected: {m(21_080)}, over or short: {m(-50)}, shift: 3",
        ),
        (
            {"price": [450, 480], "name": ["Latte", "Big latte"]},
            f'name: ["Latte", "Big latte"], price: {m(450)} → {m(480)}',
        ),
        ({"price": [None, 480]}, f"price: none → {m(480)}"),
        ({"tax_rate_bp": [1000, None]}, "tax_rate_bp: [1000, null]"),  # not an amount
        ({"price": "4.50", "total": True}, "price: 4.50, total: true"),  # not cents: as kept
    ],
)
def test_an_audit_detail_reads_as_a_person_writes_it(detail: dict[str, object], written: str) -> None:
    entry = AuditEntry(datetime(2026, 11, 26, tzinfo=UTC), "shift opened", "Maria", "LANE-1", detail)
    assert audit_row(entry, EURO.format, Repeated()).detail == written
