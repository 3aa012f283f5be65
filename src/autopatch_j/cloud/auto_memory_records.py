"""The records of automatic memory (C-12, C-13, C-20 … C-23): the candidate task the gates read,
the outcome and reason of each task, and the per-task log upserted by task id.

Shared by the sweep (`auto_memory`), the conversation switches (`conversation_control`) and the
model path (`model_memory`), none of which imports another for them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from autopatch_j.cloud.db import write_tx
from autopatch_j.cloud.memory_settings import AutoMemorySettings
from autopatch_j.cloud.tables import auto_memory_log


class Outcome(StrEnum):
    EXTRACTED = "extracted"
    SKIPPED = "skipped"


class Reason(StrEnum):
    EXTRACTED = "extracted"
    EXTRACTED_SUPERSEDED = "extracted_superseded"  # stored, but a newer result of the goal stays active
    GENERATE_DISABLED = "generate_disabled"
    NOT_IDLE = "not_idle"
    MISSING_TIMESTAMPS = "missing_timestamps"
    DURATION_TOO_SHORT = "duration_too_short"
    RESULT_TOO_SHORT = "result_too_short"
    EXTERNAL_CONTEXT_FOLLOWUPS = "external_context_followups"
    EXTERNAL_CONTEXT_SUBTASK = "external_context_subtask"
    EXTERNAL_CONTEXT_RUN = "external_context_run"  # C-41: MCP / web search seen inside the run
    QUOTA_BELOW_THRESHOLD = "quota_below_threshold"
    QUOTA_CHECK_FAILED = "quota_check_failed"
    NOT_A_MEMBER = "not_a_member"  # the task's user no longer holds create_task on the project


@dataclass(frozen=True, slots=True)
class Candidate:
    """A completed task without a memory, with everything the gates read."""

    task_id: int
    user_id: int
    project_id: int
    result_chars: int
    started_at: datetime | None
    finished_at: datetime | None
    updated_at: datetime
    parent_task_id: int | None
    has_followups: bool
    has_run_context: bool
    settings: AutoMemorySettings
    generate_flag: bool | None
    logged: tuple[str, str] | None
    conversation_generate: bool | None = None  # C-43: the conversation's switch (None = follow)
    is_member: bool = True  # the task's user still holds create_task on the task's project


def log_skips(engine: Engine, candidates: list[Candidate], skipped: dict[int, Reason], *, now: datetime) -> None:
    changed = [c for c in candidates if c.task_id in skipped and c.logged != (Outcome.SKIPPED, skipped[c.task_id])]
    if not changed:
        return
    with write_tx(engine) as conn:
        conn.execute(
            _log_upsert(conn.dialect.name),
            [_log_row(c, outcome=Outcome.SKIPPED, reason=skipped[c.task_id], memory_id=None, now=now) for c in changed],
        )


def _log_row(
    cand: Candidate, *, outcome: Outcome, reason: str, memory_id: int | None, now: datetime
) -> dict[str, object]:
    return {
        "task_id": cand.task_id,
        "user_id": cand.user_id,
        "outcome": outcome.value,
        "reason": str(reason),
        "memory_id": memory_id,
        "at": now,
    }


@functools.cache
def _log_upsert(dialect_name: str) -> Any:
    """`INSERT … ON CONFLICT (task_id) DO UPDATE` built once per dialect; a stale sweep never
    overwrites the record of an extraction."""
    from sqlalchemy.dialects import postgresql, sqlite

    stmt: Any = (postgresql.insert if dialect_name == "postgresql" else sqlite.insert)(auto_memory_log)
    columns = ("user_id", "outcome", "reason", "memory_id", "at")
    return stmt.on_conflict_do_update(
        index_elements=["task_id"],
        set_={name: stmt.excluded[name] for name in columns},
        where=auto_memory_log.c.outcome != Outcome.EXTRACTED.value,
    )


def log_upsert_row(
    conn: Connection, cand: Candidate, *, outcome: Outcome, reason: str, memory_id: int | None, now: datetime
) -> None:
    """Upsert the task's log row inside the caller's transaction (the sweep and the model path, C-40)."""
    conn.execute(
        _log_upsert(conn.dialect.name), _log_row(cand, outcome=outcome, reason=reason, memory_id=memory_id, now=now)
    )


@dataclass(frozen=True, slots=True)
class LogEntry:
    task_id: int
    outcome: str
    reason: str
    memory_id: int | None
    at: datetime


def log_for_user(conn: Connection, *, user_id: int, limit: int = 500) -> list[LogEntry]:
    rows = conn.execute(
        sa.select(auto_memory_log)
        .where(auto_memory_log.c.user_id == user_id)
        .order_by(auto_memory_log.c.at.desc(), auto_memory_log.c.task_id.desc())
        .limit(limit)
    ).mappings()
    return [
        LogEntry(task_id=r["task_id"], outcome=r["outcome"], reason=r["reason"], memory_id=r["memory_id"], at=r["at"])
        for r in rows
    ]
