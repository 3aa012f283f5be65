"""Bootstrap: create, verify, and the corruption matrix (M-13 … M-18, M-31).

Every corrupted store must be reported degraded with a reason, keep its bytes (schema, data and
journal mode) untouched, refuse guarded commands, still serve status/show/export, and be
recoverable by `clear --confirm` with generation = max(meta, jobs, 0) + 1.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from autopatch_j.memory.catalog import manifest, read_catalog
from autopatch_j.memory.errors import MemorySchemaError, StorageError
from autopatch_j.memory.index import index_item_in_tx
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.runtime import FakeClock

META_GENERATION = 5
JOB_GENERATION = 7


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _seed_healthy(root: Path) -> Path:
    """A healthy store with a turn, a job of generation 7, meta generation 5 and one memory item."""
    clock = FakeClock()
    m = MemoryManager(root=root, clock=clock, owner="seed")
    assert m.open().ok
    ticket = m.begin_turn("From now on, answer first.", Intent.GENERAL_CHAT)
    m.complete_turn(ticket, "OK.")
    m.close()
    conn = sqlite3.connect(m.paths.db)
    with conn:
        conn.execute("UPDATE memory_meta SET generation = ?", (META_GENERATION,))
        conn.execute("UPDATE memory_jobs SET generation = ?", (JOB_GENERATION,))
        conn.execute(
            "INSERT INTO memory_items (memory_id, revision, kind, title, content, non_factual, status, operation,"
            " created_at, updated_at) VALUES (1, 1, 'user_preference', 'Answer first', 'Give the conclusion first.',"
            " 0, 'active', 'create', 1, 1)"
        )
        conn.execute(
            "INSERT INTO memory_candidates (id, thread_id, extraction_job_id, kind, content, non_factual, status,"
            " created_at) VALUES (1, 1, 1, 'user_preference', 'Answer first', 0, 'applied', 1)"
        )
        conn.execute("INSERT INTO candidate_sources VALUES (1, 0, ?, 'user', 'answer first')", (ticket.turn_id,))
        conn.execute("INSERT INTO memory_item_candidates VALUES (1, 1)")
        index_item_in_tx(conn, item_id=1, title="Answer first", aliases=(), keywords=(), content="conclusion first")
    conn.close()
    return m.paths.db


def _checkpoint(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _sql(*statements: str) -> Callable[[Path], None]:
    def corrupt(db: Path) -> None:
        conn = sqlite3.connect(db, isolation_level=None)
        for statement in statements:
            conn.execute(statement)
        conn.close()
        _checkpoint(db)

    return corrupt


def _foreign_table_version_zero(db: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE foreign_stuff (x TEXT)")
    conn.commit()
    conn.close()


def _garbage(db: Path) -> None:
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.write_bytes(b"this is not a sqlite database at all \x00\x01\x02" * 200)


def _truncate(db: Path) -> None:
    _checkpoint(db)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])


@dataclass(frozen=True)
class Case:
    corrupt: Callable[[Path], None]
    reason: str
    items_readable: bool
    expected_generation: int | None  # None: not knowable from a damaged file; only >= 1 is checked


CASES = {
    "extra_table": Case(_sql("CREATE TABLE extra (x TEXT)"), "unknown table 'extra'", True, 8),
    "extra_index": Case(_sql("CREATE INDEX extra_idx ON turns (user_text)"), "unknown index 'extra_idx'", True, 8),
    "extra_trigger": Case(
        _sql("CREATE TRIGGER extra_trg AFTER INSERT ON turns BEGIN SELECT 1; END"),
        "unknown trigger 'extra_trg'",
        True,
        8,
    ),
    "extra_view": Case(_sql("CREATE VIEW extra_view AS SELECT 1"), "unknown view 'extra_view'", True, 8),
    "dropped_index": Case(_sql("DROP INDEX turns_open_lease"), "index 'turns_open_lease'", True, 8),
    "altered_column": Case(_sql("ALTER TABLE turns ADD COLUMN extra TEXT"), "table 'turns' differs", True, 8),
    "missing_meta": Case(_sql("DELETE FROM memory_meta"), "memory_meta must hold exactly one row", True, 8),
    "two_active_threads": Case(
        _sql("DROP INDEX threads_one_active", "INSERT INTO threads (status, created_at) VALUES ('active', 1)"),
        "threads_one_active",
        True,
        8,
    ),
    "no_active_thread": Case(
        _sql("UPDATE threads SET status = 'archived', archived_at = 1"), "exactly one active thread", True, 8
    ),
    "foreign_table_version_0": Case(_foreign_table_version_zero, "user_version is 0", False, 1),
    "user_version_8": Case(_sql("PRAGMA user_version = 8"), "schema version 8", True, 8),
    # v6's compact index: a store whose postings may name no term, or whose term lists are back, is drift.
    "dropped_posting_term_check": Case(
        _sql("DROP TRIGGER memory_postings_term"),
        "trigger 'memory_postings_term' of the Memory schema is missing",
        True,
        8,
    ),
    "v5_index_tables": Case(
        _sql(
            "DROP TABLE memory_search_docs",
            "CREATE TABLE memory_search_docs (item_id INTEGER PRIMARY KEY, terms TEXT NOT NULL) STRICT",
        ),
        "memory_search_docs",
        True,
        8,
    ),
    # v7's key version: its table is part of the catalog (a missing row is no damage: the open rebuilds).
    "dropped_index_keys": Case(
        _sql("DROP TABLE memory_index_keys"), "table 'memory_index_keys' of the Memory schema is missing", True, 8
    ),
    "garbage_bytes": Case(_garbage, "not a valid SQLite database", False, 1),
    "truncated": Case(_truncate, "", False, None),
    # `_` is a LIKE wildcard: objects merely *resembling* SQLite's internal names are still unknown (issue 9.1).
    "lookalike_table": Case(_sql("CREATE TABLE sqlite1tab (x TEXT)"), "unknown table 'sqlite1tab'", True, 8),
    "lookalike_index": Case(
        _sql("CREATE INDEX sqlite1idx ON turns (user_text)"), "unknown index 'sqlite1idx'", True, 8
    ),
    "lookalike_trigger": Case(
        _sql(
            "CREATE TRIGGER sqlite1trg AFTER INSERT ON turns "
            "BEGIN UPDATE turns SET user_text = 'rewritten' WHERE id = new.id; END"
        ),
        "unknown trigger 'sqlite1trg'",
        True,
        8,
    ),
    "lookalike_view": Case(_sql("CREATE VIEW sqlite1view AS SELECT 1"), "unknown view 'sqlite1view'", True, 8),
}


@pytest.fixture(params=sorted(CASES))
def corrupted(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Case]:
    case = CASES[request.param]
    db = _seed_healthy(tmp_path)
    _checkpoint(db)
    case.corrupt(db)
    return tmp_path, case


def test_corrupted_store_is_degraded_with_reason_and_untouched(corrupted: tuple[Path, Case]) -> None:
    root, case = corrupted
    db = root / ".autopatch-j" / "memory.db"
    before = _file_digest(db)
    m = MemoryManager(root=root, clock=FakeClock(), busy_timeout_ms=200)
    health = m.open()
    assert not health.ok
    assert health.reason and case.reason in health.reason

    with pytest.raises(MemorySchemaError):
        m.begin_turn("hello", Intent.GENERAL_CHAT)
    with pytest.raises(MemorySchemaError):
        m.list_items()
    with pytest.raises(MemorySchemaError):
        m.forget(1)
    with pytest.raises(MemorySchemaError):
        m.start_new_thread()

    report = m.status()
    assert report.health.state == "degraded"
    if case.items_readable:
        assert m.show_item(1).item.title == "Answer first"
    else:
        with pytest.raises(StorageError):
            m.show_item(1)
    try:
        exported = json.loads(m.export().path.read_text(encoding="utf-8"))
    except StorageError as exc:  # nothing at all readable: no export, never an empty "success" (issue 9.3)
        assert not case.items_readable and "Nothing could be read" in str(exc)
    else:
        assert "RAW" in exported["notice"]
        assert exported["tables"], "an export reported success with no table read"
        if case.items_readable:
            assert exported["tables"]["turns"][0]["user_text"] == "From now on, answer first."

    assert _file_digest(db) == before, "verification or diagnosis changed the degraded file"
    assert not Path(str(db) + "-wal").exists() or Path(str(db) + "-wal").stat().st_size == 0

    inode = db.stat().st_ino
    result = m.clear(confirm=True)
    assert result.damaged_copy is not None, "a damaged file was rewritten without keeping its bytes"
    assert _file_digest(result.damaged_copy / "memory.db") == before
    if case.items_readable:  # an openable file is rebuilt in place: other processes keep a valid file
        assert db.stat().st_ino == inode
    if case.expected_generation is not None:
        assert result.generation == case.expected_generation
    assert result.generation >= 1
    assert m.health.ok
    assert m.list_items() == []
    conn = sqlite3.connect(db)
    try:
        assert read_catalog(conn) == manifest(), "clear --confirm left an object outside the v2 schema"
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'sqlite1%'").fetchone()[0] == 0
    finally:
        conn.close()
    fresh = MemoryManager(root=root, clock=FakeClock())
    assert fresh.open().ok


def test_first_init_creates_schema_meta_and_one_active_thread(tmp_path: Path) -> None:
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    assert m.open().ok
    conn = sqlite3.connect(m.paths.db)
    assert conn.execute("SELECT id, generation FROM memory_meta").fetchall() == [(1, 1)]
    assert conn.execute("SELECT count(*) FROM threads WHERE status = 'active'").fetchone()[0] == 1
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_reopening_a_healthy_store_verifies_only(tmp_path: Path) -> None:
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    m.open()
    statements: list[str] = []
    again = MemoryManager(root=tmp_path, clock=FakeClock(), trace=statements.append)
    assert again.open().ok
    writes = [s for s in statements if s.split()[0].upper() in {"CREATE", "INSERT", "DELETE", "DROP", "ALTER"}]
    assert writes == []
    assert again.active_thread().id == m.active_thread().id


def test_blank_file_with_user_version_zero_is_initialized(tmp_path: Path) -> None:
    db = tmp_path / ".autopatch-j" / "memory.db"
    db.parent.mkdir()
    sqlite3.connect(db).close()
    assert db.exists()
    assert MemoryManager(root=tmp_path, clock=FakeClock()).open().ok


def test_legacy_json_is_deleted_unread_at_first_init(tmp_path: Path) -> None:
    legacy = tmp_path / ".autopatch-j" / "memory.json"
    legacy.parent.mkdir()
    legacy.write_text("{not even json", encoding="utf-8")
    assert MemoryManager(root=tmp_path, clock=FakeClock()).open().ok
    assert not legacy.exists()


def test_legacy_json_that_cannot_be_deleted_is_a_visible_storage_error(tmp_path: Path) -> None:
    legacy = tmp_path / ".autopatch-j" / "memory.json"
    legacy.mkdir(parents=True)  # a directory: unlink fails
    (legacy / "x").write_text("x", encoding="utf-8")
    with pytest.raises(StorageError, match="legacy"):
        MemoryManager(root=tmp_path, clock=FakeClock()).open()


def test_locked_rollback_database_is_degraded_not_empty(tmp_path: Path) -> None:
    db = _seed_healthy(tmp_path)
    _checkpoint(db)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("BEGIN EXCLUSIVE")
    try:
        m = MemoryManager(root=tmp_path, clock=FakeClock(), busy_timeout_ms=100)
        health = m.open()
        assert not health.ok and "locked" in (health.reason or "")
        with pytest.raises(MemorySchemaError):
            m.list_items()
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def test_write_locked_past_busy_timeout_is_one_clear_error(manager: MemoryManager) -> None:
    blocker = sqlite3.connect(manager.paths.db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        slow = MemoryManager(root=manager.paths.root, clock=FakeClock(), busy_timeout_ms=100)
        assert slow.open().ok  # WAL: readers are not blocked
        with pytest.raises(StorageError, match="locked by another process"):
            slow.begin_turn("hi", Intent.GENERAL_CHAT)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()


def test_missing_active_thread_is_never_recreated_by_a_later_start(tmp_path: Path) -> None:
    db = _seed_healthy(tmp_path)
    _sql("UPDATE threads SET status = 'archived', archived_at = 1")(db)
    for _ in range(2):
        assert not MemoryManager(root=tmp_path, clock=FakeClock()).open().ok
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM threads WHERE status = 'active'").fetchone()[0] == 0
    conn.close()
