"""Model-written memories (C-40) and per-conversation memory controls (C-43).

Revision ID: 0004_model_memory
Revises: 0002_task_external_context (the coordinator rechains this after 0003 when merging)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from autopatch_j.cloud.tables import UtcDateTime as TS

revision = "0004_model_memory"
down_revision = "0003_task_round_results"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "identity_memory_sources",
        sa.Column("memory_id", sa.Integer, nullable=False),
        sa.Column("ordinal", sa.Integer, nullable=False),
        sa.Column("task_id", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("quote", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("memory_id", "ordinal", name="pk_identity_memory_sources"),
        sa.ForeignKeyConstraint(
            ["memory_id"], ["identity_memories.id"], name="fk_identity_memory_sources_memory_id_identity_memories"
        ),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], name="fk_identity_memory_sources_task_id_tasks"),
        sa.CheckConstraint("role IN ('user', 'assistant')", name="ck_identity_memory_sources_role"),
    )
    op.create_index("ix_identity_memory_sources_task_id", "identity_memory_sources", ["task_id"])
    op.create_table(
        "auto_memory_model_runs",
        sa.Column("task_id", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(32), nullable=False),
        sa.Column("memory_ids", sa.Text, nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.PrimaryKeyConstraint("task_id", name="pk_auto_memory_model_runs"),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], name="fk_auto_memory_model_runs_task_id_tasks"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_auto_memory_model_runs_user_id_users"),
    )
    op.create_table(
        "auto_memory_charges",
        sa.Column("task_id", sa.Integer, nullable=False),
        sa.Column("stage", sa.String(16), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("tokens", sa.Integer, nullable=False),
        sa.Column("cost_usd", sa.Float, nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.PrimaryKeyConstraint("task_id", "stage", name="pk_auto_memory_charges"),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.id"], name="fk_auto_memory_charges_task_id_tasks"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_auto_memory_charges_user_id_users"),
    )
    op.create_index("ix_auto_memory_charges_user_at", "auto_memory_charges", ["user_id", "at"])
    op.create_table(
        "conversation_memory_controls",
        sa.Column("root_task_id", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("use_memories", sa.Integer, nullable=True),
        sa.Column("generate_memories", sa.Integer, nullable=True),
        sa.Column("updated_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("root_task_id", name="pk_conversation_memory_controls"),
        sa.ForeignKeyConstraint(
            ["root_task_id"], ["tasks.id"], name="fk_conversation_memory_controls_root_task_id_tasks"
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_conversation_memory_controls_user_id_users"),
    )


def downgrade() -> None:
    op.drop_table("conversation_memory_controls")
    op.drop_index("ix_auto_memory_charges_user_at", table_name="auto_memory_charges")
    op.drop_table("auto_memory_charges")
    op.drop_table("auto_memory_model_runs")
    op.drop_index("ix_identity_memory_sources_task_id", table_name="identity_memory_sources")
    op.drop_table("identity_memory_sources")
