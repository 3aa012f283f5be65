"""A single task: detail, continue, followups and auto-memory flags (C-4, C-5, C-11)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, status

from autopatch_j.cloud import tasks
from autopatch_j.cloud.api.deps import ClockDep, EngineDep, UserDep
from autopatch_j.cloud.api.schemas import MAX_ID, ContinueIn, FlagsIn, FlagsOut, FollowupIn, FollowupOut, TaskOut
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.memory_settings import set_flags
from autopatch_j.cloud.projects import Permission

router = APIRouter(tags=["tasks"])
TaskId = Annotated[int, Path(ge=1, le=MAX_ID)]


@router.get("/tasks/{task_id}", response_model=TaskOut)
def get_task(task_id: TaskId, user: UserDep, engine: EngineDep) -> TaskOut:
    """One task as stored: the original prompt and goal, never an injected copy (needs `view`)."""
    with read_tx(engine) as conn:
        return TaskOut.of(tasks.visible_task(conn, user=user, task_id=task_id, permission=Permission.VIEW))


@router.post("/tasks/{task_id}/continue", response_model=TaskOut)
def continue_task(task_id: TaskId, body: ContinueIn, user: UserDep, engine: EngineDep, clock: ClockDep) -> TaskOut:
    """Queue the next round of a completed task with a new prompt (needs `create_task`)."""
    with write_tx(engine) as conn:
        return TaskOut.of(tasks.continue_task(conn, user=user, task_id=task_id, prompt=body.prompt, now=clock()))


@router.post("/tasks/{task_id}/followups", response_model=FollowupOut, status_code=status.HTTP_201_CREATED)
def add_followup(task_id: TaskId, body: FollowupIn, user: UserDep, engine: EngineDep, clock: ClockDep) -> FollowupOut:
    """Send a message from this task to another (both need `create_task`)."""
    message = tasks.clean_message(body.message)  # redaction runs before the write transaction
    with write_tx(engine) as conn:
        followup = tasks.add_followup(
            conn, user=user, from_task_id=task_id, to_task_id=body.to_task_id, message=message, now=clock()
        )
    return FollowupOut.of(followup)


@router.post("/tasks/{task_id}/auto-memory-flags", response_model=FlagsOut, tags=["auto memory"])
def put_flags(task_id: TaskId, body: FlagsIn, user: UserDep, engine: EngineDep, clock: ClockDep) -> FlagsOut:
    """Override use/generate for one task; null follows the user's setting (the task's owner only:
    404 when you cannot see the task, 403 when it is not yours)."""
    with write_tx(engine) as conn:
        flags = set_flags(conn, user=user, task_id=task_id, changes=body.model_dump(exclude_unset=True), now=clock())
    return FlagsOut.of(flags)
