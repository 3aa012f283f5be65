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
_INDEXED_REVISIONS = (
    "SELECT d.item_id FROM memory_items i JOIN memory_search_docs d ON d.item_id = i.id WHERE i.memory_id = ?"
)
# The compaction of every thread the memory's evidence came from is invalidated: it may quote the
# forgotten text, and the next Stage 1 rebuilds it from what is not forgotten.
_INVALIDATE_COMPACTIONS = (
    "UPDATE threads SET compaction = '' WHERE id IN ("
    "SELECT i.thread_id FROM memory_items i WHERE i.memory_id = :memory_id AND i.thread_id IS NOT NULL "
    "UNION SELECT t.thread_id FROM memory_items i JOIN memory_item_candidates ic ON ic.item_id = i.id "
    "JOIN candidate_sources s ON s.candidate_id = ic.candidate_id JOIN turns t ON t.id = s.turn_id "
    "WHERE i.memory_id = :memory_id)"
)
_SUPPRESS_CANDIDATES = (
    "UPDATE memory_candidates SET status = 'suppressed' WHERE id IN ("
    "SELECT ic.candidate_id FROM memory_item_candidates ic JOIN memory_items i ON i.id = ic.item_id "
    "WHERE i.memory_id = ?)"
)


# SQLite integers are signed 64-bit; an id outside that range names no memory.
_MIN_ID, _MAX_ID = -(2**63), 2**63 - 1


def in_id_range(memory_id: int) -> bool:
    """Whether SQLite can hold the id at all (outside the range no memory has it)."""
    return _MIN_ID <= memory_id <= _MAX_ID


def _unknown(memory_id: int, *, active: bool = False) -> UnknownMemoryError:
    which = "active memory" if active else "memory"
    return UnknownMemoryError(
        f"No {which} with id {memory_id}; `autopatch-j memory list` shows the{' active' if active else ''} ids."
    )


def list_active_in_tx(conn: sqlite3.Connection, *, thread_id: int) -> list[Item]:
    """Active preferences and decisions of the repo, and the active thread's discussions."""
    return [Item.from_row(row) for row in conn.execute(_LIST_ACTIVE, (thread_id,))]


def show_in_tx(conn: sqlite3.Connection, *, memory_id: int) -> ItemDetail:
    if not in_id_range(memory_id):
        raise _unknown(memory_id)
    revisions = tuple(Item.from_row(row) for row in conn.execute(_REVISIONS, (memory_id,)))
    if not revisions:
        raise _unknown(memory_id)
    current = revisions[-1]
    sources = tuple(Source.from_row(row) for row in conn.execute(_SOURCES_OF_REVISION, (current.id,)))
    return ItemDetail(item=current, revisions=revisions, sources=sources)


def forget_in_tx(conn: sqlite3.Connection, *, memory_id: int, now: float) -> Item:
    """Take the memory out of routing and retrieval, suppress its candidates (M-46) and invalidate the
    compaction of the threads its evidence came from."""
    from autopatch_j.memory.index import drop_item_terms_in_tx  # the indexer; `list`/`show`/`status` never load it

    if not in_id_range(memory_id):
        raise _unknown(memory_id, active=True)
    rows = conn.execute(_FORGET_ITEM, (now, memory_id)).fetchall()
    if not rows:
        raise _unknown(memory_id, active=True)
    for (item_id,) in conn.execute(_INDEXED_REVISIONS, (memory_id,)).fetchall():
        drop_item_terms_in_tx(conn, item_id=item_id)
    conn.execute(_SUPPRESS_CANDIDATES, (memory_id,))
    conn.execute(_INVALIDATE_COMPACTIONS, {"memory_id": memory_id})
    return Item.from_row(conn.execute("SELECT * FROM memory_items WHERE id = ?", (rows[0][0],)).fetchone())


def fingerprint_in_tx(conn: sqlite3.Connection) -> tuple[int, int, int, int, float]:
    """Changes whenever the current memories may have: a new revision, a forget, `/new`, `clear`.

    One cheap statement (generation, active thread, row count, newest row id, newest update), for
    watchers that poll — not a content hash.
    """
    op = require_operational(conn)
    count, max_id, max_updated = conn.execute(_FINGERPRINT).fetchone()
    return (op.generation, op.active_thread_id, int(count), int(max_id), float(max_updated))
