"""Alembic migrations for the cloud schema, run programmatically (no alembic.ini needed)."""
