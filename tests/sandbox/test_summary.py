"""GET /summary exactly as contract section 5, checked against figures recomputed from the listed transactions."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from pos_terminal.sandbox import SandboxServer
from tests.conftest import OTHER_MERCHANT
from tests.sandbox.helpers import FAR_FUTURE, MS, Shop, iso, parse

SUMMARY_KEYS = {"terminalId", "total", "fees", "payout", "tips", "count", "from", "to"}


@pytest.fixture
def shop(make_sandbox: Callable[..., SandboxServer]) -> Iterator[Shop]:
    """A fresh sandbox per test: summaries cover every transaction of the merchant."""
    with Shop.open(make_sandbox()) as opened:
        yield opened


def recompute(
    records: list[dict[str, Any]], start: datetime, end: datetime, terminal: str | None = None
) -> dict[str | None, dict[str, Any]]:
    """Contract section 5 from the transaction records alone: complete, ``completed`` in [start, end)."""
    groups: dict[str | None, dict[str, Any]] = {}
    for record in records:
        if record["state"] != "complete" or not start <= parse(record["completed"]) < end:
            continue
        if terminal is not None and record["terminalId"] != terminal:
            continue
        group = groups.setdefault(record["terminalId"], {"count": 0, "total": 0, "tips": 0, "fees": 0, "charges": 0})
        group["count"] += 1
        group["total"] += record["total"]
        group["tips"] += record["tipAmount"]
        group["fees"] += record["feeAmount"]
        group["charges"] += record["chargeAmount"]
    return {
        terminal_id: {
            "terminalId": terminal_id,
            "count": g["count"],
            "total": g["total"],
            "tips": g["tips"],
            "fees": g["fees"],
            "payout": g["charges"] + g["tips"] - g["fees"],
        }
        for terminal_id, g in groups.items()
    }


def merged(groups: dict[str | None, dict[str, Any]], terminal: str | None = None) -> dict[str, Any]:
    figures = {key: sum(g[key] for g in groups.values()) for key in ("count", "total", "tips", "fees", "payout")}
    return {"terminalId": terminal, **figures}


def figures(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k not in ("from", "to")}


def get_summary(shop: Shop, **params: str) -> Any:
    response = shop.pos.get("/summary", params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


def a_day_of_trade(shop: Shop) -> dict[str, str]:
    """Transactions in every state over three terminals and none; returns their ids by name."""
    regular = shop.customer()
    member = shop.customer(memberNo="M-55")
    ids = {
        "tipped": shop.authorize(regular, 1_000, terminalId="T1"),
        "member": shop.authorize(member, 2_500, terminalId="T1"),
        "plain": shop.authorize(regular, 700, terminalId="T2"),
        "no-terminal": shop.authorize(regular, 1_200, terminalId=None),
        "refunded": shop.authorize(member, 900, terminalId="T2"),
        "canceled": shop.authorize(regular, 400, terminalId="T1"),
        "authorized": shop.authorize(regular, 300, terminalId="T3"),
    }
    assert shop.tip(ids["tipped"], 150).status_code == 200
    for name in ("tipped", "member", "plain", "no-terminal", "refunded"):
        shop.set_state(ids[name], "complete")
    shop.set_state(ids["refunded"], "refunded")
    shop.set_state(ids["canceled"], "canceled")
    return ids


def test_per_terminal_summary_matches_the_listed_transactions(shop: Shop) -> None:
    start = shop.now()
    a_day_of_trade(shop)
    shop.advance(1)
    before = shop.now()
    summary = get_summary(shop, **{"from": iso(start)})
    after = shop.now()

    assert isinstance(summary, list)
    for record in summary:
        assert set(record) == SUMMARY_KEYS
        assert record["from"] == iso(start)
        assert before <= parse(record["to"]) <= after  # `to` missing means now
    end = parse(summary[0]["to"])
    expected = recompute(shop.listed(), start, end)
    assert {r["terminalId"]: figures(r) for r in summary} == expected
    assert set(expected) == {"T1", "T2", None}  # T3 has nothing complete; no terminal is grouped under null
    assert expected["T1"]["count"] == 2
    assert expected["T2"]["count"] == 1  # the refunded one left the summary
    assert expected["T1"]["tips"] == 150
    assert all(g["fees"] > 0 for g in expected.values())


def test_merged_summary_is_one_object_over_every_terminal(shop: Shop) -> None:
    start = shop.now()
    a_day_of_trade(shop)
    shop.advance(1)
    summary = get_summary(shop, **{"from": iso(start), "merge": "true"})
    assert isinstance(summary, dict)
    assert set(summary) == SUMMARY_KEYS
    expected = merged(recompute(shop.listed(), start, parse(summary["to"])))
    assert figures(summary) == expected
    assert summary["count"] == 4
    assert summary["total"] == 1_000 + 2_500 + 700 + 1_200
    assert summary["tips"] == 150


def test_terminal_filter(shop: Shop) -> None:
    start = shop.now()
    a_day_of_trade(shop)
    end = shop.now() + timedelta(seconds=1)
    window = {"from": iso(start), "to": iso(end)}
    listed = shop.listed()

    only_t1 = get_summary(shop, **window, terminalId="T1")
    assert [figures(r) for r in only_t1] == [recompute(listed, start, end, "T1")["T1"]]
    assert only_t1[0]["to"] == iso(end)

    merged_t2 = get_summary(shop, **window, terminalId="T2", merge="true")
    assert figures(merged_t2) == merged(recompute(listed, start, end, "T2"), "T2")
    assert merged_t2["count"] == 1

    assert get_summary(shop, **window, terminalId="T3") == []  # nothing complete there
    assert get_summary(shop, **window, terminalId="nowhere") == []


def test_range_is_on_completed_from_inclusive_to_exclusive(shop: Shop) -> None:
    customer = shop.customer()
    first = shop.authorize(customer, 1_000, terminalId="T1")
    created_first = parse(shop.get(first)["created"])
    shop.advance(100)
    completed_first = parse(shop.set_state(first, "complete")["completed"])
    second = shop.authorize(customer, 2_000, terminalId="T1")
    shop.advance(100)
    completed_second = parse(shop.set_state(second, "complete")["completed"])
    listed = shop.listed()

    def window(start: datetime, end: datetime) -> dict[str, Any]:
        summary: dict[str, Any] = get_summary(shop, **{"from": iso(start), "to": iso(end), "merge": "true"})
        assert summary["from"] == iso(start)
        assert summary["to"] == iso(end)
        assert figures(summary) == merged(recompute(listed, start, end))
        return summary

    assert window(created_first, completed_first)["count"] == 0  # created inside, completed at `to`: out
    assert window(completed_first, completed_second)["total"] == 1_000
    assert window(completed_first + MS, completed_second)["count"] == 0
    assert window(completed_second, completed_second + MS)["total"] == 2_000
    assert window(completed_first, completed_second + MS)["count"] == 2
    shop.advance(1)
    assert get_summary(shop, **{"from": iso(completed_first), "merge": "true"})["count"] == 2  # `to` = now
    assert get_summary(shop, **{"from": iso(completed_second + MS)}) == []


def test_empty_range_merged_is_all_zero(shop: Shop) -> None:
    start = shop.now()
    summary = get_summary(shop, **{"from": iso(start), "to": FAR_FUTURE, "merge": "true"})
    assert figures(summary) == {"terminalId": None, "count": 0, "total": 0, "tips": 0, "fees": 0, "payout": 0}
    assert get_summary(shop, **{"from": iso(start), "to": FAR_FUTURE}) == []


def test_a_refund_takes_a_transaction_out_of_the_summary(shop: Shop) -> None:
    start = shop.now()
    transaction_id = shop.authorize(shop.customer(), 1_500, terminalId="T1")
    record = shop.set_state(transaction_id, "complete")
    window = {"from": iso(start), "to": FAR_FUTURE, "merge": "true"}
    summary = get_summary(shop, **window)
    assert summary["count"] == 1
    assert summary["payout"] == 1_500 - record["feeAmount"]
    shop.set_state(transaction_id, "refunded")
    assert get_summary(shop, **window)["count"] == 0
    assert get_summary(shop, **{"from": iso(start), "to": FAR_FUTURE}) == []


def test_summary_covers_only_the_token_merchant(shop: Shop) -> None:
    start = shop.now()
    shop.set_state(shop.authorize(shop.customer(), 1_000), "complete")
    window = {"from": iso(start), "to": FAR_FUTURE, "merge": "true"}
    with Shop.open(shop.server, OTHER_MERCHANT) as bistro:
        assert get_summary(bistro, **window)["count"] == 0
        guest = bistro.control.post(
            "/sandbox/checkins", json={"merchantId": OTHER_MERCHANT, "customerId": "cus-sofia"}
        ).json()
        bistro.set_state(bistro.authorize(guest, 3_000), "complete")
        assert get_summary(bistro, **window)["total"] == 3_000
    assert get_summary(shop, **window)["total"] == 1_000
