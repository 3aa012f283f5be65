"""Storage of imported sessions (docs/import.md): one archived thread and one cursor per session.

An imported turn goes through the ordinary admission path (`begin_turn_in_tx` bound to the
session's own thread, then `complete_turn_in_tx`, which creates its extraction job) in the caller's
transaction, together with the key it is known by and the cursor that covers it — so a crash
leaves either all of them or none. A turn can be known by several keys (a Claude Code record uuid,
a Codex turn id, a Codex line offset); a turn arriving again under any key it already has is
skipped, and a Codex turn that arrives once from the notify hook (turn id) and once from a rollout
without turn ids (line offset) is matched by its fingerprint, oldest unmatched first.
"""

from __future__ import annotations

import enum
import hashlib
import sqlite3
from dataclasses import dataclass

from autopatch_j.memory.admission import begin_turn_in_tx, complete_turn_in_tx
from autopatch_j.memory.guard import require_operational
from autopatch_j.memory.records import Intent


class Source(enum.Enum):
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"


_GET_SESSION = "SELECT * FROM import_sessions WHERE source = ? AND session_id = ?"
_NEW_THREAD = "INSERT INTO threads (status, created_at, archived_at) VALUES ('archived', ?, ?) RETURNING id"
_NEW_SESSION = (
    "INSERT INTO import_sessions (source, session_id, thread_id, path, byte_offset, created_at, updated_at) "
    "VALUES (?, ?, ?, ?, 0, ?, ?) RETURNING *"
)
_MOVE_CURSOR = "UPDATE import_sessions SET byte_offset = ?, path = ?, updated_at = ? WHERE id = ?"
_KNOWN = "SELECT turn_id FROM imported_turns WHERE session_row = ? AND external_id = ?"
_ADD_KEY = "INSERT INTO imported_turns (session_row, external_id, turn_id, fingerprint) VALUES (?, ?, ?, ?)"
# The oldest turn with this fingerprint known by a key of the other kind and not yet by one of ours.
_UNMATCHED = (
    "SELECT i.turn_id FROM imported_turns i WHERE i.session_row = :row AND i.fingerprint = :fp "
    "AND substr(i.external_id, 1, length(:other)) = :other AND NOT EXISTS (SELECT 1 FROM imported_turns a "
    "WHERE a.session_row = i.session_row AND a.turn_id = i.turn_id "
    "AND substr(a.external_id, 1, length(:mine)) = :mine) "
    "ORDER BY i.turn_id LIMIT 1"
)


def fingerprint(user_text: str) -> str:
    """What the user typed, whitespace-normalized and hashed: the same turn seen by two paths."""
    return hashlib.sha256(" ".join(user_text.split()).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class ExternalTurn:
    """One finished turn of another agent: what the user typed and the final text they saw."""

    key: str  # "uuid:…" (Claude Code), "turn:…" (Codex turn id), "line:…" (Codex byte offset)
    user_text: str
    assistant_text: str
    #: The key prefix of the other path this turn may be matched with by fingerprint, if any.
    matches: str | None = None

    @property
    def prefix(self) -> str:
        return self.key.split(":", 1)[0] + ":"

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.user_text)


@dataclass(frozen=True, slots=True)
class ImportSession:
    row_id: int
    source: Source
    session_id: str
    thread_id: int
    path: str | None
    byte_offset: int

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> ImportSession:
        return cls(
            row_id=row["id"],
            source=Source(row["source"]),
            session_id=row["session_id"],
            thread_id=row["thread_id"],
            path=row["path"],
            byte_offset=row["byte_offset"],
        )


def get_session_in_tx(conn: sqlite3.Connection, *, source: Source, session_id: str) -> ImportSession | None:
    row = conn.execute(_GET_SESSION, (source.value, session_id)).fetchone()
    return ImportSession.from_row(row) if row else None


def ensure_session_in_tx(
    conn: sqlite3.Connection, *, source: Source, session_id: str, path: str | None, now: float
) -> ImportSession:
    """The session's import row, created with its own thread, archived on arrival (one active thread kept)."""
    existing = get_session_in_tx(conn, source=source, session_id=session_id)
    if existing is not None:
        return existing
    require_operational(conn)
    thread_id = conn.execute(_NEW_THREAD, (now, now)).fetchone()[0]
    row = conn.execute(_NEW_SESSION, (source.value, session_id, thread_id, path, now, now)).fetchone()
    return ImportSession.from_row(row)


def admit_in_tx(
    conn: sqlite3.Connection, *, session: ImportSession, turn: ExternalTurn, owner: str, now: float
) -> int | None:
    """Admit one external turn unless it is already known; returns the new turn id, or None for a duplicate."""
    if conn.execute(_KNOWN, (session.row_id, turn.key)).fetchone() is not None:
        return None
    if turn.matches is not None:
        params = {"row": session.row_id, "fp": turn.fingerprint, "other": turn.matches, "mine": turn.prefix}
        matched = conn.execute(_UNMATCHED, params).fetchone()
        if matched is not None:
            conn.execute(_ADD_KEY, (session.row_id, turn.key, matched[0], turn.fingerprint))
            return None
    ticket = begin_turn_in_tx(
        conn, user_text=turn.user_text, intent=Intent.GENERAL_CHAT, owner=owner, now=now, thread_id=session.thread_id
    )
    complete_turn_in_tx(conn, ticket=ticket, assistant_text=turn.assistant_text, now=now)
    conn.execute(_ADD_KEY, (session.row_id, turn.key, ticket.turn_id, turn.fingerprint))
    return ticket.turn_id


def is_new_in_tx(conn: sqlite3.Connection, *, session: ImportSession, turn: ExternalTurn) -> bool:
    """Whether `admit_in_tx` would admit this turn now (a dry run asks this and writes nothing)."""
    if conn.execute(_KNOWN, (session.row_id, turn.key)).fetchone() is not None:
        return False
    if turn.matches is None:
        return True
    params = {"row": session.row_id, "fp": turn.fingerprint, "other": turn.matches, "mine": turn.prefix}
    return conn.execute(_UNMATCHED, params).fetchone() is None


def move_cursor_in_tx(
    conn: sqlite3.Connection, *, session: ImportSession, byte_offset: int, path: str | None, now: float
) -> ImportSession:
    conn.execute(_MOVE_CURSOR, (byte_offset, path, now, session.row_id))
    return ImportSession(
        row_id=session.row_id,
        source=session.source,
        session_id=session.session_id,
        thread_id=session.thread_id,
        path=path,
        byte_offset=byte_offset,
    )
