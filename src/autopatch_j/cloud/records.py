"""Typed values for the cloud's rows: frozen dataclasses built with `from_row()`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from enum import StrEnum
from typing import Any, Self

from sqlalchemy.engine import RowMapping


class Role(StrEnum):
    VIEWER = "viewer"
    MEMBER = "member"
    ADMIN = "admin"


class TaskStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    MERGED = "merged"


class MemoryScope(StrEnum):
    USER = "user"
    PROJECT = "project"


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    DELETED = "deleted"


def _pick(cls: type, row: RowMapping | Mapping[str, Any]) -> dict[str, Any]:
    return {f.name: row[f.name] for f in fields(cls)}


@dataclass(frozen=True, slots=True)
class User:
    id: int
    name: str
    is_admin: bool
    created_at: datetime

    @classmethod
    def from_row(cls, row: RowMapping) -> Self:
        return cls(**_pick(cls, row))


@dataclass(frozen=True, slots=True)
class Project:
    id: int
    name: str
    created_by: int
    created_at: datetime

    @classmethod
    def from_row(cls, row: RowMapping) -> Self:
        return cls(**_pick(cls, row))


@dataclass(frozen=True, slots=True)
class Task:
    id: int
    project_id: int
    user_id: int
    prompt: str
    goal: str | None
    status: TaskStatus
    result_text: str | None
    started_at: datetime | None
    finished_at: datetime | None
    parent_task_id: int | None
    cost_usd: float
    round: int
    attempt: int
    lease_owner: str | None
    lease_expires_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, row: RowMapping | Mapping[str, Any]) -> Self:
        values = _pick(cls, row)
        values["status"] = TaskStatus(values["status"])
        values["cost_usd"] = float(values["cost_usd"] or 0.0)
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Memory:
    id: int
    scope: MemoryScope
    user_id: int
    project_id: int | None
    content: str
    status: MemoryStatus
    source_thread_id: str | None
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, row: RowMapping) -> Self:
        values = _pick(cls, row)
        values["scope"] = MemoryScope(values["scope"])
        values["status"] = MemoryStatus(values["status"])
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Round:
    """One round of a task: its prompt, who asked for it (and pays), and its own outcome."""

    task_id: int
    round: int
    prompt: str
    user_id: int | None
    status: str | None
    result_text: str | None
    cost_usd: float
    started_at: datetime | None
    finished_at: datetime | None
    created_at: datetime

    @classmethod
    def from_row(cls, row: RowMapping) -> Self:
        values = _pick(cls, row)
        values["cost_usd"] = float(values["cost_usd"] or 0.0)
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Followup:
    id: int
    from_task_id: int
    to_task_id: int
    user_id: int
    message: str
    created_at: datetime

    @classmethod
    def from_row(cls, row: RowMapping) -> Self:
        return cls(**_pick(cls, row))


@dataclass(frozen=True, slots=True)
class AuditEvent:
    id: int
    at: datetime
    kind: str
    user_id: int | None
    project_id: int | None
    task_id: int | None
    detail: str

    @classmethod
    def from_row(cls, row: RowMapping) -> Self:
        return cls(**_pick(cls, row))
