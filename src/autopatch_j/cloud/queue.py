"""Claiming queued tasks with a lease and lease-guarded state changes (C-8).

One function for both backends: the candidate is selected `FOR UPDATE SKIP LOCKED` (PostgreSQL; the
clause is not rendered on SQLite, whose `BEGIN IMMEDIATE` already admits a single writer), then
claimed by an UPDATE guarded on the state it was selected in. A running task whose lease expired is
claimed again: that is a resumed run (`attempt` > 1). A task already claimed `max_attempts` times is
not claimed again: it ends `failed` with an `attempts_exhausted` reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from autopatch_j.cloud import audit
from autopatch_j.cloud.db import write_tx
from autopatch_j.cloud.records import Task, TaskStatus
from autopatch_j.cloud.tables import task_rounds, tasks
from autopatch_j.cloud.tasks import load, load_round

_MAX_RACES = 5
DEFAULT_MAX_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class Claim:
    """A claimed task, the prompt of its current round and the lease that guards it."""

    task: Task
    round_prompt: str
    worker_id: str
    attempt: int
    payer_id: int  # who asked for this round and pays for it (the task's owner for round 1)

    @property
    def resumed(self) -> bool:
        return self.attempt > 1


class FinishOutcome(StrEnum):
    RECORDED = "recorded"
    LEASE_LOST = "lease_lost"


def _claimable(now: datetime) -> sa.ColumnElement[bool]:
    return sa.or_(
        tasks.c.status == TaskStatus.QUEUED,
        sa.and_(tasks.c.status == TaskStatus.RUNNING, tasks.c.lease_expires_at < now),
    )


def claim_next(
    engine: Engine,
    *,
    worker_id: str,
    now: datetime,
    lease_seconds: float,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> Claim | None:
    """Claim the oldest claimable task, or None when the queue is empty."""
    with write_tx(engine) as conn:
        races = 0
        while races < _MAX_RACES:
            candidate = conn.execute(
                sa.select(tasks.c.id, tasks.c.status, tasks.c.attempt)
                .where(_claimable(now))
                .order_by(tasks.c.id)
                .limit(1)
                .with_for_update(skip_locked=True)
            ).first()
            if candidate is None:
                return None
            guard = sa.and_(tasks.c.id == candidate.id, tasks.c.attempt == candidate.attempt, _claimable(now))
            if candidate.attempt >= max_attempts:
                _give_up(conn, guard=guard, task_id=candidate.id, attempts=candidate.attempt, now=now)
                continue
            resumed = candidate.status == TaskStatus.RUNNING
            changed = conn.execute(
                sa.update(tasks)
                .where(guard)
                .values(
                    status=TaskStatus.RUNNING,
                    lease_owner=worker_id,
                    lease_expires_at=now + timedelta(seconds=lease_seconds),
                    attempt=candidate.attempt + 1,
                    started_at=now,
                    updated_at=now,
                )
            ).rowcount
            if changed:
                return _claimed(conn, task_id=candidate.id, worker_id=worker_id, now=now, resumed=resumed)
            races += 1
    return None


def _give_up(conn: Connection, *, guard: sa.ColumnElement[bool], task_id: int, attempts: int, now: datetime) -> None:
    """Past the attempt cap the task ends `failed` with the reason in `result_text`; it is never billed."""
    changed = conn.execute(
        sa.update(tasks)
        .where(guard)
        .values(
            status=TaskStatus.FAILED,
            result_text=(
                f"attempts_exhausted: the task was claimed {attempts} times without finishing "
                "(each worker's lease expired or the worker stopped), so it was not run again"
            ),
            finished_at=now,
            lease_owner=None,
            lease_expires_at=None,
            updated_at=now,
        )
    ).rowcount
    if changed:
        task = load(conn, task_id)
        assert task is not None
        audit.record(
            conn,
            kind="task_attempts_exhausted",
            at=now,
            user_id=task.user_id,
            project_id=task.project_id,
            task_id=task_id,
            attempts=attempts,
        )


def _claimed(conn: Connection, *, task_id: int, worker_id: str, now: datetime, resumed: bool) -> Claim:
    task = load(conn, task_id)
    assert task is not None
    audit.record(
        conn,
        kind="task_claimed",
        at=now,
        user_id=task.user_id,
        project_id=task.project_id,
        task_id=task.id,
        worker=worker_id,
        attempt=task.attempt,
        round=task.round,
        resumed=resumed,
    )
    current = load_round(conn, task_id=task.id, round_no=task.round)
    return Claim(
        task=task,
        round_prompt=current.prompt,
        worker_id=worker_id,
        attempt=task.attempt,
        payer_id=task.user_id if current.user_id is None else current.user_id,
    )


def _still_ours(claim: Claim) -> sa.ColumnElement[bool]:
    """The lease guard of every write a claim makes: the task is running under this claim's owner and
    attempt. A write that matches no row means the lease was lost."""
    return sa.and_(
        tasks.c.id == claim.task.id,
        tasks.c.lease_owner == claim.worker_id,
        tasks.c.attempt == claim.attempt,
        tasks.c.status == TaskStatus.RUNNING,
    )


def finish(
    conn: Connection,
    *,
    claim: Claim,
    status: TaskStatus,
    result_text: str,
    cost_usd: float,
    now: datetime,
) -> FinishOutcome:
    """Record the outcome if the lease is still ours; otherwise a typed LEASE_LOST result."""
    changed = conn.execute(
        sa.update(tasks)
        .where(_still_ours(claim))
        .values(
            status=status,
            result_text=result_text,
            finished_at=now,
            cost_usd=tasks.c.cost_usd + cost_usd,
            lease_owner=None,
            lease_expires_at=None,
            updated_at=now,
        )
    ).rowcount
    if not changed:
        return FinishOutcome.LEASE_LOST
    conn.execute(  # the round keeps its own outcome: a later round never overwrites it
        sa.update(task_rounds)
        .where(task_rounds.c.task_id == claim.task.id, task_rounds.c.round == claim.task.round)
        .values(
            status=status,
            result_text=result_text,
            cost_usd=cost_usd,
            started_at=claim.task.started_at,
            finished_at=now,
        )
    )
    return FinishOutcome.RECORDED


def refuse_round(conn: Connection, *, claim: Claim, reason: str, now: datetime) -> FinishOutcome:
    """Refuse a claimed later round (its payer cannot pay) without changing the task's own outcome:
    the round is recorded `failed` with `reason`, the task goes back to `completed` with the previous
    round's result and times, so its owner can continue it. Guarded like `finish`."""
    previous = load_round(conn, task_id=claim.task.id, round_no=claim.task.round - 1)
    changed = conn.execute(
        sa.update(tasks)
        .where(_still_ours(claim))
        .values(
            status=TaskStatus.COMPLETED,
            result_text=previous.result_text,
            started_at=previous.started_at,
            finished_at=previous.finished_at,
            lease_owner=None,
            lease_expires_at=None,
            updated_at=now,
        )
    ).rowcount
    if not changed:
        return FinishOutcome.LEASE_LOST
    conn.execute(
        sa.update(task_rounds)
        .where(task_rounds.c.task_id == claim.task.id, task_rounds.c.round == claim.task.round)
        .values(status=TaskStatus.FAILED, result_text=reason, cost_usd=0.0, finished_at=now)
    )
    audit.record(
        conn,
        kind="task_round_refused",
        at=now,
        user_id=claim.payer_id,
        project_id=claim.task.project_id,
        task_id=claim.task.id,
        round=claim.task.round,
    )
    return FinishOutcome.RECORDED


def extend_lease(engine: Engine, *, claim: Claim, now: datetime, lease_seconds: float) -> FinishOutcome:
    """Push the lease forward while a long task runs."""
    with write_tx(engine) as conn:
        changed = conn.execute(
            sa.update(tasks)
            .where(_still_ours(claim))
            .values(lease_expires_at=now + timedelta(seconds=lease_seconds), updated_at=now)
        ).rowcount
    return FinishOutcome.RECORDED if changed else FinishOutcome.LEASE_LOST


def release(engine: Engine, *, claim: Claim, now: datetime) -> FinishOutcome:
    """Give a claimed task back to the queue (the worker is stopping); guarded like `finish`."""
    with write_tx(engine) as conn:
        changed = conn.execute(
            sa.update(tasks)
            .where(_still_ours(claim))
            .values(status=TaskStatus.QUEUED, lease_owner=None, lease_expires_at=None, started_at=None, updated_at=now)
        ).rowcount
        if changed:
            audit.record(
                conn,
                kind="task_released",
                at=now,
                user_id=claim.task.user_id,
                project_id=claim.task.project_id,
                task_id=claim.task.id,
                worker=claim.worker_id,
                attempt=claim.attempt,
            )
    return FinishOutcome.RECORDED if changed else FinishOutcome.LEASE_LOST
