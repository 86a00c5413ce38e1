"""State survives a restart of the sandbox on the same SQLite file (contract section 6)."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

from pos_terminal.sandbox.db import MIGRATIONS
from tests.helpers.http import http_client
from tests.sandbox.helpers import FAR_FUTURE, FAR_PAST, Shop, ledger, mint_token, running_sandbox


def snapshot(shop: Shop, customer_id: str) -> dict[str, Any]:
    return {
        "transactions": shop.listed(FAR_PAST, FAR_FUTURE),
        "funds": shop.funds(customer_id),
        "ledger": ledger(shop.control, customer_id),
        "customers": shop.pos.get("/customers").json(),
    }


def check_file(path: Path) -> None:
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


def test_transactions_balances_tokens_and_clock_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "sandbox.sqlite3"
    with running_sandbox(tmp_path) as first, Shop.open(first) as shop:
        expiring_token = mint_token(shop.control)  # default lifetime: its expiry must survive too
        customer = shop.customer(memberNo="M-77")
        cid = customer["customerId"]
        completed = shop.authorize(customer, 3_000, terminalId="T1")
        assert shop.tip(completed, 200).status_code == 200
        shop.set_state(completed, "complete")
        authorized = shop.authorize(customer, 1_000, terminalId="T2")
        shop.advance(120)
        before = snapshot(shop, cid)
        clock_before = shop.control.get("/sandbox/clock").json()["offsetSeconds"]
        summary_before = shop.pos.get("/summary", params={"from": FAR_PAST, "to": FAR_FUTURE, "merge": "true"}).json()
        bearer = dict(shop.pos.headers)["authorization"]
    check_file(db)

    with running_sandbox(tmp_path) as second, Shop.open(second) as shop:
        assert second.sandbox.settings.db_path == str(db)
        assert snapshot(shop, cid) == before
        assert shop.control.get("/sandbox/clock").json()["offsetSeconds"] == clock_before
        summary_after = shop.pos.get("/summary", params={"from": FAR_PAST, "to": FAR_FUTURE, "merge": "true"}).json()
        assert summary_after == summary_before
        assert summary_after["count"] == 1

        with http_client(base_url=f"{second.url}/v4", timeout=10) as old:
            # tokens issued before the restart still work, with their lifetime counted on the moved clock
            assert old.get(f"/transactions/{completed}", headers={"Authorization": bearer}).status_code == 200
            expiring = {"Authorization": f"Bearer {expiring_token}"}
            assert old.get("/customers", headers=expiring).status_code == 200
            shop.advance(3_600 - 120)
            assert old.get("/customers", headers=expiring).status_code == 401

        # the auto-cancel deadline was stored: the restarted sandbox cancels on time and returns the funds
        assert shop.get(authorized)["state"] == "canceled"
        charged = shop.get(completed)["chargedAmount"] + 200
        assert shop.funds(cid) == (100_000 - charged, 0)
        shop.set_state(completed, "refunded")
        assert shop.funds(cid) == (100_000, 0)

        # demo data is created on the first start only
        assert [e["kind"] for e in ledger(shop.control, "cus-ava")] == ["topup"]
    check_file(db)


def test_in_memory_sandbox_forgets_everything(tmp_path: Path) -> None:
    with running_sandbox(tmp_path, db_path=":memory:") as first, Shop.open(first) as shop:
        customer = shop.customer()
        assert shop.control.get(f"/sandbox/customers/{customer['customerId']}").status_code == 200
        shop.advance(500)
    assert not (tmp_path / "sandbox.sqlite3").exists()
    with running_sandbox(tmp_path, db_path=":memory:") as second, Shop.open(second) as shop:
        assert shop.control.get(f"/sandbox/customers/{customer['customerId']}").status_code == 404
        assert shop.control.get("/sandbox/clock").json()["offsetSeconds"] == 0
        assert "cus-ava" in {c["customerId"] for c in shop.pos.get("/customers").json()}


def test_repeated_restarts_keep_one_copy_of_everything(tmp_path: Path) -> None:
    with running_sandbox(tmp_path) as first, Shop.open(first) as shop:
        customer = shop.customer()
        shop.set_state(shop.authorize(customer, 500), "complete")
        expected = snapshot(shop, customer["customerId"])
        merchants = shop.control.get("/sandbox/merchants").json()
    for _ in range(2):
        with running_sandbox(tmp_path) as again, Shop.open(again) as shop:
            assert snapshot(shop, customer["customerId"]) == expected
            assert shop.control.get("/sandbox/merchants").json() == merchants
    check_file(tmp_path / "sandbox.sqlite3")


def test_concurrent_clock_advances_are_all_kept_across_a_restart(tmp_path: Path) -> None:
    """Twenty advances of one second at once: the clock is 20 s ahead, also after a restart (never behind)."""
    with running_sandbox(tmp_path) as first:
        barrier = threading.Barrier(20, timeout=10)
        statuses: list[int] = []

        def advance_one() -> None:
            with http_client(base_url=first.url, timeout=20) as http:
                http.get("/sandbox/clock")
                barrier.wait()
                statuses.append(http.post("/sandbox/clock", json={"advanceSeconds": 1}).status_code)

        threads = [threading.Thread(target=advance_one) for _ in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert statuses == [200] * 20
        with http_client(base_url=first.url, timeout=10) as http:
            assert http.get("/sandbox/clock").json()["offsetSeconds"] == 20
    with running_sandbox(tmp_path) as second, http_client(base_url=second.url, timeout=10) as http:
        assert http.get("/sandbox/clock").json()["offsetSeconds"] == 20
