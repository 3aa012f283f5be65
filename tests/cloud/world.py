"""A small builder of users, projects and tasks for tests, through the real domain functions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.memory_settings import set_flags, update_settings
from autopatch_j.cloud.projects import create_project, set_member
from autopatch_j.cloud.records import Project, Role, Task, TaskStatus, User
from autopatch_j.cloud.tables import metadata, task_rounds, tasks
from autopatch_j.cloud.tasks import add_followup, clean_message, create_task, load
from autopatch_j.cloud.users import create_user
from autopatch_j.runtime import FakeClock

#: Where the cloud tests' clock starts: mid-month, mid-day (quota months and idle gates).
CLOUD_START = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)

LONG_RESULT = "The fix is in place and the tests pass. " * 10  # 400 chars


@dataclass
class Actor:
    user: User
    token: str


@dataclass
class World:
    engine: Engine
    clock: FakeClock
    _n: int = 0

    def user(self, name: str | None = None, *, admin: bool = False) -> Actor:
        self._n += 1
        with write_tx(self.engine) as conn:
            made = create_user(conn, name=name or f"user{self._n}", is_admin=admin, now=self.clock())
        return Actor(user=made.user, token=made.token)

    def project(self, owner: Actor, name: str = "demo") -> Project:
        with write_tx(self.engine) as conn:
            return create_project(conn, user=owner.user, name=name, now=self.clock())

    def member(self, project: Project, admin: Actor, who: Actor, role: Role) -> None:
        with write_tx(self.engine) as conn:
            set_member(conn, actor=admin.user, project_id=project.id, user_id=who.user.id, role=role, now=self.clock())

    def task(
        self,
        project: Project,
        who: Actor,
        prompt: str = "Fix the bug",
        *,
        goal: str | None = None,
        parent: int | None = None,
    ) -> Task:
        with write_tx(self.engine) as conn:
            return create_task(
                conn,
                user=who.user,
                project_id=project.id,
                prompt=prompt,
                goal=goal,
                parent_task_id=parent,
                now=self.clock(),
            )

    def complete(
        self,
        task: Task,
        *,
        result: str = LONG_RESULT,
        duration: float = 60.0,
        ago: float = 3600.0,
        cost: float = 0.0,
        status: TaskStatus = TaskStatus.COMPLETED,
    ) -> Task:
        """Mark a task finished `ago` seconds before now after running `duration` seconds."""
        finished = self.clock() - timedelta(seconds=ago)
        with write_tx(self.engine) as conn:
            conn.execute(
                sa.update(tasks)
                .where(tasks.c.id == task.id)
                .values(
                    status=status,
                    result_text=result,
                    started_at=finished - timedelta(seconds=duration),
                    finished_at=finished,
                    cost_usd=cost,
                    updated_at=finished,
                )
            )
            conn.execute(
                sa.update(task_rounds)
                .where(task_rounds.c.task_id == task.id, task_rounds.c.round == task.round)
                .values(
                    status=status,
                    result_text=result,
                    cost_usd=cost,
                    started_at=finished - timedelta(seconds=duration),
                    finished_at=finished,
                )
            )
            done = load(conn, task.id)
        assert done is not None
        return done

    def settings(self, who: Actor, **changes: Any) -> None:
        with write_tx(self.engine) as conn:
            update_settings(conn, user=who.user, changes=changes, now=self.clock())

    def enable(self, who: Actor, **extra: Any) -> None:
        self.settings(who, generate_memories=1, use_memories=1, **extra)

    def flags(self, task: Task, who: Actor, **changes: bool | None) -> None:
        with write_tx(self.engine) as conn:
            set_flags(conn, user=who.user, task_id=task.id, changes=changes, now=self.clock())

    def followup(self, who: Actor, a: Task, b: Task, message: str = "see the other task") -> None:
        with write_tx(self.engine) as conn:
            add_followup(
                conn,
                user=who.user,
                from_task_id=a.id,
                to_task_id=b.id,
                message=clean_message(message),
                now=self.clock(),
            )

    def load(self, task_id: int) -> Task:
        with read_tx(self.engine) as conn:
            task = load(conn, task_id)
        assert task is not None
        return task

    def rows(self, table: str) -> list[dict[str, Any]]:
        with read_tx(self.engine) as conn:
            return [dict(r) for r in conn.execute(sa.select(metadata.tables[table])).mappings()]

    def dump(self) -> str:
        """Every row of every table as text (for secret-leak checks)."""
        return "\n".join(repr(row) for name in metadata.tables for row in self.rows(name))
