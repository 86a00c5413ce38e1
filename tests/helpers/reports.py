"""End-of-day reports built without a service, and the CUPS PDF queue the printing tests use when there is one."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime, timedelta

from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.report import (
    EndOfDayReport,
    ReportScope,
    TimeRange,
    TxRow,
    build_report,
)
from pos_terminal.domain.summary import SummaryFigures, recompute
from pos_terminal.reports.worker import ReportWorker


def cups_pdf_queue() -> str | None:
    """A CUPS queue whose device is cups-pdf, if this machine has one."""
    if not shutil.which("lpstat"):
        return None
    try:
        listed = subprocess.run(["lpstat", "-v"], capture_output=True, text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in listed.splitlines():  # "device for PDF: cups-pdf:/"
        if line.startswith("device for ") and "cups-pdf:" in line:
            return line.removeprefix("device for ").split(":", 1)[0]
    return None


def long_report(count: int, names: tuple[str, ...] = ("Zoë Ångström", "雷 李", "Ava Nguyen")) -> EndOfDayReport:
    start = datetime(2026, 11, 22, 13, 0, tzinfo=UTC)
    rows = [
        TxRow(
            transaction_id=f"{n:08d}-0000-4000-8000-000000000000",
            state=TxState.COMPLETE,
            terminal_id=f"LANE-{n % 4 + 1}",
            created=start + timedelta(seconds=4 * n),
            completed=start + timedelta(seconds=4 * n + 2),
            updated=start + timedelta(seconds=4 * n + 2),
            customer=names[n % len(names)],
            total=500 + n % 900,
            charge_amount=500 + n % 900,
            charged_amount=500 + n % 900,
            tip_amount=50 if n % 10 == 0 else 0,
            fee_amount=(500 + n % 900) * 15 // 1000,
        )
        for n in range(count)
    ]
    period = TimeRange.custom(start, start + timedelta(hours=23))
    reported: list[SummaryFigures] = recompute([r.facts for r in rows], period.start, period.end, merge=False)
    return _harbour_cafe(period, reported, rows)


COUNT = 10_000
STATES = (TxState.COMPLETE,) * 16 + (TxState.CANCELED, TxState.REFUNDED, TxState.AUTHORIZED)
NAMES = ("Ava Nguyen", "Zoë Ångström", "雷 李", "Liam O'Connor", "Sofía Hernández", "Noah Smith")


def busy_day_report(count: int = COUNT) -> EndOfDayReport:
    """A busy day at eight terminals: varied amounts, tips, fees, every state, names beyond ASCII."""
    start = datetime(2026, 11, 22, 13, 0, tzinfo=UTC)
    rows = []
    for n in range(count):
        created = start + timedelta(seconds=8 * n)
        state = STATES[n % len(STATES)]
        amount = 350 + (n * 7919) % 12_000
        done = state in (TxState.COMPLETE, TxState.REFUNDED)
        rows.append(
            TxRow(
                transaction_id=f"{n:08x}-9c1e-4b7d-8a2f-{(n * 2654435761) % 16**12:012x}",
                state=state,
                terminal_id=f"LANE-{n % 8 + 1}" if n % 97 else None,
                created=created,
                completed=created + timedelta(seconds=30) if done else None,
                updated=created + timedelta(seconds=30),
                customer=NAMES[n % len(NAMES)],
                total=amount,
                charge_amount=amount,
                charged_amount=amount - (amount // 20 if n % 3 == 0 else 0),
                tip_amount=(n % 5) * 50,
                fee_amount=amount * 15 // 1000,
            )
        )
    period = TimeRange.custom(start, start + timedelta(hours=24))
    reported = [
        SummaryFigures(f"LANE-{k}", count=1, total=100) for k in range(1, 9)
    ]  # deliberately wrong: the mismatch section is drawn too
    return _harbour_cafe(period, reported, rows)


def _harbour_cafe(period: TimeRange, reported: list[SummaryFigures], rows: list[TxRow]) -> EndOfDayReport:
    """The report of every terminal of the demo café over ``period``, made at its end, in the sandbox."""
    return build_report(
        terminal_id="LANE-1",
        scope=ReportScope.all(),
        region="Embedded sandbox",
        production=False,
        period=period,
        generated_at=period.end,
        reported=reported,
        listed=rows,
        merchant="Harbour Café",
    )


def child_pids(worker: ReportWorker) -> set[int]:
    """The pids of the report worker's child processes (none before it is started)."""
    pool = worker._pool
    return {p.pid for p in (getattr(pool, "_processes", None) or {}).values()} if pool is not None else set()
