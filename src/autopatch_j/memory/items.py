"""Reading and forgetting derived memories (list, show, forget)."""

from __future__ import annotations

import sqlite3

from autopatch_j.memory.errors import UnknownMemoryError
from autopatch_j.memory.guard import require_operational
from autopatch_j.memory.records import Item, ItemDetail, Source

_LIST_ACTIVE = (
    "SELECT * FROM memory_items WHERE status = 'active' "
    "AND (kind <> 'discussion_context' OR thread_id = ?) ORDER BY updated_at DESC, memory_id DESC"
)
_REVISIONS = "SELECT * FROM memory_items WHERE memory_id = ? ORDER BY revision"
_SOURCES_OF_REVISION = (
    "SELECT DISTINCT s.turn_id, s.role, s.quote, s.candidate_id, s.ordinal "
    "FROM memory_item_candidates ic JOIN candidate_sources s ON s.candidate_id = ic.candidate_id "
    "WHERE ic.item_id = ? ORDER BY s.candidate_id, s.ordinal"
)
_FORGET_ITEM = (
    "UPDATE memory_items SET status = 'forgotten', updated_at = ? WHERE memory_id = ? AND status = 'active' "
    "RETURNING id"
)
_FINGERPRINT = "SELECT count(*), coalesce(max(id), 0), coalesce(max(updated_at), 0) FROM memory_items"
_DROP_TERMS = "DELETE FROM memory_terms WHERE item_id IN (SELECT id FROM memory_items WHERE memory_id = ?)"
_SUPPRESS_CANDIDATES = (
    "UPDATE memory_candidates SET status = 'suppressed' WHERE id IN ("
    "SELECT ic.candidate_id FROM memory_item_candidates ic JOIN memory_items i ON i.id = ic.item_id "
    "WHERE i.memory_id = ?)"
)


def list_active_in_tx(conn: sqlite3.Connection, *, thread_id: int) -> list[Item]:
    """Active preferences and decisions of the repo, and the active thread's discussions."""
    return [Item.from_row(row) for row in conn.execute(_LIST_ACTIVE, (thread_id,))]


def show_in_tx(conn: sqlite3.Connection, *, memory_id: int) -> ItemDetail:
    revisions = tuple(Item.from_row(row) for row in conn.execute(_REVISIONS, (memory_id,)))
    if not revisions:
        raise UnknownMemoryError(f"No memory with id {memory_id}; `autopatch-j memory list` shows the ids.")
    current = revisions[-1]
    sources = tuple(Source.from_row(row) for row in conn.execute(_SOURCES_OF_REVISION, (current.id,)))
    return ItemDetail(item=current, revisions=revisions, sources=sources)


def forget_in_tx(conn: sqlite3.Connection, *, memory_id: int, now: float) -> Item:
    """Take the memory out of routing and retrieval and suppress its candidates (M-46)."""
    rows = conn.execute(_FORGET_ITEM, (now, memory_id)).fetchall()
    if not rows:
        raise UnknownMemoryError(
            f"No active memory with id {memory_id}; `autopatch-j memory list` shows the active ids."
        )
    conn.execute(_DROP_TERMS, (memory_id,))
    conn.execute(_SUPPRESS_CANDIDATES, (memory_id,))
    return Item.from_row(conn.execute("SELECT * FROM memory_items WHERE id = ?", (rows[0][0],)).fetchone())


def fingerprint_in_tx(conn: sqlite3.Connection) -> tuple[int, int, int, int, float]:
    """Changes whenever the current memories may have: a new revision, a forget, `/new`, `clear`.

    One cheap statement (generation, active thread, row count, newest row id, newest update), for
    watchers that poll — not a content hash.
    """
    op = require_operational(conn)
    count, max_id, max_updated = conn.execute(_FINGERPRINT).fetchone()
    return (op.generation, op.active_thread_id, int(count), int(max_id), float(max_updated))
