"""The Alembic migrations build exactly the schema that `tables.py` describes, on both backends."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import Engine

from autopatch_j.cloud.db import make_engine
from autopatch_j.cloud.schema import current_revision, migrate
from autopatch_j.cloud.tables import metadata

HEAD = "0005_private_injections_sessions"


def test_migrated_database_matches_the_table_metadata(engine: Engine) -> None:
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []


def test_migrating_again_is_a_no_op(engine: Engine) -> None:
    migrate(engine)
    assert current_revision(engine) == HEAD


def test_a_fresh_sqlite_file_is_created_with_its_directory(tmp_path) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(f"sqlite:///{tmp_path}/a/b/cloud.sqlite3")
    assert current_revision(engine) is None
    migrate(engine)
    assert current_revision(engine) == HEAD
    with engine.connect() as conn:
        assert set(metadata.tables) <= set(conn.exec_driver_sql("SELECT name FROM sqlite_master").scalars())
    engine.dispose()


def test_upgrading_from_the_first_revision_reaches_the_same_schema(tmp_path) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(f"sqlite:///{tmp_path}/old.sqlite3")
    migrate(engine, revision="0001_initial")
    assert current_revision(engine) == "0001_initial"
    migrate(engine)
    assert current_revision(engine) == HEAD
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    engine.dispose()
