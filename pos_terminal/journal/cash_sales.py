"""Cash sales in the journal: checks paid in full in cash, which the service never sees (it takes no charge of
zero), kept for the shift's report and shared with the store database while the till is part of one."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pos_terminal.journal.access import JournalAccess
from pos_terminal.journal.rows import Cells, JsonObject, dump_json, iso_time, new_uid


@dataclass(frozen=True)
class CashSale:
    """A check paid in full in cash at this terminal; amounts in cents, ``change`` handed back."""

    id: int
    at: datetime
    terminal_id: str | None
    customer: str | None
    total: int
    tax: int
    paid: int
    change: int
    check: JsonObject
    actor: str | None = None  # the person at the till who took it
    uid: str = ""  # its id in the store database


def cash_sale_record(sale: CashSale) -> JsonObject:
    """A cash sale as the store database takes it (its outbox body)."""
    return {
        "id": sale.uid,
        "terminal_id": sale.terminal_id,
        "at": iso_time(sale.at),
        "actor": sale.actor,
        "customer": sale.customer,
        "total": sale.total,
        "tax": sale.tax,
        "paid": sale.paid,
        "change": sale.change,
        "check_body": sale.check,
    }


class CashSaleBook:
    """The ``cash_sale`` table."""

    def __init__(self, journal: JournalAccess) -> None:
        self.journal = journal

    def record(
        self,
        *,
        terminal_id: str | None,
        customer: str | None,
        total: int,
        tax: int,
        paid: int,
        check: Mapping[str, Any],
        actor: str | None = None,
    ) -> CashSale:
        """Keep a check paid in full in cash (``paid`` is the cash taken, the change is what exceeds ``total``)."""
        at = self.journal.now()
        uid = new_uid()
        with self.journal.writing():
            cursor = self.journal.conn.execute(
                "INSERT INTO cash_sale (at, terminal_id, customer, total, tax, paid, change, check_body, actor, uid)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (iso_time(at), terminal_id, customer, total, tax, paid, paid - total, dump_json(check), actor, uid),
            )
            row = self.journal.conn.execute("SELECT * FROM cash_sale WHERE id = ?", (cursor.lastrowid,)).fetchone()
            sale = self._cash_sale(row)
            self.journal.share("cash_sale", uid, cash_sale_record(sale))
        return sale

    def all(self) -> list[CashSale]:
        """Every cash sale this journal holds, oldest first (what a till brings when it joins a store)."""
        return [self._cash_sale(row) for row in self.journal.read("SELECT * FROM cash_sale ORDER BY id")]

    def between(self, since: datetime, until: datetime, *, terminal_id: str | None = None) -> list[CashSale]:
        """Cash sales with ``since <= at < until``, oldest first, optionally of one terminal."""
        sql = "SELECT * FROM cash_sale WHERE at >= ? AND at < ?"
        params: list[Any] = [iso_time(since), iso_time(until)]
        if terminal_id is not None:
            sql += " AND terminal_id = ?"
            params.append(terminal_id)
        return [self._cash_sale(row) for row in self.journal.read(sql + " ORDER BY at, id", tuple(params))]

    def _cash_sale(self, row: sqlite3.Row) -> CashSale:
        cells = Cells(row, self.journal.path, f"cash sale {row['id']}")
        return CashSale(
            id=cells.count("id"),
            at=cells.time("at"),
            terminal_id=cells.optional_text("terminal_id"),
            customer=cells.optional_text("customer"),
            total=cells.count("total"),
            tax=cells.count("tax"),
            paid=cells.count("paid"),
            change=cells.count("change"),
            check=cells.json("check_body"),
            actor=cells.optional_text("actor"),
            uid=cells.text("uid"),
        )
