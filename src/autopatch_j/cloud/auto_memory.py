"""Automatic memory extraction (C-12, C-13, C-20 … C-23).

`process_auto_memories()` scans completed tasks that have no memory yet, applies the gates in order
(switch, idle, duration/length, external context, quota), logs one row per task (upserted by task id)
and turns each eligible task into one project-level memory whose `source_thread_id` is the task id.

Exactly once under concurrent sweeps: the extraction transaction locks the project row
(`FOR UPDATE` on PostgreSQL; SQLite's `BEGIN IMMEDIATE` already serializes writers), re-checks
that the task has no memory, and inserts with `ON CONFLICT (source_thread_id) DO NOTHING`; a
partial unique index keeps a single active memory per (project, goal).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from autopatch_j.cloud import audit
from autopatch_j.cloud.auto_memory_records import Candidate, Outcome, Reason, log_skips, log_upsert_row
from autopatch_j.cloud.conversation_control import combine, with_conversation_controls
from autopatch_j.cloud.db import insert_ignore, read_tx, write_tx
from autopatch_j.cloud.errors import QuotaLookupError, StorageError
from autopatch_j.cloud.injection import private_lines, strip_blocks
from autopatch_j.cloud.memory_settings import AutoMemorySettings, settings_from_row
from autopatch_j.cloud.quotas import DbQuotas, QuotaLookup
from autopatch_j.cloud.records import MemoryScope, MemoryStatus, Role, TaskStatus
from autopatch_j.cloud.redaction import redact
from autopatch_j.cloud.tables import (
    auto_memory_log,
    auto_memory_model_runs,
    auto_memory_settings,
    conversation_memory_controls,
    identity_memories,
    project_members,
    projects,
    task_auto_memory_flags,
    task_external_context,
    task_followups,
    tasks,
)
from autopatch_j.cloud.withholding import withhold_lines

if TYPE_CHECKING:  # C-40: the model path is passed in, never imported at runtime here
    from autopatch_j.cloud.model_memory import ModelMemory

log = logging.getLogger(__name__)

EXCERPT_CHARS = 800
EXTRACT_CHUNK = 50  # extractions per write transaction
GOAL_LINE_CHARS = 200


@dataclass(slots=True)
class SweepReport:
    scanned: int = 0
    extracted: list[int] = field(default_factory=list)
    skipped: dict[int, Reason] = field(default_factory=dict)
    last_task_id: int | None = None  # the highest task id scanned (the next batch starts after it)
    complete: bool = True  # False when `limit` cut the scan short
    fallbacks: dict[int, str] = field(default_factory=dict)  # C-40: task → `model_fallback:<reason>`


def _generating() -> sa.ColumnElement[bool]:
    """Gate 1 in SQL, as a superset: the task flag on, or no flag and the user setting on, or the user
    owns a conversation with generation on (C-43; `check_gates` then decides per task)."""
    flag = task_auto_memory_flags.c.generate_memories
    conversation_on = sa.exists().where(
        conversation_memory_controls.c.user_id == tasks.c.user_id,
        conversation_memory_controls.c.generate_memories == 1,
    )
    return sa.or_(flag == 1, sa.and_(flag.is_(None), auto_memory_settings.c.generate_memories == 1), conversation_on)


def check_gates(candidate: Candidate, *, now: datetime, force: bool) -> Reason | None:
    """Gates 1–4 in order (C-21); the quota gate needs a lookup and is `check_quota`."""
    s = candidate.settings
    if not candidate.is_member:  # removed (or made a viewer): nothing of theirs enters project memory
        return Reason.NOT_A_MEMBER
    if not combine(candidate.generate_flag, candidate.conversation_generate, s.generate_memories):  # C-43
        return Reason.GENERATE_DISABLED
    if not force:
        terminal_at = candidate.finished_at or candidate.updated_at
        if (now - terminal_at).total_seconds() < s.idle_seconds:
            return Reason.NOT_IDLE
        if candidate.started_at is None or candidate.finished_at is None:
            return Reason.MISSING_TIMESTAMPS
        if (candidate.finished_at - candidate.started_at).total_seconds() < s.min_duration_seconds:
            return Reason.DURATION_TOO_SHORT
        if candidate.result_chars < s.min_result_chars:
            return Reason.RESULT_TOO_SHORT
    if s.disable_on_external_context:
        if candidate.has_followups:
            return Reason.EXTERNAL_CONTEXT_FOLLOWUPS
        if candidate.parent_task_id is not None:
            return Reason.EXTERNAL_CONTEXT_SUBTASK
        if candidate.has_run_context:
            return Reason.EXTERNAL_CONTEXT_RUN
    return None


def check_quota(remaining_percent: float | None, settings: AutoMemorySettings) -> Reason | None:
    """Gate 5; `None` remaining means the lookup failed, which fails closed."""
    if remaining_percent is None:
        return Reason.QUOTA_CHECK_FAILED
    if remaining_percent < settings.min_rate_limit_remaining_percent:
        return Reason.QUOTA_BELOW_THRESHOLD
    return None


def goal_line(goal: str | None, prompt: str) -> str:
    """The first non-empty line of the redacted goal (or, without one, of the prompt), cut at 200
    characters: redact first, cut after, so a cut never leaves part of a secret behind."""
    for line in redact(goal or prompt).splitlines():
        if line.strip():
            return line.strip()[:GOAL_LINE_CHARS]
    return ""


def goal_key(line: str) -> str:
    return hashlib.sha256(" ".join(line.lower().split()).encode("utf-8")).hexdigest()


def memory_content(goal: str | None, prompt: str, result_text: str, private: Sequence[str] = ()) -> str:
    """Deterministic v1 content (C-22): the goal line + the first 800 chars of the redacted result.

    Pure (call it outside any transaction). Injected memory blocks are not extraction input, and no
    span matching one of `private` (the owner's memories the run received) is promoted."""
    result = withhold_lines(strip_blocks(result_text), private)
    return goal_line(goal, prompt) + "\n" + redact(result)[:EXCERPT_CHARS]


def _candidates(
    conn: Connection,
    *,
    user_id: int | None,
    only_generating: bool = False,
    after_task_id: int = 0,
    limit: int | None = None,
) -> list[Candidate]:
    has_memory = sa.exists().where(identity_memories.c.source_thread_id == sa.cast(tasks.c.id, sa.String))
    has_followups = sa.exists().where(
        sa.or_(task_followups.c.from_task_id == tasks.c.id, task_followups.c.to_task_id == tasks.c.id)
    )
    query = (
        sa.select(
            tasks.c.id,
            tasks.c.user_id,
            tasks.c.project_id,
            tasks.c.started_at,
            tasks.c.finished_at,
            tasks.c.updated_at,
            tasks.c.parent_task_id,
            sa.func.coalesce(sa.func.length(tasks.c.result_text), 0).label("result_chars"),
            *[auto_memory_settings.c[name] for name in AutoMemorySettings.model_fields],
            auto_memory_settings.c.user_id.label("settings_user"),
            task_auto_memory_flags.c.generate_memories.label("generate_flag"),
            has_followups.label("has_followups"),
            sa.exists().where(task_external_context.c.task_id == tasks.c.id).label("has_run_context"),
            sa.exists()
            .where(
                project_members.c.project_id == tasks.c.project_id,
                project_members.c.user_id == tasks.c.user_id,
                project_members.c.role.in_([Role.MEMBER.value, Role.ADMIN.value]),
            )
            .label("is_member"),
            auto_memory_log.c.outcome.label("log_outcome"),
            auto_memory_log.c.reason.label("log_reason"),
        )
        .select_from(
            tasks.outerjoin(auto_memory_settings, auto_memory_settings.c.user_id == tasks.c.user_id)
            .outerjoin(task_auto_memory_flags, task_auto_memory_flags.c.task_id == tasks.c.id)
            .outerjoin(auto_memory_log, auto_memory_log.c.task_id == tasks.c.id)
        )
        .where(tasks.c.status == TaskStatus.COMPLETED, ~has_memory, tasks.c.id > after_task_id)
        .where(~sa.exists().where(auto_memory_model_runs.c.task_id == tasks.c.id))  # C-40: the model ran
        .order_by(tasks.c.id)
    )
    if user_id is not None:
        query = query.where(tasks.c.user_id == user_id)
    if only_generating:
        query = query.where(_generating())
    if limit is not None:
        query = query.limit(limit)
    out = []
    for row in conn.execute(query).mappings():
        flag = row["generate_flag"]
        out.append(
            Candidate(
                task_id=row["id"],
                user_id=row["user_id"],
                project_id=row["project_id"],
                result_chars=int(row["result_chars"]),
                started_at=row["started_at"],
                finished_at=row["finished_at"],
                updated_at=row["updated_at"],
                parent_task_id=row["parent_task_id"],
                has_followups=bool(row["has_followups"]),
                has_run_context=bool(row["has_run_context"]),
                settings=settings_from_row(row if row["settings_user"] is not None else None),
                generate_flag=None if flag is None else bool(flag),
                logged=None if row["log_outcome"] is None else (row["log_outcome"], row["log_reason"]),
                is_member=bool(row["is_member"]),
            )
        )
    return out


def process_auto_memories(
    engine: Engine,
    *,
    clock: Callable[[], datetime],
    quotas: QuotaLookup | None = None,
    user_id: int | None = None,
    force: bool = False,
    only_generating: bool = False,
    after_task_id: int = 0,
    limit: int | None = None,
    model: ModelMemory | None = None,
) -> SweepReport:
    """One extraction sweep over completed tasks (all users, or only `user_id`'s).

    The worker's sweep is incremental and bounded: `only_generating` leaves out tasks whose generate
    switch is off (gate 1 in SQL, so they are neither read nor logged), and at most `limit` candidates
    with ids above `after_task_id` are read; `report.last_task_id` is where the next batch starts.
    """
    quotas = quotas or DbQuotas()
    now = clock()
    report = SweepReport()
    with read_tx(engine) as conn:
        candidates = with_conversation_controls(  # C-43
            conn,
            _candidates(
                conn, user_id=user_id, only_generating=only_generating, after_task_id=after_task_id, limit=limit
            ),
        )
    report.scanned = len(candidates)
    report.last_task_id = candidates[-1].task_id if candidates else None
    report.complete = limit is None or len(candidates) < limit
    remaining: dict[int, float | None] = {}
    eligible: list[Candidate] = []
    for cand in candidates:
        reason = check_gates(cand, now=now, force=force)
        if reason is None:
            if cand.user_id not in remaining:
                remaining[cand.user_id] = _remaining_percent(engine, quotas, user_id=cand.user_id, now=now)
            reason = check_quota(remaining[cand.user_id], cand.settings)
        if reason is None:
            eligible.append(cand)
        else:
            report.skipped[cand.task_id] = reason
    log_skips(engine, candidates, report.skipped, now=now)
    deterministic: list[tuple[Candidate, str | None]] = []
    budget = model.budget(engine) if model is not None else None
    for cand in eligible:
        if model is None or budget is None or not model.wanted(cand.settings):
            deterministic.append((cand, None))
            continue
        try:  # -- C-40: the model path first when the user names a model; else deterministic
            result = model.run(engine, cand, now=now, budget=budget)
        except (SQLAlchemyError, StorageError) as exc:  # one task's trouble must not stop the sweep
            log.warning("auto memory: model extraction of task %s failed, will retry: %s", cand.task_id, exc)
            continue
        if result.fallback is None:
            if result.memory_ids:
                report.extracted.append(cand.task_id)
            continue
        report.fallbacks[cand.task_id] = f"model_fallback:{result.fallback.value}"
        deterministic.append((cand, report.fallbacks[cand.task_id]))
    ordered = sorted(deterministic, key=lambda cr: (cr[0].project_id, cr[0].task_id))  # one lock order
    for start in range(0, len(ordered), EXTRACT_CHUNK):
        chunk = ordered[start : start + EXTRACT_CHUNK]
        try:
            report.extracted.extend(_extract_chunk(engine, chunk, now=now))
        except (SQLAlchemyError, StorageError) as exc:  # one chunk's trouble must not stop the sweep
            log.warning(
                "auto memory: extraction of tasks %s failed, will retry: %s", [c.task_id for c, _ in chunk], exc
            )
    report.extracted.sort()
    return report


_TASK_STATE = (tasks.c.status, tasks.c.round, tasks.c.finished_at)


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A task's memory, built (and redacted) before any write transaction, and the state it was built from."""

    state: tuple[Any, ...]
    key: str
    content: str


def _extract_chunk(engine: Engine, chunk: list[tuple[Candidate, str | None]], *, now: datetime) -> list[int]:
    """Store the memories of up to EXTRACT_CHUNK eligible tasks (each with an optional log reason, a
    model fallback) in one short write transaction; their content is read and redacted first, outside
    it (redaction never holds the write lock)."""
    with read_tx(engine) as conn:
        rows = conn.execute(
            sa.select(tasks.c.id, *_TASK_STATE, tasks.c.prompt, tasks.c.goal, tasks.c.result_text).where(
                tasks.c.id.in_([cand.task_id for cand, _ in chunk])
            )
        ).all()
        private = private_lines(conn, [row.id for row in rows])
    prepared = {
        row.id: _Prepared(
            state=(row.status, row.round, row.finished_at),
            key=goal_key(goal_line(row.goal, row.prompt)),
            content=memory_content(row.goal, row.prompt, row.result_text or "", private.get(row.id, ())),
        )
        for row in rows
        if row.status == TaskStatus.COMPLETED
    }
    with write_tx(engine) as conn:
        return [
            cand.task_id
            for cand, reason in chunk
            if cand.task_id in prepared
            and _extract(conn, cand, prepared[cand.task_id], now=now, reason=reason) is not None
        ]


def _remaining_percent(engine: Engine, quotas: QuotaLookup, *, user_id: int, now: datetime) -> float | None:
    try:
        with read_tx(engine) as conn:
            return quotas.status(conn, user_id=user_id, now=now).remaining_percent
    except QuotaLookupError as exc:
        log.warning("auto memory: quota lookup failed for user %s, failing closed: %s", user_id, exc)
        return None


def _extract(
    conn: Connection, cand: Candidate, prep: _Prepared, *, now: datetime, reason: str | None = None
) -> int | None:
    """Store the memory for one eligible task; None if another sweep got there first (or the task
    changed since its content was prepared). `reason` overrides the log reason (a model fallback)."""
    source = str(cand.task_id)
    key, content = prep.key, prep.content
    conn.execute(sa.select(projects.c.id).where(projects.c.id == cand.project_id).with_for_update())
    exists = conn.execute(
        sa.select(identity_memories.c.id).where(identity_memories.c.source_thread_id == source)
    ).first()
    now_state = conn.execute(sa.select(*_TASK_STATE).where(tasks.c.id == cand.task_id)).one()
    if exists is not None or tuple(now_state) != prep.state:
        return None
    mine = (cand.finished_at or cand.updated_at, cand.task_id)
    active = conn.execute(
        sa.select(identity_memories.c.id, identity_memories.c.source_thread_id).where(
            identity_memories.c.project_id == cand.project_id,
            identity_memories.c.goal_key == key,
            identity_memories.c.status == MemoryStatus.ACTIVE,
        )
    ).first()
    active_order = None
    if active is not None:
        source_task = conn.execute(
            sa.select(tasks.c.id, tasks.c.finished_at, tasks.c.updated_at).where(
                tasks.c.id == int(active.source_thread_id)
            )
        ).one()
        active_order = (source_task.finished_at or source_task.updated_at, source_task.id)
    newer_exists = active_order is not None and active_order > mine
    if active is not None and not newer_exists:
        conn.execute(
            sa.update(identity_memories)
            .where(identity_memories.c.id == active.id)
            .values(status=MemoryStatus.SUPERSEDED, updated_at=now)
        )
    memory_id = insert_ignore(
        conn,
        identity_memories,
        {
            "scope": MemoryScope.PROJECT,
            "user_id": cand.user_id,
            "project_id": cand.project_id,
            "content": content,
            "status": MemoryStatus.SUPERSEDED if newer_exists else MemoryStatus.ACTIVE,
            "source_thread_id": source,
            "goal_key": key,
            "created_at": now,
            "updated_at": now,
        },
        conflict=["source_thread_id"],
    )
    if memory_id is None:  # pragma: no cover - the lock and re-check above make this a belt and braces
        return None
    reason = reason or (Reason.EXTRACTED_SUPERSEDED if newer_exists else Reason.EXTRACTED)
    log_upsert_row(conn, cand, outcome=Outcome.EXTRACTED, reason=reason, memory_id=memory_id, now=now)
    audit.record(
        conn,
        kind="auto_memory_extracted",
        at=now,
        user_id=cand.user_id,
        project_id=cand.project_id,
        task_id=cand.task_id,
        memory_id=memory_id,
        superseded=None if active is None or newer_exists else active.id,
    )
    return memory_id
