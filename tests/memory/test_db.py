"""Connections and transactions (M-19)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.memory.db import iter_statements
from autopatch_j.memory.errors import StorageError
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent


def test_every_connection_sets_foreign_keys_busy_timeout_and_synchronous(manager: MemoryManager) -> None:
    conn = manager.db.connect()
    try:
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == manager.db.busy_timeout_ms
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_the_idle_keeper_keeps_the_wal_between_short_transactions(manager: MemoryManager) -> None:
    wal = Path(str(manager.paths.db) + "-wal")
    ticket = manager.begin_turn("one", Intent.GENERAL_CHAT)
    manager.complete_turn(ticket, "two")
    assert wal.exists()  # not checkpointed away by the short connection closing
    manager.close()
    assert not wal.exists()  # the last connection closed: SQLite checkpoints and removes it


def test_a_failed_transaction_rolls_back_everything(manager: MemoryManager) -> None:
    with pytest.raises(RuntimeError), manager.db.write("test") as conn:
        conn.execute("INSERT INTO threads (status, created_at, archived_at) VALUES ('archived', 1, 1)")
        raise RuntimeError("boom")
    with manager.db.read("count") as conn:
        assert conn.execute("SELECT count(*) FROM threads").fetchone()[0] == 1


def test_constraint_violations_become_storage_errors(manager: MemoryManager) -> None:
    with pytest.raises(StorageError), manager.db.write("insert a second active thread") as conn:
        conn.execute("INSERT INTO threads (status, created_at) VALUES ('active', 1)")


def test_iter_statements_keeps_trigger_bodies_and_rejects_a_trailing_fragment() -> None:
    script = "CREATE TABLE a (x INTEGER);\n-- comment\nCREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END;\n"
    statements = list(iter_statements(script))
    assert len(statements) == 2
    assert statements[1].endswith("BEGIN SELECT 1; END;") and "CREATE TRIGGER t" in statements[1]
    with pytest.raises(StorageError):
        list(iter_statements("CREATE TABLE b (x INTEGER"))
