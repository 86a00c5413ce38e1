"""The journal's schema: its migrations, oldest first, and the tables they make (:mod:`pos_terminal.disk.sqlite`
applies them)."""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: the first schema.
    """
    CREATE TABLE open_check (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        body TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE charge_intent (
        ref_id TEXT PRIMARY KEY,
        terminal_id TEXT,
        customer TEXT NOT NULL,
        check_body TEXT NOT NULL,
        request TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('recorded', 'verifying', 'created', 'failed', 'resolved')),
        transaction_id TEXT,
        error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX charge_intent_status ON charge_intent (status, created_at);
    CREATE TABLE known_transaction (
        transaction_id TEXT PRIMARY KEY,
        ref_id TEXT,
        state TEXT NOT NULL,
        record TEXT,
        first_seen TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        transaction_id TEXT NOT NULL,
        target_state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        outcome TEXT CHECK (outcome IN ('confirmed', 'dropped')),
        result TEXT,
        CHECK ((outcome IS NULL) = (finished_at IS NULL))
    );
    CREATE INDEX outbox_pending ON outbox (id) WHERE outcome IS NULL;
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        action TEXT NOT NULL,
        actor TEXT,
        terminal_id TEXT,
        detail TEXT NOT NULL
    );
    CREATE INDEX audit_at ON audit (at);
    """,
    # 2: checks paid in full in cash, never sent to the service (chargeAmount must be more than zero).
    """
    CREATE TABLE cash_sale (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        terminal_id TEXT,
        customer TEXT,
        total INTEGER NOT NULL CHECK (total >= 0),
        tax INTEGER NOT NULL,
        paid INTEGER NOT NULL CHECK (paid >= total),
        change INTEGER NOT NULL CHECK (change = paid - total),
        check_body TEXT NOT NULL
    );
    CREATE INDEX cash_sale_at ON cash_sale (at);
    """,
    # 3: people at the till and shifts (PINs only as slow salted hashes); who charged and who changed a state.
    """
    CREATE TABLE person (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('cashier', 'manager')),
        pin_hash TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        wrong_pins INTEGER NOT NULL DEFAULT 0,
        locked_until TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE shift (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        terminal_id TEXT,
        opened_at TEXT NOT NULL,
        opened_by TEXT NOT NULL,
        opening_float INTEGER NOT NULL CHECK (opening_float >= 0),
        closed_at TEXT,
        closed_by TEXT,
        counted_cash INTEGER,
        counted_pieces TEXT,
        expected_cash INTEGER,
        CHECK ((closed_at IS NULL) = (closed_by IS NULL)),
        CHECK ((closed_at IS NULL) = (counted_cash IS NULL))
    );
    CREATE UNIQUE INDEX shift_one_open ON shift ((closed_at IS NULL)) WHERE closed_at IS NULL;
    ALTER TABLE charge_intent ADD COLUMN actor TEXT;
    ALTER TABLE outbox ADD COLUMN actor TEXT;
    ALTER TABLE outbox ADD COLUMN approved_by TEXT;
    CREATE INDEX outbox_finished ON outbox (target_state, finished_at) WHERE outcome = 'confirmed';
    ALTER TABLE cash_sale ADD COLUMN actor TEXT;
    """,
    # 4: the receipt printer's queue (ESC/POS): a slip waits until printed or canceled, across restarts.
    """
    CREATE TABLE print_job (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'printed', 'canceled')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        CHECK ((status = 'queued') = (finished_at IS NULL))
    );
    CREATE INDEX print_job_queued ON print_job (id) WHERE status = 'queued';
    """,
    # 5: what the service answered to a charge's create, when it answered: 'accepted' (the transaction exists, so
    # the intent can never be failed, whatever a later read says) or 'refused' (nothing was created).
    """
    ALTER TABLE charge_intent ADD COLUMN create_answer TEXT CHECK (create_answer IN ('accepted', 'refused'));
    """,
    # 6: a store of several tills. What the tills share gets an id of its own (the store database's key), people
    # the store's version of their record and their lockout's epoch; a link to the store database, and the
    # outbox of what is still to be written there (filled in the same transaction as the record, while linked).
    """
    ALTER TABLE person ADD COLUMN uid TEXT;
    ALTER TABLE person ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE person ADD COLUMN lock_epoch INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE shift ADD COLUMN uid TEXT;
    ALTER TABLE cash_sale ADD COLUMN uid TEXT;
    ALTER TABLE audit ADD COLUMN uid TEXT;
    UPDATE person SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    UPDATE shift SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    UPDATE cash_sale SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    UPDATE audit SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    CREATE UNIQUE INDEX person_uid ON person (uid);
    CREATE UNIQUE INDEX shift_uid ON shift (uid);
    CREATE UNIQUE INDEX cash_sale_uid ON cash_sale (uid);
    CREATE UNIQUE INDEX audit_uid ON audit (uid);
    CREATE TABLE store_link (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        address TEXT NOT NULL,
        terminal_id TEXT NOT NULL,
        joined_at TEXT NOT NULL,
        last_seq INTEGER NOT NULL DEFAULT 0,
        last_change_at TEXT,
        last_contact_at TEXT,
        offline_since TEXT,
        last_error TEXT
    );
    CREATE TABLE store_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL,
        sent_at TEXT,
        refused TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT
    );
    CREATE INDEX store_outbox_waiting ON store_outbox (id) WHERE sent_at IS NULL AND refused IS NULL;
    """,
    # 7: the catalog and the store's details as the till keeps them: its copy of the store's, while it is part of
    # a store (the store checks names and codes: the copy takes its changes in the store's order, so it has no
    # unique keys of its own), else its own once edited or imported; the rows as they were before the last change
    # made here (its undo); the details are the till's own while it stands alone.
    """
    CREATE TABLE catalog_category (
        uid TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        position INTEGER NOT NULL DEFAULT 0,
        active INTEGER NOT NULL DEFAULT 1,
        version INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE catalog_product (
        uid TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        price INTEGER NOT NULL CHECK (price >= 0),
        tax_rate_bp INTEGER,
        category_uid TEXT,
        barcodes TEXT NOT NULL DEFAULT '[]',
        position INTEGER NOT NULL DEFAULT 0,
        colour TEXT,
        active INTEGER NOT NULL DEFAULT 1,
        version INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE catalog_undo (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        what TEXT NOT NULL,
        rows TEXT NOT NULL,
        at TEXT NOT NULL
    );
    CREATE TABLE store_details (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        name TEXT NOT NULL,
        address TEXT,
        tax_number TEXT,
        receipt_header TEXT,
        receipt_footer TEXT,
        updated_by TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL
    );
    """,
    # 8: the store's logo, as the store database keeps it (base64 of a grey PNG); a journal made at 7 by a
    # development build gets the column too.
    """
    ALTER TABLE store_details ADD COLUMN logo TEXT;
    """,
    # 9: a terminal's last entry of an action (its last sign-in and disconnect, read at every start) found by an
    # index rather than by reading the whole log, which a busy till fills with 700,000 entries in a year.
    """
    CREATE INDEX audit_action ON audit (action, terminal_id, at);
    """,
    # 10: what reads only the last minutes, the open charges, one transaction or the few records the store refused,
    # found by an index rather than by a walk through everything the till ever made. With a year's 300,000 charges,
    # the check for a second hold read all of them before every charge (120 ms), the open charges took 840 ms, a
    # shift's Z report 35 s to find its completed checks, and a till in a store read every record it ever shared
    # (700,000: 45 ms) after each exchange with the store, for the status bar.
    """
    CREATE INDEX charge_intent_created ON charge_intent (created_at);
    CREATE INDEX charge_intent_transaction ON charge_intent (transaction_id);
    CREATE INDEX known_transaction_state ON known_transaction (state);
    CREATE INDEX outbox_transaction ON outbox (transaction_id, target_state);
    CREATE INDEX outbox_finished_at ON outbox (finished_at);
    CREATE INDEX store_outbox_refused ON store_outbox (id) WHERE refused IS NOT NULL;
    """,
    # 11: the copies the journal lets go of after a month (Terminal.forget_done), the records the store took and the
    # slips printed or canceled, found by when they were done: a busy till's year of them is about 600 MB that
    # nothing reads again. Each batch reads the index, never the bodies of what stays.
    """
    CREATE INDEX store_outbox_sent ON store_outbox (sent_at) WHERE sent_at IS NOT NULL AND refused IS NULL;
    CREATE INDEX print_job_finished ON print_job (finished_at) WHERE status != 'queued';
    """,
]

TABLES = (
    "open_check",
    "charge_intent",
    "known_transaction",
    "outbox",
    "audit",
    "cash_sale",
    "person",
    "shift",
    "print_job",
    "store_link",
    "store_outbox",
    "catalog_category",
    "catalog_product",
    "catalog_undo",
    "store_details",
)
