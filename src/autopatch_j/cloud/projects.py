"""Projects, members and the permission check every project-scoped operation goes through (C-3).

Permissions by role: `view` (viewer, member, admin), `create_task` (member, admin), `admin` (admin).
A non-member gets NotFound (no existence leak); a member lacking the permission gets Forbidden.
A project's creator can be demoted or removed by nobody but themselves (and cannot leave it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from autopatch_j.cloud import audit
from autopatch_j.cloud.db import upsert
from autopatch_j.cloud.errors import Conflict, Forbidden, InvalidInput, NotFound
from autopatch_j.cloud.records import Project, Role, TaskStatus, User
from autopatch_j.cloud.tables import project_members, projects, task_rounds, tasks, users


class Permission(StrEnum):
    VIEW = "view"
    CREATE_TASK = "create_task"
    ADMIN = "admin"


GRANTS: dict[Role, frozenset[Permission]] = {
    Role.VIEWER: frozenset({Permission.VIEW}),
    Role.MEMBER: frozenset({Permission.VIEW, Permission.CREATE_TASK}),
    Role.ADMIN: frozenset(Permission),
}


def create_project(conn: Connection, *, user: User, name: str, now: datetime) -> Project:
    """Create a project; its creator becomes its admin."""
    name = name.strip()
    if not name:
        raise InvalidInput("the project name must not be empty.")
    project_id = conn.execute(
        sa.insert(projects).values(name=name, created_by=user.id, created_at=now).returning(projects.c.id)
    ).scalar_one()
    conn.execute(
        sa.insert(project_members).values(project_id=project_id, user_id=user.id, role=Role.ADMIN, created_at=now)
    )
    audit.record(conn, kind="project_created", at=now, user_id=user.id, project_id=project_id)
    return Project(id=project_id, name=name, created_by=user.id, created_at=now)


def role_of(conn: Connection, *, project_id: int, user_id: int) -> Role | None:
    role = conn.execute(
        sa.select(project_members.c.role).where(
            project_members.c.project_id == project_id, project_members.c.user_id == user_id
        )
    ).scalar_one_or_none()
    return None if role is None else Role(role)


def require(conn: Connection, *, user: User, project_id: int, permission: Permission) -> Role:
    """The caller's role on the project if it grants `permission`; NotFound or Forbidden otherwise."""
    return granted(role_of(conn, project_id=project_id, user_id=user.id), permission)


def granted(role: Role | None, permission: Permission) -> Role:
    """`role` if it grants `permission`: NotFound for no role (a non-member), Forbidden for too little."""
    if role is None:
        raise NotFound("the project does not exist or is not visible to you.")
    if permission not in GRANTS[role]:
        raise Forbidden(f"your role {role.value!r} lacks the {permission.value!r} permission on this project.")
    return role


def list_projects(conn: Connection, *, user: User) -> list[tuple[Project, Role]]:
    rows = conn.execute(
        sa.select(projects, project_members.c.role)
        .join(project_members, project_members.c.project_id == projects.c.id)
        .where(project_members.c.user_id == user.id)
        .order_by(projects.c.id)
    ).mappings()
    return [(Project.from_row(row), Role(row["role"])) for row in rows]


def set_member(conn: Connection, *, actor: User, project_id: int, user_id: int, role: Role, now: datetime) -> bool:
    """Add a member or change their role; needs `admin` on the project.

    An unknown user id gets the same answer as a known one (nothing is stored, False is returned)
    unless the actor is a site admin, so project admins cannot probe which user ids exist.
    """
    require(conn, user=actor, project_id=project_id, permission=Permission.ADMIN)
    if conn.execute(sa.select(users.c.id).where(users.c.id == user_id)).first() is None:
        if actor.is_admin:
            raise NotFound("the user does not exist.")
        audit.record(conn, kind="member_set_unknown_user", at=now, user_id=actor.id, project_id=project_id)
        return False
    if user_id == actor.id and role != Role.ADMIN:
        raise Conflict("an admin cannot lower their own role.")
    if role != Role.ADMIN and user_id == _creator(conn, project_id) != actor.id:
        raise Forbidden("the project's creator cannot be demoted by another admin.")
    upsert(
        conn,
        project_members,
        {"project_id": project_id, "user_id": user_id, "role": role.value, "created_at": now},
        key=["project_id", "user_id"],
        update=["role"],
    )
    audit.record(
        conn, kind="member_set", at=now, user_id=actor.id, project_id=project_id, member=user_id, role=role.value
    )
    return True


def remove_member(conn: Connection, *, actor: User, project_id: int, user_id: int, now: datetime) -> None:
    """Remove a member; needs `admin`. The creator cannot be removed (nor leave).

    Idempotent: removing a user who is not a member (or does not exist) succeeds without a change,
    so adding and then removing an id cannot reveal whether that user exists.
    """
    require(conn, user=actor, project_id=project_id, permission=Permission.ADMIN)
    creator = _creator(conn, project_id)
    if user_id == creator:
        if actor.id == creator:
            raise Conflict("the project's creator cannot leave the project.")
        raise Forbidden("the project's creator cannot be removed by another admin.")
    membership = sa.and_(project_members.c.project_id == project_id, project_members.c.user_id == user_id)
    if conn.execute(sa.delete(project_members).where(membership)).rowcount:
        cancelled = cancel_tasks_of(conn, project_id=project_id, user_id=user_id, now=now)
        audit.record(
            conn,
            kind="member_removed",
            at=now,
            user_id=actor.id,
            project_id=project_id,
            member=user_id,
            cancelled_tasks=cancelled,
        )


REMOVED = "interrupted: the task's user was removed from the project, so the task was cancelled"


def cancel_tasks_of(conn: Connection, *, project_id: int, user_id: int, now: datetime) -> list[int]:
    """End the user's queued and running tasks of the project as `interrupted`, and their queued or
    running rounds of other users' tasks. A running task's worker then loses its lease: its
    heartbeat stops the executor and its result is discarded."""
    open_tasks = sa.and_(
        tasks.c.project_id == project_id,
        tasks.c.user_id == user_id,
        tasks.c.status.in_([TaskStatus.QUEUED, TaskStatus.RUNNING]),
    )
    rows = conn.execute(sa.select(tasks.c.id, tasks.c.round).where(open_tasks).with_for_update()).all()
    if not rows:
        return []
    conn.execute(
        sa.update(tasks)
        .where(open_tasks, tasks.c.id.in_([row.id for row in rows]))
        .values(
            status=TaskStatus.INTERRUPTED,
            result_text=REMOVED,
            finished_at=now,
            lease_owner=None,
            lease_expires_at=None,
            updated_at=now,
        )
    )
    for row in rows:
        _end_round(conn, task_id=row.id, round_no=row.round, now=now)
    return [row.id for row in rows] + _cancel_rounds_of(conn, project_id=project_id, user_id=user_id, now=now)


def _end_round(conn: Connection, *, task_id: int, round_no: int, now: datetime) -> None:
    conn.execute(
        sa.update(task_rounds)
        .where(task_rounds.c.task_id == task_id, task_rounds.c.round == round_no)
        .values(status=TaskStatus.INTERRUPTED, result_text=REMOVED, finished_at=now)
    )


def _cancel_rounds_of(conn: Connection, *, project_id: int, user_id: int, now: datetime) -> list[int]:
    """The user's queued or running later rounds of other users' tasks: each task goes back to its
    last completed round (its owner's task is not changed), the round ends `interrupted`."""
    current = sa.and_(task_rounds.c.task_id == tasks.c.id, task_rounds.c.round == tasks.c.round)
    rows = conn.execute(
        sa.select(tasks.c.id, tasks.c.round)
        .join(task_rounds, current)
        .where(
            tasks.c.project_id == project_id,
            tasks.c.user_id != user_id,
            task_rounds.c.user_id == user_id,
            tasks.c.round > 1,
            tasks.c.status.in_([TaskStatus.QUEUED, TaskStatus.RUNNING]),
        )
        .with_for_update()
    ).all()
    for row in rows:
        previous = (
            conn.execute(
                sa.select(task_rounds).where(task_rounds.c.task_id == row.id, task_rounds.c.round == row.round - 1)
            )
            .mappings()
            .one()
        )
        conn.execute(
            sa.update(tasks)
            .where(tasks.c.id == row.id, tasks.c.round == row.round)
            .values(
                status=TaskStatus.COMPLETED,
                result_text=previous["result_text"],
                started_at=previous["started_at"],
                finished_at=previous["finished_at"],
                lease_owner=None,
                lease_expires_at=None,
                updated_at=now,
            )
        )
        _end_round(conn, task_id=row.id, round_no=row.round, now=now)
    return [row.id for row in rows]


def _creator(conn: Connection, project_id: int) -> int:
    return int(conn.execute(sa.select(projects.c.created_by).where(projects.c.id == project_id)).scalar_one())


@dataclass(frozen=True, slots=True)
class Member:
    user_id: int
    name: str
    role: Role


def list_members(conn: Connection, *, actor: User, project_id: int) -> list[Member]:
    """The project's members with their names and roles; needs `admin` on the project (C-42 console)."""
    require(conn, user=actor, project_id=project_id, permission=Permission.ADMIN)
    rows = conn.execute(
        sa.select(project_members.c.user_id, users.c.name, project_members.c.role)
        .join(users, users.c.id == project_members.c.user_id)
        .where(project_members.c.project_id == project_id)
        .order_by(project_members.c.user_id)
    )
    return [Member(user_id=row.user_id, name=row.name, role=Role(row.role)) for row in rows]
