"""The store database tests' shared records and the one-sentence rule of its refusals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pos_terminal.errors import UserError
from tests.store.postgres import PASSWORD

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def assert_one_sentence(error: UserError, *names: str) -> None:
    """A person's sentence: one line ending in a full stop, naming ``names``, nothing of a driver or a traceback."""
    sentence = error.sentence
    assert sentence.endswith("."), sentence
    assert "\n" not in error.text(), error.text()
    for leak in ("Traceback", "psycopg", "sqlalchemy", "FATAL", "Error", "connection failed", PASSWORD):
        assert leak not in error.text(), error.text()
    for name in names:
        assert name in sentence, sentence


def sale(sale_id: str = "sale-1", **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": sale_id,
        "at": AT,
        "actor": "Ann",
        "customer": None,
        "total": 450,
        "tax": 41,
        "paid": 500,
        "check_body": {"items": [{"name": "Flat white", "cents": 450}]},
    }
    return record | fields


def opened_shift(shift_id: str = "shift-1", **fields: Any) -> dict[str, Any]:
    return {"id": shift_id, "opened_at": AT, "opened_by": "Ann", "opening_float": 10_000} | fields


def closed_shift(shift_id: str = "shift-1", **fields: Any) -> dict[str, Any]:
    close = {
        "closed_at": AT + timedelta(hours=8),
        "closed_by": "Bob",
        "counted_cash": 14_550,
        "counted_pieces": [[5000, 2], [2000, 2], [50, 11]],
        "expected_cash": 14_500,
    }
    return opened_shift(shift_id) | close | fields
