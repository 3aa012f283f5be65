"""The catalog manifest is derived from schema.sql and matches a database built from scratch (M-13)."""

from __future__ import annotations

import sqlite3

from autopatch_j.memory.catalog import (
    SCHEMA_VERSION,
    catalog_drift,
    manifest,
    normalize_sql,
    read_catalog,
    schema_statements,
)
from autopatch_j.memory.manager import MemoryManager

EXPECTED_TABLES = {
    "memory_meta",
    "threads",
    "turns",
    "memory_jobs",
    "memory_candidates",
    "candidate_sources",
    "memory_items",
    "memory_item_candidates",
    # v3 (docs/import.md): imported sessions and the keys their turns are known by.
    "import_sessions",
    "imported_turns",
    # v4 (docs/retrieval.md): the search index — postings, the terms of each item, term statistics
    # (v6: terms by number, numbered in memory_term_stats).
    "memory_postings",
    "memory_search_docs",
    "memory_term_stats",
    # v5 (docs/retrieval.md): the index's stamp, which every change of the index replaces.
    "memory_index_state",
    # v7 (docs/retrieval.md): the key version that built the index.
    "memory_index_keys",
}


def test_manifest_names_every_table_of_m11() -> None:
    tables = {entry.name for entry in manifest() if entry.type == "table"}
    assert tables == EXPECTED_TABLES


def test_manifest_has_the_partial_unique_index_for_one_active_thread() -> None:
    index = next(e for e in manifest() if e.name == "threads_one_active")
    assert index.type == "index" and "UNIQUE" in index.sql and "WHERE status = 'active'" in index.sql


def test_database_created_by_bootstrap_matches_the_manifest_exactly(manager: MemoryManager) -> None:
    conn = sqlite3.connect(manager.paths.db)
    try:
        assert read_catalog(conn) == manifest()
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
    finally:
        conn.close()


def test_manifest_is_cached() -> None:
    assert manifest() is manifest()


def test_schema_script_splits_into_complete_statements_including_trigger_bodies() -> None:
    statements = schema_statements()
    assert all(sqlite3.complete_statement(s) for s in statements)
    assert sum(s.startswith("CREATE TRIGGER") for s in statements) == 11


def test_normalize_sql_ignores_whitespace_and_comments_only() -> None:
    assert normalize_sql("CREATE TABLE a (\n  x  INTEGER -- note\n)") == normalize_sql("CREATE TABLE a (x INTEGER)")
    assert normalize_sql("CREATE TABLE a (x INTEGER)") != normalize_sql("CREATE TABLE a (x TEXT)")


def test_drift_describes_unknown_missing_and_changed_objects(manager: MemoryManager) -> None:
    conn = sqlite3.connect(manager.paths.db)
    try:
        conn.execute("CREATE VIEW v AS SELECT 1")
        assert catalog_drift(read_catalog(conn)) == "unknown view 'v' is not part of the Memory schema"
        conn.execute("DROP VIEW v")
        conn.execute("DROP INDEX turns_open_lease")
        assert catalog_drift(read_catalog(conn)) == "index 'turns_open_lease' of the Memory schema is missing"
    finally:
        conn.close()


def test_memory_items_has_the_subject_column_last_with_an_empty_default(manager: MemoryManager) -> None:
    conn = sqlite3.connect(manager.paths.db)
    try:
        columns = conn.execute("PRAGMA table_info(memory_items)").fetchall()
        assert columns[-1][1:5] == ("subject", "TEXT", 1, "''")
    finally:
        conn.close()
