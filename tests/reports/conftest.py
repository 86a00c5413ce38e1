"""A scripted day at the sandbox, and terminals that report on it.

The day, in the sandbox's own time (its clock is moved, never slept on):

- before the range: A (LANE-1) completed; C (LANE-2) authorized;
- the range starts; C is completed (created before the range, completed in it);
- B1 LANE-1, a member (loyalty), tip, completed; B2 LANE-1 with a staff discount, completed;
  B3 LANE-2 member, completed then refunded; B4 LANE-2 tip, completed; B5 no terminal id, completed;
  B6 LANE-1 canceled by hand; B7 LANE-2 left alone and canceled automatically;
  B8 LANE-1 partly paid in cash, completed; B9 LANE-1 left authorized; D LANE-1 created;
- the range ends; D is completed (outside the range); E is created and completed afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pos_terminal.sandbox import SandboxServer
from tests.sandbox.helpers import Shop, check_body, parse, running_sandbox
from tests.services.conftest import insecure_token_file, open_terminal, terminal_clock

__all__ = ["insecure_token_file", "open_terminal", "terminal_clock"]

MS = timedelta(milliseconds=1)


@dataclass
class Day:
    server: SandboxServer
    start: datetime
    end: datetime
    ids: dict[str, str]
    names: dict[str, str]

    def records(self) -> list[dict[str, Any]]:
        with Shop.open(self.server) as shop:
            return shop.listed()


def discounted(customer: dict[str, Any], ref: str, terminal: str) -> dict[str, Any]:
    """2000 of items, a 10 % staff discount: 1800 charged."""
    return check_body(
        customer,
        1800,
        refId=ref,
        terminalId=terminal,
        itemTotal=2000,
        itemTax=181,
        items=[
            {"id": "flat-white", "name": "Flat white", "quantity": 2, "amount": 1000, "tax": 90},
            {"id": "croissant", "name": "Croissant au beurre", "quantity": 2, "amount": 1000, "tax": 91},
        ],
        discounts=[{"id": "staff", "name": "Staff 10 %", "amount": -200, "tax": -18}],
        discountTotal=-200,
        discountTax=-18,
        total=1800,
        tax=163,
        balance=1800,
        chargeAmount=1800,
    )


def cash_first(customer: dict[str, Any], ref: str, terminal: str) -> dict[str, Any]:
    """2000 of items, 500 paid in cash first: 1500 charged."""
    return check_body(
        customer,
        2000,
        refId=ref,
        terminalId=terminal,
        payments=[{"method": "cash", "amount": 500}],
        balance=1500,
        chargeAmount=1500,
    )


def script_day(server: SandboxServer) -> Day:
    ids: dict[str, str] = {}
    with Shop.open(server) as shop:
        member = shop.customer(firstName="Zoë", lastName="Ångström", memberNo="M-555001", balance=500_000)
        chinese = shop.customer(firstName="雷", lastName="李", memberNo="M-555002", balance=500_000)
        plain = shop.customer(firstName="Liam", lastName="O'Connor", balance=500_000)
        names = {"member": "Zoë Ångström", "chinese": "李雷", "plain": "Liam O'Connor"}

        def auth(key: str, customer: dict[str, Any], amount: int, terminal: str | None, **extra: Any) -> str:
            ids[key] = shop.authorize(customer, amount, refId=f"day-{key}", terminalId=terminal, **extra)
            return ids[key]

        shop.set_state(auth("A", plain, 1200, "LANE-1"), "complete")
        auth("C", chinese, 900, "LANE-2")
        shop.advance(120)
        start = shop.now()
        shop.set_state(ids["C"], "complete")
        auth("B1", member, 2500, "LANE-1")
        assert shop.tip(ids["B1"], 300).status_code == 200
        shop.set_state(ids["B1"], "complete")
        ids["B2"] = shop.create(discounted(plain, "day-B2", "LANE-1"))
        shop.set_state(ids["B2"], "complete")
        shop.set_state(auth("B3", member, 4000, "LANE-2"), "complete")
        shop.set_state(ids["B3"], "refunded")
        auth("B4", chinese, 1500, "LANE-2")
        assert shop.tip(ids["B4"], 150).status_code == 200
        shop.set_state(ids["B4"], "complete")
        shop.set_state(auth("B5", plain, 700, None), "complete")
        shop.set_state(auth("B6", plain, 600, "LANE-1"), "canceled")
        auth("B7", member, 800, "LANE-2")
        shop.advance(shop.settings()["autoCancelSeconds"] + 1)
        assert shop.get(ids["B7"])["state"] == "canceled"
        ids["B8"] = shop.create(cash_first(chinese, "day-B8", "LANE-1"))
        shop.set_state(ids["B8"], "complete")
        auth("B9", plain, 1000, "LANE-1")
        auth("D", member, 1100, "LANE-1")
        end = shop.now() + MS
        shop.advance(10)
        shop.set_state(ids["D"], "complete")
        shop.set_state(auth("E", plain, 1300, "LANE-2"), "complete")
    return Day(server, start, end, ids, names)


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Day]:
    """The scripted day on a sandbox of its own, shared by a module's tests (they only read)."""
    with running_sandbox(tmp_path_factory.mktemp("day")) as server:
        yield script_day(server)


def expected_figures(
    records: list[dict[str, Any]], start: datetime, end: datetime, terminal: str | None = None, *, merge: bool = False
) -> dict[str | None, dict[str, int]]:
    """Contract section 5, computed here from the raw records (independently of domain/summary.py)."""
    out: dict[str | None, dict[str, int]] = {}
    for record in records:
        if record["state"] != "complete" or not record.get("completed"):
            continue
        if not start <= parse(record["completed"]) < end:
            continue
        if terminal is not None and record.get("terminalId") != terminal:
            continue
        key = None if merge else record.get("terminalId")
        figures = out.setdefault(key, {"count": 0, "total": 0, "tips": 0, "fees": 0, "charges": 0})
        figures["count"] += 1
        figures["total"] += record["total"]
        figures["tips"] += record.get("tipAmount", 0)
        figures["fees"] += record.get("feeAmount", 0)
        figures["charges"] += record["chargeAmount"]
    return {
        key: {
            "count": f["count"],
            "total": f["total"],
            "tips": f["tips"],
            "fees": f["fees"],
            "payout": f["charges"] + f["tips"] - f["fees"],
        }
        for key, f in out.items()
    }


@pytest.fixture
def pdf_text() -> Callable[[bytes], list[str]]:
    """The text of each page of a PDF, as pypdf extracts it."""
    import io

    from pypdf import PdfReader

    def extract(data: bytes) -> list[str]:
        return [page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages]

    return extract


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    return tmp_path
