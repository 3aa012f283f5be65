"""What the C-40 model path shows the model: a cloud task as Memory turns, and the related memories.

Only redacted text ever enters a turn (the stored prompt may hold a secret the user typed; results are
redacted when stored and again here), so every quote the model returns is verified against what was
redacted. `user_preference` ↔ a user-level memory, `project_decision` ↔ a project-level one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from autopatch_j.cloud.injection import private_lines, strip_blocks
from autopatch_j.cloud.records import MemoryScope, MemoryStatus
from autopatch_j.cloud.redaction import redact
from autopatch_j.cloud.tables import identity_memories, task_rounds, tasks
from autopatch_j.cloud.withholding import withhold_lines
from autopatch_j.memory.batches import MAX_RELATED_ITEMS, ExtractionRequest, RelatedItem
from autopatch_j.memory.records import Intent, Item, ItemStatus, MemoryKind, Turn, TurnStatus

SCOPE_OF = {MemoryKind.USER_PREFERENCE: MemoryScope.USER, MemoryKind.PROJECT_DECISION: MemoryScope.PROJECT}
KIND_OF = {scope: kind for kind, scope in SCOPE_OF.items()}
TITLE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Conversation:
    """A task's rounds as Memory turns (redacted), and the Stage-1 request built from them."""

    task_id: int
    request: ExtractionRequest


def load_conversation(conn: Connection, *, task_id: int) -> Conversation:
    task = conn.execute(sa.select(tasks.c.goal, tasks.c.result_text).where(tasks.c.id == task_id)).one()
    private = private_lines(conn, [task_id]).get(task_id, [])
    rounds = conn.execute(
        sa.select(task_rounds.c.round, task_rounds.c.prompt)
        .where(task_rounds.c.task_id == task_id)
        .order_by(task_rounds.c.round)
    ).all()
    turns: list[Turn] = []
    for index, (number, prompt) in enumerate(rounds):
        user_text = prompt if index or not task.goal or task.goal == prompt else f"{task.goal}\n\n{prompt}"
        last = index == len(rounds) - 1
        turns.append(
            Turn(
                id=number,
                thread_id=task_id,
                seq=number,
                intent=Intent.GENERAL_CHAT,
                status=TurnStatus.COMPLETED,
                user_text=redact(user_text),
                assistant_text=redact(withhold_lines(strip_blocks(task.result_text or ""), private))
                if last
                else "",  # never the injected block
                error=None,
                created_at=0.0,
                updated_at=0.0,
            )
        )
    request = ExtractionRequest(
        thread_id=task_id,
        compaction="",
        turns=tuple(turns),
        prior_turn=None,
        job_for_turn={turn.id: 0 for turn in turns},
    )
    return Conversation(task_id=task_id, request=request)


def related_memories(conn: Connection, *, user_id: int, project_id: int) -> tuple[RelatedItem, ...]:
    """The user's own and the project's active memories, newest first (≤ 20, half each)."""
    half = MAX_RELATED_ITEMS // 2
    mem = identity_memories
    mine = sa.select(mem).where(
        mem.c.scope == MemoryScope.USER, mem.c.user_id == user_id, mem.c.status == MemoryStatus.ACTIVE
    )
    theirs = sa.select(mem).where(
        mem.c.scope == MemoryScope.PROJECT, mem.c.project_id == project_id, mem.c.status == MemoryStatus.ACTIVE
    )
    rows = [
        *conn.execute(mine.order_by(mem.c.id.desc()).limit(half)).mappings(),
        *conn.execute(theirs.order_by(mem.c.id.desc()).limit(half)).mappings(),
    ]
    return tuple(RelatedItem(item=_as_item(row)) for row in rows)


def _as_item(row: Any) -> Item:
    content = row["content"]
    title = next((line.strip() for line in content.splitlines() if line.strip()), content)[:TITLE_CHARS]
    return Item(
        id=row["id"],
        memory_id=row["id"],
        revision=1,
        kind=KIND_OF[MemoryScope(row["scope"])],
        thread_id=None,
        title=title,
        content=content,
        aliases=(),
        keywords=(),
        non_factual=False,
        status=ItemStatus.ACTIVE,
        operation="create",
        superseded_by=None,
        job_id=None,
        created_at=row["created_at"].timestamp(),
        updated_at=row["updated_at"].timestamp(),
    )
