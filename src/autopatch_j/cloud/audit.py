"""Audit log of security-relevant and memory events (C-9); details are redacted JSON."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from autopatch_j.cloud.records import AuditEvent
from autopatch_j.cloud.redaction import redact
from autopatch_j.cloud.tables import audit_events

DETAIL_LIMIT = 2000


def record(
    conn: Connection,
    *,
    kind: str,
    at: datetime,
    user_id: int | None = None,
    project_id: int | None = None,
    task_id: int | None = None,
    **detail: Any,
) -> None:
    """Append one event inside the caller's transaction. Details are ids, names and flags, never task
    text: they are capped at `DETAIL_LIMIT` characters, so redacting them here stays trivially cheap
    (task-derived text is redacted before any write transaction opens)."""
    text = json.dumps(detail, sort_keys=True, default=str)
    if len(text) > DETAIL_LIMIT:
        raise ValueError(f"audit detail for {kind} is {len(text)} characters; the limit is {DETAIL_LIMIT}.")
    conn.execute(
        sa.insert(audit_events).values(
            at=at,
            kind=kind,
            user_id=user_id,
            project_id=project_id,
            task_id=task_id,
            detail=redact(text),
        )
    )


def events(conn: Connection, *, kind: str | None = None, task_id: int | None = None) -> list[AuditEvent]:
    """Events in insertion order, optionally filtered."""
    query = sa.select(audit_events).order_by(audit_events.c.id)
    if kind is not None:
        query = query.where(audit_events.c.kind == kind)
    if task_id is not None:
        query = query.where(audit_events.c.task_id == task_id)
    return [AuditEvent.from_row(row) for row in conn.execute(query).mappings()]
