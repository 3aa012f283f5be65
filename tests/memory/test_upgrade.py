"""The explicit upgrades v2 … v6 → v7: one transaction, every RAW turn and item kept, the search index
rebuilt once in its compact form, stamped and recorded with the key version that built it, exact
catalog after."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from autopatch_j.memory.catalog import SCHEMA_VERSION, catalog_of, manifest, read_catalog
from autopatch_j.memory.index import index_item_in_tx
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.rekey import KEY_VERSION
from autopatch_j.memory.upgrade import (
    V4_TABLES,
    V6_REBUILT,
    V7_TABLES,
    frozen_manifest,
    frozen_statements,
    upgrade_statements,
    v2_manifest,
    v2_statements,
    v3_manifest,
    v5_statements,
    v6_statements,
    v7_statements,
)

# The one statement a rebuild of the index sends once (trigger bodies repeat their statement in a trace).
_REBUILD_READS = "SELECT id, title, aliases, keywords, content, subject FROM memory_items WHERE status = 'active'"
_TURNS = "SELECT id, thread_id, seq, intent, status, user_text, assistant_text, created_at FROM turns ORDER BY id"


def _v2_store(root: Path, *, extra_sql: str | None = None) -> Path:
    """A version-2 store as the previous release created it, holding RAW turns of two threads."""
    db = root / ".autopatch-j" / "memory.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db, isolation_level=None)
    for statement in v2_statements():  # the released v2 schema (schema_v2.sql, frozen)
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    conn.execute("INSERT INTO memory_meta (id, generation, created_at, updated_at) VALUES (1, 1, 1, 1)")
    conn.execute("INSERT INTO threads (status, created_at, archived_at) VALUES ('archived', 1, 2)")
    conn.execute("INSERT INTO threads (status, created_at) VALUES ('active', 2)")
    for n, (thread, text) in enumerate([(1, "以后先给结论。"), (2, "From now on, answer first."), (2, "raw [b]x[/]")]):
        conn.execute(
            "INSERT INTO turns (thread_id, seq, intent, status, user_text, assistant_text, created_at, updated_at) "
            "VALUES (?, ?, 'general_chat', 'completed', ?, 'ok', ?, ?)",
            (thread, n + 1, text, n, n),
        )
    if extra_sql:
        conn.execute(extra_sql)
    assert read_catalog(conn) == (v2_manifest() if extra_sql is None else read_catalog(conn))
    conn.close()
    return db


def _read(db: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    try:
        return [tuple(row) for row in conn.execute(sql)]
    finally:
        conn.close()


def _cli_search(root: Path, query: str, *, home: Path) -> subprocess.CompletedProcess[str]:
    """`autopatch-j memory search QUERY --json` in `root`, run by the real CLI (no AUTOPATCH_ settings)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("AUTOPATCH_")}
    return subprocess.run(
        [sys.executable, "-m", "autopatch_j", "-C", str(root), "memory", "search", query, "--json"],
        env={**env, "HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _assert_current_and_sound(db: Path) -> None:
    """The store holds exactly the current catalog and passes SQLite's integrity check."""
    conn = sqlite3.connect(db)
    try:
        assert read_catalog(conn) == manifest()
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


def test_v3_adds_the_import_tables_and_widens_only_the_job_status_check() -> None:
    new = {e.name for e in v3_manifest() - v2_manifest()}
    old = {e.name for e in v2_manifest() - v3_manifest()}
    assert new == {
        "import_sessions",
        "imported_turns",
        "imported_turns_fingerprint",
        "imported_turns_turn",
        "memory_jobs",
    }
    assert old == {"memory_jobs"}  # its CHECK admits 'failed' now; nothing else of v2 changed
    (v2_jobs,) = (e.sql for e in v2_manifest() if e.name == "memory_jobs")
    (v3_jobs,) = (e.sql for e in v3_manifest() if e.name == "memory_jobs")
    assert v3_jobs == v2_jobs.replace("'succeeded_no_output')", "'succeeded_no_output','failed')")


def test_v4_replaces_the_retrieval_terms_with_the_search_index_and_adds_the_subject() -> None:
    new = {e.name for e in frozen_manifest(4) - v3_manifest()}
    old = {e.name for e in v3_manifest() - frozen_manifest(4)}
    assert new == {
        "memory_postings",
        "memory_search_docs",
        "memory_term_stats",
        "memory_search_docs_insert",
        "memory_search_docs_delete",
        "memory_postings_insert",
        "memory_postings_delete",
        "memory_items",
    }
    assert old == {
        "memory_terms",
        "memory_terms_lookup",
        "memory_term_grams",
        "memory_term_grams_term",
        "memory_gram_stats",
        "memory_term_grams_count_insert",
        "memory_term_grams_count_delete",
        "memory_items",
    }
    (v3_items,) = (e.sql for e in v3_manifest() if e.name == "memory_items")
    (v4_items,) = (e.sql for e in frozen_manifest(4) if e.name == "memory_items")
    assert v4_items == v3_items.replace(
        "updated_at REAL NOT NULL,", "updated_at REAL NOT NULL,subject TEXT NOT NULL DEFAULT '',"
    )


def test_v5_only_adds_the_index_stamp_and_the_triggers_that_replace_it() -> None:
    assert frozen_manifest(4) <= frozen_manifest(5)  # nothing of v4 changes
    assert {e.name for e in frozen_manifest(5) - frozen_manifest(4)} == {
        "memory_index_state",
        "memory_term_stats_insert_stamp",
        "memory_term_stats_update_stamp",
        "memory_term_stats_delete_stamp",
        "memory_postings_update_stamp",
        "memory_items_insert_stamp",
        "memory_items_update_stamp",
        "memory_items_delete_stamp",
    }
    assert catalog_of(frozen_statements(4) + v5_statements()) == frozen_manifest(5)


def test_v6_changes_only_the_search_index_tables_and_their_triggers() -> None:
    changed = frozen_manifest(6) ^ frozen_manifest(5)
    assert changed and {e.table for e in changed} == set(V6_REBUILT)
    assert "memory_postings_term" in {e.name for e in frozen_manifest(6) - frozen_manifest(5)}  # a posting names a term
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:  # the v6 step on a v5 catalog: drop the index tables (their triggers go), create v6's
        for statement in frozen_statements(5):
            conn.execute(statement)
        for table in V6_REBUILT:
            conn.execute(f"DROP TABLE {table}")
        for statement in v6_statements():
            conn.execute(statement)
        assert read_catalog(conn) == frozen_manifest(6)
    finally:
        conn.close()


def test_v7_only_adds_the_table_of_the_key_version() -> None:
    assert {(e.type, e.name) for e in manifest() ^ frozen_manifest(6)} == {("table", "memory_index_keys")}
    assert {e.table for e in manifest() - frozen_manifest(6)} == set(V7_TABLES)
    assert catalog_of(frozen_statements(6) + v7_statements()) == manifest()
    assert SCHEMA_VERSION == 7


def test_an_upgraded_store_accepts_failed_jobs_and_keeps_them(tmp_path: Path) -> None:
    db = _v2_store(tmp_path)
    manager = MemoryManager(root=tmp_path)
    assert manager.open().ok
    manager.close()
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute(
            "INSERT INTO memory_jobs (kind, thread_id, turn_id, status, generation, attempts, next_attempt_at, "
            "created_at, updated_at) VALUES ('extraction', 1, 1, 'failed', 1, 6, 0, 0, 0)"
        )
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()
    assert MemoryManager(root=tmp_path).open().ok


def test_a_v2_store_is_upgraded_in_one_transaction_keeping_every_turn(tmp_path: Path) -> None:
    db = _v2_store(tmp_path)
    before = _read(db, _TURNS)
    statements: list[str] = []
    manager = MemoryManager(root=tmp_path, trace=statements.append)
    assert manager.open().ok
    manager.close()
    assert _read(db, _TURNS) == before
    assert _read(db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    conn = sqlite3.connect(db)
    try:
        assert read_catalog(conn) == manifest()  # the exact catalog check holds after the upgrade
    finally:
        conn.close()
    begin = statements.index("BEGIN IMMEDIATE")
    commit = statements.index("COMMIT", begin)
    inside = statements[begin:commit]
    creates = [s for s in inside if s.lstrip().startswith(("CREATE ", "--"))]
    # v3's, then v4's as v4 shipped them, then v5's as v5 shipped them, then v6's, then v7's
    assert creates == [
        *upgrade_statements(),
        *upgrade_statements(V4_TABLES, version=4),
        *v5_statements(),
        *v6_statements(),
        *v7_statements(),
    ]
    assert [s for s in inside if s.startswith(("ALTER", "DROP"))] == [
        "ALTER TABLE memory_items ADD COLUMN subject TEXT NOT NULL DEFAULT ''",
        "DROP TABLE memory_term_grams",
        "DROP TABLE memory_gram_stats",
        "DROP TABLE memory_terms",
        *(f"DROP TABLE {table}" for table in V6_REBUILT),
    ]
    rewrites = [s for s in inside if s.startswith("UPDATE sqlite_master")]
    assert [r.rsplit("name = ", 1)[1] for r in rewrites] == ["'memory_items'", "'memory_jobs'"]  # column, CHECK
    assert f"PRAGMA user_version = {SCHEMA_VERSION}" in inside
    assert _read(db, "SELECT version FROM memory_index_keys") == [(KEY_VERSION,)]


def test_the_upgraded_store_works_and_imports(tmp_path: Path) -> None:
    _v2_store(tmp_path)
    manager = MemoryManager(root=tmp_path)
    assert manager.open().ok
    status = manager.status()
    assert status.schema_version == SCHEMA_VERSION and status.counts["turns"] == 3
    assert manager.active_thread().id == 2


def test_a_v2_store_that_drifted_is_left_untouched_and_degraded(tmp_path: Path) -> None:
    db = _v2_store(tmp_path, extra_sql="CREATE TABLE stray (x)")
    manager = MemoryManager(root=tmp_path)
    health = manager.open()
    assert not health.ok and "does not match the v2 catalog" in (health.reason or "")
    assert _read(db, "PRAGMA user_version") == [(2,)]
    assert _read(db, "SELECT name FROM sqlite_master WHERE name LIKE 'import%'") == []


def _frozen_store(root: Path, version: int) -> tuple[Path, sqlite3.Connection]:
    """A store of `version` from its frozen schema, with its meta row and one active thread."""
    db = root / ".autopatch-j" / "memory.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db, isolation_level=None)
    for statement in frozen_statements(version):
        conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("INSERT INTO memory_meta (id, generation, created_at, updated_at) VALUES (1, 1, 1, 1)")
    conn.execute("INSERT INTO threads (status, created_at) VALUES ('active', 1)")
    return db, conn


def _v3_store_with_a_memory(root: Path) -> Path:
    """A version-3 store holding one active memory (indexed by v3's terms) and one forgotten one."""
    db, conn = _frozen_store(root, 3)
    for n, (title, content, status) in enumerate(
        [
            ("Package manager", "We use pnpm for every package, never npm.", "active"),
            ("Old formatter", "We used yapf.", "forgotten"),
        ]
    ):
        conn.execute(
            "INSERT INTO memory_items (memory_id, revision, kind, title, content, non_factual, status, operation, "
            "created_at, updated_at) VALUES (?, 1, 'project_decision', ?, ?, 0, ?, 'create', ?, ?)",
            (n + 1, title, content, status, n, n),
        )
    conn.execute("INSERT INTO memory_terms (item_id, source, term) VALUES (1, 'meta', 'package manager')")
    assert read_catalog(conn) == frozen_manifest(3)
    conn.close()
    return db


def test_a_v3_store_is_upgraded_and_its_active_memories_are_searchable(tmp_path: Path) -> None:
    db = _v3_store_with_a_memory(tmp_path)
    manager = MemoryManager(root=tmp_path)
    assert manager.open().ok
    try:
        hits = manager.search(thread_id=1, query="what package manager are we on")
        assert [hit.title for hit in hits] == ["Package manager"]
        assert manager.search(thread_id=1, query="yapf") == []  # forgotten: not indexed
    finally:
        manager.close()
    assert _read(db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert _read(db, "SELECT subject FROM memory_items ORDER BY id") == [("",), ("",)]
    assert _read(db, "SELECT items FROM memory_term_stats WHERE term = ''") == [(1,)]
    _assert_current_and_sound(db)


def test_a_v3_store_that_drifted_is_left_untouched_and_degraded(tmp_path: Path) -> None:
    db = _v3_store_with_a_memory(tmp_path)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE stray (x)")
    conn.close()
    health = MemoryManager(root=tmp_path).open()
    assert not health.ok and "does not match the v3 catalog" in (health.reason or "")
    assert _read(db, "PRAGMA user_version") == [(3,)]
    assert _read(db, "SELECT count(*) FROM memory_terms") == [(1,)]


def _v4_store_with_a_memory(root: Path) -> Path:
    """A version-4 store as the previous release created it, holding one indexed active memory."""
    db, conn = _frozen_store(root, 4)
    conn.execute(
        "INSERT INTO memory_items (memory_id, revision, kind, title, content, non_factual, status, operation, "
        "created_at, updated_at) VALUES (1, 1, 'project_decision', 'Package manager', "
        "'We use pnpm for every package, never npm.', 0, 'active', 'create', 1, 1)"
    )
    conn.execute("INSERT INTO memory_search_docs (item_id, terms) VALUES (1, '[\"pnpm\"]')")
    conn.execute("INSERT INTO memory_postings (term, item_id, weight) VALUES ('pnpm', 1, 100)")
    assert read_catalog(conn) == frozen_manifest(4)
    conn.close()
    return db


def test_a_v4_store_gains_the_stamp_and_the_compact_index_in_one_transaction(tmp_path: Path) -> None:
    db = _v4_store_with_a_memory(tmp_path)
    statements: list[str] = []
    manager = MemoryManager(root=tmp_path, trace=statements.append)
    assert manager.open().ok
    try:
        assert [hit.title for hit in manager.search(thread_id=1, query="pnpm")] == ["Package manager"]
    finally:
        manager.close()
    begin = statements.index("BEGIN IMMEDIATE")
    inside = statements[begin : statements.index("COMMIT", begin)]
    assert [s for s in inside if s.lstrip().startswith(("CREATE ", "--"))] == [
        *v5_statements(),
        *v6_statements(),
        *v7_statements(),
    ]
    assert sum(s.startswith(_REBUILD_READS) for s in inside) == 1  # the index is rebuilt once
    assert [s for s in inside if s.startswith(("ALTER", "DROP", "UPDATE sqlite_master"))] == [
        f"DROP TABLE {table}" for table in V6_REBUILT
    ]
    assert _read(db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert len(_read(db, "SELECT stamp FROM memory_index_state")) == 1
    assert _read(db, "SELECT item_id, terms FROM memory_search_docs") == [(1, len(_postings_of(db, 1)))]
    assert {"packag", "manag", "pnpm"} <= _postings_of(db, 1)  # rebuilt from the row, not the old index
    conn = sqlite3.connect(db)
    try:
        assert read_catalog(conn) == manifest()
    finally:
        conn.close()


def _postings_of(db: Path, item_id: int) -> set[str]:
    sql = "SELECT t.term FROM memory_postings p JOIN memory_term_stats t ON t.id = p.term_id WHERE p.item_id = "
    return {str(row[0]) for row in _read(db, sql + str(item_id))}


def _v5_store_with_memories(root: Path) -> Path:
    """A version-5 store as the previous release created it (schema_v5.sql, frozen), holding an indexed
    active memory, a forgotten one (not indexed) and a RAW turn, its index in the v5 form."""
    db, conn = _frozen_store(root, 5)
    conn.execute(
        "INSERT INTO turns (thread_id, seq, intent, status, user_text, assistant_text, created_at, updated_at) "
        "VALUES (1, 1, 'general_chat', 'completed', 'We use pnpm.', 'ok', 1, 1)"
    )
    for n, (title, content, status) in enumerate(
        [("Package manager", "We use pnpm for every package, never npm.", "active"), ("Formatter", "yapf", "forgotten")]
    ):
        conn.execute(
            "INSERT INTO memory_items (memory_id, revision, kind, title, content, non_factual, status, operation, "
            "created_at, updated_at, subject) VALUES (?, 1, 'project_decision', ?, ?, 0, ?, 'create', 1, 1, '')",
            (n + 1, title, content, status),
        )
    conn.execute('INSERT INTO memory_search_docs (item_id, terms) VALUES (1, \'["pnpm","packag"]\')')
    conn.executemany(
        "INSERT INTO memory_postings (term, item_id, weight) VALUES (?, 1, ?)", [("pnpm", 150), ("packag", 120)]
    )
    assert read_catalog(conn) == frozen_manifest(5)
    conn.close()
    return db


def test_a_v5_store_opened_by_the_cli_is_upgraded_to_the_compact_index(tmp_path: Path) -> None:
    db = _v5_store_with_memories(tmp_path)
    turns = _read(db, _TURNS)
    items = _read(db, "SELECT id, memory_id, title, content, status FROM memory_items ORDER BY id")
    stamp = _read(db, "SELECT stamp FROM memory_index_state")
    home = tmp_path / "home"
    home.mkdir()
    found = _cli_search(tmp_path, "which package manager", home=home)  # as a new release meets a v5 store
    assert found.returncode == 0, found.stderr
    assert [hit["title"] for hit in json.loads(found.stdout)] == ["Package manager"]
    assert _read(db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert _read(db, _TURNS) == turns
    assert _read(db, "SELECT id, memory_id, title, content, status FROM memory_items ORDER BY id") == items
    assert _read(db, "SELECT stamp FROM memory_index_state") != stamp  # the rebuilt index has a new stamp
    assert _read(db, "SELECT item_id FROM memory_search_docs") == [(1,)]  # the forgotten one is not indexed
    assert {"pnpm", "packag", "manag", "npm"} <= _postings_of(db, 1)
    assert _read(db, "SELECT min(weight) >= -99 AND max(weight) <= 127 FROM memory_postings") == [(1,)]
    _assert_current_and_sound(db)


def test_a_v5_store_that_drifted_is_left_untouched_and_degraded(tmp_path: Path) -> None:
    db = _v5_store_with_memories(tmp_path)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER memory_postings_update_stamp")
    conn.close()
    health = MemoryManager(root=tmp_path).open()
    assert not health.ok and "does not match the v5 catalog" in (health.reason or "")
    assert _read(db, "PRAGMA user_version") == [(5,)]
    assert _read(db, "SELECT term, item_id FROM memory_postings ORDER BY term") == [("packag", 1), ("pnpm", 1)]


def test_a_v4_store_that_drifted_is_left_untouched_and_degraded(tmp_path: Path) -> None:
    db = _v4_store_with_a_memory(tmp_path)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER memory_postings_delete")
    conn.close()
    health = MemoryManager(root=tmp_path).open()
    assert not health.ok and "does not match the v4 catalog" in (health.reason or "")
    assert _read(db, "PRAGMA user_version") == [(4,)]
    assert _read(db, "SELECT name FROM sqlite_master WHERE name = 'memory_index_state'") == []


def _v6_store_with_older_keys(root: Path) -> Path:
    """A version-6 store as the previous release left it (schema_v6.sql, frozen): one active memory
    indexed by an older derivation of keys (the plural `PRs` kept as `prs`), no key version anywhere."""
    db, conn = _frozen_store(root, 6)
    conn.execute(
        "INSERT INTO memory_items (memory_id, revision, kind, title, content, non_factual, status, operation, "
        "created_at, updated_at, subject) VALUES (1, 1, 'project_decision', 'Code review', "
        "'PRs need two approvals.', 0, 'active', 'create', 1, 1, '')"
    )
    index_item_in_tx(conn, item_id=1, title="Code review", aliases=(), keywords=(), content="PRs need two approvals.")
    conn.execute("UPDATE memory_term_stats SET term = 'prs' WHERE term = 'pr'")
    assert read_catalog(conn) == frozen_manifest(6)
    conn.close()
    return db


def test_a_v6_store_opened_by_the_cli_is_rebuilt_with_the_key_version_recorded(tmp_path: Path) -> None:
    db = _v6_store_with_older_keys(tmp_path)
    items = _read(db, "SELECT id, memory_id, title, content, status FROM memory_items ORDER BY id")
    found = _cli_search(tmp_path, "PR", home=tmp_path)  # as a new release meets a v6 store
    assert found.returncode == 0, found.stderr
    assert [hit["title"] for hit in json.loads(found.stdout)] == ["Code review"]
    assert _read(db, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert _read(db, "SELECT version FROM memory_index_keys") == [(KEY_VERSION,)]
    assert _read(db, "SELECT id, memory_id, title, content, status FROM memory_items ORDER BY id") == items
    assert "pr" in _postings_of(db, 1) and "prs" not in _postings_of(db, 1)
    _assert_current_and_sound(db)


def test_a_v6_store_is_upgraded_in_one_transaction_that_rebuilds_the_index_once(tmp_path: Path) -> None:
    _v6_store_with_older_keys(tmp_path)
    statements: list[str] = []
    manager = MemoryManager(root=tmp_path, trace=statements.append)
    assert manager.open().ok
    manager.close()
    begin = statements.index("BEGIN IMMEDIATE")
    inside = statements[begin : statements.index("COMMIT", begin)]
    assert [s for s in inside if s.lstrip().startswith(("CREATE ", "--", "DROP", "ALTER"))] == [*v7_statements()]
    assert sum(s.startswith(_REBUILD_READS) for s in inside) == 1
    assert manager.rekey is not None and manager.rekey.outcome == "current"  # nothing left for the open to do


def test_a_v6_store_that_drifted_is_left_untouched_and_degraded(tmp_path: Path) -> None:
    db = _v6_store_with_older_keys(tmp_path)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER memory_items_delete_stamp")
    conn.close()
    health = MemoryManager(root=tmp_path).open()
    assert not health.ok and "does not match the v6 catalog" in (health.reason or "")
    assert _read(db, "PRAGMA user_version") == [(6,)]
    assert _read(db, "SELECT name FROM sqlite_master WHERE name = 'memory_index_keys'") == []
    assert "prs" in _postings_of(db, 1)
