"""Each round of a task keeps its payer and its own result.

`task_rounds` gains `user_id` (who asked for the round and pays for it), `status`, `result_text`,
`cost_usd`, `started_at` and `finished_at`. Existing rows are attributed to the task's owner; the
task's current result, cost and timestamps go to its current round (earlier rounds' results were
overwritten before this revision, so they stay empty with cost 0).

Revision ID: 0003_task_round_results
Revises: 0002_task_external_context
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from autopatch_j.cloud.tables import UtcDateTime as TS

revision = "0003_task_round_results"
down_revision = "0002_task_external_context"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("task_rounds") as batch:
        batch.add_column(sa.Column("user_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("status", sa.String(16), nullable=True))
        batch.add_column(sa.Column("result_text", sa.Text, nullable=True))
        batch.add_column(sa.Column("cost_usd", sa.Float, nullable=False, server_default="0"))
        batch.add_column(sa.Column("started_at", TS, nullable=True))
        batch.add_column(sa.Column("finished_at", TS, nullable=True))
        batch.create_foreign_key("fk_task_rounds_user_id_users", "users", ["user_id"], ["id"])
        batch.create_index("ix_task_rounds_user_id_finished_at", ["user_id", "finished_at"])
    op.execute(
        "UPDATE task_rounds SET user_id = (SELECT tasks.user_id FROM tasks WHERE tasks.id = task_rounds.task_id)"
    )
    current = "FROM tasks WHERE tasks.id = task_rounds.task_id"
    op.execute(
        "UPDATE task_rounds SET "
        f"status = (SELECT tasks.status {current}), "
        f"result_text = (SELECT tasks.result_text {current}), "
        f"cost_usd = (SELECT tasks.cost_usd {current}), "
        f"started_at = (SELECT tasks.started_at {current}), "
        f"finished_at = (SELECT tasks.finished_at {current}) "
        "WHERE task_rounds.round = (SELECT tasks.round FROM tasks WHERE tasks.id = task_rounds.task_id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("task_rounds") as batch:
        batch.drop_index("ix_task_rounds_user_id_finished_at")
        batch.drop_constraint("fk_task_rounds_user_id_users", type_="foreignkey")
        for name in ("finished_at", "started_at", "cost_usd", "result_text", "status", "user_id"):
            batch.drop_column(name)
