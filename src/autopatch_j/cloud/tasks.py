"""Tasks (C-4), their rounds (continuations) and task-to-task followups (C-5).

A continuation is a later round of the same task: `/continue` puts a completed task back to
`queued`, increments `round` and records the new prompt in `task_rounds`; `tasks.prompt` keeps the
first round's prompt. Queue claims and lease-guarded state changes live in `queue.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from autopatch_j.cloud import audit
from autopatch_j.cloud.errors import Conflict, InvalidInput, NotFound, QuotaExhausted, Unauthorized
from autopatch_j.cloud.projects import Permission, granted, require
from autopatch_j.cloud.quotas import DbQuotas, QuotaLookup
from autopatch_j.cloud.records import Followup, Role, Round, Task, TaskStatus, User
from autopatch_j.cloud.redaction import RedactedText, redacted
from autopatch_j.cloud.tables import project_members, task_followups, task_rounds, tasks, users

MAX_PROMPT_CHARS = 100_000
MAX_MESSAGE_CHARS = 20_000
_HIDDEN = "the task does not exist or is not visible to you."
# Built once (the hottest read of the API): the task and the caller's role on its project.
_TASK_AND_ROLE = (
    sa.select(tasks, project_members.c.role.label("caller_role"))
    .outerjoin(
        project_members,
        sa.and_(
            project_members.c.project_id == tasks.c.project_id, project_members.c.user_id == sa.bindparam("user_id")
        ),
    )
    .where(tasks.c.id == sa.bindparam("task_id"))
)

# `GET /tasks/{id}` in one statement: the caller by the sha256 of their token, the task, and the
# caller's role on the task's project. No row: the token is unknown (401); the task's columns NULL:
# no such task; the role NULL: the caller is not a member (both 404, alike).
TASK_FOR_TOKEN = (
    sa.select(
        tasks,
        project_members.c.role.label("caller_role"),
        sa.select(sa.func.sum(task_rounds.c.cost_usd))
        .where(task_rounds.c.task_id == tasks.c.id, task_rounds.c.user_id == users.c.id)
        .scalar_subquery()
        .label("caller_cost_usd"),
    )
    .select_from(users)
    .outerjoin(tasks, tasks.c.id == sa.bindparam("task_id"))
    .outerjoin(
        project_members,
        sa.and_(project_members.c.project_id == tasks.c.project_id, project_members.c.user_id == users.c.id),
    )
    .where(users.c.token_hash == sa.bindparam("token_hash"))
)


def task_for_token(row: Mapping[str, Any] | None, *, permission: Permission) -> Task:
    """The task read by `TASK_FOR_TOKEN`: Unauthorized, NotFound or Forbidden as `visible_task` decides."""
    if row is None:
        raise Unauthorized()
    if row["id"] is None or row["caller_role"] is None:
        raise NotFound(_HIDDEN)
    granted(Role(row["caller_role"]), permission)
    return Task.from_row(row)


def _check_text(value: str, *, field: str, limit: int) -> str:
    if not value.strip():
        raise InvalidInput(f"{field} must not be empty.")
    if len(value) > limit:
        raise InvalidInput(f"{field} must be at most {limit} characters.")
    return value


def _check_quota(conn: Connection, *, user: User, now: datetime, quotas: QuotaLookup | None, what: str) -> None:
    """Quotas are checked before anything is queued; the figures go to the caller only."""
    quota = (quotas or DbQuotas()).status(conn, user_id=user.id, now=now)
    if quota.exhausted:
        raise QuotaExhausted(
            f"your monthly quota is exhausted (${quota.spent_usd:.2f} of ${quota.limit_usd:.2f}); "
            f"the {what} was not queued."
        )


def load(conn: Connection, task_id: int) -> Task | None:
    row = conn.execute(sa.select(tasks).where(tasks.c.id == task_id)).mappings().first()
    return None if row is None else Task.from_row(row)


def visible_task(conn: Connection, *, user: User, task_id: int, permission: Permission) -> Task:
    """The task if the caller holds `permission` on its project; NotFound for non-members.

    One statement: the task with the caller's role on its project (NULL for a non-member)."""
    row = conn.execute(_TASK_AND_ROLE, {"task_id": task_id, "user_id": user.id}).mappings().first()
    if row is None or row["caller_role"] is None:
        raise NotFound(_HIDDEN)
    granted(Role(row["caller_role"]), permission)
    return Task.from_row(row)


def create_task(
    conn: Connection,
    *,
    user: User,
    project_id: int,
    prompt: str,
    goal: str | None,
    parent_task_id: int | None,
    now: datetime,
    quotas: QuotaLookup | None = None,
) -> Task:
    """Queue a task; the caller pays for its first round, so a caller whose monthly quota is
    exhausted is refused (QuotaExhausted, with the caller's own figures) and nothing is queued."""
    require(conn, user=user, project_id=project_id, permission=Permission.CREATE_TASK)
    _check_text(prompt, field="prompt", limit=MAX_PROMPT_CHARS)
    if goal is not None:
        _check_text(goal, field="goal", limit=MAX_PROMPT_CHARS)
    _check_quota(conn, user=user, now=now, quotas=quotas, what="task")
    if parent_task_id is not None:
        parent = load(conn, parent_task_id)
        if parent is None or parent.project_id != project_id:
            raise Conflict("parent_task_id must name a task of the same project.")
    values = {
        "project_id": project_id,
        "user_id": user.id,
        "prompt": prompt,
        "goal": goal,
        "status": TaskStatus.QUEUED,
        "parent_task_id": parent_task_id,
        "cost_usd": 0.0,
        "round": 1,
        "attempt": 0,
        "created_at": now,
        "updated_at": now,
    }
    row = conn.execute(sa.insert(tasks).values(**values).returning(*tasks.c)).mappings().one()
    task = Task.from_row(row)
    conn.execute(
        sa.insert(task_rounds).values(task_id=task.id, round=1, prompt=prompt, user_id=user.id, created_at=now)
    )
    audit.record(conn, kind="task_created", at=now, user_id=user.id, project_id=project_id, task_id=task.id)
    return task


def list_tasks(conn: Connection, *, user: User, project_id: int, limit: int, offset: int) -> list[Task]:
    require(conn, user=user, project_id=project_id, permission=Permission.VIEW)
    query = (
        sa.select(tasks).where(tasks.c.project_id == project_id).order_by(tasks.c.id.desc()).limit(limit).offset(offset)
    )
    return [Task.from_row(row) for row in conn.execute(query).mappings()]


def load_round(conn: Connection, *, task_id: int, round_no: int) -> Round:
    row = (
        conn.execute(sa.select(task_rounds).where(task_rounds.c.task_id == task_id, task_rounds.c.round == round_no))
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"task {task_id} has no round {round_no}.")
    return Round.from_row(row)


def round_prompt(conn: Connection, *, task_id: int, round_no: int) -> str:
    return load_round(conn, task_id=task_id, round_no=round_no).prompt


def own_spend(conn: Connection, *, user_id: int, task_ids: list[int]) -> dict[int, float]:
    """For each task, what `user_id` paid for its rounds; a task missing from the answer had no round
    paid by them. Spend is visible only to its owner: this is the only task cost a caller is shown."""
    if not task_ids:
        return {}
    rows = conn.execute(
        sa.select(task_rounds.c.task_id, sa.func.sum(task_rounds.c.cost_usd))
        .where(task_rounds.c.task_id.in_(task_ids), task_rounds.c.user_id == user_id)
        .group_by(task_rounds.c.task_id)
    )
    return {task_id: float(total or 0.0) for task_id, total in rows}


def list_rounds(conn: Connection, *, user: User, task_id: int) -> list[Round]:
    """Every round of a task, oldest first (needs `view`)."""
    visible_task(conn, user=user, task_id=task_id, permission=Permission.VIEW)
    rows = conn.execute(
        sa.select(task_rounds).where(task_rounds.c.task_id == task_id).order_by(task_rounds.c.round)
    ).mappings()
    return [Round.from_row(row) for row in rows]


def continue_task(
    conn: Connection,
    *,
    user: User,
    task_id: int,
    prompt: str,
    now: datetime,
    quotas: QuotaLookup | None = None,
) -> Task:
    """Queue the next round of a completed task with a new prompt; the caller pays for the round,
    so a caller whose monthly quota is exhausted is refused (QuotaExhausted) and nothing changes."""
    task = visible_task(conn, user=user, task_id=task_id, permission=Permission.CREATE_TASK)
    _check_text(prompt, field="prompt", limit=MAX_PROMPT_CHARS)
    _check_quota(conn, user=user, now=now, quotas=quotas, what="round")
    next_round = task.round + 1
    changed = conn.execute(
        sa.update(tasks)
        .where(tasks.c.id == task_id, tasks.c.status == TaskStatus.COMPLETED, tasks.c.round == task.round)
        # `attempt` counts the claims of the current round: the attempt cap applies per round
        .values(
            status=TaskStatus.QUEUED, round=next_round, attempt=0, started_at=None, finished_at=None, updated_at=now
        )
    ).rowcount
    if not changed:
        raise Conflict(f"only a completed task can be continued; this one is {task.status.value}.")
    conn.execute(
        sa.insert(task_rounds).values(task_id=task_id, round=next_round, prompt=prompt, user_id=user.id, created_at=now)
    )
    audit.record(
        conn,
        kind="task_continued",
        at=now,
        user_id=user.id,
        project_id=task.project_id,
        task_id=task_id,
        round=next_round,
    )
    reloaded = load(conn, task_id)
    assert reloaded is not None
    return reloaded


def clean_message(message: str) -> RedactedText:
    """Validate and redact a followup message; call it before the write transaction opens."""
    return redacted(_check_text(message, field="message", limit=MAX_MESSAGE_CHARS))


def add_followup(
    conn: Connection, *, user: User, from_task_id: int, to_task_id: int, message: RedactedText, now: datetime
) -> Followup:
    """A task-to-task message (see `clean_message`) between two tasks of one project (`create_task`)."""
    source = visible_task(conn, user=user, task_id=from_task_id, permission=Permission.CREATE_TASK)
    target = visible_task(conn, user=user, task_id=to_task_id, permission=Permission.CREATE_TASK)
    if from_task_id == to_task_id:
        raise Conflict("a followup must go to another task.")
    if source.project_id != target.project_id:
        raise Conflict("a followup must go to a task of the same project (conversations stay in one project).")
    row = (
        conn.execute(
            sa.insert(task_followups)
            .values(
                from_task_id=from_task_id,
                to_task_id=to_task_id,
                user_id=user.id,
                message=message,
                created_at=now,
            )
            .returning(*task_followups.c)
        )
        .mappings()
        .one()
    )
    audit.record(conn, kind="followup_created", at=now, user_id=user.id, task_id=from_task_id, to_task_id=to_task_id)
    return Followup.from_row(row)


def has_subtasks(conn: Connection, task_id: int) -> bool:
    return conn.execute(sa.select(tasks.c.id).where(tasks.c.parent_task_id == task_id).limit(1)).first() is not None


def has_followups(conn: Connection, task_id: int) -> bool:
    query = sa.select(task_followups.c.id).where(
        sa.or_(task_followups.c.from_task_id == task_id, task_followups.c.to_task_id == task_id)
    )
    return conn.execute(query.limit(1)).first() is not None
