"""Threads: the one active ordinary thread, archived by `/new` (M-16)."""

from __future__ import annotations

import sqlite3

from autopatch_j.memory.guard import require_operational
from autopatch_j.memory.records import Thread

_ARCHIVE = "UPDATE threads SET status = 'archived', archived_at = ? WHERE id = ? AND status = 'active'"
_CREATE_ACTIVE = "INSERT INTO threads (status, created_at) VALUES ('active', ?) RETURNING *"
_GET = "SELECT * FROM threads WHERE id = ?"


def start_new_thread_in_tx(conn: sqlite3.Connection, *, now: float) -> tuple[Thread, Thread]:
    """Archive the active thread and create the next one; returns (archived, new)."""
    op = require_operational(conn)
    conn.execute(_ARCHIVE, (now, op.active_thread_id))
    new = Thread.from_row(conn.execute(_CREATE_ACTIVE, (now,)).fetchone())
    archived = Thread.from_row(conn.execute(_GET, (op.active_thread_id,)).fetchone())
    return archived, new


def get_thread_in_tx(conn: sqlite3.Connection, *, thread_id: int) -> Thread | None:
    row = conn.execute(_GET, (thread_id,)).fetchone()
    return Thread.from_row(row) if row else None
