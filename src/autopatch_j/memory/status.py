"""`/memory status` (M-17, M-72): health, counts, jobs by state, the persisted last error, the
jobs that ended `failed` with their reasons, and the key version that built the search index.

Jobs by state: `pending`, `leased`, `retry_wait` and `failed` each, and `done` for the finished ones
(`succeeded` and `succeeded_no_output` together) — counted without reading the whole jobs table.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field

from autopatch_j.memory.db import Database
from autopatch_j.memory.records import Health
from autopatch_j.memory.rekey import recorded_version_in_tx

# Every number here costs a bounded amount of work, whatever the store's size (nothing at start-up may
# read the whole file): `count(*)` of a whole table is SQLite's b-tree count, which reads only the page
# headers of the table's smallest index (0.02 ms at 100,000 turns); the active memories are counted on
# the partial index of active revisions (they scale with what is remembered, not with the turns); and
# the jobs are counted by state only where work is still open (`pending`, `leased`, `retry_wait`,
# `failed`, through the status index), the finished ones as the rest of the table: `done`.
_COUNTS = (
    "SELECT (SELECT count(*) FROM turns) AS turns, "
    "(SELECT count(*) FROM memory_items WHERE status = 'active') AS active_items, "
    "(SELECT count(*) FROM memory_candidates) AS candidates"
)
_OPEN_JOB_STATES = ("pending", "leased", "retry_wait", "failed")
_JOBS_BY_STATUS = (
    "SELECT status, count(*) AS n FROM memory_jobs WHERE status IN ('pending', 'leased', 'retry_wait', 'failed') "
    "GROUP BY status UNION ALL SELECT 'done', (SELECT count(*) FROM memory_jobs)"
)
DONE = "done"  # succeeded or succeeded_no_output
_META = "SELECT generation, last_error, last_succeeded_at FROM memory_meta WHERE id = 1"
_ACTIVE_THREAD = "SELECT id FROM threads WHERE status = 'active' ORDER BY id LIMIT 1"
_FAILED_JOBS = (
    "SELECT id, kind, turn_id, attempts, last_error FROM memory_jobs WHERE status = 'failed' "
    "ORDER BY updated_at DESC, id DESC LIMIT ?"
)
MAX_FAILED_SHOWN = 10
DEBUG_HINT = "Set AUTOPATCH_DEBUG=true to see the RAW error text."
RETRY_FAILED_HINT = (
    "Failed jobs are not retried on their own; the offline rules extractor processed their turns instead. "
    "Run `autopatch-j memory drain --retry-failed` to try the LLM again."
)


@dataclass(frozen=True, slots=True)
class FailedJob:
    id: int
    kind: str
    turn_id: int | None
    attempts: int
    last_error: str | None


@dataclass(frozen=True, slots=True)
class StatusReport:
    health: Health
    schema_version: int | None
    active_thread_id: int | None
    generation: int | None
    counts: dict[str, int] = field(default_factory=dict)
    jobs: dict[str, int] = field(default_factory=dict)
    last_error: str | None = None
    last_succeeded_at: float | None = None
    failed: tuple[FailedJob, ...] = ()  # the newest `MAX_FAILED_SHOWN`
    index_key_version: int | None = None  # the key version that built the search index (None: unrecorded)


def concise_error(raw: str) -> str:
    """The first line of a RAW error, bounded; the full text needs the debug switch (M-72)."""
    first = raw.strip().splitlines()[0] if raw.strip() else "unknown error"
    return first if len(first) <= 160 else first[:157] + "..."


def _jobs_by_state(conn: sqlite3.Connection) -> dict[str, int]:
    """Open jobs by state, and `done` for every finished one; states without jobs are left out."""
    counts = {row["status"]: row["n"] for row in conn.execute(_JOBS_BY_STATUS)}
    total = counts.pop(DONE, 0)
    counts[DONE] = total - sum(counts.get(state, 0) for state in _OPEN_JOB_STATES)
    return {state: n for state, n in sorted(counts.items()) if n}


def read_status(*, db: Database, health: Health) -> StatusReport:
    """Everything readable about the store; never refuses, never writes."""
    if not db.path.exists():
        return StatusReport(health=health, schema_version=None, active_thread_id=None, generation=None)
    try:
        conn = db.connect()
    except sqlite3.Error:
        return StatusReport(health=health, schema_version=None, active_thread_id=None, generation=None)
    version = thread_id = generation = None
    counts: dict[str, int] = {}
    jobs: dict[str, int] = {}
    last_error = last_ok = None
    failed: tuple[FailedJob, ...] = ()
    key_version = None
    try:
        with contextlib.suppress(sqlite3.Error):
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        with contextlib.suppress(sqlite3.Error):
            row = conn.execute(_ACTIVE_THREAD).fetchone()
            thread_id = row[0] if row else None
        with contextlib.suppress(sqlite3.Error):
            row = conn.execute(_META).fetchone()
            if row:
                generation, last_error, last_ok = (
                    row["generation"],
                    row["last_error"],
                    row["last_succeeded_at"],
                )
        with contextlib.suppress(sqlite3.Error):
            counts = dict(conn.execute(_COUNTS).fetchone())
        with contextlib.suppress(sqlite3.Error):
            jobs = _jobs_by_state(conn)
        with contextlib.suppress(sqlite3.Error):
            failed = tuple(FailedJob(*row) for row in conn.execute(_FAILED_JOBS, (MAX_FAILED_SHOWN,)))
        with contextlib.suppress(sqlite3.Error):
            key_version = recorded_version_in_tx(conn)
    finally:
        conn.close()
    return StatusReport(
        health=health,
        schema_version=version,
        active_thread_id=thread_id,
        generation=generation,
        counts=counts,
        jobs=jobs,
        last_error=last_error,
        last_succeeded_at=last_ok,
        failed=failed,
        index_key_version=key_version,
    )
