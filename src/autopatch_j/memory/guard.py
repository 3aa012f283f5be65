"""The operational guard (M-17): ordinary work needs the meta row and the one active thread."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from autopatch_j.memory.errors import MemorySchemaError

_OPERATIONAL_SQL = (
    "SELECT (SELECT generation FROM memory_meta WHERE id = 1) AS generation, "
    "(SELECT id FROM threads WHERE status = 'active') AS thread_id"
)


@dataclass(frozen=True, slots=True)
class Operational:
    generation: int
    active_thread_id: int


def require_operational(conn: sqlite3.Connection) -> Operational:
    """Return the generation and active thread, or raise `MemorySchemaError` when either is missing."""
    row = conn.execute(_OPERATIONAL_SQL).fetchone()
    if row["generation"] is None:
        raise MemorySchemaError("Memory is degraded: the memory_meta row is missing; run `autopatch-j memory status`.")
    if row["thread_id"] is None:
        raise MemorySchemaError(
            "Memory is degraded: there is no active thread; `autopatch-j memory clear --confirm` recreates one."
        )
    return Operational(generation=row["generation"], active_thread_id=row["thread_id"])
