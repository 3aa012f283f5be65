"""A store whose search index an older derivation of keys built, as the rekey tests (memory and CLI)
set it up: one memory found by `PR` only through `PRs` → pr, the index left with the plural (`prs`)
and an older key version recorded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.rekey import KEY_VERSION
from tests.memory.item_factory import add_item

OLDER = KEY_VERSION - 1  # an older derivation; the store below fakes one (an acronym's plural kept)


def store_with_a_plural_acronym(root: Path) -> Path:
    """A store built by this code holding one memory found by `PR` only through `PRs` → pr."""
    manager = MemoryManager(root=root)
    assert manager.open().ok
    try:
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Code review", content="PRs need two approvals.")
    finally:
        manager.close()
    return manager.paths.db


def as_an_older_release_left_it(db: Path, *, version: int | None = OLDER) -> None:
    """The index as the older derivation built it (the plural kept: `prs`, never `pr`) and its recorded
    version; `version=None`: a store that records none."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("UPDATE memory_term_stats SET term = 'prs' WHERE term = 'pr'")
        if version is None:
            conn.execute("DELETE FROM memory_index_keys")
        else:
            conn.execute("UPDATE memory_index_keys SET version = ?", (version,))
    finally:
        conn.close()


def recorded_versions(db: Path) -> list[tuple[int, ...]]:
    """The rows of `memory_index_keys`: the key version the store says built its index."""
    conn = sqlite3.connect(db)
    try:
        return [tuple(row) for row in conn.execute("SELECT version FROM memory_index_keys")]
    finally:
        conn.close()
