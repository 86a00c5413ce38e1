"""``set_up_store``, the one code path of ``store init`` and of the set-up page's offer, on a SQLite file and a real
PostgreSQL: a new store takes the currency given and keeps it; a newer schema is refused in one sentence."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from pos_terminal.services.store_owner import set_up_store
from pos_terminal.store.database import StoreSchemaTooNew
from tests.helpers.store import assert_one_sentence
from tests.store.postgres import StoreTarget


def test_a_new_store_counts_in_the_currency_it_was_set_up_in_for_good(store_target: StoreTarget) -> None:
    done = set_up_store(store_target.url, store_target.password, currency="EUR")
    assert done.currency == "EUR"  # (the tills' role is the server's: another test's may be there already)
    again = set_up_store(store_target.url, store_target.password, currency="GBP")  # an upgrade from a GBP till
    assert again.currency == "EUR", "a store's currency does not change"


def test_a_store_set_up_by_a_newer_pos_terminal_is_one_sentence(store_target: StoreTarget) -> None:
    set_up_store(store_target.url, store_target.password, currency="EUR")
    with store_target.open()._engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(StoreSchemaTooNew) as refused:
        set_up_store(store_target.url, store_target.password, currency="EUR")
    assert_one_sentence(refused.value, "9999")
    assert refused.value.hint == "Update pos-terminal on this till."
