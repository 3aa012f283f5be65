"""A single task: detail, continue, followups and auto-memory flags (C-4, C-5, C-11)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response, status

from autopatch_j.cloud import tasks
from autopatch_j.cloud.api.deps import BEARER_SECURITY, ClockDep, EngineDep, QuotasDep, UserDep, request_token
from autopatch_j.cloud.api.reads import Reads
from autopatch_j.cloud.api.schemas import (
    COMMON_ERRORS,
    MAX_ID,
    ContinueIn,
    FlagsIn,
    FlagsOut,
    FollowupIn,
    FollowupOut,
    RoundOut,
    TaskOut,
    errors,
)
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.memory_settings import set_flags
from autopatch_j.cloud.projects import Permission
from autopatch_j.cloud.users import hash_token

router = APIRouter(tags=["tasks"], responses=COMMON_ERRORS)
TaskId = Annotated[int, Path(ge=1, le=MAX_ID)]


@router.get("/tasks/{task_id}", response_model=TaskOut, responses=errors(404), openapi_extra=BEARER_SECURITY)
async def get_task(task_id: TaskId, request: Request) -> Response:
    """One task as stored: the original prompt and goal, never an injected copy (needs `view`)."""
    # The hottest route, kept to what it needs (docs/cloud.md, "Sizing"): no dependencies to solve
    # but the path parameter, the caller, the task and the caller's role in one prepared statement,
    # and the body serialized here from the model (FastAPI passes a Response through unvalidated).
    token = await request_token(request)
    reads: Reads = request.app.state.reads
    row = await reads.first(tasks.TASK_FOR_TOKEN, {"task_id": task_id, "token_hash": hash_token(token)})
    task = tasks.task_for_token(row, permission=Permission.VIEW)
    cost = row["caller_cost_usd"] if row is not None else None
    own_cost = None if cost is None else float(cost)
    return Response(TaskOut.of(task, own_cost=own_cost).model_dump_json(), media_type="application/json")


@router.get("/tasks/{task_id}/rounds", response_model=list[RoundOut], responses=errors(404))
def list_rounds(task_id: TaskId, user: UserDep, engine: EngineDep) -> list[RoundOut]:
    """Every round of the task with its payer and its own result, oldest first (needs `view`)."""
    with read_tx(engine) as conn:
        return [RoundOut.of(r, viewer_id=user.id) for r in tasks.list_rounds(conn, user=user, task_id=task_id)]


@router.post("/tasks/{task_id}/continue", response_model=TaskOut, responses=errors(403, 404, 409, 429))
def continue_task(
    task_id: TaskId, body: ContinueIn, user: UserDep, engine: EngineDep, clock: ClockDep, quotas: QuotasDep
) -> TaskOut:
    """Queue the next round of a completed task (needs `create_task`); the caller pays for the round,
    and a caller whose monthly quota is exhausted gets 429."""
    with write_tx(engine) as conn:
        task = tasks.continue_task(conn, user=user, task_id=task_id, prompt=body.prompt, now=clock(), quotas=quotas)
        own = tasks.own_spend(conn, user_id=user.id, task_ids=[task.id])
    return TaskOut.of(task, own_cost=own.get(task.id))


@router.post(
    "/tasks/{task_id}/followups",
    response_model=FollowupOut,
    status_code=status.HTTP_201_CREATED,
    responses=errors(403, 404, 409),
)
def add_followup(task_id: TaskId, body: FollowupIn, user: UserDep, engine: EngineDep, clock: ClockDep) -> FollowupOut:
    """Send a message from this task to another (both need `create_task`)."""
    message = tasks.clean_message(body.message)  # redaction runs before the write transaction
    with write_tx(engine) as conn:
        followup = tasks.add_followup(
            conn, user=user, from_task_id=task_id, to_task_id=body.to_task_id, message=message, now=clock()
        )
    return FollowupOut.of(followup)


@router.post(
    "/tasks/{task_id}/auto-memory-flags", response_model=FlagsOut, tags=["auto memory"], responses=errors(403, 404)
)
def put_flags(task_id: TaskId, body: FlagsIn, user: UserDep, engine: EngineDep, clock: ClockDep) -> FlagsOut:
    """Override use/generate for one task; null follows the user's setting (the task's owner only:
    404 when you cannot see the task, 403 when it is not yours)."""
    with write_tx(engine) as conn:
        flags = set_flags(conn, user=user, task_id=task_id, changes=body.model_dump(exclude_unset=True), now=clock())
    return FlagsOut.of(flags)
