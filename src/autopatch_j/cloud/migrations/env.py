"""Alembic environment: always runs on the connection handed over by `autopatch_j.cloud.schema`."""

from __future__ import annotations

from alembic import context

from autopatch_j.cloud.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only reachable through the alembic CLI
    raise RuntimeError("run migrations through `autopatch-j cloud init`, not the alembic command line")

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
