"""memory_read (M-61): the active revision of one memory in scope of a thread, with at most
`MAX_EXCERPTS` excerpts of its evidence, each at most `MAX_EXCERPT_CHARS` characters."""

from __future__ import annotations

import sqlite3

from autopatch_j.memory.records import MemoryKind, Source, SourceRole
from autopatch_j.memory.search import MAX_EXCERPT_CHARS, MAX_EXCERPTS, ReadResult, clip

_READ_ITEM_SQL = """
SELECT id, memory_id, kind, title, content, non_factual
FROM memory_items
WHERE memory_id = :memory_id AND status = 'active'
  AND (kind <> 'discussion_context' OR thread_id = :thread_id)
"""

# Newest evidence first; a quote repeated by several candidates is shown once.
_READ_EXCERPTS_SQL = """
SELECT s.turn_id, s.role, substr(s.quote, 1, :chars) AS quote
FROM memory_item_candidates ic JOIN candidate_sources s ON s.candidate_id = ic.candidate_id
WHERE ic.item_id = :item_id
GROUP BY s.turn_id, s.role, s.quote
ORDER BY max(s.candidate_id) DESC, min(s.ordinal), s.turn_id
LIMIT :limit
"""


def read_in_tx(conn: sqlite3.Connection, *, thread_id: int, memory_id: int) -> ReadResult | None:
    """The active revision of `memory_id` in scope of `thread_id` with ≤ 3 excerpts; else None."""
    row = conn.execute(_READ_ITEM_SQL, {"memory_id": memory_id, "thread_id": thread_id}).fetchone()
    if row is None:
        return None
    item_id, memory_id, kind, title, content, non_factual = row
    excerpts = tuple(
        Source(turn_id=turn_id, role=SourceRole(role), quote=clip(quote, MAX_EXCERPT_CHARS))
        for turn_id, role, quote in conn.execute(
            _READ_EXCERPTS_SQL, {"item_id": item_id, "chars": MAX_EXCERPT_CHARS + 1, "limit": MAX_EXCERPTS}
        )
    )
    return ReadResult(
        memory_id=memory_id,
        kind=MemoryKind(kind),
        title=title,
        content=content,
        non_factual=bool(non_factual),
        excerpts=excerpts,
    )
