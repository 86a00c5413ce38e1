"""How an audit entry reads on a report: a sentence of who did what, and what changed from what to what, in words.

The Z report and the store's day printed the detail as it was kept: ``address: [null, "Hafenstraße 12\\n20459
Hamburg"], logo: [null,…`` and ``changed: ["currency", "locale"]``; before that a shift's float read
"openingFloat: 20000".
"""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from pypdf import PdfReader

from pos_terminal.domain.details import StoreDetails
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.people import Guarded
from pos_terminal.domain.shift import DrawerCount
from pos_terminal.journal.audit import AuditEntry
from pos_terminal.reports.end_of_day import render
from pos_terminal.services.reports import Repeated, audit_row
from pos_terminal.services.terminal import Terminal
from tests.services.test_shifts import MARIA, staffed

EURO = MoneyFormat("de_DE", "EUR")
m = EURO.format
LOGO = "iVBORw0KGgoAAAANSUhEUgAA" * 40  # a picture as an older release may have kept it


def assert_no_kept_data(sentence: str) -> None:
    """Words only: no JSON brackets, quotes or nulls, no line break, no key as the code spells it."""
    for mark in ("[", "]", "{", "}", '"', "null", "\n", "_", "openingFloat", "iVBOR"):
        assert mark not in sentence, (mark, sentence)


@pytest.mark.parametrize(
    ("action", "actor", "detail", "written"),
    [
        (
            "store details changed",
            "Mia",
            {"address": [None, "Hafenstraße 12\n20459 Hamburg"], "logo": [None, "a new logo"]},
            "Mia changed the store's details: the address from none to “Hafenstraße 12, 20459 Hamburg”; "
            "the logo: added.",
        ),
        (
            "store details changed",
            "Mia",
            {"receipt_footer": ["Bye", "x" * 120], "logo": [None, LOGO], "tax_number": ["1", None]},
            "Mia changed the store's details: the tax number from “1” to none; "
            "the receipt footer from “Bye” to a text of 120 characters; the logo: added.",
        ),
        (
            "settings changed",
            "Mia",
            {"changed": ["currency", "locale"]},
            "Mia changed the settings: the currency and the locale.",
        ),
        (
            "settings changed",
            "Mia",
            {"currency": ["AUD", "EUR"], "idle_lock_seconds": [300, 0], "approvedBy": "Maria"},
            "Mia changed the settings: the currency from “AUD” to “EUR”; the lock after idle from 300 to 0. "
            "Approved by Maria.",
        ),
        (
            "shift opened",
            "Maria",
            {"shift": 3, "openingFloat": 20_000},
            f"Maria opened shift 3 with a float of {m(20_000)}.",
        ),
        (
            "shift closed",
            "Maria",
            {"shift": 3, "countedCash": 21_030, "expectedCash": 21_080, "overShort": -50},
            f"Maria closed shift 3: counted {m(21_030)}, expected {m(21_080)}, short by {m(50)}.",
        ),
        (
            "product changed",
            "Ben",
            {"product": "Big latte", "price": [450, 480], "name": ["Latte", "Big latte"]},
            f"Ben changed the product “Big latte”: the name from “Latte” to “Big latte”; "
            f"the price from {m(450)} to {m(480)}.",
        ),
        (
            "cash sale",
            None,
            {"total": 700, "paid": 5_000, "change": 4_300},
            f"The till took a cash sale of {m(700)}: {m(5_000)} in cash, {m(4_300)} in change.",
        ),
        (
            "refund",
            "Ben",
            {"transactionId": "tx-1", "approvedBy": "Maria"},
            "Ben refunded transaction tx-1. Approved by Maria.",
        ),
        (
            "approval",
            "Ben",
            {"act": str(Guarded.REFUND), "manager": "Maria", "subject": "tx-1"},
            "Maria approved a refund (tx-1) for Ben.",
        ),
        ("person renamed", "Maria", {"person": "Ana S", "name": ["Ana", "Ana S"]}, "Maria renamed Ana to Ana S."),
        (
            "role changed",
            "Maria",
            {"person": "Ben", "role": ["cashier", "manager"]},
            "Maria changed Ben's role from cashier to manager.",
        ),
        (
            "frobnicated",
            "Ben",
            {"levelsUp": [1, None], "note": "x\ny"},
            "Ben: frobnicated (levels up 1 and none; note “x, y”).",
        ),
        ("shift opened", "Maria", {"shift": 3}, "Maria: shift opened (shift 3)."),  # a detail missing: still words
    ],
)
def test_an_audit_entry_reads_as_a_sentence(
    action: str, actor: str | None, detail: dict[str, object], written: str
) -> None:
    entry = AuditEntry(datetime(2026, 11, 26, tzinfo=UTC), action, actor, "LANE-1", detail)
    sentence = audit_row(entry, EURO.format, Repeated()).detail
    assert sentence == written
    assert_no_kept_data(sentence)


async def test_the_z_report_s_audit_log_is_sentences_on_paper_and_in_json(terminal: Terminal) -> None:
    money = terminal.money.format
    await staffed(terminal)
    await terminal.till.sign_in(MARIA, "908172635401")
    terminal.till.open_shift(15_000)
    details = StoreDetails("Café Nord", address="Hafenstraße 12\n20459 Hamburg", tax_number="DE 123")
    assert terminal.set_store_details(details, by=MARIA)
    terminal.till.perform(Guarded.CHANGE_SETTINGS, None, "settings changed", {"currency": ["AUD", "EUR"]})
    closed = terminal.till.close_shift(DrawerCount.of_total(15_000))
    report = await terminal.shifts.report(terminal.reports(), closed)
    said = {a.action: a.detail for a in report.audit}
    assert said["store details changed"] == (
        f"{MARIA} changed the store's details: the name from none to “Café Nord”; "
        "the address from none to “Hafenstraße 12, 20459 Hamburg”; the tax number from none to “DE 123”."
    )
    assert said["settings changed"] == f"{MARIA} changed the settings: the currency from “AUD” to “EUR”."
    assert said["shift opened"] == f"{MARIA} opened shift {closed.id} with a float of {money(15_000)}."
    for sentence in said.values():
        assert_no_kept_data(sentence)
    assert [a["detail"] for a in report.as_json()["audit"]] == [a.detail for a in report.audit]
    for layout in ("a4", "roll"):
        pages = PdfReader(io.BytesIO(render(report, layout, money=terminal.money))).pages
        text = " ".join(" ".join(page.extract_text() for page in pages).split())
        assert "the address from none to “Hafenstraße 12, 20459 Hamburg”; the tax number from none to “DE 123”." in text
        assert "null" not in text and "openingFloat" not in text
