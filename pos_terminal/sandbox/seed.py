"""Demo data created on a sandbox's first start (contract sections 6 and 8).

One organization with two merchants, sandbox users who sign in on the browser
pages, the terminal's public OAuth client and a confidential web client, and
customers of every kind (members and not, rich and nearly broke, cards that
decline, names beyond ASCII), checked in at the merchants.
"""

from __future__ import annotations

import json
import sqlite3

from pos_terminal.sandbox.state import move_funds

ORGANIZATION = {"id": "org-harbour", "name": "Harbour Hospitality Group"}
MERCHANTS = [
    {"id": "mer-cafe", "name": "Harbour Café", "store_id": "store-cafe"},
    {"id": "mer-bistro", "name": "Quayside Bistro", "store_id": "store-bistro"},
]
DEMO_MERCHANT_ID = "mer-cafe"
USERS = [
    # username, password, display name, merchants, organizations
    ("demo", "demo", "Dana Demo (owner)", ["mer-cafe", "mer-bistro"], ["org-harbour"]),
    ("cafe", "demo", "Cam Café (manager)", ["mer-cafe"], []),
]
TERMINAL_CLIENT_ID = "pos-terminal"
WEB_CLIENT_ID = "demo-web"
WEB_CLIENT_SECRET = "demo-web-secret"  # noqa: S105 - published sandbox credential
EXAMPLE_CLIENT_ID = "ordering-example"
EXAMPLE_CLIENT_SECRET = "ordering-example-secret"  # noqa: S105 - published sandbox credential
CLIENTS = [
    (TERMINAL_CLIENT_ID, None, "pos-terminal (public client)", ["http://127.0.0.1/callback"]),
    (WEB_CLIENT_ID, WEB_CLIENT_SECRET, "Demo ordering web app", ["http://127.0.0.1/callback"]),
    (
        EXAMPLE_CLIENT_ID,
        EXAMPLE_CLIENT_SECRET,
        "Example ordering page",
        ["http://127.0.0.1/examples/ordering/callback", "http://localhost/examples/ordering/callback"],
    ),
]
# customer id, first, last, gender, dob, member no, balance (cents), card, notes, merchants checked in at
CUSTOMERS = [
    ("cus-ava", "Ava", "Nguyen", "female", "1990-04-12", "M-100234", 50_000, "ok", "Prefers oat milk", ["mer-cafe"]),
    ("cus-liam", "Liam", "O'Connor", "male", "1985-09-30", None, 30_000, "ok", None, ["mer-cafe", "mer-bistro"]),
    ("cus-zoe", "Zoë", "Ångström", "female", "1999-01-02", "M-100777", 100_000, "ok", None, ["mer-cafe"]),
    ("cus-li", "雷", "李", "male", "1978-06-15", "M-100888", 80_000, "ok", "VIP", ["mer-cafe"]),
    ("cus-noah", "Noah", "Smith", None, None, None, 1_500, "ok", "Low balance", ["mer-cafe"]),
    ("cus-mia", "Mia", "Declined", "female", None, None, 50_000, "declined", "Test card: declined", ["mer-cafe"]),
    (
        "cus-owen",
        "Owen",
        "Broke",
        "male",
        None,
        "M-100999",
        50_000,
        "insufficient_funds",
        "Test card: insufficient funds",
        ["mer-cafe"],
    ),
    ("cus-sofia", "Sofía", "Hernández", "female", "2001-11-23", "M-101000", 75_000, "ok", None, ["mer-bistro"]),
    ("cus-ethan", "Ethan", "Walker", "male", "1970-03-03", None, 20_000, "ok", "Not checked in", []),
]


def seed_demo_data(conn: sqlite3.Connection, now_ms: int) -> None:
    """Insert the demo data unless the database already has a merchant; clients added since are added in any case."""
    for client_id, secret, name, redirects in CLIENTS:
        conn.execute(
            "INSERT OR IGNORE INTO clients(client_id, client_secret, name, redirect_uris) VALUES (?, ?, ?, ?)",
            (client_id, secret, name, json.dumps(redirects)),
        )
    if conn.execute("SELECT 1 FROM merchants LIMIT 1").fetchone():
        return
    conn.execute("INSERT INTO organizations(id, name) VALUES (?, ?)", (ORGANIZATION["id"], ORGANIZATION["name"]))
    for merchant in MERCHANTS:
        conn.execute(
            "INSERT INTO merchants(id, name, organization_id, store_id) VALUES (?, ?, ?, ?)",
            (merchant["id"], merchant["name"], ORGANIZATION["id"], merchant["store_id"]),
        )
    for username, password, display, merchants, organizations in USERS:
        conn.execute(
            "INSERT INTO users(username, password, display_name) VALUES (?, ?, ?)", (username, password, display)
        )
        for merchant_id in merchants:
            conn.execute("INSERT INTO user_merchants(username, merchant_id) VALUES (?, ?)", (username, merchant_id))
        for organization_id in organizations:
            conn.execute(
                "INSERT INTO user_organizations(username, organization_id) VALUES (?, ?)", (username, organization_id)
            )
    number = 100
    for cid, first, last, gender, dob, member_no, balance, card, notes, merchants in CUSTOMERS:
        conn.execute(
            "INSERT INTO customers(customer_id, first_name, last_name, gender, dob, member_no, notes, balance, card)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)",
            (cid, first, last, gender, f"{dob}T00:00:00.000Z" if dob else None, member_no, notes, card),
        )
        move_funds(conn, cid, "topup", balance, reference="demo data", at=now_ms)
        for merchant_id in merchants:
            number += 1
            conn.execute(
                "INSERT INTO checkins(check_in_id, merchant_id, customer_id, check_in_number, check_in_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (f"chk-{cid[4:]}-{merchant_id[4:]}", merchant_id, cid, str(number), now_ms - (number - 100) * 60_000),
            )
