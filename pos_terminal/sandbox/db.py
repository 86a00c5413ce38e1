"""SQLite storage of the sandbox: schema, migrations and serialised transactions.

One connection, guarded by a lock, and every unit of work inside
``BEGIN IMMEDIATE``: concurrent requests from several terminals are applied one
after the other, so two completes or two refunds racing give one effect. The
file is in WAL mode with ``synchronous=FULL`` so state survives a restart.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MIGRATIONS: list[str] = [
    # 1: the whole service
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE organizations (id TEXT PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE merchants (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        organization_id TEXT REFERENCES organizations(id),
        store_id TEXT UNIQUE
    );
    CREATE TABLE users (
        username TEXT PRIMARY KEY,
        password TEXT NOT NULL,
        display_name TEXT NOT NULL
    );
    CREATE TABLE user_merchants (
        username TEXT NOT NULL REFERENCES users(username),
        merchant_id TEXT NOT NULL REFERENCES merchants(id),
        PRIMARY KEY (username, merchant_id)
    );
    CREATE TABLE user_organizations (
        username TEXT NOT NULL REFERENCES users(username),
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        PRIMARY KEY (username, organization_id)
    );
    CREATE TABLE clients (
        client_id TEXT PRIMARY KEY,
        client_secret TEXT,
        name TEXT NOT NULL,
        redirect_uris TEXT NOT NULL DEFAULT '[]'
    );

    CREATE TABLE customers (
        customer_id TEXT PRIMARY KEY,
        first_name TEXT NOT NULL,
        last_name TEXT NOT NULL,
        gender TEXT,
        dob TEXT,
        member_no TEXT,
        notes TEXT,
        photo TEXT,
        balance INTEGER NOT NULL,
        held INTEGER NOT NULL DEFAULT 0,
        card TEXT NOT NULL DEFAULT 'ok'
    );
    CREATE TABLE checkins (
        check_in_id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL REFERENCES merchants(id),
        customer_id TEXT NOT NULL REFERENCES customers(customer_id),
        check_in_number TEXT NOT NULL,
        check_in_at INTEGER NOT NULL,
        checked_out_at INTEGER
    );
    CREATE INDEX checkins_live ON checkins(merchant_id, checked_out_at);

    CREATE TABLE transactions (
        transaction_id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL REFERENCES merchants(id),
        customer_id TEXT NOT NULL REFERENCES customers(customer_id),
        terminal_id TEXT,
        ref_id TEXT,
        state TEXT NOT NULL,
        created INTEGER NOT NULL,
        updated INTEGER NOT NULL,
        completed INTEGER,
        auto_cancel_at INTEGER NOT NULL,
        charge_amount INTEGER NOT NULL,
        charged_amount INTEGER NOT NULL,
        fee_amount INTEGER NOT NULL,
        tip_amount INTEGER NOT NULL DEFAULT 0,
        total INTEGER NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX transactions_created ON transactions(merchant_id, created);
    CREATE INDEX transactions_completed ON transactions(merchant_id, completed);
    CREATE INDEX transactions_authorized ON transactions(state, auto_cancel_at);

    CREATE TABLE ledger (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        customer_id TEXT NOT NULL REFERENCES customers(customer_id),
        reference TEXT,
        kind TEXT NOT NULL,
        amount INTEGER NOT NULL,
        balance_after INTEGER NOT NULL,
        at INTEGER NOT NULL
    );
    CREATE INDEX ledger_customer ON ledger(customer_id, id);

    CREATE TABLE access_tokens (
        access_token TEXT PRIMARY KEY,
        client_id TEXT,
        owner_type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        scope TEXT NOT NULL,
        issued_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked INTEGER NOT NULL DEFAULT 0,
        grant_id TEXT
    );
    CREATE TABLE refresh_tokens (
        refresh_token TEXT PRIMARY KEY,
        client_id TEXT,
        owner_type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        scope TEXT NOT NULL,
        issued_at INTEGER NOT NULL,
        revoked INTEGER NOT NULL DEFAULT 0,
        grant_id TEXT
    );
    CREATE TABLE device_codes (
        device_code TEXT PRIMARY KEY,
        user_code TEXT NOT NULL UNIQUE,
        client_id TEXT NOT NULL,
        scope TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        interval_s INTEGER NOT NULL,
        last_poll_at INTEGER,
        status TEXT NOT NULL DEFAULT 'pending',
        merchant_id TEXT,
        username TEXT
    );
    CREATE TABLE auth_codes (
        code TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        redirect_uri TEXT,
        scope TEXT NOT NULL,
        owner_type TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
    );
    CREATE TABLE web_sessions (
        session_id TEXT PRIMARY KEY,
        csrf_token TEXT NOT NULL,
        username TEXT,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE attempts (
        bucket TEXT NOT NULL,
        at INTEGER NOT NULL
    );
    CREATE INDEX attempts_bucket ON attempts(bucket, at);

    CREATE TABLE payments (
        id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL REFERENCES merchants(id),
        customer_id TEXT NOT NULL REFERENCES customers(customer_id),
        client_id TEXT,
        order_ref TEXT,
        title TEXT,
        total INTEGER NOT NULL,
        tax INTEGER NOT NULL,
        items TEXT NOT NULL DEFAULT '[]',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        completed_at INTEGER,
        refunded_at INTEGER
    );
    CREATE TABLE nonces (
        nonce TEXT PRIMARY KEY,
        payment_id TEXT NOT NULL REFERENCES payments(id),
        expires_at INTEGER NOT NULL,
        used_at INTEGER
    );
    """,
    # 2: secrets stored as their SHA-256 (as a real service keeps them), PKCE, refresh-token rotation
    """
    UPDATE access_tokens SET access_token = sha256(access_token), grant_id = sha256(grant_id);
    UPDATE refresh_tokens SET refresh_token = sha256(refresh_token), grant_id = sha256(grant_id);
    UPDATE auth_codes SET code = sha256(code);
    UPDATE device_codes SET device_code = sha256(device_code);
    ALTER TABLE refresh_tokens ADD COLUMN used_at INTEGER;
    ALTER TABLE auth_codes ADD COLUMN code_challenge TEXT;
    ALTER TABLE auth_codes ADD COLUMN code_challenge_method TEXT;
    CREATE INDEX access_tokens_grant ON access_tokens(grant_id);
    CREATE INDEX refresh_tokens_grant ON refresh_tokens(grant_id);
    """,
]


def secret_digest(secret: str | None) -> str | None:
    """What the database keeps of a token, code or device code: its SHA-256, in hex.

    The secrets are 256-bit random strings, so a plain hash cannot be reversed or guessed.
    Any string has a digest, even one with a lone surrogate: it simply matches nothing.
    """
    if secret is None:
        return None
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


class Database:
    """A SQLite file (or ``:memory:``) with the sandbox schema applied."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._conn.row_factory = sqlite3.Row
        self._conn.create_function("sha256", 1, secret_digest, deterministic=True)
        self._conn.execute("PRAGMA foreign_keys = ON")
        if self.path != ":memory:":
            self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = FULL")
        self._migrate()

    def _migrate(self) -> None:
        with self._lock:
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for statement in script.split(";"):
                        if statement.strip():
                            self._conn.execute(statement)
                    self._conn.execute(f"PRAGMA user_version = {number}")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
                self._conn.execute("COMMIT")

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """One serialised unit of work: committed on success, rolled back on error."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._conn.close()
