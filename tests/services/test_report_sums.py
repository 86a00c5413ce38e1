"""One word, one amount: a Z report's tables add up to each other, with members' benefits taken off.

A shift at one till against the sandbox (members get its loyalty benefit, 5 % off what is due): charges to members
and to a guest, a discount, cash taken on a charge, a refund, a cancel and a sale paid in full in cash. What each
person is due and was charged, in the people's table (A4, the roll, the receipt printer's slip and ``--json``), is
the sum of the transaction list beside it, row by row, and both are the test's own sums of what it sold. "Charged"
once meant what was due in the people's table and what the service took in the transaction list: 12,18 € beside a
list that added to 11,73 €.
"""

from __future__ import annotations

import io
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
from pypdf import PdfReader

from pos_terminal.domain.check import Check, Discount, Item, Payment
from pos_terminal.domain.details import StoreDetails
from pos_terminal.domain.lifecycle import Action, TxState
from pos_terminal.domain.report_document import SectionKey, Table, report_document
from pos_terminal.domain.sale import Phase
from pos_terminal.domain.shift import DrawerCount
from pos_terminal.domain.slip import Line, report_slip
from pos_terminal.reports.end_of_day import render
from pos_terminal.services.terminal import Terminal
from tests.conftest import new_checked_in_customer
from tests.services.test_shifts import ANA, ANA_PIN, MARIA, MARIA_PIN, sell, staffed, switch

LOYALTY_PERCENT = 5  # the sandbox's benefit to members (sandbox/state.py)


def benefit(due: int, member: bool) -> int:
    """The member's benefit as the sandbox's published rule gives it: 5 % of what is due, rounded half up."""
    return (due * LOYALTY_PERCENT + 50) // 100 if member else 0


def column(table: Table, name: str) -> list[str]:
    index = table.head.index(name)
    return [row[index] for row in table.rows]


async def test_each_person_s_due_and_charged_add_up_to_the_transaction_list_beside_them(
    terminal: Terminal, client: httpx.Client
) -> None:
    money = terminal.money.format
    till, register = terminal.till, terminal.register
    await staffed(terminal)
    member = new_checked_in_customer(client, firstName="Zoë", lastName="Member", memberNo="M-100777")
    second = new_checked_in_customer(client, firstName="Kai", lastName="Member", memberNo="KR-55821")
    guest = new_checked_in_customer(client, firstName="Gus", lastName="Guest")
    sold: dict[str, dict[str, Any]] = {}  # transaction id → what the test sold: person, total, due, charged, state

    async def charge(who: dict[str, Any], check: Check, *, complete: bool = True) -> str:
        tid = await sell(terminal, who, check)
        totals = check.totals()
        due = totals.charge_amount
        charged = due - benefit(due, bool(who.get("memberNo")))
        sold[tid] = {"person": till.actor, "total": totals.total, "due": due, "charged": charged}
        if complete:
            assert (await register.complete()).phase is Phase.COMPLETE
            sold[tid]["state"] = TxState.COMPLETE
        else:
            sold[tid]["state"] = TxState.AUTHORIZED
        return tid

    await switch(terminal, ANA, ANA_PIN)
    till.open_shift(10_000)
    coffee = Item(name="Flat white", quantity=2, unit_price=545, tax_rate_bp=1000)
    cake = Item(name="Kiwi jam", quantity=1, unit_price=1_128, tax_rate_bp=1000)
    first = await charge(member, Check().add_item(coffee).add_item(cake))  # 22,18 €, 1,11 € off
    await charge(second, Check().add_item(cake).add_discount(Discount("Regular", percent_bp=500)))
    await charge(member, Check().add_item(coffee).add_payment(Payment("cash", 400)))  # cash on a charge
    await charge(guest, Check().add_item(cake))  # no member: no benefit
    register.new_check()
    register.edit(lambda check: check.add_item(Item("Postcard", 2, 350, 1000)).add_payment(Payment("cash", 1_000)))
    assert register.finish_cash_sale().phase is Phase.PAID_IN_CASH
    cash_sale_total = 700

    await switch(terminal, MARIA, MARIA_PIN)
    held = await charge(second, Check().add_item(coffee), complete=False)
    assert (await register.cancel()).phase is not Phase.AUTHORIZED
    sold[held]["state"] = TxState.CANCELED
    refund = await terminal.checkout.change_state(first, Action.REFUND)  # the manager's own: no approval asked
    assert refund.transaction is not None and refund.transaction.state is TxState.REFUNDED
    sold[first]["state"] = TxState.REFUNDED
    await charge(guest, Check().add_item(cake).add_item(coffee))
    details = StoreDetails("Café Nord", address="Hafenstraße 12\n20459 Hamburg")
    assert terminal.set_store_details(details, by=MARIA)  # its audit entry a sentence on the report
    closed = till.close_shift(DrawerCount.of_total(10_000 + 400 + cash_sale_total))

    report = await terminal.shifts.report(terminal.reports(), closed)
    document = report_document(report, money)
    people_section = document.section(SectionKey.PEOPLE)
    listed_section = document.section(SectionKey.TRANSACTIONS)
    assert people_section is not None and listed_section is not None
    [people] = [b for b in people_section.blocks if isinstance(b, Table)]
    [listed] = [b for b in listed_section.blocks if isinstance(b, Table)]

    # The transaction list, row by row: what was due and what the service charged, each the test's own.
    went_through = {tid: s for tid, s in sold.items() if s["state"] in (TxState.COMPLETE, TxState.REFUNDED)}
    amounts = zip(column(listed, "Due"), column(listed, "Charged"), strict=True)
    rows = dict(zip(column(listed, "Transaction"), amounts, strict=True))
    assert set(rows) == set(sold)
    for tid, s in sold.items():
        shown = (money(s["due"]), money(s["charged"])) if tid in went_through else ("—", "—")
        assert rows[tid] == shown, (tid, s)
    assert any(s["due"] != s["charged"] for s in went_through.values()), "the members' benefits are in the test"

    # Each person's due and charged: the sum of their rows in that list (the cash sale adds its total, not a charge).
    mine: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for s in went_through.values():
        for key in ("total", "due", "charged"):
            mine[s["person"]][key] += s[key]
        mine[s["person"]]["checks"] += 1
    mine[ANA]["total"] += cash_sale_total
    mine[ANA]["checks"] += 1
    for name, due, charged, total, checks in zip(
        column(people, "Person"),
        column(people, "Due"),
        column(people, "Charged"),
        column(people, "Total"),
        column(people, "Checks"),
        strict=True,
    ):
        assert (due, charged, total, checks) == (
            money(mine[name]["due"]),
            money(mine[name]["charged"]),
            money(mine[name]["total"]),
            str(mine[name]["checks"]),
        ), name
    # ... and together, the whole list; the service's own figures count the completed ones (not the refunded).
    assert report.shift is not None
    assert sum(p.charged for p in report.shift.people) == sum(s["charged"] for s in went_through.values())
    assert sum(p.due for p in report.shift.people) == sum(s["due"] for s in went_through.values())
    complete = [s for s in sold.values() if s["state"] is TxState.COMPLETE]
    assert report.reconciled, report.differences()
    assert report.total.shown.total == sum(s["total"] for s in complete)
    fees, tips = report.total.shown.fees, report.total.shown.tips
    assert report.total.shown.payout == sum(s["due"] for s in complete) + tips - fees

    # The same two words in --json, the roll and the receipt printer's slip.
    as_json = {p["person"]: p for p in report.as_json()["shift"]["people"]}
    for name, figures in mine.items():
        assert (as_json[name]["chargeAmount"], as_json[name]["chargedAmount"]) == (figures["due"], figures["charged"])
        assert "charged" not in as_json[name], "the key that meant what was due is gone"
    slip = [(b.left, b.right) for b in report_slip(report, money).blocks if isinstance(b, Line)]
    if folder := os.environ.get("POS_TERMINAL_SCREENSHOTS"):  # the Z report on paper, to be looked at
        for layout in ("a4", "roll"):
            (Path(folder) / f"reports-z-report-{layout}.pdf").write_bytes(render(report, layout, money=terminal.money))
    pages = PdfReader(io.BytesIO(render(report, "roll", money=terminal.money))).pages
    roll = " ".join(" ".join(page.extract_text() for page in pages).split())
    for name, figures in mine.items():
        at = slip.index((name, f"{figures['checks']} checks" if figures["checks"] != 1 else "1 check"))
        assert slip[at + 3 : at + 5] == [("  due", money(figures["due"])), ("  charged", money(figures["charged"]))]
        assert f"due {money(figures['due'])} charged {money(figures['charged'])}" in roll, roll
