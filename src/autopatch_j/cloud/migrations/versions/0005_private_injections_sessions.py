"""Private memories a run received, and console sessions in the database.

Revision ID: 0005_private_injections_sessions
Revises: 0004_model_memory
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from autopatch_j.cloud.tables import UtcDateTime as TS

revision = "0005_private_injections_sessions"
down_revision = "0004_model_memory"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "task_private_injections",
        sa.Column("task_id", sa.Integer, nullable=False),
        sa.Column("memory_id", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("task_id", "memory_id", name="pk_task_private_injections"),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], name="fk_task_private_injections_task_id_tasks"),
        sa.ForeignKeyConstraint(
            ["memory_id"], ["identity_memories.id"], name="fk_task_private_injections_memory_id_identity_memories"
        ),
    )
    op.create_table(
        "console_sessions",
        sa.Column("id_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("binding_hash", sa.String(64), nullable=False),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id_hash", name="pk_console_sessions"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_console_sessions_user_id_users"),
    )
    op.create_index("ix_console_sessions_user_id", "console_sessions", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_console_sessions_user_id", table_name="console_sessions")
    op.drop_table("console_sessions")
    op.drop_table("task_private_injections")
