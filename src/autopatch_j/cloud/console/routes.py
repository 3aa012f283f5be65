"""Console pages for the signed-in user: sign-in/out, auto-memory settings, memories, extraction log.

Each handler calls the same service function as the matching API route (named in its docstring).
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError
from sqlalchemy.engine import Engine
from starlette.concurrency import run_in_threadpool

from autopatch_j.cloud import memories, projects
from autopatch_j.cloud.api.schemas import MAX_ID
from autopatch_j.cloud.auto_memory import process_auto_memories
from autopatch_j.cloud.auto_memory_records import Outcome, Reason, log_for_user
from autopatch_j.cloud.console import csrf
from autopatch_j.cloud.console.deps import ClockDep, EngineDep, PostedDep, QuotasDep, SignedDep, sessions
from autopatch_j.cloud.console.render import page
from autopatch_j.cloud.console.session import (
    BIND_COOKIE,
    COOKIE,
    LIFETIME_SECONDS,
    SIGN_IN_COOKIE,
    DbSessions,
    Session,
    clear_cookie,
    read_cookie,
    set_cookie,
)
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.errors import InvalidInput, Unauthorized
from autopatch_j.cloud.memory_settings import SETTING_COLUMNS, get_settings, update_settings
from autopatch_j.cloud.projects import GRANTS, Permission
from autopatch_j.cloud.records import User
from autopatch_j.cloud.users import user_for_token

router = APIRouter()
MemoryId = Annotated[int, Path(ge=1, le=MAX_ID)]
SWITCHES = ("generate_memories", "use_memories", "disable_on_external_context")
OPTIONAL_TEXT = ("extract_model", "consolidation_model")


def go(request: Request, path: str) -> RedirectResponse:
    """Post/redirect/get: 303 to a console path."""
    return RedirectResponse(str(request.scope.get("root_path") or "") + path, status_code=303)


@router.get("/")
def home(request: Request, signed: SignedDep) -> Response:
    return go(request, "/memories")


@router.get("/sign-in")
def sign_in_form(request: Request) -> Response:
    return _sign_in_page(request, error=None, status_code=200)


def _sign_in_page(request: Request, *, error: str | None, status_code: int) -> Response:
    token = secrets.token_urlsafe(32)
    response = page(request, "sign_in.html", status_code=status_code, csrf=token, error=error, user=None)
    set_cookie(response, request, SIGN_IN_COOKIE, token, max_age=3600)
    return response


def _user_for_token(engine: Engine, token: str) -> User:
    with read_tx(engine) as conn:
        return user_for_token(conn, token)


def _new_session(store: DbSessions, old_id: str | None, user_id: int) -> Session:
    store.drop(old_id)
    return store.create(user_id)


@router.post("/sign-in")
async def sign_in(request: Request, engine: EngineDep) -> Response:
    """Exchange an API token (checked by `users.user_for_token`, as the API does) for a session."""
    csrf.check_origin(request)
    form = await csrf.read_form(request)
    csrf.check_token(read_cookie(request, SIGN_IN_COOKIE) or "", form.get("csrf"))
    try:
        user = await run_in_threadpool(_user_for_token, engine, form.get("token", "").strip())
    except Unauthorized:
        return _sign_in_page(request, error="That API token is not valid.", status_code=401)
    store = sessions(request)
    session = await run_in_threadpool(_new_session, store, read_cookie(request, COOKIE), user.id)
    response = go(request, "/memories")
    set_cookie(response, request, COOKIE, session.id, max_age=LIFETIME_SECONDS)
    set_cookie(response, request, BIND_COOKIE, session.binding, max_age=LIFETIME_SECONDS)
    clear_cookie(response, request, SIGN_IN_COOKIE)
    return response


@router.post("/sign-out")
def sign_out(request: Request, post: PostedDep) -> Response:
    sessions(request).drop(post.session.id)
    response = go(request, "/sign-in")
    clear_cookie(response, request, COOKIE)
    clear_cookie(response, request, BIND_COOKIE)
    return response


@router.get("/settings")
def settings_page(request: Request, signed: SignedDep, engine: EngineDep, saved: bool = False) -> Response:
    """Same data as GET /users/me/auto-memory-settings (`memory_settings.get_settings`)."""
    with read_tx(engine) as conn:
        current = get_settings(conn, user_id=signed.user.id)
    return page(
        request,
        "settings.html",
        user=signed.user,
        csrf=signed.session.csrf,
        values=current.model_dump(),
        errors={},
        message="Settings saved." if saved else None,
        failed=False,
    )


def settings_changes(form: dict[str, str]) -> dict[str, Any]:
    """Form fields to the API's change dict: unchecked switches are 0, empty model names are None."""
    changes: dict[str, Any] = {}
    for name in SETTING_COLUMNS:
        if name in SWITCHES:
            changes[name] = 1 if form.get(name) == "1" else 0
        elif name in OPTIONAL_TEXT:
            changes[name] = form.get(name, "").strip() or None
        elif name in form:
            changes[name] = form[name].strip()
    return changes


def field_errors(exc: InvalidInput) -> dict[str, str]:
    cause = exc.__cause__
    if not isinstance(cause, ValidationError):
        return {}
    return {".".join(str(p) for p in e["loc"]): e["msg"] for e in cause.errors()}


@router.post("/settings")
def save_settings(request: Request, post: PostedDep, engine: EngineDep, clock: ClockDep) -> Response:
    """Same call as PUT /users/me/auto-memory-settings: `memory_settings.update_settings`."""
    changes = settings_changes(post.form)
    try:
        with write_tx(engine) as conn:
            update_settings(conn, user=post.user, changes=changes, now=clock())
    except InvalidInput as exc:
        with read_tx(engine) as conn:
            shown = {**get_settings(conn, user_id=post.user.id).model_dump(), **changes}
        return page(
            request,
            "settings.html",
            status_code=422,
            user=post.user,
            csrf=post.session.csrf,
            values=shown,
            errors=field_errors(exc),
            failed=True,
            message=str(exc),
        )
    return go(request, "/settings?saved=1")


@router.get("/memories")
def memories_page(request: Request, signed: SignedDep, engine: EngineDep) -> Response:
    """GET /users/me/memories plus GET /projects/{id}/memories for every project the user can view."""
    with read_tx(engine) as conn:
        mine = memories.user_memories(conn, user_id=signed.user.id)
        shared = []
        for project, _role in projects.list_projects(conn, user=signed.user):
            role = projects.require(conn, user=signed.user, project_id=project.id, permission=Permission.VIEW)
            can_delete = Permission.CREATE_TASK in GRANTS[role]
            shared.append((project, can_delete, memories.project_memories(conn, project_id=project.id)))
    return page(request, "memories.html", user=signed.user, csrf=signed.session.csrf, mine=mine, shared=shared)


@router.post("/memories")
def add_memory(request: Request, post: PostedDep, engine: EngineDep, clock: ClockDep) -> Response:
    """Same call as POST /users/me/memories: `memories.create_user_memory` (redacts secrets)."""
    content = memories.clean_content(post.form.get("content", ""))  # redaction runs before the write transaction
    with write_tx(engine) as conn:
        memories.create_user_memory(conn, user=post.user, content=content, now=clock())
    return go(request, "/memories")


@router.post("/memories/{memory_id}/delete")
def delete_memory(
    request: Request, memory_id: MemoryId, post: PostedDep, engine: EngineDep, clock: ClockDep
) -> Response:
    """Same call as DELETE /memories/{id}: `memories.delete_memory` (404 for foreign ids)."""
    with write_tx(engine) as conn:
        memories.delete_memory(conn, user=post.user, memory_id=memory_id, now=clock())
    return go(request, "/memories")


@router.get("/log")
def log_page(
    request: Request,
    signed: SignedDep,
    engine: EngineDep,
    outcome: str = "",
    reason: str = "",
    task: str = "",
    scanned: int | None = None,
    extracted: int | None = None,
) -> Response:
    """GET /users/me/auto-memory-log (`auto_memory.log_for_user`), filtered by outcome, reason, task."""
    task_id = int(task) if task.strip().isdigit() else None
    with read_tx(engine) as conn:
        entries = log_for_user(conn, user_id=signed.user.id)
    shown = [
        e
        for e in entries
        if (not outcome or e.outcome == outcome)
        and (not reason or e.reason == reason)
        and (task_id is None or e.task_id == task_id)
    ]
    return page(
        request,
        "log.html",
        user=signed.user,
        csrf=signed.session.csrf,
        entries=shown,
        total=len(entries),
        outcomes=[o.value for o in Outcome],
        reasons=[r.value for r in Reason],
        chosen={"outcome": outcome, "reason": reason, "task": task_id},
        ran=(scanned, extracted),
    )


@router.post("/log/run")
def run_sweep(request: Request, post: PostedDep, engine: EngineDep, clock: ClockDep, quotas: QuotasDep) -> Response:
    """Same call as POST /users/me/auto-memory/run: `auto_memory.process_auto_memories` for this user."""
    report = process_auto_memories(
        engine, clock=clock, quotas=quotas, user_id=post.user.id, force=post.form.get("force") == "1"
    )
    return go(request, f"/log?scanned={report.scanned}&extracted={len(report.extracted)}")
