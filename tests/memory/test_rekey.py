"""The store knows which key version built its index: recorded at creation and by every rebuild, read
once per open, and a stale index rebuilt once in one IMMEDIATE transaction that checks again first."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.rekey import KEY_VERSION, rebuild_in_tx
from tests.memory.item_factory import add_item, add_item_in_tx
from tests.memory.stale_index import as_an_older_release_left_it, recorded_versions, store_with_a_plural_acronym


def _stale_store(root: Path) -> Path:
    """A store holding one memory found by `PR` only through `PRs` → pr, its index as an older
    derivation left it (the plural kept) and that older version recorded."""
    db = store_with_a_plural_acronym(root)
    as_an_older_release_left_it(db)
    return db


def _titles(manager: MemoryManager, query: str) -> list[str]:
    return [hit.title for hit in manager.search(thread_id=manager.active_thread().id, query=query)]


def test_a_new_store_records_the_current_key_version(manager: MemoryManager) -> None:
    assert recorded_versions(manager.paths.db) == [(KEY_VERSION,)]
    assert manager.rekey is not None and manager.rekey.outcome == "current"


def test_opening_a_current_store_reads_the_version_once_and_writes_nothing_for_it(manager: MemoryManager) -> None:
    manager.close()
    sent: list[str] = []
    again = MemoryManager(root=manager.paths.root, trace=sent.append)
    assert again.open().ok
    again.close()
    assert sum("memory_index_keys" in statement for statement in sent) == 1
    assert not [s for s in sent if "memory_postings" in s or "memory_term_stats" in s]


def test_a_stale_index_is_rebuilt_once_at_open_before_any_search(tmp_path: Path) -> None:
    db = _stale_store(tmp_path)
    manager = MemoryManager(root=tmp_path)
    assert manager.open().ok
    try:
        assert manager.rekey is not None
        assert (manager.rekey.outcome, manager.rekey.built_by, manager.rekey.items) == ("rebuilt", KEY_VERSION - 1, 1)
        assert _titles(manager, "PR") == ["Code review"]
    finally:
        manager.close()
    assert recorded_versions(db) == [(KEY_VERSION,)]


def test_an_open_that_waited_for_another_rebuild_rebuilds_nothing(tmp_path: Path) -> None:
    """The second of two opens reads the stale version, then waits on the write lock the first holds
    while it rebuilds; once it gets the lock it reads the version again and finds it current."""
    db = _stale_store(tmp_path)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the first process, rebuilding
    waiting = threading.Event()
    sent: list[str] = []

    def trace(statement: str) -> None:
        sent.append(statement)
        if statement == "BEGIN IMMEDIATE" and any("memory_index_keys" in s for s in sent):
            waiting.set()

    second = MemoryManager(root=tmp_path, trace=trace)
    opened = threading.Thread(target=second.open)
    opened.start()
    try:
        assert waiting.wait(timeout=30)
        rebuild_in_tx(holder)
        holder.execute("COMMIT")
        opened.join(timeout=30)
        assert second.rekey is not None and second.rekey.outcome == "current"
        assert not [s for s in sent if s.startswith("DELETE FROM memory_postings")]  # it rebuilt nothing
        assert _titles(second, "PR") == ["Code review"]
    finally:
        if holder.in_transaction:
            holder.execute("ROLLBACK")
        holder.close()
        second.close()


def test_a_locked_store_opens_searches_the_old_index_and_is_rebuilt_later(tmp_path: Path) -> None:
    db = _stale_store(tmp_path)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # a writer that keeps the lock past the busy timeout
    manager = MemoryManager(root=tmp_path, busy_timeout_ms=100)
    try:
        assert manager.open().ok
        assert manager.rekey is not None and manager.rekey.outcome == "deferred"
        assert "locked" in manager.rekey.reason
        assert _titles(manager, "approvals") == ["Code review"]  # the old index still answers
        assert _titles(manager, "PR") == []  # as the old keys did
        assert manager.status().index_key_version == KEY_VERSION - 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        manager.close()
    later = MemoryManager(root=tmp_path)
    assert later.open().ok
    try:
        assert later.rekey is not None and later.rekey.outcome == "rebuilt"
        assert _titles(later, "PR") == ["Code review"]
    finally:
        later.close()


def test_reindex_records_the_key_version_it_built_with(manager: MemoryManager) -> None:
    add_item(manager, title="Code review", content="PRs need two approvals.")
    conn = sqlite3.connect(manager.paths.db, isolation_level=None)
    try:
        conn.execute("DELETE FROM memory_index_keys")
    finally:
        conn.close()
    assert manager.status().index_key_version is None
    assert manager.reindex() == 1
    assert recorded_versions(manager.paths.db) == [(KEY_VERSION,)]
    assert manager.status().index_key_version == KEY_VERSION


def test_clear_leaves_a_store_that_records_the_current_key_version(manager: MemoryManager) -> None:
    conn = sqlite3.connect(manager.paths.db, isolation_level=None)
    try:
        conn.execute("UPDATE memory_index_keys SET version = ?", (KEY_VERSION - 1,))
    finally:
        conn.close()
    manager.clear(confirm=True)
    assert recorded_versions(manager.paths.db) == [(KEY_VERSION,)]


def _rebuild_steps(root: Path, items: int) -> int:
    """SQLite's virtual-machine steps (in hundreds) of one rebuild of `items` memories, each holding
    words of its own: a count of work, not a timing."""
    manager = MemoryManager(root=root)
    assert manager.open().ok
    try:
        with manager.db.write("test: add memories") as conn:
            for n in range(items):
                add_item_in_tx(conn, title=f"Rule {n}", content=f"Service s{n}x uses queue q{n}y and cache c{n}z.")
        steps = 0

        def count() -> int:
            nonlocal steps
            steps += 1
            return 0

        with manager.db.write("test: rebuild") as conn:
            conn.set_progress_handler(count, 100)
            rebuild_in_tx(conn)
            conn.set_progress_handler(None, 0)
        return steps
    finally:
        manager.close()


def test_a_rebuild_does_work_in_proportion_to_the_index(tmp_path: Path) -> None:
    """Four times the memories (and terms) cost about four times the work, not sixteen: dropping the
    old index never probes every term for every memory."""
    small = _rebuild_steps(tmp_path / "small", 150)
    large = _rebuild_steps(tmp_path / "large", 600)
    assert large < 6 * small, (small, large)
