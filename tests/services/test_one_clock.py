"""One clock for the whole terminal: what the composition root is given, every service reads."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from pos_terminal.sandbox import SandboxServer
from tests.services.conftest import FakeClock


async def test_every_service_of_a_terminal_reads_its_one_clock(
    sandbox: SandboxServer, open_terminal: Callable[..., Any], terminal_clock: FakeClock
) -> None:
    terminal = await open_terminal(sandbox)
    terminal_clock.advance(3 * 3600)  # three hours ahead of this machine: only the terminal's clock can say it
    later = terminal_clock()
    readers = {
        "journal": terminal.journal.now,
        "checkout": terminal.checkout.now,
        "register": terminal.register.now,
        "till": terminal.till.now,
        "shifts": terminal.shifts.now,
        "staff": terminal.staff.now,
        "store": terminal.store.now,
        "reports": terminal.reports().now,
        "service client": terminal.client.now,
    }
    for name, now in readers.items():
        assert abs(now() - later) < timedelta(seconds=5), f"the {name} reads another clock"
    entry = terminal.journal.audit.record("clock checked")
    assert abs(entry.at - later) < timedelta(seconds=5), "the journal stamps by the terminal's clock"
