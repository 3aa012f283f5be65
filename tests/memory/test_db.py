"""Connections and transactions (M-19)."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from autopatch_j.memory.db import iter_statements
from autopatch_j.memory.errors import InvalidInputError, StorageError
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


def test_every_connection_keeps_its_temporary_structures_in_memory(manager: MemoryManager) -> None:
    conn = manager.db.connect()
    try:
        assert conn.execute("PRAGMA temp_store").fetchone()[0] == 2  # MEMORY: no temporary file per transaction
    finally:
        conn.close()


def test_each_search_reads_on_a_fresh_connection_with_temporaries_in_memory(manager: MemoryManager) -> None:
    """`MemoryManager.search` (CLI, agent tool, MCP): a fresh read connection per call (never the idle
    writer connection, whose reuse by readers would starve the WAL checkpoint), temporaries in memory."""
    thread = manager.active_thread().id
    sent: list[str] = []
    manager.db.set_trace(sent.append)
    try:
        for _ in range(2):
            manager.search(thread_id=thread, query="anything at all")
    finally:
        manager.db.set_trace(None)
    assert sent.count("PRAGMA temp_store = MEMORY") == 2  # one connection opened per call
    assert sent.count("BEGIN") == 2 and "BEGIN IMMEDIATE" not in sent


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


# -- reusing the idle connection (issue 16: admission speed) ----------------------------------------


def _traced(manager: MemoryManager, action: Callable[[], object]) -> list[str]:
    statements: list[str] = []
    manager.db.set_trace(statements.append)
    try:
        action()
    finally:
        manager.db.set_trace(None)
    return statements


def _turn_texts(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [row[0] for row in conn.execute("SELECT user_text FROM turns ORDER BY id")]
    finally:
        conn.close()


def test_an_opened_store_runs_its_transactions_on_the_idle_connection(manager: MemoryManager) -> None:
    def admit() -> None:
        manager.complete_turn(manager.begin_turn("q", Intent.GENERAL_CHAT), "a")

    admit()
    statements = _traced(manager, admit)
    # No connect, no connection pragmas, no schema parse (`data_version` is the verification stamp's, memory/stamp.py).
    assert not [s for s in statements if s.startswith("PRAGMA") and s != "PRAGMA data_version"]
    assert [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT")] == ["BEGIN IMMEDIATE", "COMMIT"] * 2


def test_a_refused_message_keeps_the_idle_connection_and_its_wal(manager: MemoryManager) -> None:
    wal = Path(str(manager.paths.db) + "-wal")
    manager.complete_turn(manager.begin_turn("one", Intent.GENERAL_CHAT), "two")
    with pytest.raises(InvalidInputError):
        manager.begin_turn("   ", Intent.GENERAL_CHAT)
    assert wal.exists()  # the rolled-back connection went back to the pool instead of being the last one closed
    statements = _traced(manager, lambda: manager.begin_turn("three", Intent.GENERAL_CHAT))
    assert not [s for s in statements if s.startswith("PRAGMA") and s != "PRAGMA data_version"]


def test_a_file_replaced_under_an_open_store_is_never_written_through_the_old_inode(
    manager: MemoryManager, tmp_path: Path
) -> None:
    db = manager.paths.db
    manager.complete_turn(manager.begin_turn("before the swap", Intent.GENERAL_CHAT), "ok")
    copy = tmp_path / "copy.db"
    source, target = sqlite3.connect(db), sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.close()
    for suffix in ("-wal", "-shm"):  # as `clear` does before it renames a rebuilt file over a damaged one
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    os.replace(copy, db)
    manager.complete_turn(manager.begin_turn("after the swap", Intent.GENERAL_CHAT), "ok")
    assert _turn_texts(db) == ["before the swap", "after the swap"]


def test_a_forked_child_never_uses_the_parents_connections(manager: MemoryManager) -> None:
    manager.complete_turn(manager.begin_turn("parent 1", Intent.GENERAL_CHAT), "ok")
    pid = os.fork()
    if pid == 0:  # the child: admit through the inherited manager, then leave without cleanup
        code = 1
        try:
            manager.complete_turn(manager.begin_turn("child", Intent.GENERAL_CHAT), "ok")
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    manager.complete_turn(manager.begin_turn("parent 2", Intent.GENERAL_CHAT), "ok")
    assert _turn_texts(manager.paths.db) == ["parent 1", "child", "parent 2"]
    conn = sqlite3.connect(manager.paths.db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_threads_of_one_process_share_an_opened_store(manager: MemoryManager) -> None:
    def admit(label: str) -> None:
        for i in range(25):
            manager.complete_turn(manager.begin_turn(f"{label} {i}", Intent.GENERAL_CHAT), "ok")

    workers = [threading.Thread(target=admit, args=(f"t{n}",)) for n in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    conn = sqlite3.connect(manager.paths.db)
    try:
        seqs = [row[0] for row in conn.execute("SELECT seq FROM turns ORDER BY seq")]
        statuses = {row[0] for row in conn.execute("SELECT status FROM turns")}
    finally:
        conn.close()
    assert seqs == list(range(1, 101)) and statuses == {"completed"}
