"""Create or migrate the cloud schema programmatically with Alembic (`command.upgrade`)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from autopatch_j.cloud.errors import MigrationError

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_MIGRATION_LOCK = 0x61707A6A  # PostgreSQL advisory lock key: processes starting together migrate one at a time


def _config(engine_conn: object) -> object:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = engine_conn
    return config


def migrate(engine: Engine, *, revision: str = "head") -> None:
    """Bring the database to `revision` (default: the newest); safe to run again."""
    from alembic import command

    try:
        with engine.connect().execution_options(immediate=True) as conn, conn.begin():
            if conn.dialect.name == "postgresql":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")
            command.upgrade(_config(conn), revision)  # type: ignore[arg-type]
    except SQLAlchemyError as exc:
        detail = str(getattr(exc, "orig", None) or exc.__class__.__name__).strip().splitlines()[0]
        raise MigrationError(f"the cloud schema could not be migrated: {detail}") from exc


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None for an empty database."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()
