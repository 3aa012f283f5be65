"""Build turns and memory item revisions with provenance directly in SQL, for retrieval tests.

The rows are the ones consolidation writes: a completed turn with its extraction job, a candidate
quoting the turn exactly, the item revision linked to the candidate, and the revision's terms
(`index_item_in_tx`). Revising, superseding and forgetting follow the append-only rules: the old
revision changes status and loses its terms.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autopatch_j.memory.index import drop_item_terms_in_tx, index_item_in_tx
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind, SourceRole

_clock = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Quote:
    """One provenance quote: `text` becomes (part of) the turn's RAW text on that side."""

    text: str
    role: SourceRole = SourceRole.USER


@dataclass(frozen=True, slots=True)
class Made:
    """The revision row id and the stable memory id of a created or revised item."""

    id: int
    memory_id: int


def active_thread_id(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT id FROM threads WHERE status = 'active'").fetchone()[0])


def add_turn_in_tx(
    conn: sqlite3.Connection,
    *,
    user_text: str,
    assistant_text: str | None = "ok",
    status: str = "completed",
    thread_id: int | None = None,
    now: float | None = None,
) -> int:
    """A turn in the given (default: active) thread with the next sequence number; returns its id."""
    thread = thread_id if thread_id is not None else active_thread_id(conn)
    seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM turns WHERE thread_id = ?", (thread,)).fetchone()[0]
    at = now if now is not None else 1_800_000_000.0 + next(_clock)
    owner, lease = ("test-owner", at + 120) if status == "open" else (None, None)
    if status in ("failed", "interrupted", "open") and assistant_text == "ok":
        assistant_text = None
    cursor = conn.execute(
        "INSERT INTO turns (thread_id, seq, intent, status, user_text, assistant_text, owner, lease_expires_at, "
        "created_at, updated_at) VALUES (?, ?, 'general_chat', ?, ?, ?, ?, ?, ?, ?)",
        (thread, seq, status, user_text, assistant_text, owner, lease, at, at),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def add_turn(manager: MemoryManager, **kwargs: object) -> int:
    with manager.db.write("test: add a turn") as conn:
        return add_turn_in_tx(conn, **kwargs)  # type: ignore[arg-type]


def _candidate_in_tx(
    conn: sqlite3.Connection, *, kind: MemoryKind, content: str, thread_id: int, quotes: Sequence[Quote], at: float
) -> int:
    user_text = " ".join(q.text for q in quotes if q.role is SourceRole.USER) or "同意"
    answer = " ".join(q.text for q in quotes if q.role is SourceRole.ASSISTANT) or "好的"
    turn_id = add_turn_in_tx(conn, user_text=user_text, assistant_text=answer, thread_id=thread_id, now=at)
    job_id = conn.execute(
        "INSERT INTO memory_jobs (kind, thread_id, turn_id, status, generation, next_attempt_at, created_at, "
        "updated_at) VALUES ('extraction', ?, ?, 'succeeded', 1, ?, ?, ?) RETURNING id",
        (thread_id, turn_id, at, at, at),
    ).fetchone()[0]
    candidate_id = conn.execute(
        "INSERT INTO memory_candidates (thread_id, extraction_job_id, kind, content, non_factual, status, "
        "created_at) VALUES (?, ?, ?, ?, ?, 'applied', ?) RETURNING id",
        (thread_id, job_id, kind.value, content[:2000], int(kind is MemoryKind.DISCUSSION_CONTEXT), at),
    ).fetchone()[0]
    conn.executemany(
        "INSERT INTO candidate_sources (candidate_id, ordinal, turn_id, role, quote) VALUES (?, ?, ?, ?, ?)",
        [(candidate_id, n, turn_id, q.role.value, q.text) for n, q in enumerate(quotes)],
    )
    return int(candidate_id)


def add_item_in_tx(
    conn: sqlite3.Connection,
    *,
    kind: MemoryKind = MemoryKind.USER_PREFERENCE,
    title: str,
    content: str | None = None,
    aliases: Iterable[str] = (),
    keywords: Iterable[str] = (),
    thread_id: int | None = None,
    quotes: Sequence[Quote] | None = None,
    at: float | None = None,
    memory_id: int | None = None,
    revision: int = 1,
    operation: str = "create",
) -> Made:
    """An active revision with provenance and terms. Discussions default to the active thread."""
    body = content if content is not None else title
    aliases, keywords = list(aliases), list(keywords)
    when = at if at is not None else 1_800_000_000.0 + next(_clock)
    source_thread = thread_id if thread_id is not None else active_thread_id(conn)
    item_thread = source_thread if kind is MemoryKind.DISCUSSION_CONTEXT else None
    candidate_id = _candidate_in_tx(
        conn, kind=kind, content=body, thread_id=source_thread, quotes=quotes or [Quote(body[:2000])], at=when
    )
    row = conn.execute(
        "INSERT INTO memory_items (memory_id, revision, kind, thread_id, title, content, aliases, keywords, "
        "non_factual, status, operation, created_at, updated_at) "
        "VALUES (coalesce(?, (SELECT coalesce(max(id), 0) + 1 FROM memory_items)), ?, ?, ?, ?, ?, ?, ?, ?, "
        "'active', ?, ?, ?) RETURNING id, memory_id",
        (
            memory_id,
            revision,
            kind.value,
            item_thread,
            title,
            body,
            json.dumps(aliases, ensure_ascii=False),
            json.dumps(keywords, ensure_ascii=False),
            int(kind is MemoryKind.DISCUSSION_CONTEXT),
            operation,
            when,
            when,
        ),
    ).fetchone()
    conn.execute("INSERT INTO memory_item_candidates (item_id, candidate_id) VALUES (?, ?)", (row[0], candidate_id))
    index_item_in_tx(conn, item_id=row[0], title=title, aliases=aliases, keywords=keywords, content=body)
    return Made(id=int(row[0]), memory_id=int(row[1]))


def add_item(manager: MemoryManager, **kwargs: object) -> Made:
    with manager.db.write("test: add an item") as conn:
        return add_item_in_tx(conn, **kwargs)  # type: ignore[arg-type]


def _retire_in_tx(conn: sqlite3.Connection, *, memory_id: int, status: str, at: float) -> sqlite3.Row:
    row = conn.execute(
        "UPDATE memory_items SET status = ?, updated_at = ? WHERE memory_id = ? AND status = 'active' RETURNING *",
        (status, at, memory_id),
    ).fetchone()
    assert row is not None, f"memory {memory_id} has no active revision"
    drop_item_terms_in_tx(conn, item_id=row["id"])
    return row


def revise_item(manager: MemoryManager, memory_id: int, **changes: object) -> Made:
    """Append revision n + 1 (the old one becomes `revised` and loses its terms)."""
    with manager.db.write("test: revise an item") as conn:
        at = 1_800_000_000.0 + next(_clock)
        old = _retire_in_tx(conn, memory_id=memory_id, status="revised", at=at)
        fields: dict[str, object] = {
            "kind": MemoryKind(old["kind"]),
            "title": old["title"],
            "content": old["content"],
            "aliases": json.loads(old["aliases"]),
            "keywords": json.loads(old["keywords"]),
            "thread_id": old["thread_id"],
        }
        fields.update(changes)
        return add_item_in_tx(
            conn, memory_id=memory_id, revision=old["revision"] + 1, operation="revise", at=at, **fields
        )  # type: ignore[arg-type]


def set_status(manager: MemoryManager, memory_id: int, status: str) -> None:
    """Mark the active revision `superseded` or `forgotten` (it leaves retrieval and routing)."""
    with manager.db.write("test: retire an item") as conn:
        _retire_in_tx(conn, memory_id=memory_id, status=status, at=1_800_000_000.0 + next(_clock))


def set_compaction(manager: MemoryManager, text: str, *, thread_id: int | None = None) -> None:
    with manager.db.write("test: set the compaction") as conn:
        thread = thread_id if thread_id is not None else active_thread_id(conn)
        conn.execute("UPDATE threads SET compaction = ? WHERE id = ?", (text, thread))
