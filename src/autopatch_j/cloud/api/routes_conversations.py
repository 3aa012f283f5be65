"""The per-conversation memory control (C-43): `GET`/`POST /tasks/{id}/conversation-memory`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, StrictBool
from sqlalchemy.engine import Connection

from autopatch_j.cloud.api.deps import ClockDep, EngineDep, UserDep
from autopatch_j.cloud.api.schemas import COMMON_ERRORS, MAX_ID, errors
from autopatch_j.cloud.conversation_control import (
    ConversationControl,
    control_for_task,
    effective_for_task,
    set_control,
)
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.projects import Permission
from autopatch_j.cloud.records import Task, User
from autopatch_j.cloud.tasks import visible_task

router = APIRouter(tags=["auto memory"], responses=COMMON_ERRORS)
TaskId = Annotated[int, Path(ge=1, le=MAX_ID)]


class ConversationIn(BaseModel):
    """Any subset; `null` = follow the task flags and the user's settings."""

    model_config = ConfigDict(extra="forbid")

    use_memories: StrictBool | None = None
    generate_memories: StrictBool | None = None


class ConversationOut(BaseModel):
    """`effective_*` combine the owner's own settings: null for anyone but the task's owner."""

    root_task_id: int
    use_memories: bool | None
    generate_memories: bool | None
    effective_use_memories: bool | None
    effective_generate_memories: bool | None


def _out(conn: Connection, task: Task, caller: User, control: ConversationControl) -> ConversationOut:
    out = ConversationOut(
        root_task_id=control.root_task_id,
        use_memories=control.use_memories,
        generate_memories=control.generate_memories,
        effective_use_memories=None,
        effective_generate_memories=None,
    )
    if task.user_id != caller.id:
        return out
    effective = effective_for_task(conn, task_id=task.id, owner_id=task.user_id, control=control)
    return out.model_copy(
        update={
            "effective_use_memories": effective.use_memories,
            "effective_generate_memories": effective.generate_memories,
        }
    )


@router.get("/tasks/{task_id}/conversation-memory", response_model=ConversationOut, responses=errors(404))
def get_conversation_memory(task_id: TaskId, user: UserDep, engine: EngineDep) -> ConversationOut:
    """The control of the conversation this task belongs to, and what it means for this task."""
    with read_tx(engine) as conn:
        task = visible_task(conn, user=user, task_id=task_id, permission=Permission.VIEW)
        return _out(conn, task, user, control_for_task(conn, task.id))


@router.post("/tasks/{task_id}/conversation-memory", response_model=ConversationOut, responses=errors(403, 404))
def set_conversation_memory(
    task_id: TaskId, body: ConversationIn, user: UserDep, engine: EngineDep, clock: ClockDep
) -> ConversationOut:
    """Turn memory use/generation on, off or back to follow (null) for the whole conversation
    (owner only). Off is sticky: it beats every task flag of the conversation."""
    with write_tx(engine) as conn:
        control = set_control(
            conn, user=user, task_id=task_id, changes=body.model_dump(exclude_unset=True), now=clock()
        )
        task = visible_task(conn, user=user, task_id=task_id, permission=Permission.VIEW)
        return _out(conn, task, user, control)
