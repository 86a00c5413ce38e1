"""Connections and migrations: pragmas, user_version, one transaction per migration, refusal of newer files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pos_terminal.disk.sqlite import DatabaseTooNew, StorageError, connect, migrate, transaction, user_version
from pos_terminal.errors import UserError

STEPS = [
    "CREATE TABLE a (x INTEGER);",
    "ALTER TABLE a ADD COLUMN y TEXT; CREATE TABLE b (z INTEGER);",
]


def test_connect_sets_the_pragmas(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] > 0
        assert conn.isolation_level is None
    finally:
        conn.close()


def test_connect_creates_the_folder(tmp_path: Path) -> None:
    connect(tmp_path / "deep" / "er" / "db.sqlite3").close()
    assert (tmp_path / "deep" / "er" / "db.sqlite3").exists()


def test_migrations_apply_in_order_and_set_user_version(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    conn = connect(path)
    assert migrate(conn, STEPS[:1]) == 1
    assert user_version(conn) == 1
    assert migrate(conn, STEPS) == 2
    assert user_version(conn) == 2
    conn.execute("INSERT INTO a (x, y) VALUES (1, 'one')")
    conn.close()
    conn = connect(path)
    assert migrate(conn, STEPS) == 2  # nothing left to do
    assert conn.execute("SELECT y FROM a").fetchone()[0] == "one"
    conn.close()


def test_a_failing_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    migrate(conn, STEPS[:1])
    broken = [STEPS[0], "CREATE TABLE c (x INTEGER); INSERT INTO nowhere VALUES (1);"]
    with pytest.raises(sqlite3.OperationalError):
        migrate(conn, broken)
    assert user_version(conn) == 1
    assert not conn.in_transaction
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "c" not in tables  # the half-run migration was rolled back
    conn.close()


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    conn = connect(path)
    migrate(conn, STEPS)
    conn.close()
    conn = connect(path)
    with pytest.raises(DatabaseTooNew) as caught:
        migrate(conn, STEPS[:1])
    assert str(path) in caught.value.text()
    assert "newer version" in caught.value.sentence
    assert user_version(conn) == 2  # never downgraded
    conn.close()


def test_a_file_that_is_not_a_database_gets_a_sentence(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    path.write_bytes(b"this is not a database " * 200)
    with pytest.raises(StorageError) as caught:
        connect(path)
    assert isinstance(caught.value, UserError)
    assert str(path) in caught.value.sentence
    assert caught.value.sentence.endswith(".")


def test_transaction_commits_or_rolls_back(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    migrate(conn, STEPS[:1])
    with transaction(conn):
        conn.execute("INSERT INTO a VALUES (1)")

    def fail_half_way() -> None:
        with transaction(conn):
            conn.execute("INSERT INTO a VALUES (2)")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fail_half_way()
    assert [row[0] for row in conn.execute("SELECT x FROM a")] == [1]
    assert not conn.in_transaction
    conn.close()
