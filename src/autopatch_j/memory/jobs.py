"""Durable Memory jobs: creation. (Claims, leases, fencing and retry live beside this in the pipeline.)"""

from __future__ import annotations

import sqlite3

_ENQUEUE_EXTRACTION = (
    "INSERT INTO memory_jobs (kind, thread_id, turn_id, status, generation, next_attempt_at, created_at, updated_at) "
    "SELECT 'extraction', ?, ?, 'pending', generation, ?, ?, ? FROM memory_meta WHERE id = 1 "
    "ON CONFLICT (turn_id) DO NOTHING"
)


def enqueue_extraction_in_tx(conn: sqlite3.Connection, *, thread_id: int, turn_id: int, now: float) -> None:
    """Create the turn's extraction job idempotently, in the caller's transaction (M-21)."""
    conn.execute(_ENQUEUE_EXTRACTION, (thread_id, turn_id, now, now, now))
