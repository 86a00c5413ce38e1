"""The window's money actions under every fault, on every route: never a second hold on one check.

The window's version of tests/cli/test_fault_matrix.py, with its rules. Each action (charge with F8, complete
with F9, cancel with Shift+F9, refund from History, a sale paid in cash) meets each fault mode armed on each
route of the POS API (the create, the state change, the read of one transaction, the list) for every attempt
of one request. One signed-in window goes through all the (mode, route) cases of an action, each with its own
checked-in customer, and the register is left ready for the next check after each. Then the cashier does what
the screen said: a charge that ended "Not charged" (or "Not confirmed") is charged again once the fault is
gone; any other ending is left to the window (its looks, its re-sending of the outbox). For every case:

- the service holds at most one transaction for the check (a duplicate the terminal canceled counts too), and
  the terminal's journal knows every one of them;
- while a transaction of the check may hold the customer's money (authorized or complete), nothing the cashier
  (or the customer display) shows says "Not charged", "try again", "charge again" or "Nothing was charged", and a
  charge said to be not charged never turns up in the service at all; while the charge is verified, the charge
  button is disabled and the screen says so;
- a state change ends with the service in the target state, the customer's money moved once;
- a charge that ended without a transaction is charged again once, and ends authorized with one transaction.

Every case's failures are collected; one run reports the whole matrix as a table. The terminal's clock
(``checkout.now``) is moved past the verify window rather than waited for, once every request a fault held back
has been answered.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from pos_terminal.api.models import Transaction
from pos_terminal.app import AppHost
from pos_terminal.config import DeviceSettings, Settings, save_settings
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.sale import UNCHARGED, Phase
from pos_terminal.paths import Paths
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.history_view import HistoryView
from pos_terminal.ui.main_window import MainWindow, Tab
from tests.conftest import ledger_kinds, new_checked_in_customer, transactions_of
from tests.helpers.ui import choose, type_item
from tests.ui.conftest import MANAGER, MANAGER_PIN, TERMINAL_ID, finish, signed_in_window, until

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QMessageBox
from shiboken6 import isValid

pytestmark = pytest.mark.slow

TIMEOUT = 1.5  # the profile's request deadline, seconds
FAULT_TIMES = 3  # the client's attempts at one request
DELAY_MS = int((TIMEOUT + 0.5) * 1000)  # a delay past the request's deadline
HELD_BACK = DELAY_MS / 1000 + 0.5  # after this long, every request a delay held back has been answered
MODES = ("error_before", "error_after", "drop_before", "drop_after", "delay", "rate_limit")
ROUTES = {
    "create": ("POST", "/v4/transactions"),
    "state change": ("PATCH", "/v4/transactions/*"),
    "read one": ("GET", "/v4/transactions/*"),
    "list": ("GET", "/v4/transactions"),
}
# A charge that ends "not confirmed" starts the window's watch for its late landing, which reads the list every
# 10 s: the create's cases come last, so that watch never takes a firing meant for a case on the list.
CHARGE_ROUTES = ("list", "read one", "state change", "create")
TOLD_TO_RETRY = ("not charged", "try again", "charge again", "nothing was charged")
MONEY_HELD = ("authorized", "complete")  # the states in which a transaction holds or has taken the money
TARGET = {"complete": "complete", "cancel": "canceled", "refund": "refunded"}
MOVED = {"complete": "charge", "cancel": "release", "refund": "refund"}
ITEM = ("Flat white", "5.50", 2)  # a check of 11.00
CASH = "20.00"
POLL = 0.02
EVER = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))


@pytest.fixture
def profile(tmp_path: Path) -> Paths:
    """The window's profile: a 1.5 s request deadline, and the customer display (what it shows is checked too)."""
    paths = Paths.profile(tmp_path / "profile").ensure()
    settings = Settings(
        terminal_id=TERMINAL_ID,
        request_timeout_seconds=TIMEOUT,
        devices=DeviceSettings(customer_display=True),
    )
    save_settings(paths.config_file, settings)
    return paths


class Clock:
    """The terminal's idea of now (``checkout.now``), moved by the test instead of waiting."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset


class CaseFailed(Exception):
    """A step of a case did not happen; the case stops there and the register is made ready for the next."""


@dataclass
class Case:
    mode: str
    route: str
    customer: dict[str, Any]
    problems: list[str] = field(default_factory=list)
    outcome: str = ""
    seconds: float = 0.0
    told: set[str] = field(default_factory=set)  # the refIds of charges the screen said were not charged

    @property
    def name(self) -> str:
        return str(self.customer["lastName"])

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)


@dataclass
class Lane:
    """One signed-in window, its sandbox, and what the case being run has seen so far."""

    window: MainWindow
    host: AppHost
    client: httpx.Client
    clock: Clock
    case: Case | None = None
    looks: int = 0  # the charge's looks (reconciliations) the window has finished, as seen by its next pause
    _pause: float | None = None
    _ledger_read: float = 0.0

    @property
    def terminal(self) -> Terminal:
        assert self.host.terminal is not None
        return self.host.terminal

    # --- the sandbox ----------------------------------------------------------------------------

    def fault(self, method: str, path: str, mode: str, times: int) -> None:
        fault: dict[str, Any] = {"method": method, "path": path, "mode": mode, "times": times}
        if mode == "delay":
            fault["delayMs"] = DELAY_MS
        self.client.post("/sandbox/faults", json=fault).raise_for_status()

    def arm(self, route: str, mode: str) -> None:
        method, path = ROUTES[route]
        self.fault(method, path, mode, FAULT_TIMES)

    def armed(self) -> list[dict[str, Any]]:
        faults: list[dict[str, Any]] = self.client.get("/sandbox/faults").json()
        return faults

    def list_armed(self) -> bool:
        """Whether a fault still waits for the list, which is what a look at a charge being verified reads."""
        return any(f["method"] == "GET" and f["path"] == ROUTES["list"][1] for f in self.armed())

    def disarm(self) -> None:
        self.client.delete("/sandbox/faults").raise_for_status()

    def held_for(self, customer_id: str) -> list[dict[str, Any]]:
        return transactions_of(self.client, customer_id)

    def ledger(self, customer_id: str) -> list[str]:
        return ledger_kinds(self.client, customer_id)

    def state_of(self, transaction_id: str) -> str:
        return str(self.client.get(f"/sandbox/transactions/{transaction_id}").json()["state"])

    # --- what the cashier sees --------------------------------------------------------------------

    def shown(self) -> list[str]:
        """The texts about the check the cashier (and the customer) can see now: the phase, the reason line, the
        charge message, the messages strip, History's status line and the customer display."""
        window = self.window
        cashier = window.cashier
        labels: list[QLabel] = [
            cashier.charge_status.phase,
            cashier.ticket.reason,
            cashier.charge_status.charge_message,
        ]
        if window.workspace.built_history is not None:
            labels.append(window.workspace.built_history.status)
        texts = [label.text() for label in labels if label.isVisible() and label.text()]
        if window.banner.isVisible() and window.banner.text.text():
            texts.append(window.banner.text.text())
        display = window.hardware.customer_display
        if display is not None and display.isVisible():
            texts += [
                label.text() for label in display.findChildren(QLabel) if label.isVisibleTo(display) and label.text()
            ]
        return texts

    def look(self) -> None:
        """Check what the screen shows against the service, at every turn of a wait."""
        cashier = self.window.cashier
        if cashier.charging.next_verify_at is not None and cashier.charging.next_verify_at != self._pause:
            self._pause = cashier.charging.next_verify_at
            self.looks += 1
        case = self.case
        if case is None or self.host.terminal is None:
            return
        state = self.terminal.register.current
        if state.phase is Phase.VERIFYING:
            if cashier.ticket.charge_button.isEnabled():
                case.problem("the charge button is enabled while the charge is verified")
            if not (
                cashier.charge_status.phase.isVisible() and cashier.charge_status.phase.text().startswith("Verifying")
            ):
                case.problem(f"verifying, but the screen says {cashier.charge_status.phase.text()!r}")
        said = " | ".join(self.shown())
        told = [words for words in TOLD_TO_RETRY if words in said.lower()]
        if not told:
            return
        if state.phase in UNCHARGED and state.ref_id:
            case.told.add(state.ref_id)
        if time.monotonic() - self._ledger_read < 0.2:
            return
        self._ledger_read = time.monotonic()
        # a canceled (or refunded) transaction holds none of the customer's money: "Canceled: nothing was charged."
        # says so on the customer display after a cancel; one authorized or complete must never meet these words
        holding = [t for t in self.held_for(case.customer["customerId"]) if t["state"] in MONEY_HELD]
        if holding:
            holds = [(t["transactionId"], t["state"]) for t in holding]
            case.problem(f"said {told} while the service holds {holds}: {said!r}")

    async def wait(
        self,
        condition: Callable[[], object],
        what: str,
        timeout: float = 15.0,  # noqa: ASYNC109
        poll: float = POLL,
    ) -> None:
        """Let the window work until ``condition()``, looking at the screen at every turn; the case stops after
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self.look()
            if condition():
                return
            if time.monotonic() > deadline:
                state = self.terminal.register.current if self.host.terminal is not None else None
                phase = state.phase.value if state is not None else "?"
                raise CaseFailed(f"no {what} after {timeout:g} s (the check is {phase}; shown {self.shown()})")
            await asyncio.sleep(poll)

    # --- what the cashier does --------------------------------------------------------------------

    async def press(self, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
        """A key of the window's (its shortcuts need it to be the active window, as at a till)."""
        window = self.window
        if not window.isActiveWindow():
            window.activateWindow()
            await self.wait(window.isActiveWindow, "active window again", 5)
        QTest.keyClick(window, key, modifier)

    def dismiss(self) -> None:
        """Dismiss what the messages strip still says about the case before (Ctrl+D)."""
        if self.window.banner.isVisible():
            QTest.mouseClick(self.window.banner.close_button, Qt.MouseButton.LeftButton)

    def paused(self) -> bool:
        """The charge is verified and the window waits before its next look (Check now asks at once)."""
        return (
            self.terminal.register.current.phase is Phase.VERIFYING
            and self.window.cashier.charging.next_verify_at is not None
        )

    async def check_now(self) -> None:
        """Press "Check now" at the next pause between looks, and wait for that look."""
        register = self.terminal.register
        await self.wait(lambda: self.paused() or register.current.phase is not Phase.VERIFYING, "pause", 15)
        if register.current.phase is not Phase.VERIFYING:
            return
        looks = self.looks
        QTest.mouseClick(self.window.cashier.charge_status.check_now_button, Qt.MouseButton.LeftButton)
        await self.wait(
            lambda: self.looks > looks or register.current.phase is not Phase.VERIFYING, "look after Check now", 15
        )

    async def customers(self, code: str, count: int) -> list[dict[str, Any]]:
        """``count`` fresh checked-in customers, then one refresh of the list (F5) until all are listed."""
        made = [
            new_checked_in_customer(self.client, firstName="Matrix", lastName=f"Mx{code}{i:02d}") for i in range(count)
        ]
        await self.press(Qt.Key.Key_F5)
        model = self.window.cashier.customers.model
        await until(lambda: all(model.row_of(c["customerId"]) is not None for c in made), what="the new customers")
        return made

    def build_check(self, case: Case) -> None:
        """The case's customer, chosen in the list, and one line typed on the keypad page."""
        search = self.window.cashier.customers.search
        if search.text():
            search.clear()
        choose(self.window, case.name)
        type_item(self.window, ITEM[0], ITEM[1], quantity=ITEM[2])
        current = self.terminal.register.current
        if current.customer is None or current.customer.customer_id != case.customer["customerId"]:
            raise CaseFailed(f"the check is not {case.name}'s: {current.customer}")
        if not current.check.items:
            raise CaseFailed("the item typed is not on the check")

    async def approve_if_asked(self) -> None:
        """The first manager is at the till, so a cancel asks nobody; were a manager's prompt up, approve it."""
        prompt = self.window.cashier.prompt
        if prompt is None or not isValid(prompt) or not prompt.isVisible():
            return
        prompt.manager.setCurrentIndex(max(0, prompt.manager.findData(MANAGER)))
        QTest.keyClicks(prompt.pin, MANAGER_PIN)
        QTest.mouseClick(prompt.approve_button, Qt.MouseButton.LeftButton)
        register = self.terminal.register
        await self.wait(
            lambda: self.window.cashier.charging.changing or register.current.phase is not Phase.AUTHORIZED,
            "cancel after the manager's approval",
            10,
        )

    async def past_the_verify_window(self) -> None:
        """A charge still verified once nothing is held back: the terminal's clock past its verify window, then
        Check now, for the outcome the window gives when the service still has no record of it."""
        register = self.terminal.register
        self.clock.offset = self.terminal.checkout.verify_window + timedelta(seconds=1)
        try:
            await self.check_now()
            await self.wait(lambda: register.current.phase is not Phase.VERIFYING, "outcome past the window", 15)
        finally:
            self.clock.offset = timedelta()

    async def next_check(self) -> None:
        """Leave the register ready for the next check: what is authorized completed, then a new check (Ctrl+N)."""
        self.disarm()
        self.clock.offset = timedelta()
        window, cashier, register = self.window, self.window.cashier, self.terminal.register
        if window.tabs.currentWidget() is not cashier:
            window.show_tab(Tab.CASHIER)
        if register.current.phase is Phase.VERIFYING:  # a case that stopped while its charge was verified
            since = time.monotonic()
            await self.wait(lambda: time.monotonic() - since > HELD_BACK, "end of the delays", HELD_BACK + 1)
            await self.past_the_verify_window()
        await self.wait(
            lambda: (
                not (
                    cashier.tasks.is_running("charge") or cashier.tasks.is_running("state") or cashier.charging.changing
                )
                and not register.current.pending
            ),
            "end of the check's work",
            20,
        )
        if register.current.phase is Phase.AUTHORIZED:
            await self.press(Qt.Key.Key_F9)
            await self.wait(lambda: register.current.phase is Phase.COMPLETE, "complete before the next check", 15)
        await self.press(Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
        box = cashier.confirmation
        if register.current.unfinished and box is not None and isValid(box) and box.isVisible():
            QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
        await self.wait(
            lambda: (
                register.current.phase is Phase.BUILDING
                and register.current.customer is None
                and not register.current.check.items
            ),
            "new check",
            5,
        )

    # --- what every case ends with ------------------------------------------------------------------

    def check_holds(self, case: Case) -> list[dict[str, Any]]:
        """At most one transaction for the check, each known to the journal, none of a charge said not charged."""
        held = self.held_for(case.customer["customerId"])
        if len(held) > 1:
            case.problem(f"a second transaction for one check: {[(t['transactionId'], t['state']) for t in held]}")
        journal = self.terminal.journal
        forgotten = [t["transactionId"] for t in held if journal.transactions.get(t["transactionId"]) is None]
        if forgotten:
            case.problem(f"the service holds transactions the terminal's journal does not know: {forgotten}")
        landed = [t["transactionId"] for t in held if t.get("refId") in case.told]
        if landed:
            case.problem(f"said not charged, yet that charge is held: {landed}")
        return held


# --- the matrix -------------------------------------------------------------------------------------


def table(cases: list[Case], heading: str, column: Callable[[Case], list[str]]) -> str:
    rows = [("mode", "route", heading)]
    rows += [(case.mode, case.route, text) for case in cases for text in column(case)]
    mode_width = max(len(r[0]) for r in rows)
    route_width = max(len(r[1]) for r in rows)
    return "\n".join(f"{m:<{mode_width}}  {r:<{route_width}}  {w}" for m, r, w in rows)


async def run_matrix(
    host: AppHost,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    *,
    code: str,
    modes: tuple[str, ...],
    routes: tuple[str, ...],
    one_case: Callable[[Lane, Case], Awaitable[None]],
    wait_at_the_end: bool = True,
) -> None:
    """One signed-in window through every (mode, route) case of one action; every failure is reported at the end."""
    window = await signed_in_window(host, make_window, client)
    lane = Lane(window, host, client, Clock())
    lane.terminal.checkout.now = lane.clock
    pairs = list(itertools.product(routes, modes))
    customers = await lane.customers(code, len(pairs))
    cases = [Case(mode, route, customer) for (route, mode), customer in zip(pairs, customers, strict=True)]
    ran: list[Case] = []
    for case in cases:
        lane.case = case
        ran.append(case)
        started = time.monotonic()
        try:
            lane.dismiss()
            await one_case(lane, case)
        except (CaseFailed, AssertionError) as exc:
            case.problem(str(exc))
        try:
            await lane.next_check()
        except (CaseFailed, AssertionError) as exc:
            case.problem(f"the register could not be left ready for the next check ({exc}); the matrix stops here")
            break
        finally:
            case.seconds = time.monotonic() - started
            lane.case = None
    print(f"\n{code}: {len(ran)} of {len(cases)} cases")
    print(table(ran, "outcome", lambda case: [f"{case.outcome} ({case.seconds:.1f} s)"]))
    await finish(window, host, wait=wait_at_the_end)
    failed = [case for case in ran if case.problems]
    assert len(ran) == len(cases) and not failed, (
        f"{len(failed)} of {len(cases)} cases went wrong ({len(ran)} ran):\n"
        + table(failed, "what went wrong", lambda case: case.problems)
    )


# --- charge -----------------------------------------------------------------------------------------


async def settle(lane: Lane, pressed: float) -> None:
    """Let the charge reach an outcome as the window reaches it, with Check now at each pause between looks:
    until it has one, or until a look that began with nothing held back (no fault left on the list, every
    delayed request answered) still finds no record of it."""
    register, cashier = lane.terminal.register, lane.window.cashier

    def phase() -> Phase:
        return register.current.phase

    def over() -> bool:  # the charge's task (its create, its looks, the read once authorized) has ended
        return not cashier.tasks.is_running("charge")

    calm = False
    for _ in range(10):
        await lane.wait(lambda: over() or lane.paused(), "outcome or pause", 15)
        if phase() is not Phase.VERIFYING or calm:
            return
        await lane.wait(
            lambda: time.monotonic() - pressed > HELD_BACK or phase() is not Phase.VERIFYING, "delays answered", 10
        )
        if phase() is not Phase.VERIFYING:
            return
        calm = not lane.list_armed()
        await lane.check_now()
    raise CaseFailed("the charge was still verified after ten looks")


async def charge_case(lane: Lane, case: Case) -> None:
    register, cashier = lane.terminal.register, lane.window.cashier
    customer_id = case.customer["customerId"]
    lane.build_check(case)
    if case.route == "list":
        # the list is read when the create's answer is lost: lose it, so the fault meets the reconciliation
        lane.fault("POST", ROUTES["create"][1], "drop_after", 1)
    lane.arm(case.route, case.mode)
    pressed = time.monotonic()
    await lane.press(Qt.Key.Key_F8)
    if not cashier.tasks.is_running("charge") and register.current.phase is Phase.BUILDING:
        raise CaseFailed("F8 did not charge the check")
    await settle(lane, pressed)
    lane.disarm()
    if register.current.phase is Phase.VERIFYING:
        await lane.past_the_verify_window()
    await lane.wait(lambda: not cashier.tasks.is_running("charge"), "end of the charge's work", 15)

    first = register.current
    held = lane.held_for(customer_id)
    holds = [(t["transactionId"], t["state"]) for t in held]
    case.outcome = first.phase.value
    if first.phase is Phase.AUTHORIZED:
        if [t["transactionId"] for t in held] != [first.transaction_id] or held[0]["state"] != "authorized":
            case.problem(f"authorized {first.transaction_id}, but the service holds {holds}")
        # F8 again, by someone who did not listen: the check is locked, nothing is sent
        await lane.press(Qt.Key.Key_F8)
        await lane.wait(lambda: not cashier.tasks.is_running("charge"), "F8 on an authorized check to end", 5)
        if len(again := lane.held_for(customer_id)) != 1:
            case.problem(f"F8 on an authorized check: the service holds {[t['transactionId'] for t in again]}")
    elif first.phase in UNCHARGED:
        if first.phase is Phase.FAILED and held:
            case.problem(f"ended 'Not charged' while the service holds {holds}")
        # as the screen said: the check is charged again, the fault gone
        await lane.press(Qt.Key.Key_F8)
        await lane.wait(
            lambda: not cashier.tasks.is_running("charge") and register.current.phase is not Phase.CHARGING,
            "outcome of the charge made again",
            15,
        )
        second = register.current
        case.outcome += f", charged again: {second.phase.value}"
        held = lane.held_for(customer_id)
        holds = [(t["transactionId"], t["state"]) for t in held]
        if second.phase is not Phase.AUTHORIZED:
            case.problem(f"charged again once the fault was gone, the check ended {second.phase.value}")
        elif len(held) != 1 or held[0]["transactionId"] != second.transaction_id or held[0]["state"] != "authorized":
            case.problem(f"charged again: authorized {second.transaction_id}, but the service holds {holds}")
    else:
        case.problem(f"the charge ended {first.phase.value}")
    lane.check_holds(case)


async def test_a_charge_under_fault_holds_the_money_once(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    # the late landing watch of a charge "not confirmed" goes on for minutes: the window is closed without waiting
    await run_matrix(
        host,
        make_window,
        client,
        code="ch",
        modes=MODES,
        routes=CHARGE_ROUTES,
        one_case=charge_case,
        wait_at_the_end=False,
    )


# --- complete, cancel, refund -------------------------------------------------------------------------


def history_refunded(history: HistoryView, transaction_id: str) -> bool:
    """History shows the sale refunded, and offers no second refund of it."""
    shown = history.model.find(transaction_id)
    chosen = history.current()
    return (
        shown is not None
        and shown.state is TxState.REFUNDED
        and (chosen is None or chosen.transaction_id != transaction_id or not history.refund_button.isEnabled())
    )


def history_shows(history: HistoryView, transaction_id: str) -> bool:
    """History has read the whole record of ``transaction_id`` and shows it chosen."""
    chosen = history.current()
    return isinstance(chosen, Transaction) and chosen.transaction_id == transaction_id and not history.tasks.busy


async def open_in_history(lane: Lane, transaction_id: str) -> HistoryView:
    """The History tab, the sale chosen and its whole record read (before the fault is armed)."""
    lane.window.show_tab(Tab.HISTORY)
    history = lane.window.workspace.history
    await lane.wait(
        lambda: not history.tasks.busy and history.model.find(transaction_id) is not None, "sale in History", 15
    )
    chosen = history.current()
    if chosen is None or chosen.transaction_id != transaction_id:
        row = next(i for i, t in enumerate(history.model.rows) if t.transaction_id == transaction_id)
        history.table.selectRow(row)
    await lane.wait(lambda: history_shows(history, transaction_id), "sale's record in History", 15)
    if not history.refund_button.isEnabled():
        raise CaseFailed("Refund is not enabled for the completed sale")
    return history


async def change_case(lane: Lane, case: Case, action: str) -> None:
    register, cashier = lane.terminal.register, lane.window.cashier
    customer_id = case.customer["customerId"]
    lane.build_check(case)
    await lane.press(Qt.Key.Key_F8)
    await lane.wait(
        lambda: register.current.phase is Phase.AUTHORIZED and not cashier.tasks.is_running("charge"), "charge", 15
    )
    transaction_id = register.current.transaction_id
    assert transaction_id is not None
    history: HistoryView | None = None
    if action == "refund":
        await lane.press(Qt.Key.Key_F9)
        await lane.wait(
            lambda: register.current.phase is Phase.COMPLETE and not cashier.tasks.is_running("state"), "complete", 15
        )
        history = await open_in_history(lane, transaction_id)
    before = lane.ledger(customer_id)
    lane.dismiss()

    lane.arm(case.route, case.mode)
    if history is None:
        if action == "complete":
            await lane.press(Qt.Key.Key_F9)
        else:
            await lane.press(Qt.Key.Key_F9, Qt.KeyboardModifier.ShiftModifier)
            await lane.approve_if_asked()
        if not (cashier.charging.changing or cashier.tasks.is_running("state")):
            raise CaseFailed(f"the {action} key did nothing")
        await lane.wait(
            lambda: not cashier.charging.changing and not cashier.tasks.is_running("state"), "first answer", 15
        )
    else:
        QTest.mouseClick(history.refund_button, Qt.MouseButton.LeftButton)
        box = history.confirm
        if box is None or not box.isVisible():
            raise CaseFailed("Refund asked no confirmation")
        QTest.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
        act = f"act-{transaction_id}"
        if not history.tasks.is_running(act):
            raise CaseFailed("Yes did not refund")
        await lane.wait(lambda: not history.tasks.is_running(act), "first answer to the refund", 15)
    case.outcome = "kept, then sent again" if lane.terminal.pending_changes() else "done at once"
    lane.disarm()

    # the window sends what waits in the outbox again on its own, while it is open
    terminal = lane.terminal
    await lane.wait(lambda: terminal.pending_changes() == 0, "empty outbox (the window re-sending)", 30)
    await lane.wait(lambda: lane.state_of(transaction_id) == TARGET[action], f"{TARGET[action]} service", 10, 0.2)
    if history is None:
        shown = Phase.COMPLETE if action == "complete" else Phase.CANCELED
        await lane.wait(lambda: register.current.phase is shown and not register.current.pending, "screen's news", 15)
        if "canceled elsewhere" in (register.current.message or ""):
            case.problem(f"the cashier's own cancel, sent again, is told as someone else's: {register.current.message}")
    else:
        try:  # a refund the service has made is not offered again (it would hand the check's cash back twice)
            await lane.wait(lambda: history_refunded(history, transaction_id), "sale shown refunded in History", 3)
        except CaseFailed:
            row = history.model.find(transaction_id)
            shown_as = row.state.value if row is not None else "nowhere"
            offered = "offers" if history.refund_button.isEnabled() else "does not offer"
            case.problem(f"the service refunded it; 3 s later History shows it {shown_as} and {offered} Refund")
    ledger = lane.ledger(customer_id)
    if ledger[: len(before)] != before or ledger[len(before) :] != [MOVED[action]]:
        case.problem(f"the customer's money moved {ledger[len(before) :]} (ledger {before} before)")
    held = lane.check_holds(case)
    if [t["state"] for t in held] != [TARGET[action]]:
        case.problem(f"the service holds {[(t['transactionId'], t['state']) for t in held]}")


@pytest.mark.parametrize("action", ["complete", "cancel", "refund"])
async def test_a_state_change_under_fault_takes_effect_once(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client, action: str
) -> None:
    async def one_case(lane: Lane, case: Case) -> None:
        await change_case(lane, case, action)

    await run_matrix(host, make_window, client, code=action[:2], modes=MODES, routes=tuple(ROUTES), one_case=one_case)


# --- a sale paid in cash ------------------------------------------------------------------------------


async def cash_case(lane: Lane, case: Case) -> None:
    register, cashier = lane.terminal.register, lane.window.cashier
    journal = lane.terminal.journal
    lane.build_check(case)
    sales = len(journal.cash_sales.between(*EVER))
    lane.arm(case.route, case.mode)
    armed = lane.armed()
    await lane.press(Qt.Key.Key_F6)
    QTest.keyClicks(cashier.keypad_page.cash_input, CASH)
    QTest.keyClick(cashier.keypad_page.cash_input, Qt.Key.Key_Return)
    if not cashier.ticket.charge_button.text().startswith("Finish cash sale"):
        raise CaseFailed(f"the cash taken does not finish the sale: {cashier.ticket.charge_button.text()!r}")
    await lane.press(Qt.Key.Key_F8)
    await lane.wait(lambda: register.current.phase is Phase.PAID_IN_CASH, "cash sale finished", 5)
    case.outcome = register.current.phase.value
    recorded = [(s.customer, s.total, s.paid, s.change) for s in journal.cash_sales.between(*EVER)[sales:]]
    if recorded != [(f"Matrix {case.name}", 1100, 2000, 900)]:
        case.problem(f"the journal recorded the cash sales {recorded}")
    if (now_armed := lane.armed()) != armed:
        case.problem(f"a request reached the service on the route armed: the faults were {armed}, now {now_armed}")
    if moved := lane.ledger(case.customer["customerId"]):
        case.problem(f"the customer's money moved: {moved}")
    lane.check_holds(case)


async def test_a_cash_sale_under_fault_sends_nothing(
    host: AppHost, make_window: Callable[[AppHost], MainWindow], client: httpx.Client
) -> None:
    await run_matrix(host, make_window, client, code="cs", modes=MODES, routes=tuple(ROUTES), one_case=cash_case)
