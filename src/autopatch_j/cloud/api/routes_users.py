"""`/health` and the caller's own resources under `/users/me` (C-2, C-7, C-10, C-12, C-13, C-6)."""

from __future__ import annotations

from fastapi import APIRouter, Request, status

from autopatch_j.cloud import memories
from autopatch_j.cloud.api.deps import ClockDep, EngineDep, QuotasDep, UserDep
from autopatch_j.cloud.api.schemas import (
    COMMON_ERRORS,
    HealthOut,
    LogOut,
    MemoryIn,
    MemoryOut,
    QuotaOut,
    RunIn,
    RunOut,
    SettingsOut,
    SettingsPatch,
    UserOut,
    errors,
)
from autopatch_j.cloud.auto_memory import process_auto_memories
from autopatch_j.cloud.auto_memory_records import log_for_user
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.memory_settings import get_settings, update_settings

router = APIRouter(responses=COMMON_ERRORS)
health_router = APIRouter()


@health_router.get("/health", response_model=HealthOut, tags=["health"], responses=errors(413, 503))
def health(engine: EngineDep) -> HealthOut:
    """Liveness and database reachability; the only route without a token."""
    with read_tx(engine) as conn:
        conn.exec_driver_sql("SELECT 1")
    return HealthOut(status="ok")


@router.get("/users/me", response_model=UserOut, tags=["users"])
def me(user: UserDep) -> UserOut:
    """Who the bearer token belongs to."""
    return UserOut.of(user)


@router.get("/users/me/memories", response_model=list[MemoryOut], tags=["memories"])
def my_memories(user: UserDep, engine: EngineDep) -> list[MemoryOut]:
    """The caller's active user-level memories, newest first."""
    with read_tx(engine) as conn:
        return [MemoryOut.of(m) for m in memories.user_memories(conn, user_id=user.id)]


@router.post("/users/me/memories", response_model=MemoryOut, status_code=status.HTTP_201_CREATED, tags=["memories"])
def add_my_memory(body: MemoryIn, user: UserDep, engine: EngineDep, clock: ClockDep) -> MemoryOut:
    """Create a user-level memory (the only way user-level memories are made)."""
    content = memories.clean_content(body.content)  # redaction runs before the write transaction
    with write_tx(engine) as conn:
        return MemoryOut.of(memories.create_user_memory(conn, user=user, content=content, now=clock()))


@router.get("/users/me/auto-memory-settings", response_model=SettingsOut, tags=["auto memory"])
def my_settings(user: UserDep, engine: EngineDep) -> SettingsOut:
    """The caller's auto-memory settings (defaults when never set: everything off)."""
    with read_tx(engine) as conn:
        return SettingsOut.of(get_settings(conn, user_id=user.id))


@router.put("/users/me/auto-memory-settings", response_model=SettingsOut, tags=["auto memory"])
def put_my_settings(body: SettingsPatch, user: UserDep, engine: EngineDep, clock: ClockDep) -> SettingsOut:
    """Change any subset of the caller's settings; a bad value answers 422 and writes nothing."""
    with write_tx(engine) as conn:
        changes = body.model_dump(exclude_unset=True)
        return SettingsOut.of(update_settings(conn, user=user, changes=changes, now=clock()))


@router.post("/users/me/auto-memory/run", response_model=RunOut, tags=["auto memory"])
def run_my_sweep(
    request: Request, user: UserDep, engine: EngineDep, clock: ClockDep, quotas: QuotasDep, body: RunIn | None = None
) -> RunOut:
    """Run the extraction sweep over the caller's tasks now; `force` skips idle/duration/length gates."""
    report = process_auto_memories(
        engine,
        clock=clock,
        quotas=quotas,
        user_id=user.id,
        force=bool(body and body.force),
        model=request.app.state.memory_model,  # C-40
    )
    return RunOut(
        scanned=report.scanned,
        extracted=report.extracted,
        skipped={str(task_id): reason.value for task_id, reason in report.skipped.items()},
    )


@router.get("/users/me/auto-memory-log", response_model=list[LogOut], tags=["auto memory"])
def my_log(user: UserDep, engine: EngineDep) -> list[LogOut]:
    """One row per task of the caller: outcome, reason, memory id, time (newest first)."""
    with read_tx(engine) as conn:
        return [LogOut.of(entry) for entry in log_for_user(conn, user_id=user.id)]


@router.get("/users/me/quota", response_model=QuotaOut, tags=["quotas"])
def my_quota(user: UserDep, engine: EngineDep, clock: ClockDep, quotas: QuotasDep) -> QuotaOut:
    """The caller's monthly limit, this month's spending and the remaining percentage."""
    with read_tx(engine) as conn:
        return QuotaOut.of(user.id, quotas.status(conn, user_id=user.id, now=clock()))
