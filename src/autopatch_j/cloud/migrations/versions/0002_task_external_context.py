"""External context seen inside a run (C-41): MCP tool calls, web searches reported by executors.

Revision ID: 0002_task_external_context
Revises: 0001_initial
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from autopatch_j.cloud.tables import UtcDateTime as TS

revision = "0002_task_external_context"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "task_external_context",
        sa.Column("task_id", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("task_id", "kind", name="pk_task_external_context"),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], name="fk_task_external_context_task_id_tasks"),
    )


def downgrade() -> None:
    op.drop_table("task_external_context")
