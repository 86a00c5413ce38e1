"""The sandbox's state: settings, database, clock, armed faults, and shared moves.

Routers receive the :class:`Sandbox` through ``request.state.sandbox``; the
money moves every router shares (reserve, release, charge, refund) live here so
that each is written once and always recorded in the customer's ledger.
"""

from __future__ import annotations

import secrets
import sqlite3
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pos_terminal.sandbox.clock import Clock, to_ms
from pos_terminal.sandbox.db import Database
from pos_terminal.sandbox.faults import FaultRegistry

# Far enough for any test, and far below 9999-12-31, so every time the sandbox computes
# from its clock (expiry, auto-cancel, summaries) can still be written as ISO 8601.
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
LATEST_MS = to_ms(LATEST)


class ClockLimit(ValueError):
    """The clock would move past :data:`LATEST`."""


@dataclass
class SandboxSettings:
    """Knobs of contract section 8; all changeable at run time through ``/sandbox/settings``."""

    auto_cancel_seconds: int = 300
    token_ttl: int = 3600
    device_interval: int = 5
    device_expires_in: int = 600
    auth_code_ttl: int = 60
    nonce_ttl: int = 120
    location: bool = True
    fee_basis_points: int = 150
    loyalty_percent: int = 5
    user_code_attempts: int = 5
    user_code_window_seconds: int = 300
    # a refresh answers with a new refresh token and spends the old one; a spent one used again revokes
    # the whole grant, as stock providers do (oidc-provider, Keycloak, Auth0 with reuse detection)
    rotate_refresh_tokens: bool = False
    db_path: str = ":memory:"
    # what a hostile client may hold: a request (headers and body) must arrive within ``request_seconds``
    # of the connection or the previous answer; past ``max_connections`` new connections are closed at once
    max_body_bytes: int = 1_000_000
    request_seconds: float = 10.0
    max_connections: int = 1_000


class Sandbox:
    """Everything one running sandbox holds."""

    def __init__(self, settings: SandboxSettings | None = None) -> None:
        self.settings = settings or SandboxSettings()
        self.db = Database(self.settings.db_path)
        self.clock = Clock(self._stored_offset())
        self.faults = FaultRegistry()

    def _stored_offset(self) -> int:
        with self.db.tx() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'clock_offset_ms'").fetchone()
        return int(row[0]) if row else 0

    def advance_clock(self, seconds: float) -> int:
        """Move the clock forward; :class:`ClockLimit` when that would pass :data:`LATEST`."""
        # move and store under the database lock, so concurrent advances are stored in the order they happen
        with self.db.tx() as conn:
            if self.clock.now_ms() + round(seconds * 1000) > LATEST_MS:
                raise ClockLimit(f"the sandbox clock stops at {LATEST.isoformat()}")
            offset = self.clock.advance(seconds)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('clock_offset_ms', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(offset),),
            )
        return offset

    def close(self) -> None:
        self.db.close()

    @property
    def persistent(self) -> bool:
        return self.settings.db_path != ":memory:" and Path(self.settings.db_path).exists()


def new_id() -> str:
    return str(uuid.uuid4())


def new_secret(nbytes: int = 32) -> str:
    return secrets.token_urlsafe(nbytes)


def move_funds(
    conn: sqlite3.Connection,
    customer_id: str,
    kind: str,
    amount: int,
    *,
    reference: str | None,
    at: int,
) -> int:
    """Apply one ledger movement and return the customer's spendable balance after it.

    ``reserve`` moves ``amount`` from spendable to held, ``release`` back again,
    ``charge`` takes it out of held for good, ``refund`` gives it back as
    spendable, ``topup`` and ``adjust`` change the spendable balance directly.
    """
    deltas = {
        "reserve": (-amount, amount),
        "release": (amount, -amount),
        "charge": (0, -amount),
        "refund": (amount, 0),
        "topup": (amount, 0),
        "adjust": (amount, 0),
        "debit": (-amount, 0),
    }
    d_balance, d_held = deltas[kind]
    conn.execute(
        "UPDATE customers SET balance = balance + ?, held = held + ? WHERE customer_id = ?",
        (d_balance, d_held, customer_id),
    )
    balance = int(conn.execute("SELECT balance FROM customers WHERE customer_id = ?", (customer_id,)).fetchone()[0])
    conn.execute(
        "INSERT INTO ledger(customer_id, reference, kind, amount, balance_after, at) VALUES (?, ?, ?, ?, ?, ?)",
        (customer_id, reference, kind, amount, balance, at),
    )
    return balance
