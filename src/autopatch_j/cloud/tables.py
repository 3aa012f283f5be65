"""SQLAlchemy Core tables: the single description of the schema that the migrations must match.

A test builds the database from scratch with Alembic and compares it with this metadata.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)


class UtcDateTime(sa.types.TypeDecorator[datetime]):
    """Stored as naive UTC on every backend; always read back as an aware UTC datetime."""

    impl = sa.DateTime(timezone=False)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not accepted; pass an aware UTC datetime")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):  # pragma: no cover - SQLite returns datetime via the type
            value = datetime.fromisoformat(value)
        moment: datetime = value
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


TS = UtcDateTime

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("is_admin", sa.Boolean, nullable=False, default=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", TS, nullable=False),
)

projects = sa.Table(
    "projects",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("created_at", TS, nullable=False),
)

project_members = sa.Table(
    "project_members",
    metadata,
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("created_at", TS, nullable=False),
    sa.CheckConstraint("role IN ('viewer', 'member', 'admin')", name="role"),
)

tasks = sa.Table(
    "tasks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=False, index=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("prompt", sa.Text, nullable=False),
    sa.Column("goal", sa.Text, nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("result_text", sa.Text, nullable=True),
    sa.Column("started_at", TS, nullable=True),
    sa.Column("finished_at", TS, nullable=True),
    sa.Column("parent_task_id", sa.Integer, sa.ForeignKey("tasks.id"), nullable=True, index=True),
    sa.Column("cost_usd", sa.Float, nullable=False, default=0.0),
    sa.Column("round", sa.Integer, nullable=False, default=1),
    sa.Column("attempt", sa.Integer, nullable=False, default=0),
    sa.Column("lease_owner", sa.String(200), nullable=True),
    sa.Column("lease_expires_at", TS, nullable=True),
    sa.Column("created_at", TS, nullable=False),
    sa.Column("updated_at", TS, nullable=False),
    sa.CheckConstraint(
        "status IN ('queued', 'running', 'completed', 'failed', 'interrupted', 'merged')", name="status"
    ),
    sa.Index("ix_tasks_status_id", "status", "id"),
)

task_rounds = sa.Table(
    "task_rounds",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("prompt", sa.Text, nullable=False),
    sa.Column("created_at", TS, nullable=False),
    # Who asked for the round and pays for it, and the round's own outcome (migration 0003).
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
    sa.Column("status", sa.String(16), nullable=True),
    sa.Column("result_text", sa.Text, nullable=True),
    sa.Column("cost_usd", sa.Float, nullable=False, default=0.0),
    sa.Column("started_at", TS, nullable=True),
    sa.Column("finished_at", TS, nullable=True),
    sa.Index("ix_task_rounds_user_id_finished_at", "user_id", "finished_at"),
)

task_followups = sa.Table(
    "task_followups",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("from_task_id", sa.Integer, sa.ForeignKey("tasks.id"), nullable=False, index=True),
    sa.Column("to_task_id", sa.Integer, sa.ForeignKey("tasks.id"), nullable=False, index=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("message", sa.Text, nullable=False),
    sa.Column("created_at", TS, nullable=False),
)

task_external_context = sa.Table(
    "task_external_context",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("kind", sa.String(32), primary_key=True),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("created_at", TS, nullable=False),
)

quotas = sa.Table(
    "quotas",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("monthly_limit_usd", sa.Float, nullable=True),
    sa.Column("updated_at", TS, nullable=False),
)

identity_memories = sa.Table(
    "identity_memories",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("scope", sa.String(16), nullable=False),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id"), nullable=True, index=True),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("source_thread_id", sa.String(64), nullable=True, unique=True),
    sa.Column("goal_key", sa.String(64), nullable=True),
    sa.Column("created_at", TS, nullable=False),
    sa.Column("updated_at", TS, nullable=False),
    sa.CheckConstraint("scope IN ('user', 'project')", name="scope"),
    sa.Index("ix_identity_memories_project_goal", "project_id", "goal_key"),
    sa.CheckConstraint("status IN ('active', 'superseded', 'deleted')", name="status"),
    sa.Index(
        "uq_identity_memories_active_goal",
        "project_id",
        "goal_key",
        unique=True,
        sqlite_where=sa.text("status = 'active' AND goal_key IS NOT NULL"),
        postgresql_where=sa.text("status = 'active' AND goal_key IS NOT NULL"),
    ),
)

auto_memory_settings = sa.Table(
    "auto_memory_settings",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("generate_memories", sa.Integer, nullable=False),
    sa.Column("use_memories", sa.Integer, nullable=False),
    sa.Column("disable_on_external_context", sa.Integer, nullable=False),
    sa.Column("min_rate_limit_remaining_percent", sa.Float, nullable=False),
    sa.Column("idle_seconds", sa.Integer, nullable=False),
    sa.Column("min_duration_seconds", sa.Integer, nullable=False),
    sa.Column("min_result_chars", sa.Integer, nullable=False),
    sa.Column("extract_model", sa.String(200), nullable=True),
    sa.Column("consolidation_model", sa.String(200), nullable=True),
    sa.Column("updated_at", TS, nullable=False),
)

task_auto_memory_flags = sa.Table(
    "task_auto_memory_flags",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("use_memories", sa.Integer, nullable=True),
    sa.Column("generate_memories", sa.Integer, nullable=True),
    sa.Column("updated_at", TS, nullable=False),
)

auto_memory_log = sa.Table(
    "auto_memory_log",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("outcome", sa.String(16), nullable=False),
    sa.Column("reason", sa.String(64), nullable=False),
    sa.Column("memory_id", sa.Integer, nullable=True),
    sa.Column("at", TS, nullable=False),
)

audit_events = sa.Table(
    "audit_events",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", TS, nullable=False),
    sa.Column("kind", sa.String(64), nullable=False, index=True),
    sa.Column("user_id", sa.Integer, nullable=True),
    sa.Column("project_id", sa.Integer, nullable=True),
    sa.Column("task_id", sa.Integer, nullable=True),
    sa.Column("detail", sa.Text, nullable=False),
)

# -- C-40 / C-43: model-written memories, their proof and cost, conversation controls ----

identity_memory_sources = sa.Table(
    "identity_memory_sources",
    metadata,
    sa.Column("memory_id", sa.Integer, sa.ForeignKey("identity_memories.id"), primary_key=True),
    sa.Column("ordinal", sa.Integer, primary_key=True),
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), nullable=False, index=True),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("quote", sa.Text, nullable=False),
    sa.CheckConstraint("role IN ('user', 'assistant')", name="role"),
)

auto_memory_model_runs = sa.Table(
    "auto_memory_model_runs",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("outcome", sa.String(32), nullable=False),
    sa.Column("memory_ids", sa.Text, nullable=False),
    sa.Column("at", TS, nullable=False),
)

auto_memory_charges = sa.Table(
    "auto_memory_charges",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("stage", sa.String(16), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("model", sa.String(200), nullable=False),
    sa.Column("tokens", sa.Integer, nullable=False),
    sa.Column("cost_usd", sa.Float, nullable=False),
    sa.Column("at", TS, nullable=False),
    sa.Index("ix_auto_memory_charges_user_at", "user_id", "at"),
)

conversation_memory_controls = sa.Table(
    "conversation_memory_controls",
    metadata,
    sa.Column("root_task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("use_memories", sa.Integer, nullable=True),
    sa.Column("generate_memories", sa.Integer, nullable=True),
    sa.Column("updated_at", TS, nullable=False),
)

# The owner's user-level (private) memories a task's run received (C-31): the sweep withholds them
# from anything it promotes into a project memory, whatever the spelling.
task_private_injections = sa.Table(
    "task_private_injections",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("memory_id", sa.Integer, sa.ForeignKey("identity_memories.id"), primary_key=True),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("created_at", TS, nullable=False),
)

# Console sessions (C-42), shared by every `serve` process: only digests of the cookie's id and of
# its binding secret are stored; `token_hash` is the user's token digest at sign-in, so rotating or
# revoking the token ends the session.
console_sessions = sa.Table(
    "console_sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("token_hash", sa.String(64), nullable=False),
    sa.Column("binding_hash", sa.String(64), nullable=False),
    sa.Column("csrf", sa.String(64), nullable=False),
    sa.Column("created_at", TS, nullable=False),
    sa.Column("expires_at", TS, nullable=False),
)
