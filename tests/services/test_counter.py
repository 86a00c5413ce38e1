"""The counter service against a fake ESC/POS printer on loopback and a real sandbox: the drawer opens when cash
is taken, a completed charge prints its receipt, and a printer that cannot print loses nothing and prints the
queued slip once when it is back."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from pos_terminal.config import DeviceSettings
from pos_terminal.devices.escpos import DrawerNotOpened
from pos_terminal.domain.check import Check, Item, Payment
from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.report import TimeRange
from pos_terminal.domain.sale import Phase
from pos_terminal.domain.slip import Line, Slip, SlipKind
from pos_terminal.journal.journal import PrintStatus
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.counter import PRINTER, Counter, NoDrawer
from pos_terminal.services.terminal import Terminal
from tests.conftest import new_checked_in_customer
from tests.devices.fake_printer import FakePrinter, Kick, Mode, QrCode, text_of
from tests.helpers.services import customer_model


@pytest.fixture
def fake() -> Iterator[FakePrinter]:
    printer = FakePrinter()
    yield printer
    printer.close()


class Runner:
    """Runs the counter's work when it asks, as the window does: one drain at a time, the tasks kept."""

    def __init__(self, counter: Counter) -> None:
        self.counter = counter
        self.tasks: list[asyncio.Task[None]] = []
        self.problems: list[tuple[str, str | None]] = []
        counter.on_problem(lambda kind, text: self.problems.append((kind, text)))
        counter.on_work(self.run)

    def run(self) -> None:
        if all(task.done() for task in self.tasks):
            self.tasks.append(asyncio.ensure_future(self.counter.drain()))

    async def idle(self) -> None:
        while not all(task.done() for task in self.tasks):
            await asyncio.gather(*self.tasks)


async def counter_terminal(
    open_terminal: Callable[..., Any], sandbox: SandboxServer, fake: FakePrinter, **devices: Any
) -> tuple[Terminal, Runner]:
    settings = DeviceSettings(receipt_printer=fake.address, printer_profile="TM-T20II", cash_drawer=True, **devices)
    terminal: Terminal = await open_terminal(sandbox, devices=settings)
    return terminal, Runner(terminal.counter)


def audit(terminal: Terminal, action: str) -> list[dict[str, Any]]:
    entries = terminal.journal.audit.between(utcnow() - timedelta(minutes=5), utcnow() + timedelta(seconds=1))
    return [{"actor": e.actor, **e.detail} for e in entries if e.action == action]


async def test_cash_taken_opens_the_drawer_at_the_charge_and_the_completed_charge_prints_its_receipt(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], client: httpx.Client, fake: FakePrinter
) -> None:
    terminal, runner = await counter_terminal(open_terminal, sandbox, fake)
    who = new_checked_in_customer(client, firstName="Zoë", lastName="Ångström")
    register = terminal.register
    register.choose_customer(await customer_model(terminal, who["customerId"]))
    register.edit(
        lambda _: Check().add_item(Item("Crème brûlée", 2, 1200, tax_rate_bp=1000)).add_payment(Payment("cash", 500))
    )
    assert not fake.kicks(), "nothing opens while the check is built"

    state = await register.charge()
    assert state.phase is Phase.AUTHORIZED
    await runner.idle()
    fake.wait_for(fake.kicks)
    assert fake.kicks() == [Kick(2)] and not fake.jobs(), "the drawer opened, nothing printed yet"
    [opened] = audit(terminal, "drawer opened")
    assert opened == {"actor": terminal.actor, "reason": "cash payment"}

    state = await register.complete()
    assert state.phase is Phase.COMPLETE
    await runner.idle()
    fake.wait_for(fake.jobs)
    [job] = fake.jobs()
    text = text_of(job)
    assert "Zoë Ångström" in text and "2 x Crème brûlée" in text and "$24.00" in text
    assert "Paid by cash" in text and "-$5.00" in text
    assert [e.data for e in job if isinstance(e, QrCode)] == [state.transaction_id]
    assert fake.kicks() == [Kick(2)], "completing opens nothing more"
    assert terminal.journal.prints.queued() == []
    assert [a["title"] for a in audit(terminal, "receipt printed")] == [f"Receipt {state.transaction_id}"]


async def test_a_cash_sale_opens_the_drawer_and_a_charge_without_cash_does_not(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], client: httpx.Client, fake: FakePrinter
) -> None:
    terminal, runner = await counter_terminal(open_terminal, sandbox, fake, print_receipts=False)
    register = terminal.register
    register.edit(lambda _: Check().add_item(Item("Tart", 1, 700)).add_payment(Payment("cash", 1000)))
    register.finish_cash_sale()
    await runner.idle()
    fake.wait_for(fake.kicks)
    assert [a["reason"] for a in audit(terminal, "drawer opened")] == ["cash sale"]

    register.new_check()
    who = new_checked_in_customer(client)
    register.choose_customer(await customer_model(terminal, who["customerId"]))
    register.edit(lambda _: Check().add_item(Item("Tea", 1, 400)))
    await register.charge()
    await register.complete()
    await runner.idle()
    assert len(fake.kicks()) == 1, "no cash, no drawer"
    assert fake.jobs() == [], "print_receipts is off"


@pytest.mark.parametrize("trouble", [Mode.OFFLINE, Mode.NO_PAPER, Mode.COVER_OPEN, "switched off"])
async def test_a_printer_that_cannot_print_loses_nothing_and_prints_the_slip_once_when_it_is_back(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], fake: FakePrinter, trouble: Mode | str
) -> None:
    terminal, runner = await counter_terminal(open_terminal, sandbox, fake)
    if isinstance(trouble, Mode):
        fake.mode = trouble
    else:
        fake.go_away()
    job = terminal.counter.queue(Slip(SlipKind.RECEIPT, "Receipt txn-1", (Line("Zoë", "$1.00"),)))
    await runner.idle()
    kind, sentence = runner.problems[-1]
    assert kind == PRINTER and sentence is not None and sentence.endswith("1 slip waiting; printed when it is back.")
    waiting = terminal.journal.prints.get(job.id)
    assert waiting is not None and waiting.status is PrintStatus.QUEUED and waiting.attempts == 1
    assert not fake.jobs()

    terminal.counter.retry_now()  # still not ready: asked again, still kept
    await runner.idle()
    again = terminal.journal.prints.get(job.id)
    assert again is not None and again.status is PrintStatus.QUEUED and again.attempts == 2

    if isinstance(trouble, Mode):
        fake.mode = Mode.READY
    else:
        fake.come_back()
    terminal.counter.retry_now()
    await runner.idle()
    fake.wait_for(fake.jobs)
    assert [text_of(j) for j in fake.jobs()] == ["Zoë                                        $1.00\n\n\n\n\n\n"]
    assert runner.problems[-1] == (PRINTER, None), "the sentence goes once it printed"
    done = terminal.journal.prints.get(job.id)
    assert done is not None and done.status is PrintStatus.PRINTED
    terminal.counter.retry_now()
    await runner.idle()
    assert len(fake.jobs()) == 1, "printed once"


async def test_a_slip_queued_before_a_restart_prints_after_it_and_a_canceled_one_never(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], fake: FakePrinter
) -> None:
    terminal, runner = await counter_terminal(open_terminal, sandbox, fake)
    fake.mode = Mode.NO_PAPER
    terminal.counter.queue(Slip(SlipKind.REPORT, "Shift report", (Line("Kept"),)))
    dropped = terminal.counter.queue(Slip(SlipKind.RECEIPT, "Receipt txn-2", (Line("Dropped"),)))
    await runner.idle()
    assert terminal.counter.cancel(dropped.id)
    assert not terminal.counter.cancel(dropped.id), "canceled once"
    assert [a["job"] for a in audit(terminal, "print canceled")] == [dropped.id]
    terminal.counter.close()

    fake.mode = Mode.READY
    again = Counter(terminal.journal, terminal.counter.printer, money=terminal.money.format)
    restarted = Runner(again)  # on_work finds the queue and runs at once, as a window does at start
    await restarted.idle()
    fake.wait_for(fake.jobs)
    assert [text_of(j).strip() for j in fake.jobs()] == ["Kept"]


async def test_a_no_sale_opening_names_who_approved_it_and_a_printer_away_is_one_sentence(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], fake: FakePrinter
) -> None:
    terminal, _ = await counter_terminal(open_terminal, sandbox, fake)
    await terminal.counter.open_drawer("no sale", approved_by="Maria Manager")
    fake.wait_for(fake.kicks)
    assert audit(terminal, "drawer opened") == [
        {"actor": terminal.actor, "reason": "no sale", "approvedBy": "Maria Manager"}
    ]
    fake.go_away()
    with pytest.raises(DrawerNotOpened, match=r"The cash drawer did not open: the receipt printer at 127\.0\.0\.1"):
        await terminal.counter.open_drawer("no sale", approved_by="Maria Manager")
    [failed] = audit(terminal, "drawer not opened")
    assert failed["approvedBy"] == "Maria Manager" and "cannot be reached" in failed["error"]


async def test_without_a_drawer_there_is_nothing_to_open(terminal: Terminal) -> None:
    with pytest.raises(NoDrawer, match=r"No cash drawer is set up at this terminal\."):
        await terminal.counter.open_drawer("no sale", approved_by="Maria Manager")
    assert terminal.counter.printer is None


async def test_the_end_of_day_report_prints_on_the_roll(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], fake: FakePrinter
) -> None:
    terminal, runner = await counter_terminal(open_terminal, sandbox, fake)
    terminal.register.edit(lambda _: Check().add_item(Item("Tart", 1, 700)).add_payment(Payment("cash", 700)))
    terminal.register.finish_cash_sale()
    reports = terminal.reports()
    report = await reports.end_of_day(TimeRange.shift(utcnow() - timedelta(hours=1), utcnow() + timedelta(seconds=1)))
    terminal.counter.queue_report(report)
    await runner.idle()
    fake.wait_for(lambda: len(fake.jobs()) == 2)
    receipt, job = fake.jobs()  # the cash sale's receipt first: a cash sale prints one as a charge does
    assert "Tart" in text_of(receipt) and "Paid in cash" in text_of(receipt)
    text = text_of(job)
    assert "Shift report" in text and "Terminal LANE-1" in text and "Reconciled" in text
    assert "Cash sales on this terminal (1)" in text and "$7.00" in text, "the cash sales, apart from the figures"
