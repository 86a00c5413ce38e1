"""A whole day on two tills of one store (a real PostgreSQL store database, the sandbox service): every total of the
store's day is the test's own sum of what it sold.

LANE-1 and LANE-2 each open a shift. Their cashiers charge members (the sandbox takes 5 % off what is due for them)
and guests, with a discount and with cash taken on a charge, take cash sales; the manager refunds a check on LANE-1
(the cash paid on it goes back out of the drawer) and approves a cancel on LANE-2. Both close their shifts, LANE-2
short. The store's day, made on LANE-1, is then held against sums the test keeps from what it did, never from the
journal, the store database or the report's code: the service's figures, each till's drawer, the cash sales, each
person's checks and amounts across the tills, each transaction's due and charged, and the audit log in words.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx

from pos_terminal.domain.check import Check, Discount, Item, Payment
from pos_terminal.domain.lifecycle import Action, TxState
from pos_terminal.domain.people import Guarded, Role
from pos_terminal.domain.report import TimeRange
from pos_terminal.domain.report_document import SectionKey, Table, report_document
from pos_terminal.domain.sale import Phase
from pos_terminal.domain.shift import DrawerCount
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.terminal import Terminal
from tests.conftest import StoreTarget, new_checked_in_customer
from tests.services.test_shifts import ANA, ANA_PIN, BEN, BEN_PIN, MARIA, MARIA_PIN, sell, switch

LOYALTY_PERCENT = 5  # the sandbox's benefit to members (sandbox/state.py)
FEE_BASIS_POINTS = 150  # the sandbox's published fee on what is charged


def benefit(due: int) -> int:
    return (due * LOYALTY_PERCENT + 50) // 100


def fee(charged: int) -> int:
    return (charged * FEE_BASIS_POINTS + 5_000) // 10_000


@dataclass
class Sold:
    """What one sale was, as the test made it: the independent side of every comparison."""

    till: str
    person: str
    total: int
    cash: int  # paid at the till
    due: int = 0  # asked of the service, before the member's benefit
    charged: int = 0  # after it
    state: TxState = TxState.COMPLETE
    transaction_id: str | None = None  # None: a cash sale, never sent


@dataclass
class Day:
    sold: list[Sold] = field(default_factory=list)
    floats: dict[str, int] = field(default_factory=dict)
    cash_back: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # given back on refunds, per till

    def expected(self, till: str) -> int:
        """The float + cash taken on checks completed on the till (a refunded one too) − cash given back."""
        taken = sum(s.cash for s in self.sold if s.till == till and s.state is not TxState.CANCELED)
        return self.floats[till] + taken - self.cash_back[till]


async def charge(terminal: Terminal, day: Day, who: dict[str, Any], check: Check, *, complete: bool = True) -> Sold:
    tid = await sell(terminal, who, check)
    totals = check.totals()
    due = totals.charge_amount
    member = bool(who.get("memberNo"))
    sale = Sold(
        till=terminal.settings.terminal_id,
        person=str(terminal.till.actor),
        total=totals.total,
        cash=totals.total - due,
        due=due,
        charged=due - (benefit(due) if member else 0),
        state=TxState.COMPLETE if complete else TxState.AUTHORIZED,
        transaction_id=tid,
    )
    if complete:
        assert (await terminal.register.complete()).phase is Phase.COMPLETE
    day.sold.append(sale)
    return sale


def cash_sale(terminal: Terminal, day: Day, check: Check) -> None:
    register = terminal.register
    register.new_check()
    register.edit(lambda _: check)
    assert register.finish_cash_sale().phase is Phase.PAID_IN_CASH
    total = check.totals().total
    day.sold.append(Sold(terminal.settings.terminal_id, str(terminal.till.actor), total, total))


def column(table: Table, name: str) -> list[str]:
    return [row[table.head.index(name)] for row in table.rows]


async def test_a_day_on_two_tills_adds_up_in_the_store_s_day(
    sandbox: SandboxServer,
    client: httpx.Client,
    open_terminal: Callable[..., Any],
    postgres_target: StoreTarget,
) -> None:
    postgres_target.open().init_schema()
    postgres_target.close_all()
    one: Terminal = await open_terminal(sandbox, terminal_id="LANE-1")
    two: Terminal = await open_terminal(sandbox, terminal_id="LANE-2")
    start = one.journal.now() - timedelta(seconds=1)
    for till in (one, two):
        await till.store.join(postgres_target.url, postgres_target.password)
    await one.till.create_first_manager(MARIA, MARIA_PIN)
    await one.till.add_person(ANA, Role.CASHIER, ANA_PIN)
    await one.till.add_person(BEN, Role.CASHIER, BEN_PIN)
    await one.store.sync()
    assert (await two.store.sync()).people_changed
    money = one.money.format
    day = Day(floats={"LANE-1": 20_000, "LANE-2": 15_000})
    zoe = new_checked_in_customer(client, firstName="Zoë", lastName="Member", memberNo="M-100777")
    kai = new_checked_in_customer(client, firstName="Kai", lastName="Member", memberNo="KR-55821")
    gus = new_checked_in_customer(client, firstName="Gus", lastName="Guest")
    flat_white = Item(name="Flat white", quantity=2, unit_price=545, tax_rate_bp=1000)
    jam = Item(name="Kiwi jam", quantity=1, unit_price=1_128, tax_rate_bp=1000)
    scone = Item(name="Scone", quantity=3, unit_price=390, tax_rate_bp=1000)

    # LANE-1: Ana sells, Maria refunds one of Ana's checks (its cash back out of the drawer).
    await switch(one, ANA, ANA_PIN)
    one.till.open_shift(day.floats["LANE-1"])
    refunded = await charge(one, day, zoe, Check().add_item(flat_white).add_item(jam).add_payment(Payment("cash", 500)))
    await charge(one, day, kai, Check().add_item(jam).add_discount(Discount("Regular", percent_bp=500)))
    await charge(one, day, gus, Check().add_item(scone).add_payment(Payment("cash", 170)))
    cash_sale(one, day, Check().add_item(Item("Postcard", 2, 350, 1000)).add_payment(Payment("cash", 1_000)))

    # LANE-2: Ben sells; a charge he authorized is canceled with Maria's approval, given on LANE-2.
    await switch(two, BEN, BEN_PIN)
    two.till.open_shift(day.floats["LANE-2"])
    await charge(two, day, zoe, Check().add_item(scone).add_item(flat_white))
    await charge(two, day, gus, Check().add_item(jam).add_payment(Payment("cash", 128)))
    held = await charge(two, day, kai, Check().add_item(flat_white), complete=False)
    approval = await two.till.approve(Guarded.CANCEL_CHARGED, MARIA, MARIA_PIN, subject=held.transaction_id)
    assert (await two.register.cancel(approval=approval)).phase is not Phase.AUTHORIZED
    held.state = TxState.CANCELED
    cash_sale(two, day, Check().add_item(Item("Scone", 1, 390, 1000)).add_payment(Payment("cash", 500)))

    await switch(one, MARIA, MARIA_PIN)
    assert refunded.transaction_id is not None
    done = await one.checkout.change_state(refunded.transaction_id, Action.REFUND)
    assert done.transaction is not None and done.transaction.state is TxState.REFUNDED
    refunded.state = TxState.REFUNDED
    day.cash_back["LANE-1"] += refunded.cash
    await charge(one, day, kai, Check().add_item(scone))  # Maria sells too, after the refund

    # Both close; LANE-2's drawer is 0,50 short.
    one.till.close_shift(DrawerCount.of_total(day.expected("LANE-1")))
    await switch(two, MARIA, MARIA_PIN)
    two.till.close_shift(DrawerCount.of_total(day.expected("LANE-2") - 50))
    for till in (one, two, one):
        assert (await till.store.sync()).refused == []

    period = TimeRange.custom(start, one.journal.now() + timedelta(seconds=1))
    report = await one.reports().store_day(period, one.store)
    store = report.store
    assert store is not None

    # The service's figures: the checks completed and not refunded, on both tills.
    kept = [s for s in day.sold if s.state is TxState.COMPLETE and s.transaction_id]
    shown = report.total.shown
    assert report.reconciled, report.differences()
    assert shown.count == len(kept) == 5
    assert shown.total == sum(s.total for s in kept)
    assert shown.fees == sum(fee(s.charged) for s in kept)
    assert shown.tips == 0
    assert shown.payout == sum(s.due for s in kept) - shown.fees

    # Each till's drawer, and the closed drawers together.
    drawers = {s.terminal_id: s for s in store.shifts}
    assert set(drawers) == {"LANE-1", "LANE-2"} == set(store.tills)
    for till, short in (("LANE-1", 0), ("LANE-2", 50)):
        assert (drawers[till].opening_float, drawers[till].expected) == (day.floats[till], day.expected(till))
        assert drawers[till].counted == day.expected(till) - short and drawers[till].over_short == -short
    assert (store.expected, store.counted) == (day.expected("LANE-1") + day.expected("LANE-2"), store.expected - 50)
    assert store.open_shifts == 0

    # The cash sales of both tills.
    cash_sales = [s for s in day.sold if s.transaction_id is None]
    assert sorted(c.total for c in report.cash_sales) == sorted(s.total for s in cash_sales)
    assert report.cash_total == sum(s.total for s in cash_sales)

    # Each person across the tills: the checks completed (a refunded one too), and the refunds made.
    went_through = [s for s in day.sold if s.state is not TxState.CANCELED and s.state is not TxState.AUTHORIZED]
    mine: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for s in went_through:
        mine[s.person]["checks"] += 1
        for key in ("total", "cash", "due", "charged"):
            mine[s.person][key] += getattr(s, key)
    mine[MARIA]["refunds"] += 1
    mine[MARIA]["refunded"] += refunded.charged
    people = {p.person: p for p in store.people}
    assert set(people) == {ANA, BEN, MARIA}
    for name, figures in mine.items():
        p = people[name]
        assert (p.checks, p.total, p.cash, p.due, p.charged, p.refunds, p.refunded) == tuple(
            figures[key] for key in ("checks", "total", "cash", "due", "charged", "refunds", "refunded")
        ), name
    assert sum(p.charged for p in store.people) == sum(s.charged for s in went_through)

    # The words of the report: the people's table and the transaction list beside it, in money.
    document = report_document(report, money)
    people_section = document.section(SectionKey.STORE_PEOPLE)
    listed_section = document.section(SectionKey.TRANSACTIONS)
    assert people_section is not None and listed_section is not None
    [table] = [b for b in people_section.blocks if isinstance(b, Table)]
    for name, due, charged in zip(column(table, "Person"), column(table, "Due"), column(table, "Charged"), strict=True):
        assert (due, charged) == (money(mine[name]["due"]), money(mine[name]["charged"])), name
    [listed] = [b for b in listed_section.blocks if isinstance(b, Table)]
    amounts = zip(column(listed, "Due"), column(listed, "Charged"), strict=True)
    rows = dict(zip(column(listed, "Transaction"), amounts, strict=True))
    for s in day.sold:
        if s.transaction_id is not None:
            through = s.state in (TxState.COMPLETE, TxState.REFUNDED)
            assert rows[s.transaction_id] == ((money(s.due), money(s.charged)) if through else ("—", "—"))

    # The store's audit log: both tills' entries, each a sentence.
    by_till = {a.terminal_id for a in report.audit}
    assert {"LANE-1", "LANE-2"} <= by_till
    closed_two = next(a.detail for a in report.audit if a.action == "shift closed" and a.terminal_id == "LANE-2")
    assert closed_two.startswith(f"{MARIA} closed shift ") and closed_two.endswith(f"short by {money(50)}.")
    for entry in report.audit:
        assert not any(mark in entry.detail for mark in ("[", "{", "null", '"')), entry
