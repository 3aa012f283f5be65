"""What `memory publish` writes into AGENTS.md / CLAUDE.md: the active memories of one kind, newest first.

One bounded read: at most `limit` rows (newest `updated_at` first, then the highest id) and the count
of every active memory of that kind, so a caller can name how many it left out. Subjects come from
`memory_items.subject` ("" when the extractor named none).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from autopatch_j.memory.records import MemoryKind

_PAGE = """
SELECT memory_id, kind, subject, title, content, updated_at
FROM memory_items
WHERE status = 'active' AND kind = :kind
ORDER BY updated_at DESC, memory_id DESC
LIMIT :limit
"""

_COUNT = "SELECT COUNT(*) FROM memory_items WHERE status = 'active' AND kind = :kind"


@dataclass(frozen=True, slots=True)
class PublishedItem:
    """One active memory as a published line needs it."""

    memory_id: int
    kind: MemoryKind
    subject: str
    title: str
    content: str
    updated_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> PublishedItem:
        return cls(
            memory_id=row["memory_id"],
            kind=MemoryKind(row["kind"]),
            subject=row["subject"] or "",
            title=row["title"],
            content=row["content"],
            updated_at=row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class PublishPage:
    """The newest active memories of one kind (at most the limit asked for) and how many there are."""

    items: tuple[PublishedItem, ...]
    total: int


def publishable_in_tx(conn: sqlite3.Connection, *, kind: MemoryKind, limit: int) -> PublishPage:
    """The newest `limit` active memories of `kind` (newest first) and the count of all of them."""
    params = {"kind": kind.value, "limit": max(limit, 0)}
    rows = conn.execute(_PAGE, params).fetchall()
    total = conn.execute(_COUNT, params).fetchone()[0]
    return PublishPage(items=tuple(PublishedItem.from_row(row) for row in rows), total=int(total))
