"""People, approvals and shifts against the sandbox: a whole day at one till, and the Z report it ends with.

Two cashiers and a manager work one shift: charges with and without cash, a refund the
manager approves, a cancel after the customer was charged refused without approval, a
discount above the limit, and a close with the drawer short. The Z figures are checked
against an independent computation from what the test itself did, never from the journal.
"""

from __future__ import annotations

import io
import logging
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from pypdf import PdfReader

from pos_terminal.domain.check import Check, Discount, Item, Payment
from pos_terminal.domain.lifecycle import Action, TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.people import ApprovalNeeded, Guarded, Role
from pos_terminal.domain.report import EndOfDayReport
from pos_terminal.domain.sale import Phase
from pos_terminal.domain.shift import DrawerCount, ShiftReportKind
from pos_terminal.domain.slip import Line, report_slip
from pos_terminal.reports.end_of_day import render
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.checkout import ChangeStatus
from pos_terminal.services.shifts import NoShiftOpen
from pos_terminal.services.staff import PersonLocked, WrongPin
from pos_terminal.services.terminal import Terminal
from pos_terminal.services.till import NoPersonAtTill, ShiftBusy
from tests.conftest import new_checked_in_customer
from tests.services.conftest import FakeClock

# Long PINs, so that none can turn up in a log by chance (inside a time stamp, an amount or an id).
MARIA, MARIA_PIN = "Maria Manager", "908172635401"
ANA, ANA_PIN = "Ana Cashier", "551029384756"
BEN, BEN_PIN = "Ben Cashier", "664738291045"


@dataclass
class Day:
    """What the test did, kept by the test: the independent side of every comparison."""

    opening_float: int
    completed: list[dict[str, Any]] = field(default_factory=list)  # person, total, cash, charge
    refunded_cash: int = 0
    refunded_to_accounts: int = 0

    @property
    def expected_cash(self) -> int:
        return self.opening_float + sum(c["cash"] for c in self.completed) - self.refunded_cash


async def staffed(terminal: Terminal) -> None:
    """The first manager, then two cashiers added by her."""
    await terminal.till.create_first_manager(MARIA, MARIA_PIN)
    await terminal.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    await terminal.till.add_person(BEN, Role.CASHIER, BEN_PIN)
    terminal.till.lock()


async def switch(terminal: Terminal, name: str, pin: str) -> None:
    terminal.till.lock()
    await terminal.till.sign_in(name, pin)
    assert terminal.till.actor == name


async def sell(terminal: Terminal, who: dict[str, Any], check: Check) -> str:
    """Build ``check`` on the register, charge ``who`` and leave it authorized; the transaction id."""
    register = terminal.register
    register.new_check()
    register.choose_customer(await terminal.customers.find(who["customerId"]))
    register.edit(lambda _: check)
    state = await register.charge()
    assert state.phase is Phase.AUTHORIZED, state.message
    assert state.transaction_id is not None
    return state.transaction_id


async def sell_and_complete(terminal: Terminal, day: Day, who: dict[str, Any], check: Check) -> str:
    transaction_id = await sell(terminal, who, check)
    state = await terminal.register.complete()
    assert state.phase is Phase.COMPLETE
    totals = check.totals()
    cash = sum(p.amount for p in check.payments if p.method == "cash")
    day.completed.append(
        {"person": terminal.till.actor, "total": totals.total, "cash": cash, "charge": totals.charge_amount}
    )
    return transaction_id


def items(*prices: int, cash: int = 0) -> Check:
    check = Check()
    for index, price in enumerate(prices):
        check = check.add_item(Item(name=f"Item {index + 1}", quantity=1, unit_price=price, tax_rate_bp=1000))
    return check.add_payment(Payment("cash", cash)) if cash else check


async def test_a_day_with_two_cashiers_and_a_manager_ends_with_a_z_report_that_adds_up(
    terminal: Terminal, client: httpx.Client, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)
    till, register = terminal.till, terminal.register
    await staffed(terminal)
    customers = [new_checked_in_customer(client, firstName=f"Guest{n}") for n in range(4)]

    # Nobody at the till, then nobody may charge; a person without a shift may not either.
    with pytest.raises(NoPersonAtTill):
        await sell(terminal, customers[0], items(1000))
    await switch(terminal, ANA, ANA_PIN)
    with pytest.raises(NoShiftOpen):
        await sell(terminal, customers[0], items(1000))
    shift = till.open_shift(20_000)
    day = Day(opening_float=20_000)
    assert shift.opened_by == ANA and shift.is_open

    first = await sell_and_complete(terminal, day, customers[0], items(1_750, 450, cash=500))
    await sell_and_complete(terminal, day, customers[1], items(1_200))

    await switch(terminal, BEN, BEN_PIN)
    await sell_and_complete(terminal, day, customers[2], items(2_000, cash=1_000))

    # A cancel after the customer was charged: refused without a manager, and the transaction stays authorized.
    held = await sell(terminal, customers[3], items(3_300, cash=300))
    with pytest.raises(ApprovalNeeded) as refused:
        await register.cancel()
    assert refused.value.act is Guarded.CANCEL_CHARGED
    assert client.get(f"/sandbox/transactions/{held}").json()["state"] == "authorized"
    assert register.current.phase is Phase.AUTHORIZED
    state = await register.complete()  # the customer pays after all
    assert state.phase is Phase.COMPLETE
    day.completed.append({"person": BEN, "total": 3_300, "cash": 300, "charge": 3_000})

    # Ben refunds Ana's first sale: refused alone, done with Maria's PIN at the prompt; the cash goes back.
    with pytest.raises(ApprovalNeeded):
        await terminal.checkout.change_state(first, Action.REFUND)
    with pytest.raises(WrongPin):
        await till.approve(Guarded.REFUND, MARIA, BEN_PIN, subject=first)
    approval = await till.approve(Guarded.REFUND, MARIA, MARIA_PIN, subject=first)
    refund = await terminal.checkout.change_state(first, Action.REFUND, approval=approval)
    assert refund.status is ChangeStatus.DONE and refund.transaction is not None
    assert refund.transaction.state is TxState.REFUNDED
    day.refunded_cash += 500
    day.refunded_to_accounts += 1_700  # 2,200 of items, 500 paid in cash
    with pytest.raises(ApprovalNeeded):  # an approval is used once
        await terminal.checkout.change_state(first, Action.REFUND, approval=approval)

    # A discount above the limit (10 %) needs Maria too; it is kept once approved.
    register.new_check()
    register.choose_customer(await terminal.customers.find(customers[1]["customerId"]))
    register.edit(lambda check: check.add_item(Item("Hamper", 1, 5_000, 1000)))
    with pytest.raises(ApprovalNeeded):
        register.edit(lambda check: check.add_discount(Discount("Loyal", percent_bp=2000)))
    assert not register.current.check.discounts
    discount = await till.approve(Guarded.DISCOUNT, MARIA, MARIA_PIN)
    register.edit(lambda check: check.add_discount(Discount("Loyal", percent_bp=2000)), approval=discount)
    register.edit(lambda check: check.add_payment(Payment("cash", 1_000)))
    assert (await register.charge()).phase is Phase.AUTHORIZED
    assert (await register.complete()).phase is Phase.COMPLETE
    day.completed.append({"person": BEN, "total": 4_000, "cash": 1_000, "charge": 3_000})

    # A check the cash pays in full never goes to the service (it takes no charge of zero); the cash it leaves in
    # the drawer, the change handed back, counts all the same, and so does Ben's sale.
    register.new_check()
    register.edit(lambda check: check.add_item(Item("Postcard", 2, 400, 1000)))
    register.edit(lambda check: check.add_payment(Payment("cash", 1_000)))
    assert register.finish_cash_sale().phase is Phase.PAID_IN_CASH
    day.completed.append({"person": BEN, "total": 800, "cash": 800, "charge": 0})

    # The X report so far, on paper and on the receipt printer's slip alike.
    so_far = await terminal.shifts.report(terminal.reports(), till.shifts.require_open())
    assert so_far.shift is not None and so_far.shift.kind is ShiftReportKind.X
    assert so_far.shift.drawer.expected == day.expected_cash
    assert_shift_on_the_slip(so_far, day)

    # Ben may not close the shift; Maria counts the drawer by denomination and it is 3.50 short.
    with pytest.raises(ApprovalNeeded):
        till.close_shift(DrawerCount.of_total(0))
    await switch(terminal, MARIA, MARIA_PIN)
    short = day.expected_cash - 350
    fifties, rest = divmod(short, 5_000)
    count = DrawerCount.by_denomination({5_000: fifties, 50: rest // 50}, terminal.settings.currency)
    assert count.total == short
    closed = till.close_shift(count)
    assert closed.closed_by == MARIA and closed.expected_cash == day.expected_cash and closed.over_short == -350

    report = await terminal.shifts.report(terminal.reports(), closed)
    z = report.shift
    assert z is not None and z.kind is ShiftReportKind.Z
    assert report.title == f"Z report — shift {closed.id}"
    assert (report.range.start, report.range.end) == (closed.opened_at, closed.closed_at)
    assert z.drawer.opening_float == day.opening_float
    assert z.drawer.cash_sales == sum(c["cash"] for c in day.completed)
    assert z.drawer.cash_refunds == day.refunded_cash
    assert z.drawer.expected == day.expected_cash
    assert z.counted == count and z.over_short == -350
    people = {p.person: p for p in z.people}
    for name in (ANA, BEN):
        mine = [c for c in day.completed if c["person"] == name]
        assert (people[name].checks, people[name].total, people[name].cash, people[name].due) == (
            len(mine),
            sum(c["total"] for c in mine),
            sum(c["cash"] for c in mine),
            sum(c["charge"] for c in mine),
        )
    assert (people[BEN].refunds, people[BEN].refunded) == (1, day.refunded_to_accounts)
    [refunded] = z.refunds
    assert (refunded.transaction_id, refunded.person, refunded.approved_by, refunded.cash) == (first, BEN, MARIA, 500)
    assert [(a.act, a.asked_by, a.manager) for a in z.approvals] == [
        (str(Guarded.REFUND), BEN, MARIA),
        (str(Guarded.DISCOUNT), BEN, MARIA),
    ]
    assert not z.cancellations and z.pending_changes == 0
    # The service's summary over exactly the shift: the completed sales not refunded, reconciled.
    kept = [c for c in day.completed[1:] if c["charge"]]  # the cash sale is the terminal's alone
    assert report.reconciled, report.differences()
    assert report.total.shown.count == len(kept)
    assert report.total.shown.total == sum(c["total"] for c in kept)
    assert [t.transaction_id for t in report.refunds] == [first]
    assert report.as_json()["shift"]["drawer"]["overShort"] == -350
    opened_entry = {a.action: a.detail for a in report.audit}["shift opened"]
    assert opened_entry == f"{ANA} opened shift {closed.id} with a float of {terminal.money.format(20_000)}."
    assert_z_on_paper(report, tmp_path)
    assert_shift_on_the_slip(report, day)

    # Who did each act, in the journal and its audit log.
    with sqlite3.connect(terminal.journal_path) as journal:
        actors = [row[0] for row in journal.execute("SELECT actor FROM charge_intent ORDER BY created_at")]
        changes = journal.execute(
            "SELECT target_state, actor, approved_by FROM outbox WHERE target_state = 'refunded'"
        ).fetchall()
    assert actors == [ANA, ANA, BEN, BEN, BEN]
    assert changes == [("refunded", BEN, MARIA)]
    audit = terminal.journal.audit.between(closed.opened_at, closed.closed_at or closed.opened_at)
    assert any(e.action == "refund" and e.actor == BEN and e.detail.get("approvedBy") == MARIA for e in audit)
    assert_no_secrets(terminal, caplog.text)


def assert_z_on_paper(report: EndOfDayReport, tmp_path: Path) -> None:
    """Both layouts carry the shift: the drawer, the short count, the people and the approvals. With
    ``POS_TERMINAL_SCREENSHOTS`` set, the PDFs are kept there to be looked at."""
    money = MoneyFormat("en_AU", "AUD")
    folder = Path(os.environ.get("POS_TERMINAL_SCREENSHOTS") or tmp_path)
    for layout in ("a4", "roll"):
        data = render(report, layout, money=money)
        (folder / f"z-report-{layout}.pdf").write_bytes(data)
        text = " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages).split())
        assert report.shift is not None and report.shift.title in text
        assert f"SHORT by {money.format(350)}" in text
        for figure in (report.shift.drawer.expected, report.shift.drawer.opening_float):
            assert money.format(figure) in text
        assert all(name in text for name in (ANA, BEN, MARIA))
        assert "Manager approvals (2)" in text and "Refunds made in the shift (1)" in text


def assert_shift_on_the_slip(report: EndOfDayReport, day: Day) -> None:
    """The receipt printer's slip of an X or Z report carries the shift as the roll PDF does (it once had none of
    it): the float, cash in and given back, expected, counted and over or short, and sales per person, each figure
    the test's own sum and the same on the PDF."""
    money = MoneyFormat("en_AU", "AUD")
    section = report.shift
    assert section is not None
    slip = report_slip(report, money.format)
    if folder := os.environ.get("POS_TERMINAL_SCREENSHOTS"):  # to be looked at, as the PDFs
        (Path(folder) / f"{str(section.kind).lower()}-report-escpos.txt").write_text(slip.text + "\n")
    pairs = [(b.left, b.right) for b in slip.blocks if isinstance(b, Line)]
    pdf = render(report, "roll", money=money)
    paper = " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages).split())

    def on_both(name: str, value: str) -> None:
        assert (name, value) in pairs, (name, value, slip.text)
        assert value in paper, (value, paper)

    assert f"Shift {section.shift.id}" in slip.text
    on_both("Opening float", money.format(day.opening_float))
    on_both("+ Cash on checks completed", money.format(sum(c["cash"] for c in day.completed)))
    on_both("- Cash given back on refunds", money.format(day.refunded_cash))
    on_both("= Expected in the drawer", money.format(day.expected_cash))
    if section.kind is ShiftReportKind.Z:
        assert section.counted is not None
        on_both("Counted", money.format(section.counted.total))
        verdict = f"SHORT by {money.format(350)}"
        assert verdict in slip.text and verdict in paper
        for value, count in section.counted.pieces:
            on_both(f"  {money.format(value)} × {count}", money.format(value * count))
    else:
        assert "Counted" not in [name for name, _ in pairs] and "still open" in slip.text
    assert f"Sales per person ({len({c['person'] for c in day.completed})})" in slip.text
    for name in (ANA, BEN):
        mine = [c for c in day.completed if c["person"] == name]
        at = pairs.index((name, f"{len(mine)} check" + ("s" if len(mine) != 1 else "")))
        assert pairs[at + 1 : at + 5] == [
            ("  total", money.format(sum(c["total"] for c in mine))),
            ("  cash", money.format(sum(c["cash"] for c in mine))),
            ("  due", money.format(sum(c["charge"] for c in mine))),
            ("  charged", money.format(sum(c["charge"] for c in mine))),  # no member: no benefit taken off
        ], slip.text
        assert name in paper
    [refund] = section.refunds
    assert "Refunds made in the shift (1)" in slip.text and "Refunds made in the shift (1)" in paper
    on_both("Cash back", money.format(refund.cash))
    assert f"Manager approvals ({len(section.approvals)})" in slip.text
    assert f"Manager approvals ({len(section.approvals)})" in paper


def assert_no_secrets(terminal: Terminal, *texts: str) -> None:
    """No PIN and no hash in the logs, the audit log or anything else the journal keeps in words."""
    with sqlite3.connect(terminal.journal_path) as journal:
        hashes = [row[0] for row in journal.execute("SELECT pin_hash FROM person")]
        audit = "\n".join(str(row) for row in journal.execute("SELECT * FROM audit"))
        rest = "\n".join(
            str(row)
            for table in ("charge_intent", "outbox", "shift", "known_transaction", "open_check")
            for row in journal.execute(f"SELECT * FROM {table}")  # noqa: S608
        )
    assert hashes and all(h.startswith("scrypt$") for h in hashes)
    salts_and_keys = [part for h in hashes for part in h.split("$")[4:]]
    for secret in (MARIA_PIN, ANA_PIN, BEN_PIN, *hashes, *salts_and_keys):
        for text in (audit, rest, *texts):
            assert secret not in text


async def test_five_wrong_pins_lock_a_person_until_a_manager_unlocks_them(
    terminal: Terminal, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await staffed(terminal)
    till = terminal.till
    for attempt in range(4):
        with pytest.raises(WrongPin, match=f"{4 - attempt} more wrong"):
            await till.sign_in(ANA, "000000")
    with pytest.raises(PersonLocked, match="locked after too many wrong PINs"):
        await till.sign_in(ANA, "000000")
    with pytest.raises(PersonLocked):  # the right PIN does not open a lock
        await till.sign_in(ANA, ANA_PIN)
    assert till.current is None

    await switch(terminal, BEN, BEN_PIN)  # a cashier cannot unlock a colleague
    with pytest.raises(ApprovalNeeded):
        till.unlock(ANA)
    approval = await till.approve(Guarded.MANAGE_PEOPLE, MARIA, MARIA_PIN)
    till.unlock(ANA, approval)
    await switch(terminal, ANA, ANA_PIN)
    since, until = datetime(2000, 1, 1, tzinfo=UTC), datetime.now(UTC) + timedelta(days=1)
    entries = [(e.action, e.actor) for e in terminal.journal.audit.between(since, until)]
    assert ("person locked", ANA) in entries and ("person unlocked", MARIA) in entries
    assert_no_secrets(terminal, caplog.text)


async def test_a_lock_lasts_fifteen_minutes_and_survives_a_restart(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], terminal_clock: FakeClock
) -> None:
    terminal: Terminal = await open_terminal(sandbox)
    terminal.staff.now = terminal_clock
    await staffed(terminal)
    for _ in range(5):
        with pytest.raises((WrongPin, PersonLocked)):
            await terminal.till.sign_in(BEN, "1234")
    await terminal.aclose()
    again: Terminal = await open_terminal(sandbox)
    again.staff.now = terminal_clock
    with pytest.raises(PersonLocked):
        await again.till.sign_in(BEN, BEN_PIN)
    terminal_clock.advance(15 * 60)
    await again.till.sign_in(BEN, BEN_PIN)


async def test_a_terminal_without_people_guards_nothing(terminal: Terminal, client: httpx.Client) -> None:
    """As before people existed (and for a terminal run only from the command line): no person, no shift."""
    who = new_checked_in_customer(client)
    transaction_id = await sell(terminal, who, items(1_000))
    outcome = await terminal.checkout.change_state(transaction_id, Action.CANCEL)
    assert outcome.status is ChangeStatus.DONE


async def test_an_open_shift_and_the_open_check_survive_a_new_terminal_on_the_same_journal(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], client: httpx.Client
) -> None:
    terminal: Terminal = await open_terminal(sandbox)
    await staffed(terminal)
    await switch(terminal, ANA, ANA_PIN)
    opened = terminal.till.open_shift(10_000)
    terminal.register.edit(lambda check: check.add_item(Item("Tea", 1, 450)))
    await terminal.aclose()

    again: Terminal = await open_terminal(sandbox)
    assert again.shifts.current() == opened
    assert again.register.restore().check_restored
    assert again.till.current is None, "a restart locks the till"
    with pytest.raises(NoPersonAtTill):
        await sell(again, new_checked_in_customer(client), items(1_000))


async def test_a_shift_does_not_close_while_a_charge_of_the_terminal_is_under_way(
    terminal: Terminal, client: httpx.Client
) -> None:
    """One rule for the window and the command line: the till decides, from the journal (the command line once
    let an authorized charge stay open across the close)."""
    await staffed(terminal)
    await switch(terminal, MARIA, MARIA_PIN)
    terminal.till.open_shift(10_000)
    await sell(terminal, new_checked_in_customer(client), items(450))  # authorized, not completed

    with pytest.raises(ShiftBusy):
        terminal.till.close_shift(DrawerCount.of_total(10_000))

    assert (await terminal.register.complete()).phase is Phase.COMPLETE
    closed = terminal.till.close_shift(DrawerCount.of_total(10_000))
    assert closed.closed_at is not None
