"""Export (M-32) and clear (M-31) on a healthy store."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from autopatch_j.memory.errors import NotConfirmedError, StorageError
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.runtime import FakeClock


def test_export_contains_turns_last_error_and_every_audit_relation(manager: MemoryManager) -> None:
    ticket = manager.begin_turn("以后先给结论 [bold]raw[/]", Intent.GENERAL_CHAT)
    manager.complete_turn(ticket, "好的。")
    conn = sqlite3.connect(manager.paths.db)
    with conn:
        conn.execute("UPDATE memory_meta SET last_error = 'TimeoutError: provider took too long'")
    conn.close()
    data = json.loads(manager.export().path.read_text(encoding="utf-8"))
    assert data["format"] == "autopatch-j.memory.export/1"
    assert "unredacted" in data["notice"]
    assert data["last_error"] == "TimeoutError: provider took too long"
    assert set(data["tables"]) == {
        "memory_meta",
        "threads",
        "turns",
        "memory_jobs",
        "memory_candidates",
        "candidate_sources",
        "memory_items",
        "memory_item_candidates",
        "import_sessions",
        "imported_turns",
    }
    assert data["tables"]["turns"][0]["user_text"] == "以后先给结论 [bold]raw[/]"
    assert data["unreadable"] == {}


def test_export_never_overwrites_and_leaves_no_temp_files(manager: MemoryManager) -> None:
    first = manager.export().path
    second = manager.export().path  # same fake-clock instant
    assert first != second and first.exists() and second.exists()
    assert sorted(p.name for p in manager.paths.exports.iterdir()) == sorted([first.name, second.name])


def test_failed_export_leaves_neither_temp_nor_reserved_file(
    manager: MemoryManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_replace(src: str, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(StorageError, match="No space left"):
        manager.export()
    assert list(manager.paths.exports.iterdir()) == []


def test_export_does_not_change_the_database(manager: MemoryManager) -> None:
    ticket = manager.begin_turn("hello", Intent.GENERAL_CHAT)
    manager.complete_turn(ticket, "hi")
    conn = sqlite3.connect(manager.paths.db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = manager.paths.db.read_bytes()
    manager.export()
    assert manager.paths.db.read_bytes() == before


def test_clear_requires_confirmation_and_changes_nothing_without_it(manager: MemoryManager) -> None:
    ticket = manager.begin_turn("keep", Intent.GENERAL_CHAT)
    with pytest.raises(NotConfirmedError):
        manager.clear(confirm=False)
    assert manager.complete_turn(ticket, "kept").value == "recorded"


def test_clear_in_place_bumps_generation_keeps_created_at_and_exports(manager: MemoryManager, clock: FakeClock) -> None:
    export = manager.export().path
    conn = sqlite3.connect(manager.paths.db)
    created_at = conn.execute("SELECT created_at FROM memory_meta").fetchone()[0]
    conn.close()
    ticket = manager.begin_turn("x", Intent.GENERAL_CHAT)
    manager.complete_turn(ticket, "y")
    conn = sqlite3.connect(manager.paths.db)
    with conn:
        conn.execute("UPDATE memory_jobs SET generation = 4")
        conn.execute("UPDATE memory_meta SET last_error = 'old', last_succeeded_at = 5")
    conn.close()
    clock.advance(100)
    result = manager.clear(confirm=True)
    assert result.generation == 5 and not result.rebuilt
    conn = sqlite3.connect(manager.paths.db)
    try:
        assert conn.execute(
            "SELECT generation, created_at, last_error, last_succeeded_at FROM memory_meta"
        ).fetchall() == [(5, created_at, None, None)]
        for table in (
            "turns",
            "memory_jobs",
            "memory_candidates",
            "memory_items",
            "memory_postings",
            "memory_search_docs",
        ):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM threads WHERE status = 'active'").fetchone()[0] == 1
        assert conn.execute("SELECT count(*) FROM threads").fetchone()[0] == 1
    finally:
        conn.close()
    assert export.exists()
