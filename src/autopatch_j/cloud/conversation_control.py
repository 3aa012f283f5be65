"""Per-conversation memory control (C-43), like `/memories` in other agents.

A conversation is a task with its continues (the rounds of the same task) and every task of the
same project and the same owner linked to it by followups, transitively; it is named by its root,
the smallest task id in it. A followup between tasks of two users marks external context but does
not join their conversations, so every task of a conversation belongs to its owner (the user who
created the root task), and only that user can turn `use_memories` and `generate_memories` on, off,
or back to "follow" (null) for the whole conversation; nobody else reads the effective values.

How the three levels combine (`combine`), decided for privacy:

1. **off is sticky**: a conversation switched off stays off for every task in it, whatever a task
   flag says — one switch the owner can trust;
2. otherwise the **most specific explicit value wins**: the task flag, then the conversation
   control, then the user's setting.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from autopatch_j.cloud import audit
from autopatch_j.cloud.db import upsert
from autopatch_j.cloud.errors import Forbidden, InvalidInput
from autopatch_j.cloud.memory_settings import flag_from_column, flag_to_column, get_flags, get_settings
from autopatch_j.cloud.projects import Permission
from autopatch_j.cloud.records import User
from autopatch_j.cloud.tables import conversation_memory_controls as controls
from autopatch_j.cloud.tables import task_followups, tasks
from autopatch_j.cloud.tasks import visible_task

if TYPE_CHECKING:
    from autopatch_j.cloud.auto_memory_records import Candidate

MAX_CONVERSATION_TASKS = 500
SWITCHES = ("use_memories", "generate_memories")


@dataclass(frozen=True, slots=True)
class ConversationControl:
    root_task_id: int
    use_memories: bool | None = None
    generate_memories: bool | None = None


def combine(task_flag: bool | None, conversation: bool | None, user_setting: int | bool) -> bool:
    """Off at the conversation is sticky; else task flag, then conversation, then user setting."""
    if conversation is False:
        return False
    if task_flag is not None:
        return task_flag
    if conversation is not None:
        return conversation
    return bool(user_setting)


_FROM, _TO = tasks.alias("from_task"), tasks.alias("to_task")
_SAME_OWNER_LINKS = (
    sa.select(task_followups.c.from_task_id, task_followups.c.to_task_id)
    .join(_FROM, _FROM.c.id == task_followups.c.from_task_id)
    .join(_TO, _TO.c.id == task_followups.c.to_task_id)
    .where(_FROM.c.project_id == _TO.c.project_id, _FROM.c.user_id == _TO.c.user_id)
)


def conversation_root(conn: Connection, task_id: int) -> int:
    """The smallest task id connected to `task_id` by followups (either direction) between tasks of
    one project and one owner, bounded."""
    seen = {task_id}
    frontier = {task_id}
    while frontier and len(seen) < MAX_CONVERSATION_TASKS:
        rows = conn.execute(
            _SAME_OWNER_LINKS.where(
                sa.or_(task_followups.c.from_task_id.in_(frontier), task_followups.c.to_task_id.in_(frontier))
            )
        ).all()
        linked = {tid for row in rows for tid in row} - seen
        seen |= linked
        frontier = linked
    return min(seen)


def control_for_root(conn: Connection, root_task_id: int) -> ConversationControl:
    row = conn.execute(sa.select(controls).where(controls.c.root_task_id == root_task_id)).mappings().first()
    if row is None:
        return ConversationControl(root_task_id=root_task_id)
    return ConversationControl(
        root_task_id=root_task_id,
        use_memories=flag_from_column(row["use_memories"]),
        generate_memories=flag_from_column(row["generate_memories"]),
    )


def control_for_task(conn: Connection, task_id: int) -> ConversationControl:
    return control_for_root(conn, conversation_root(conn, task_id))


def conversation_owner(conn: Connection, root_task_id: int) -> int:
    """The user who created the conversation's first task: the only one who may change its control."""
    return int(conn.execute(sa.select(tasks.c.user_id).where(tasks.c.id == root_task_id)).scalar_one())


@dataclass(frozen=True, slots=True)
class Effective:
    use_memories: bool
    generate_memories: bool


def effective_for_task(conn: Connection, *, task_id: int, owner_id: int, control: ConversationControl) -> Effective:
    """What the task flags, the conversation control and the task owner's settings add up to."""
    flags = get_flags(conn, task_id=task_id)
    settings = get_settings(conn, user_id=owner_id)
    return Effective(
        use_memories=combine(flags.use_memories, control.use_memories, settings.use_memories),
        generate_memories=combine(flags.generate_memories, control.generate_memories, settings.generate_memories),
    )


def with_conversation_controls(conn: Connection, candidates: list[Candidate]) -> list[Candidate]:
    """The sweep's candidates with their conversation's `generate_memories` (one query when no task
    has followups: a task without followups is its own root)."""
    roots = {c.task_id: conversation_root(conn, c.task_id) if c.has_followups else c.task_id for c in candidates}
    if not roots:
        return candidates
    found = {
        row.root_task_id: flag_from_column(row.generate_memories)
        for row in conn.execute(
            sa.select(controls.c.root_task_id, controls.c.generate_memories).where(
                controls.c.root_task_id.in_(set(roots.values()))
            )
        )
    }
    return [dataclasses.replace(c, conversation_generate=found.get(roots[c.task_id])) for c in candidates]


def set_control(
    conn: Connection, *, user: User, task_id: int, changes: dict[str, bool | None], now: datetime
) -> ConversationControl:
    """Set the switches of the conversation `task_id` belongs to; only its owner may."""
    if unknown := set(changes) - set(SWITCHES):
        raise InvalidInput(f"unknown switches: {', '.join(sorted(unknown))}.")
    task = visible_task(conn, user=user, task_id=task_id, permission=Permission.VIEW)
    root = conversation_root(conn, task_id)
    if task.user_id != user.id or conversation_owner(conn, root) != user.id:
        raise Forbidden("only the owner of the conversation (the user who created its first task) can change it.")
    current = control_for_root(conn, root)
    merged = ConversationControl(
        root_task_id=root,
        use_memories=changes.get("use_memories", current.use_memories),
        generate_memories=changes.get("generate_memories", current.generate_memories),
    )

    upsert(
        conn,
        controls,
        {
            "root_task_id": root,
            "user_id": user.id,
            "use_memories": flag_to_column(merged.use_memories),
            "generate_memories": flag_to_column(merged.generate_memories),
            "updated_at": now,
        },
        key=["root_task_id"],
    )
    audit.record(
        conn,
        kind="conversation_memory_control_set",
        at=now,
        user_id=user.id,
        project_id=conn.execute(sa.select(tasks.c.project_id).where(tasks.c.id == root)).scalar_one(),
        task_id=root,
        use_memories=merged.use_memories,
        generate_memories=merged.generate_memories,
    )
    return merged
