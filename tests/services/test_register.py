"""The open check's rules: finished checks stay finished, a check paid in cash is kept without a charge, a complete
whose answer was lost is confirmed by the next read, and the report of the shift holds the cash sales."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from pos_terminal.domain.check import Check, Discount, Item, Payment
from pos_terminal.domain.clock import utcnow
from pos_terminal.domain.lifecycle import Action
from pos_terminal.domain.report import ReportScope, TimeRange
from pos_terminal.domain.sale import CheckFinished, NotPaidInFull, Phase
from pos_terminal.services.checkout import ChangeStatus
from pos_terminal.services.terminal import Terminal, desktop_user
from tests.conftest import ledger_kinds, new_checked_in_customer
from tests.helpers.services import arm, customer_model


def tart(cash: int = 0) -> Check:
    check = Check().add_item(Item("Tart", 1, 700, tax_rate_bp=1000))
    return check.add_payment(Payment("cash", cash)) if cash else check


async def test_a_check_paid_in_cash_is_kept_in_the_journal_and_on_the_shift_report(terminal: Terminal) -> None:
    register = terminal.register
    sold = tart(cash=5_000)
    register.edit(lambda _: sold)
    assert register.current.totals.change_due == 4_300
    state = register.finish_cash_sale()
    assert state.phase is Phase.PAID_IN_CASH
    [sale] = terminal.journal.cash_sales.between(utcnow() - timedelta(minutes=1), utcnow() + timedelta(minutes=1))
    assert (sale.total, sale.paid, sale.change, sale.terminal_id) == (700, 5_000, 4_300, "LANE-1")
    [entry] = terminal.journal.audit.between(utcnow() - timedelta(minutes=1), utcnow(), action="cash sale")
    assert entry.detail == {"total": 700, "paid": 5_000, "change": 4_300}
    assert entry.actor == desktop_user() and entry.actor, "the audit says who"
    signed_in = terminal.journal.audit.between(utcnow() - timedelta(minutes=1), utcnow(), action="sign-in")
    assert [e.actor for e in signed_in] == [desktop_user()]

    with pytest.raises(CheckFinished):
        register.edit(lambda check: check.add_discount(Discount("Late", amount=-100)))
    assert register.current.check == sold, "a finished check is never changed nor replaced"

    reports = terminal.reports(actor="ana")
    report = await reports.end_of_day(TimeRange.shift(utcnow() - timedelta(hours=1), utcnow() + timedelta(seconds=1)))
    assert [(c.total, c.paid, c.change) for c in report.cash_sales] == [(700, 5_000, 4_300)]
    assert report.cash_total == 700 and report.reconciled, "the service's figures do not hold cash sales"
    audit = {a.action: a.detail for a in report.audit}
    assert audit["cash sale"] == f"{desktop_user()} took a cash sale of $7.00: $50.00 in cash, $43.00 in change."
    other = await reports.end_of_day(report.range, ReportScope.terminal("LANE-2"))
    assert other.cash_sales == ()


async def test_a_finished_check_is_shown_again_after_a_restart_without_calling_it_open(terminal: Terminal) -> None:
    register = terminal.register
    register.edit(lambda _: tart(cash=1_000))
    register.finish_cash_sale()

    restored = register.restore()  # as a restart reads the journal

    assert register.current.phase is Phase.PAID_IN_CASH, "the screen shows how the last sale ended"
    assert not restored.check_restored and restored.sentence is None, "a finished sale is no open check"


async def test_a_check_the_cash_does_not_cover_is_not_a_cash_sale(terminal: Terminal) -> None:
    register = terminal.register
    register.edit(lambda _: tart(cash=200))
    with pytest.raises(NotPaidInFull):
        register.finish_cash_sale()
    assert register.current.phase is Phase.BUILDING and register.current.unfinished


async def test_a_complete_whose_answer_was_lost_is_confirmed_by_the_next_read(
    terminal: Terminal, client: httpx.Client
) -> None:
    """The complete landed but its answer did not: the screen said "sending…" until the next re-send, long
    after the service had completed the sale. A read of the transaction now settles it."""
    who = new_checked_in_customer(client)
    register = terminal.register
    register.choose_customer(await customer_model(terminal, who["customerId"]))
    register.edit(lambda _: tart())
    state = await register.charge()
    assert state.phase is Phase.AUTHORIZED and state.transaction_id
    arm(client, "PATCH", f"/v4/transactions/{state.transaction_id}", "drop_after", times=3)
    pending = await register.complete()
    assert pending.pending and pending.phase is Phase.AUTHORIZED
    assert terminal.checkout.journal.outbox.pending()
    refreshed = await register.refresh_transaction()
    assert refreshed.phase is Phase.COMPLETE and not refreshed.pending
    assert terminal.pending_changes() == 0
    assert ledger_kinds(client, who["customerId"]).count("charge") == 1
    assert (await terminal.checkout.change_state(state.transaction_id, Action.COMPLETE)).status is ChangeStatus.DONE
