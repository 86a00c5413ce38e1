"""Writing records into the store database: idempotent inserts, last-writer-wins edits, merged lockouts.

Each write runs inside the transaction :class:`~pos_terminal.store.database.StoreDatabase` opens (one call of
``put``, or a batch of ``put_many``), and appends its change to ``change_log``.

Records created once (cash sales, audit entries, shifts) are written
insert-if-absent by their uuid: the first write of an id stays, a replay is a
no-op and logs nothing. A shift is written again when it closes: the close
(closed_at, closed_by, the counts, expected_cash) is recorded once, on a shift
still open; what it was opened with never changes. A till writes only its own
shifts, cash sales and audit entries: ``terminal_id`` in the record, when given,
must be the caller's, and so must the stored row's on a replay
(:class:`~pos_terminal.store.store_errors.WrongTill`).

Records tills edit (person, category, product, store_info) merge by this rule,
which a till applies to its local copy the same way:

* **Last writer wins per record.** The record carries ``version``, the version
  the till based its edit on, and ``updated_at``, when it made the edit. The
  edit's :class:`~pos_terminal.store.records.Stamp` is (version + 1, updated_at, the writing till); it
  replaces the stored record when its stamp is greater than the stored one
  (version first, then time, then the till's id so that a tie still has one
  winner), and the stored version becomes version + 1. An edit made without
  seeing a later one therefore loses to it, however late it arrives; two edits
  from the same version are ordered by their time. A replay has the stamp
  already stored and changes nothing.
* **A lockout holds everywhere.** A person's ``wrong_pins`` and ``locked_until``
  are merged apart from the edit (:class:`~pos_terminal.store.records.Lockout`): by the greater
  ``lock_epoch``, and within one epoch by the greater of each, so a lockout known
  on any till holds on all. A PIN try is not an edit: a till reports it with
  :meth:`~pos_terminal.store.database.StoreDatabase.report_pin_tries`. Lifting a lock (a manager's unlock, a
  new PIN) is the one way down: the till writes ``lock_epoch`` + 1 with
  ``wrong_pins`` 0 and no ``locked_until``, and tries counted in the old epoch,
  arriving late, no longer count.

``updated_by_till`` is always the writing till; ``name_key`` is always
:func:`pos_terminal.domain.people.name_key` of the name. Both may be present in
a record (a till sending back the row it pulled) and are then ignored.

Records are plain mappings of column names (``pos_terminal.store.schema``):
times are aware datetimes or ISO 8601 text with an offset (as an outbox keeps
them), JSON columns take the value itself (a dict or list), money is int cents.
A record the schema cannot take (an unknown column, a missing one, a naive time,
a check that does not add up) raises ``ValueError``, or SQLAlchemy's
``IntegrityError`` for a product whose category the store does not have: a bug,
and a write that will never be accepted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from pos_terminal.domain.clock import Clock
from pos_terminal.domain.people import Role, name_key
from pos_terminal.store import schema
from pos_terminal.store.records import (
    KIND_NAMES,
    NEWEST_SEQ,
    Fields,
    Lockout,
    Stamp,
    check_id,
    chunks,
    edit_columns,
    lockout_columns,
    newest_seq,
    one_row,
    primary_key_of,
    product_fields,
    stamp_of,
)
from pos_terminal.store.schema import Kind
from pos_terminal.store.store_errors import StoreConflict, WrongTill


class StoreWrites:
    """Each kind of record's write, on a connection in a write transaction; ``now`` stamps ``change_log.at``."""

    def __init__(self, now: Clock) -> None:
        self.now = now

    def writer(self, kind: Kind | str) -> Callable[[Connection, Mapping[str, Any], str], bool]:
        writers: dict[Kind, Callable[[Connection, Mapping[str, Any], str], bool]] = {
            Kind.CASH_SALE: self._put_cash_sale,
            Kind.AUDIT: self._put_audit,
            Kind.SHIFT: self._put_shift,
            Kind.PERSON: self._put_person,
            Kind.CATEGORY: self._put_category,
            Kind.PRODUCT: self.put_product,
            Kind.STORE_INFO: self._put_store_info,
        }
        writer = writers.get(Kind(kind))
        if writer is None:
            raise ValueError(f"{kind} records are not written with put (a till announces itself with hello)")
        return writer

    def pin_tries_record(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        """A ``pin_tries`` record of :meth:`~pos_terminal.store.database.StoreDatabase.put_many`, written."""
        locked = record.get("locked_until")
        moment = locked if isinstance(locked, datetime) or locked is None else datetime.fromisoformat(str(locked))
        return self.pin_tries(
            conn,
            str(record["person_id"]),
            wrong_pins=int(record.get("wrong_pins") or 0),
            locked_until=moment,
            lock_epoch=int(record.get("lock_epoch") or 0),
            terminal_id=terminal_id,
        )

    def pin_tries(
        self,
        conn: Connection,
        person_id: str,
        *,
        wrong_pins: int,
        locked_until: datetime | None,
        lock_epoch: int,
        terminal_id: str,
    ) -> bool:
        check_id(person_id, "person_id")
        fields = Fields(Kind.PERSON, {"wrong_pins": wrong_pins, "locked_until": locked_until, "lock_epoch": lock_epoch})
        incoming = Lockout(fields.count("wrong_pins"), fields.optional_time("locked_until"), fields.count("lock_epoch"))
        stored = one_row(conn, Kind.PERSON, person_id)
        if stored is None or not self._merge_lockout(conn, person_id, stored, incoming):
            return False
        self.log_change(conn, Kind.PERSON, person_id, terminal_id)
        return True

    def _put_cash_sale(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = Fields(Kind.CASH_SALE, record)
        total, paid = fields.count("total"), fields.count("paid")
        change = fields.optional_count("change")
        if change is not None and change != paid - total:
            raise ValueError(f"cash sale change {change} is not paid {paid} minus total {total}")
        row = {
            "id": fields.key("id"),
            "terminal_id": fields.owner(terminal_id),
            "shift_id": fields.optional_text("shift_id"),
            "at": fields.time("at"),
            "actor": fields.optional_text("actor"),
            "customer": fields.optional_text("customer"),
            "total": total,
            "tax": fields.count("tax"),
            "paid": paid,
            "change": paid - total,
            "check_body": fields.json("check_body", dict),
        }
        fields.done()
        return self._insert_once(conn, Kind.CASH_SALE, row, terminal_id)

    def _put_audit(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = Fields(Kind.AUDIT, record)
        row = {
            "id": fields.key("id"),
            "terminal_id": fields.owner(terminal_id),
            "at": fields.time("at"),
            "action": fields.text("action"),
            "actor": fields.optional_text("actor"),
            "detail": fields.json("detail", dict, default={}),
        }
        fields.done()
        return self._insert_once(conn, Kind.AUDIT, row, terminal_id)

    def _put_shift(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = Fields(Kind.SHIFT, record)
        row: dict[str, Any] = {
            "id": fields.key("id"),
            "terminal_id": fields.owner(terminal_id),
            "opened_at": fields.time("opened_at"),
            "opened_by": fields.text("opened_by"),
            "opening_float": fields.count("opening_float"),
        }
        close: dict[str, Any] = {
            "closed_at": fields.optional_time("closed_at"),
            "closed_by": fields.optional_text("closed_by"),
            "counted_cash": fields.optional_count("counted_cash"),
            "counted_pieces": fields.optional_json("counted_pieces", list),
            "expected_cash": fields.optional_count("expected_cash"),
        }
        fields.done()
        if (close["closed_at"] is None) != (close["closed_by"] is None) or (close["closed_at"] is None) != (
            close["counted_cash"] is None
        ):
            raise ValueError("a shift is closed with closed_at, closed_by and counted_cash together")
        stored = one_row(conn, Kind.SHIFT, row["id"])
        if stored is None:
            return self._insert_once(conn, Kind.SHIFT, row | close, terminal_id)
        self._own(stored, Kind.SHIFT, terminal_id)
        if stored["closed_at"] is not None or close["closed_at"] is None:
            return False  # a replay, or a close recorded already: the first close stays
        table = schema.shift
        conn.execute(sa.update(table).where(table.c.id == row["id"], table.c.closed_at.is_(None)).values(**close))
        self.log_change(conn, Kind.SHIFT, row["id"], terminal_id)
        return True

    def _put_person(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = Fields(Kind.PERSON, record)
        person_id = fields.key("id")
        name = fields.text("name")
        key = name_key(name)
        fields.ignore("name_key", "updated_by_till")
        details = {
            "name": name,
            "name_key": key,
            "role": str(fields.choice("role", Role)),
            "pin_hash": fields.text("pin_hash"),
            "active": fields.flag("active", default=True),
        }
        stamp = fields.stamp(terminal_id)
        lock_given = any(column in record for column in ("wrong_pins", "locked_until", "lock_epoch"))
        lockout = Lockout(
            fields.count("wrong_pins", default=0),
            fields.optional_time("locked_until"),
            fields.count("lock_epoch", default=0),
        )
        fields.done()
        table = schema.person
        stored = one_row(conn, Kind.PERSON, person_id)
        wins = stored is None or stamp > stamp_of(stored)
        if wins:
            taken = f"Someone else in the store is already called “{name}”."
            self._unique(conn, Kind.PERSON, person_id, table.c.name_key, key, taken)
        if stored is None:
            row = details | edit_columns(stamp) | lockout_columns(lockout) | {"id": person_id}
            conn.execute(sa.insert(table).values(**row))
        else:
            if wins:
                conn.execute(sa.update(table).where(table.c.id == person_id).values(**details, **edit_columns(stamp)))
            locked = lock_given and self._merge_lockout(conn, person_id, stored, lockout)
            if not (wins or locked):
                return False
        self.log_change(conn, Kind.PERSON, person_id, terminal_id)
        return True

    def _merge_lockout(self, conn: Connection, person_id: str, stored: Mapping[str, Any], incoming: Lockout) -> bool:
        """Write the merge of the stored lockout and ``incoming``; False when that is the stored one."""
        known = Lockout(stored["wrong_pins"], stored["locked_until"], stored["lock_epoch"])
        merged = known.merge(incoming)
        if merged == known:
            return False
        table = schema.person
        conn.execute(sa.update(table).where(table.c.id == person_id).values(**lockout_columns(merged)))
        return True

    def _put_category(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = Fields(Kind.CATEGORY, record)
        category_id = fields.key("id")
        name = fields.text("name")
        fields.ignore("updated_by_till")
        details = {
            "name": name,
            "position": fields.count("position", default=0),
            "active": fields.flag("active", default=True),
        }
        stamp = fields.stamp(terminal_id)
        fields.done()
        table = schema.category
        return self._edit(
            conn,
            Kind.CATEGORY,
            category_id,
            details,
            stamp,
            lambda: self._unique(
                conn, Kind.CATEGORY, category_id, table.c.name, name, f"Another category is already called “{name}”."
            ),
            one_row(conn, Kind.CATEGORY, category_id),
        )

    def put_product(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        product_id, codes, details, stamp = product_fields(record, terminal_id)
        table = schema.product_code

        def unique() -> None:
            if not details["active"]:
                return  # a product taken off keeps its codes, and keeps no one from them
            for gtin, code in codes:
                other = conn.execute(
                    sa.select(table.c.product_id).where(
                        table.c.gtin == gtin, table.c.active, table.c.product_id != product_id
                    )
                ).scalar()
                if other is not None:
                    raise StoreConflict(f"Another product already has the barcode {code}.")

        stored = one_row(conn, Kind.PRODUCT, product_id)
        if not self._edit(conn, Kind.PRODUCT, product_id, details, stamp, unique, stored):
            return False
        if stored is not None:  # a new product has no codes to replace
            conn.execute(sa.delete(table).where(table.c.product_id == product_id))
        if codes:
            conn.execute(
                sa.insert(table),
                [
                    {
                        "gtin": gtin,
                        "code": code,
                        "product_id": product_id,
                        "position": position,
                        "active": details["active"],
                    }
                    for position, (gtin, code) in enumerate(codes)
                ],
            )
        return True

    def put_products(self, conn: Connection, records: Sequence[Mapping[str, Any]], terminal_id: str) -> list[bool]:
        """:meth:`put_product` for each of ``records`` in order, with a few statements for the run: the same
        checks and the same outcome (a code another active product holds, as the run leaves it, is refused)."""
        parsed = [product_fields(record, terminal_id) for record in records]
        ids = [product_id for product_id, *_ in parsed]
        if len(set(ids)) != len(ids):  # the same product twice in one run: one at a time, in order
            return [self.put_product(conn, record, terminal_id) for record in records]
        products, codes_table = schema.product, schema.product_code
        stored: dict[str, dict[str, Any]] = {}
        held: dict[str, str] = {}  # gtin -> the active product holding it
        wanted = {gtin for _, codes, _, _ in parsed for gtin, _ in codes}
        for chunk in chunks(ids):
            for found in conn.execute(sa.select(products).where(products.c.id.in_(chunk))).mappings():
                stored[found["id"]] = dict(found)
            for holder in conn.execute(
                sa.select(codes_table.c.product_id, codes_table.c.gtin).where(
                    codes_table.c.product_id.in_(chunk), codes_table.c.active
                )
            ):
                held[holder.gtin] = holder.product_id
        for chunk in chunks(sorted(wanted)):
            for holder in conn.execute(
                sa.select(codes_table.c.product_id, codes_table.c.gtin).where(
                    codes_table.c.gtin.in_(chunk), codes_table.c.active
                )
            ):
                held[holder.gtin] = holder.product_id
        written: list[bool] = []
        inserts: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        new_codes: list[dict[str, Any]] = []
        replaced: list[str] = []
        for product_id, codes, details, stamp in parsed:
            before = stored.get(product_id)
            if before is not None and not stamp > stamp_of(before):
                written.append(False)
                continue
            for gtin in [g for g, owner in held.items() if owner == product_id]:
                del held[gtin]  # what it held is replaced by what it gives now
            if details["active"]:
                for gtin, code in codes:
                    if held.get(gtin, product_id) != product_id:
                        raise StoreConflict(f"Another product already has the barcode {code}.")
                    held[gtin] = product_id
            row = details | edit_columns(stamp)
            if before is None:
                inserts.append(row | {"id": product_id})
            else:
                updates.append({f"new_{name}": value for name, value in row.items()} | {"key": product_id})
                replaced.append(product_id)
            new_codes += [
                {"product_id": product_id, "gtin": gtin, "code": code, "position": index, "active": details["active"]}
                for index, (gtin, code) in enumerate(codes)
            ]
            written.append(True)
        if inserts:
            conn.execute(sa.insert(products), inserts)
        if updates:
            # bound under other names: SQLAlchemy keeps a column's own name for its SET clause
            columns: dict[str, Any] = {name[4:]: sa.bindparam(name) for name in updates[0] if name != "key"}
            conn.execute(sa.update(products).where(products.c.id == sa.bindparam("key")).values(columns), updates)
        for chunk in chunks(replaced):
            conn.execute(sa.delete(codes_table).where(codes_table.c.product_id.in_(chunk)))
        if new_codes:
            conn.execute(sa.insert(codes_table), new_codes)
        changed = [product_id for (product_id, *_), done in zip(parsed, written, strict=True) if done]
        if changed:
            at = self.now()
            log = schema.change_log
            conn.execute(
                sa.insert(log),
                [{"kind": str(Kind.PRODUCT), "key": key, "terminal_id": terminal_id, "at": at} for key in changed],
            )
            conn.info[NEWEST_SEQ] = max(newest_seq(conn), conn.info.get(NEWEST_SEQ, 0))
        return written

    def _put_store_info(self, conn: Connection, record: Mapping[str, Any], terminal_id: str) -> bool:
        fields = Fields(Kind.STORE_INFO, record)
        if fields.count("id", default=1) != 1:
            raise ValueError("the store's details are one record, id 1")
        fields.ignore("updated_by_till")
        details = {
            "name": fields.text("name"),
            "address": fields.optional_text("address"),
            "tax_number": fields.optional_text("tax_number"),
            "receipt_header": fields.optional_text("receipt_header"),
            "receipt_footer": fields.optional_text("receipt_footer"),
            "updated_by": fields.optional_text("updated_by"),
            "logo": fields.logo("logo"),
        }
        stamp = fields.stamp(terminal_id)
        fields.done()
        return self._edit(conn, Kind.STORE_INFO, "1", details, stamp, lambda: None, one_row(conn, Kind.STORE_INFO, "1"))

    def _edit(
        self,
        conn: Connection,
        kind: Kind,
        key: str,
        details: dict[str, Any],
        stamp: Stamp,
        check_unique: Callable[[], None],
        stored: Mapping[str, Any] | None,
    ) -> bool:
        """Last writer wins: write ``details`` when ``stamp`` is greater than ``stored``'s (the record as it is)."""
        table = schema.TABLES[kind]
        if stored is not None and not stamp > stamp_of(stored):
            return False
        check_unique()
        values = details | edit_columns(stamp)
        if stored is None:
            conn.execute(sa.insert(table).values(id=primary_key_of(kind, key), **values))
        else:
            conn.execute(sa.update(table).where(table.c.id == primary_key_of(kind, key)).values(**values))
        self.log_change(conn, kind, key, stamp.till)
        return True

    def _unique(self, conn: Connection, kind: Kind, key: str, column: sa.Column[Any], value: Any, taken: str) -> None:
        """:class:`StoreConflict` with the sentence ``taken`` when another record of ``kind`` has ``value``."""
        table = schema.TABLES[kind]
        other = conn.execute(sa.select(table.c.id).where(column == value, table.c.id != key)).scalar()
        if other is not None:
            raise StoreConflict(taken)

    def _insert_once(self, conn: Connection, kind: Kind, row: dict[str, Any], terminal_id: str) -> bool:
        stored = one_row(conn, kind, row["id"])
        if stored is not None:
            self._own(stored, kind, terminal_id)
            return False
        conn.execute(sa.insert(schema.TABLES[kind]).values(**row))
        self.log_change(conn, kind, row["id"], terminal_id)
        return True

    @staticmethod
    def _own(stored: Mapping[str, Any], kind: Kind, terminal_id: str) -> None:
        if stored["terminal_id"] != terminal_id:
            raise WrongTill(
                f"Till {terminal_id} cannot write {KIND_NAMES[kind]} {stored['id']}, which belongs to till"
                f" {stored['terminal_id']}."
            )

    def log_change(self, conn: Connection, kind: Kind, key: str, terminal_id: str) -> int:
        """Append to change_log in the writing transaction; on PostgreSQL the transaction NOTIFYs its newest
        number once, at its end (a batch of 200 records is one notification, not 200)."""
        table = schema.change_log
        result = conn.execute(sa.insert(table).values(kind=str(kind), key=key, terminal_id=terminal_id, at=self.now()))
        inserted = result.inserted_primary_key
        assert inserted is not None
        seq = int(inserted[0])
        conn.info[NEWEST_SEQ] = max(seq, conn.info.get(NEWEST_SEQ, 0))
        return seq
