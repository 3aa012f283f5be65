"""Initial cloud schema: users, projects, tasks, quotas, memories, auto memory, audit (C-1 … C-13).

Revision ID: 0001_initial
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from autopatch_j.cloud.tables import UtcDateTime as TS

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("is_admin", sa.Boolean, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name", name="uq_users_name"),
        sa.UniqueConstraint("token_hash", name="uq_users_token_hash"),
    )
    op.create_table(
        "projects",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_by", sa.Integer, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_projects"),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], name="fk_projects_created_by_users"),
    )
    op.create_table(
        "project_members",
        sa.Column("project_id", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("project_id", "user_id", name="pk_project_members"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name="fk_project_members_project_id_projects"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_project_members_user_id_users"),
        sa.CheckConstraint("role IN ('viewer', 'member', 'admin')", name="ck_project_members_role"),
    )
    op.create_table(
        "tasks",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("project_id", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("goal", sa.Text, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result_text", sa.Text, nullable=True),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
        sa.Column("parent_task_id", sa.Integer, nullable=True),
        sa.Column("cost_usd", sa.Float, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("attempt", sa.Integer, nullable=False),
        sa.Column("lease_owner", sa.String(200), nullable=True),
        sa.Column("lease_expires_at", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tasks"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name="fk_tasks_project_id_projects"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_tasks_user_id_users"),
        sa.ForeignKeyConstraint(["parent_task_id"], ["tasks.id"], name="fk_tasks_parent_task_id_tasks"),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'completed', 'failed', 'interrupted', 'merged')",
            name="ck_tasks_status",
        ),
    )
    op.create_index("ix_tasks_project_id", "tasks", ["project_id"])
    op.create_index("ix_tasks_user_id", "tasks", ["user_id"])
    op.create_index("ix_tasks_parent_task_id", "tasks", ["parent_task_id"])
    op.create_index("ix_tasks_status_id", "tasks", ["status", "id"])
    op.create_table(
        "task_rounds",
        sa.Column("task_id", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("task_id", "round", name="pk_task_rounds"),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], name="fk_task_rounds_task_id_tasks"),
    )
    op.create_table(
        "task_followups",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("from_task_id", sa.Integer, nullable=False),
        sa.Column("to_task_id", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_task_followups"),
        sa.ForeignKeyConstraint(["from_task_id"], ["tasks.id"], name="fk_task_followups_from_task_id_tasks"),
        sa.ForeignKeyConstraint(["to_task_id"], ["tasks.id"], name="fk_task_followups_to_task_id_tasks"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_task_followups_user_id_users"),
    )
    op.create_index("ix_task_followups_from_task_id", "task_followups", ["from_task_id"])
    op.create_index("ix_task_followups_to_task_id", "task_followups", ["to_task_id"])
    op.create_table(
        "quotas",
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("monthly_limit_usd", sa.Float, nullable=True),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_quotas"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_quotas_user_id_users"),
    )
    op.create_table(
        "identity_memories",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("project_id", sa.Integer, nullable=True),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("source_thread_id", sa.String(64), nullable=True),
        sa.Column("goal_key", sa.String(64), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_identity_memories"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_identity_memories_user_id_users"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], name="fk_identity_memories_project_id_projects"),
        sa.UniqueConstraint("source_thread_id", name="uq_identity_memories_source_thread_id"),
        sa.CheckConstraint("scope IN ('user', 'project')", name="ck_identity_memories_scope"),
        sa.CheckConstraint("status IN ('active', 'superseded', 'deleted')", name="ck_identity_memories_status"),
    )
    op.create_index("ix_identity_memories_user_id", "identity_memories", ["user_id"])
    op.create_index("ix_identity_memories_project_id", "identity_memories", ["project_id"])
    op.create_index("ix_identity_memories_project_goal", "identity_memories", ["project_id", "goal_key"])
    op.create_index(
        "uq_identity_memories_active_goal",
        "identity_memories",
        ["project_id", "goal_key"],
        unique=True,
        sqlite_where=sa.text("status = 'active' AND goal_key IS NOT NULL"),
        postgresql_where=sa.text("status = 'active' AND goal_key IS NOT NULL"),
    )
    op.create_table(
        "auto_memory_settings",
        sa.Column("user_id", sa.Integer, nullable=False),
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
        sa.PrimaryKeyConstraint("user_id", name="pk_auto_memory_settings"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_auto_memory_settings_user_id_users"),
    )
    op.create_table(
        "task_auto_memory_flags",
        sa.Column("task_id", sa.Integer, nullable=False),
        sa.Column("use_memories", sa.Integer, nullable=True),
        sa.Column("generate_memories", sa.Integer, nullable=True),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("task_id", name="pk_task_auto_memory_flags"),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], name="fk_task_auto_memory_flags_task_id_tasks"),
    )
    op.create_table(
        "auto_memory_log",
        sa.Column("task_id", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("reason", sa.String(64), nullable=False),
        sa.Column("memory_id", sa.Integer, nullable=True),
        sa.Column("at", TS, nullable=False),
        sa.PrimaryKeyConstraint("task_id", name="pk_auto_memory_log"),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], name="fk_auto_memory_log_task_id_tasks"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_auto_memory_log_user_id_users"),
    )
    op.create_index("ix_auto_memory_log_user_id", "auto_memory_log", ["user_id"])
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", TS, nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=True),
        sa.Column("project_id", sa.Integer, nullable=True),
        sa.Column("task_id", sa.Integer, nullable=True),
        sa.Column("detail", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_audit_events"),
    )
    op.create_index("ix_audit_events_kind", "audit_events", ["kind"])


def downgrade() -> None:
    for name in (
        "audit_events",
        "auto_memory_log",
        "task_auto_memory_flags",
        "auto_memory_settings",
        "identity_memories",
        "quotas",
        "task_followups",
        "task_rounds",
        "tasks",
        "project_members",
        "projects",
        "users",
    ):
        op.drop_table(name)
