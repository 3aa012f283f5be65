"""Per-user auto-memory settings (C-10) and per-task flags (C-11).

Settings are all off by default. Flags live in their own table (`task_auto_memory_flags`), so no
task insert path changes; a NULL flag follows the user's setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy.engine import Connection

from autopatch_j.cloud import audit
from autopatch_j.cloud.db import upsert
from autopatch_j.cloud.errors import Forbidden, InvalidInput
from autopatch_j.cloud.projects import Permission, require
from autopatch_j.cloud.records import User
from autopatch_j.cloud.tables import auto_memory_settings, task_auto_memory_flags
from autopatch_j.cloud.tasks import visible_task

Switch = int  # 0 or 1, as the seed's settings are


class AutoMemorySettings(BaseModel):
    """A user's auto-memory settings; constructing one validates every value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    generate_memories: Switch = Field(default=0, ge=0, le=1)
    use_memories: Switch = Field(default=0, ge=0, le=1)
    disable_on_external_context: Switch = Field(default=1, ge=0, le=1)
    min_rate_limit_remaining_percent: float = Field(default=20.0, ge=0, le=100, allow_inf_nan=False)
    idle_seconds: int = Field(default=900, ge=0, le=31_536_000)
    min_duration_seconds: int = Field(default=30, ge=0, le=31_536_000)
    min_result_chars: int = Field(default=200, ge=0, le=1_000_000)
    extract_model: str | None = Field(default=None, max_length=200)
    consolidation_model: str | None = Field(default=None, max_length=200)


DEFAULT_SETTINGS = AutoMemorySettings()
SETTING_COLUMNS = tuple(AutoMemorySettings.model_fields)


def describe_validation_error(exc: ValidationError) -> str:
    """One clear sentence from pydantic's errors: `field: problem; field: problem`."""
    parts = []
    for error in exc.errors():
        field = ".".join(str(item) for item in error["loc"]) or "body"
        parts.append(f"{field}: {error['msg']}")
    return "invalid auto-memory settings — " + "; ".join(parts) + "."


def settings_from_row(row: Any | None) -> AutoMemorySettings:
    if row is None:
        return DEFAULT_SETTINGS
    return AutoMemorySettings(**{name: row[name] for name in SETTING_COLUMNS})


def get_settings(conn: Connection, *, user_id: int) -> AutoMemorySettings:
    row = (
        conn.execute(sa.select(auto_memory_settings).where(auto_memory_settings.c.user_id == user_id))
        .mappings()
        .first()
    )
    return settings_from_row(row)


def update_settings(conn: Connection, *, user: User, changes: dict[str, Any], now: datetime) -> AutoMemorySettings:
    """Merge `changes` into the caller's settings; invalid values raise InvalidInput and write nothing."""
    current = get_settings(conn, user_id=user.id)
    try:
        merged = AutoMemorySettings(**{**current.model_dump(), **changes})
    except ValidationError as exc:
        raise InvalidInput(describe_validation_error(exc)) from exc
    upsert(conn, auto_memory_settings, {"user_id": user.id, **merged.model_dump(), "updated_at": now}, key=["user_id"])
    audit.record(conn, kind="auto_memory_settings_updated", at=now, user_id=user.id, changed=sorted(changes))
    return merged


@dataclass(frozen=True, slots=True)
class TaskFlags:
    """Per-task overrides; None follows the user's setting."""

    task_id: int
    use_memories: bool | None = None
    generate_memories: bool | None = None


def flag_from_column(value: Any) -> bool | None:
    """A stored override (NULL/0/1) as a flag: None follows the next level."""
    return None if value is None else bool(value)


def flag_to_column(value: bool | None) -> int | None:
    return None if value is None else int(value)


def get_flags(conn: Connection, *, task_id: int) -> TaskFlags:
    row = (
        conn.execute(sa.select(task_auto_memory_flags).where(task_auto_memory_flags.c.task_id == task_id))
        .mappings()
        .first()
    )
    if row is None:
        return TaskFlags(task_id=task_id)
    return TaskFlags(
        task_id=task_id,
        use_memories=flag_from_column(row["use_memories"]),
        generate_memories=flag_from_column(row["generate_memories"]),
    )


def set_flags(
    conn: Connection, *, user: User, task_id: int, changes: dict[str, bool | None], now: datetime
) -> TaskFlags:
    """Set the given flags (None = follow the user setting). Only the task's owner may, since the flags
    decide whose user memories a run receives: NotFound when the caller cannot see the task,
    Forbidden for anyone else (and for an owner who lost `create_task` on the project)."""
    task = visible_task(conn, user=user, task_id=task_id, permission=Permission.VIEW)
    if task.user_id != user.id:
        raise Forbidden("only the task's owner may set its auto-memory flags.")
    require(conn, user=user, project_id=task.project_id, permission=Permission.CREATE_TASK)
    unknown = set(changes) - {"use_memories", "generate_memories"}
    if unknown:
        raise InvalidInput(f"unknown flags: {', '.join(sorted(unknown))}.")
    current = get_flags(conn, task_id=task_id)
    merged = TaskFlags(
        task_id=task_id,
        use_memories=changes.get("use_memories", current.use_memories),
        generate_memories=changes.get("generate_memories", current.generate_memories),
    )

    upsert(
        conn,
        task_auto_memory_flags,
        {
            "task_id": task_id,
            "use_memories": flag_to_column(merged.use_memories),
            "generate_memories": flag_to_column(merged.generate_memories),
            "updated_at": now,
        },
        key=["task_id"],
    )
    audit.record(
        conn,
        kind="auto_memory_flags_set",
        at=now,
        user_id=user.id,
        project_id=task.project_id,
        task_id=task_id,
        use_memories=merged.use_memories,
        generate_memories=merged.generate_memories,
    )
    return merged


def effective(flag: bool | None, setting: int) -> bool:
    """Task override beats the user setting."""
    return bool(setting) if flag is None else flag
