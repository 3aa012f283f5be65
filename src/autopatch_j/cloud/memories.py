"""Identity memories (C-7): user-level (manual only) and project-level, soft-deleted, redacted."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from autopatch_j.cloud import audit
from autopatch_j.cloud.errors import InvalidInput, NotFound
from autopatch_j.cloud.projects import Permission, require
from autopatch_j.cloud.records import Memory, MemoryScope, MemoryStatus, User
from autopatch_j.cloud.redaction import RedactedText, redacted
from autopatch_j.cloud.tables import identity_memories as mem

MAX_CONTENT_CHARS = 4000


def clean_content(content: str) -> RedactedText:
    """Validate and redact a memory's content; call it before the write transaction opens."""
    content = content.strip()
    if not content:
        raise InvalidInput("the memory content must not be empty.")
    if len(content) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"the memory content must be at most {MAX_CONTENT_CHARS} characters.")
    return redacted(content)


def _insert(conn: Connection, *, values: dict[str, object]) -> Memory:
    row = conn.execute(sa.insert(mem).values(**values).returning(*mem.c)).mappings().one()
    return Memory.from_row(row)


def create_user_memory(conn: Connection, *, user: User, content: RedactedText, now: datetime) -> Memory:
    memory = _insert(
        conn,
        values={
            "scope": MemoryScope.USER,
            "user_id": user.id,
            "project_id": None,
            "content": content,
            "status": MemoryStatus.ACTIVE,
            "created_at": now,
            "updated_at": now,
        },
    )
    audit.record(conn, kind="memory_created", at=now, user_id=user.id, memory_id=memory.id, scope="user")
    return memory


def create_project_memory(
    conn: Connection, *, user: User, project_id: int, content: RedactedText, now: datetime
) -> Memory:
    require(conn, user=user, project_id=project_id, permission=Permission.CREATE_TASK)
    memory = _insert(
        conn,
        values={
            "scope": MemoryScope.PROJECT,
            "user_id": user.id,
            "project_id": project_id,
            "content": content,
            "status": MemoryStatus.ACTIVE,
            "created_at": now,
            "updated_at": now,
        },
    )
    audit.record(conn, kind="memory_created", at=now, user_id=user.id, project_id=project_id, memory_id=memory.id)
    return memory


def user_memories(conn: Connection, *, user_id: int, limit: int | None = None) -> list[Memory]:
    """The user's active user-level memories, newest first."""
    query = (
        sa.select(mem)
        .where(mem.c.scope == MemoryScope.USER, mem.c.user_id == user_id, mem.c.status == MemoryStatus.ACTIVE)
        .order_by(mem.c.created_at.desc(), mem.c.id.desc())
        .limit(limit)
    )
    return [Memory.from_row(row) for row in conn.execute(query).mappings()]


def project_memories(conn: Connection, *, project_id: int, limit: int | None = None) -> list[Memory]:
    """The project's active memories, newest first."""
    query = (
        sa.select(mem)
        .where(
            mem.c.scope == MemoryScope.PROJECT,
            mem.c.project_id == project_id,
            mem.c.status == MemoryStatus.ACTIVE,
        )
        .order_by(mem.c.created_at.desc(), mem.c.id.desc())
        .limit(limit)
    )
    return [Memory.from_row(row) for row in conn.execute(query).mappings()]


def delete_memory(conn: Connection, *, user: User, memory_id: int, now: datetime) -> None:
    """Soft-delete: user memories by their owner, project memories with `create_task` on the project."""
    row = conn.execute(sa.select(mem).where(mem.c.id == memory_id)).mappings().first()
    if row is None or row["status"] == MemoryStatus.DELETED:
        raise NotFound("the memory does not exist or is not visible to you.")
    memory = Memory.from_row(row)
    if memory.scope == MemoryScope.USER:
        if memory.user_id != user.id:
            raise NotFound("the memory does not exist or is not visible to you.")
    else:
        assert memory.project_id is not None
        try:
            require(conn, user=user, project_id=memory.project_id, permission=Permission.CREATE_TASK)
        except NotFound as exc:
            raise NotFound("the memory does not exist or is not visible to you.") from exc
    conn.execute(sa.update(mem).where(mem.c.id == memory_id).values(status=MemoryStatus.DELETED, updated_at=now))
    audit.record(
        conn, kind="memory_deleted", at=now, user_id=user.id, project_id=memory.project_id, memory_id=memory_id
    )
