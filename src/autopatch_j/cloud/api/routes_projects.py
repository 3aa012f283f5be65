"""Projects, members, a project's tasks and memories (C-3, C-4, C-7)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, status

from autopatch_j.cloud import memories, projects, tasks
from autopatch_j.cloud.api.deps import ClockDep, EngineDep, QuotasDep, UserDep
from autopatch_j.cloud.api.schemas import (
    COMMON_ERRORS,
    MAX_ID,
    MemberIn,
    MemberOut,
    MemoryIn,
    MemoryOut,
    ProjectIn,
    ProjectOut,
    TaskIn,
    TaskOut,
    errors,
)
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.projects import Permission
from autopatch_j.cloud.records import Role

router = APIRouter(tags=["projects"], responses=COMMON_ERRORS)
ProjectId = Annotated[int, Path(ge=1, le=MAX_ID)]
UserId = Annotated[int, Path(ge=1, le=MAX_ID)]


@router.post("/projects", response_model=ProjectOut, status_code=status.HTTP_201_CREATED)
def create_project(body: ProjectIn, user: UserDep, engine: EngineDep, clock: ClockDep) -> ProjectOut:
    """Create a project; the caller becomes its admin."""
    with write_tx(engine) as conn:
        project = projects.create_project(conn, user=user, name=body.name, now=clock())
    return ProjectOut.of(project, Role.ADMIN)


@router.get("/projects", response_model=list[ProjectOut])
def list_projects(user: UserDep, engine: EngineDep) -> list[ProjectOut]:
    """The projects the caller is a member of, with the caller's role."""
    with read_tx(engine) as conn:
        return [ProjectOut.of(p, role) for p, role in projects.list_projects(conn, user=user)]


@router.post("/projects/{project_id}/members", response_model=MemberOut, responses=errors(403, 404, 409))
def set_member(project_id: ProjectId, body: MemberIn, user: UserDep, engine: EngineDep, clock: ClockDep) -> MemberOut:
    """Add a member or change a member's role (project admins only; the creator cannot be demoted).

    An unknown user id gets the same answer as a known one and nothing is stored (site admins get 404).
    """
    with write_tx(engine) as conn:
        projects.set_member(conn, actor=user, project_id=project_id, user_id=body.user_id, role=body.role, now=clock())
    return MemberOut(project_id=project_id, user_id=body.user_id, role=body.role)


@router.delete(
    "/projects/{project_id}/members/{user_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=errors(403, 404, 409),
)
def remove_member(project_id: ProjectId, user_id: UserId, user: UserDep, engine: EngineDep, clock: ClockDep) -> None:
    """Remove a member (project admins only; the project's creator cannot be removed)."""
    with write_tx(engine) as conn:
        projects.remove_member(conn, actor=user, project_id=project_id, user_id=user_id, now=clock())


@router.post(
    "/projects/{project_id}/tasks",
    response_model=TaskOut,
    status_code=status.HTTP_201_CREATED,
    responses=errors(403, 404, 409, 429),
)
def create_task(
    project_id: ProjectId, body: TaskIn, user: UserDep, engine: EngineDep, clock: ClockDep, quotas: QuotasDep
) -> TaskOut:
    """Queue a task (needs `create_task`: member or admin); a caller whose monthly quota is exhausted
    gets 429 and nothing is queued."""
    with write_tx(engine) as conn:
        task = tasks.create_task(
            conn,
            user=user,
            project_id=project_id,
            prompt=body.prompt,
            goal=body.goal,
            parent_task_id=body.parent_task_id,
            now=clock(),
            quotas=quotas,
        )
    return TaskOut.of(task, own_cost=task.cost_usd)  # a new task: its one round is the caller's


@router.get("/projects/{project_id}/tasks", response_model=list[TaskOut], responses=errors(404))
def list_tasks(
    project_id: ProjectId,
    user: UserDep,
    engine: EngineDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> list[TaskOut]:
    """The project's tasks, newest first (needs `view`)."""
    with read_tx(engine) as conn:
        listed = tasks.list_tasks(conn, user=user, project_id=project_id, limit=limit, offset=offset)
        own = tasks.own_spend(conn, user_id=user.id, task_ids=[t.id for t in listed])
    return [TaskOut.of(t, own_cost=own.get(t.id)) for t in listed]


@router.get("/projects/{project_id}/memories", response_model=list[MemoryOut], tags=["memories"], responses=errors(404))
def list_project_memories(project_id: ProjectId, user: UserDep, engine: EngineDep) -> list[MemoryOut]:
    """The project's active memories, newest first (needs `view`)."""
    with read_tx(engine) as conn:
        projects.require(conn, user=user, project_id=project_id, permission=Permission.VIEW)
        return [MemoryOut.of(m) for m in memories.project_memories(conn, project_id=project_id)]


@router.post(
    "/projects/{project_id}/memories",
    response_model=MemoryOut,
    status_code=status.HTTP_201_CREATED,
    tags=["memories"],
    responses=errors(403, 404),
)
def add_project_memory(
    project_id: ProjectId, body: MemoryIn, user: UserDep, engine: EngineDep, clock: ClockDep
) -> MemoryOut:
    """Create a project-level memory (needs `create_task`)."""
    content = memories.clean_content(body.content)  # redaction runs before the write transaction
    with write_tx(engine) as conn:
        memory = memories.create_project_memory(conn, user=user, project_id=project_id, content=content, now=clock())
    return MemoryOut.of(memory)
