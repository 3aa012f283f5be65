"""Console pages for projects, their tasks and per-task auto-memory flags.

Visibility comes from `projects.require` / `tasks.visible_task`, exactly as in the API: a
non-member gets 404 for a project or task id, a viewer gets 403 when changing flags.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from sqlalchemy.engine import Connection, Engine

from autopatch_j.cloud import projects, tasks
from autopatch_j.cloud.api.errors import message, status_for
from autopatch_j.cloud.api.schemas import MAX_ID
from autopatch_j.cloud.console.deps import ClockDep, EngineDep, Posted, PostedDep, SignedDep
from autopatch_j.cloud.console.render import page
from autopatch_j.cloud.console.routes import go
from autopatch_j.cloud.conversation_control import (
    control_for_root,
    conversation_owner,
    conversation_root,
    effective_for_task,
    set_control,
)
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.errors import CloudError, Conflict, Forbidden, InvalidInput, NotFound
from autopatch_j.cloud.injection import Injection, plan
from autopatch_j.cloud.memory_settings import get_flags, set_flags
from autopatch_j.cloud.projects import GRANTS, Permission
from autopatch_j.cloud.queue import Claim
from autopatch_j.cloud.records import Role, Task, User

router = APIRouter()
ObjectId = Annotated[int, Path(ge=1, le=MAX_ID)]
FLAG_CHOICES = {"follow": None, "on": True, "off": False}


@router.get("/projects")
def projects_page(request: Request, signed: SignedDep, engine: EngineDep) -> Response:
    """GET /projects: `projects.list_projects`."""
    with read_tx(engine) as conn:
        rows = projects.list_projects(conn, user=signed.user)
    return page(request, "projects.html", user=signed.user, csrf=signed.session.csrf, rows=rows)


@router.get("/projects/{project_id}")
def project_page(request: Request, project_id: ObjectId, signed: SignedDep, engine: EngineDep) -> Response:
    """GET /projects/{id}/tasks: `tasks.list_tasks` (needs `view`; 404 for non-members)."""
    with read_tx(engine) as conn:
        listed = tasks.list_tasks(conn, user=signed.user, project_id=project_id, limit=200, offset=0)
        role = projects.require(conn, user=signed.user, project_id=project_id, permission=Permission.VIEW)
        project = next(p for p, _ in projects.list_projects(conn, user=signed.user) if p.id == project_id)
    return page(
        request, "project.html", user=signed.user, csrf=signed.session.csrf, project=project, role=role, tasks=listed
    )


def preview_injection(conn: Connection, task: Task) -> Injection:
    """What the worker's `injection.plan` would hand the executor for this round if it ran now."""
    claim = Claim(
        task=task,
        round_prompt=tasks.round_prompt(conn, task_id=task.id, round_no=task.round),
        worker_id="console-preview",
        attempt=1,
        payer_id=task.user_id,  # a preview charges nobody; injection never depends on the payer
    )
    return plan(conn, claim=claim)


@router.get("/tasks/{task_id}")
def task_page(request: Request, task_id: ObjectId, signed: SignedDep, engine: EngineDep) -> Response:
    """GET /tasks/{id} (`tasks.visible_task`), its flags, its conversation's control (GET
    /tasks/{id}/conversation-memory) and — for its owner only — the effective prompt."""
    with read_tx(engine) as conn:
        task = tasks.visible_task(conn, user=signed.user, task_id=task_id, permission=Permission.VIEW)
        role = projects.require(conn, user=signed.user, project_id=task.project_id, permission=Permission.VIEW)
        flags = get_flags(conn, task_id=task.id)
        root = conversation_root(conn, task.id)
        control = control_for_root(conn, root)
        owner = task.user_id == signed.user.id
        # Effective values combine the owner's own settings: like the API, shown to the owner only.
        resolved = effective_for_task(conn, task_id=task.id, owner_id=task.user_id, control=control) if owner else None
        # The injected block carries the owner's user-level memories: never shown to anyone else.
        injected = preview_injection(conn, task) if owner else None
        owns_conversation = conversation_owner(conn, root) == signed.user.id
        own_cost = tasks.own_spend(conn, user_id=signed.user.id, task_ids=[task.id]).get(task.id)
    return page(
        request,
        "task.html",
        user=signed.user,
        csrf=signed.session.csrf,
        task=task,
        own_cost=own_cost,
        flags=flags,
        owner=owner,
        can_edit=owner and Permission.CREATE_TASK in GRANTS[role],  # `set_flags` allows the owner only
        injected=injected,
        resolved=resolved,
        control=control,
        owns_conversation=owns_conversation,
    )


def flag_choices(form: dict[str, str]) -> dict[str, bool | None]:
    """The follow/on/off selects of a form as the API's null/true/false values."""
    changes = {}
    for name in ("use_memories", "generate_memories"):
        choice = form.get(name, "follow")
        if choice not in FLAG_CHOICES:
            raise InvalidInput(f"{name} must be one of follow, on, off.")
        changes[name] = FLAG_CHOICES[choice]
    return changes


@router.post("/tasks/{task_id}/flags")
def save_flags(request: Request, task_id: ObjectId, post: PostedDep, engine: EngineDep, clock: ClockDep) -> Response:
    """Same call as POST /tasks/{id}/auto-memory-flags: `memory_settings.set_flags`."""
    changes = flag_choices(post.form)
    with write_tx(engine) as conn:
        set_flags(conn, user=post.user, task_id=task_id, changes=changes, now=clock())
    return go(request, f"/tasks/{task_id}")


@router.post("/tasks/{task_id}/conversation-memory")
def save_conversation_control(
    request: Request, task_id: ObjectId, post: PostedDep, engine: EngineDep, clock: ClockDep
) -> Response:
    """Same call as POST /tasks/{id}/conversation-memory: `conversation_control.set_control` (owner only)."""
    changes = flag_choices(post.form)
    with write_tx(engine) as conn:
        set_control(conn, user=post.user, task_id=task_id, changes=changes, now=clock())
    return go(request, f"/tasks/{task_id}")


def _members_page(
    request: Request, engine: Engine, *, user: User, csrf: str, project_id: int, error: str | None, status_code: int
) -> Response:
    with read_tx(engine) as conn:
        members = projects.list_members(conn, actor=user, project_id=project_id)
        project = next(p for p, _ in projects.list_projects(conn, user=user) if p.id == project_id)
    return page(
        request,
        "members.html",
        status_code=status_code,
        user=user,
        csrf=csrf,
        project=project,
        members=members,
        roles=[r.value for r in Role],
        error=error,
    )


@router.get("/projects/{project_id}/members")
def members_page(request: Request, project_id: ObjectId, signed: SignedDep, engine: EngineDep) -> Response:
    """Project admins only (`projects.list_members` needs `admin`; 404 for non-members, 403 otherwise)."""
    return _members_page(
        request, engine, user=signed.user, csrf=signed.session.csrf, project_id=project_id, error=None, status_code=200
    )


@router.post("/projects/{project_id}/members")
def save_member(
    request: Request, project_id: ObjectId, post: PostedDep, engine: EngineDep, clock: ClockDep
) -> Response:
    """Same call as POST /projects/{id}/members: `projects.set_member` (add, or change a role)."""
    raw_id, raw_role = post.form.get("user_id", "").strip(), post.form.get("role", "")
    try:
        if not raw_id.isdigit() or not 1 <= int(raw_id) <= MAX_ID:
            raise InvalidInput("the user id must be a positive whole number.")
        if raw_role not in {r.value for r in Role}:
            raise InvalidInput("the role must be viewer, member or admin.")
        with write_tx(engine) as conn:
            projects.set_member(
                conn, actor=post.user, project_id=project_id, user_id=int(raw_id), role=Role(raw_role), now=clock()
            )
    except (InvalidInput, NotFound, Conflict, Forbidden) as exc:
        return _members_error(request, engine, post=post, project_id=project_id, exc=exc)
    return go(request, f"/projects/{project_id}/members")


@router.post("/projects/{project_id}/members/{user_id}/remove")
def remove_member(
    request: Request, project_id: ObjectId, user_id: ObjectId, post: PostedDep, engine: EngineDep, clock: ClockDep
) -> Response:
    """Same call as DELETE /projects/{id}/members/{user_id}: `projects.remove_member` (the creator stays)."""
    try:
        with write_tx(engine) as conn:
            projects.remove_member(conn, actor=post.user, project_id=project_id, user_id=user_id, now=clock())
    except (Forbidden, Conflict) as exc:
        return _members_error(request, engine, post=post, project_id=project_id, exc=exc)
    return go(request, f"/projects/{project_id}/members")


def _members_error(request: Request, engine: Engine, *, post: Posted, project_id: int, exc: CloudError) -> Response:
    """The members page with the service's message inline; a non-admin or non-member still gets the
    API's 403/404 page instead (`projects.require` raises again here)."""
    with read_tx(engine) as conn:
        projects.require(conn, user=post.user, project_id=project_id, permission=Permission.ADMIN)
    return _members_page(
        request,
        engine,
        user=post.user,
        csrf=post.session.csrf,
        project_id=project_id,
        error=message(exc),
        status_code=status_for(exc),
    )
