"""The backend fixture: every test that takes `engine` runs on SQLite and on PostgreSQL.

PostgreSQL variants use `AUTOPATCH_TEST_PG_URL` (see `.ci/postgres.sh`); without it they skip,
unless `AUTOPATCH_REQUIRE_PG=1`, in which case they fail. Each test gets a fresh database: a copy of
a migrated template file on SQLite, `CREATE DATABASE … TEMPLATE` on PostgreSQL.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from autopatch_j.cloud.db import make_engine
from autopatch_j.cloud.schema import migrate
from autopatch_j.runtime import FakeClock
from tests.cloud.world import CLOUD_START, World

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
PG_TEMPLATE = f"autopatch_cloud_template_{uuid.uuid4().hex[:8]}"  # unique: concurrent runs may share a server


def pg_admin_url() -> str | None:
    url = os.environ.get("AUTOPATCH_TEST_PG_URL")
    if url:
        return url
    if os.environ.get("AUTOPATCH_REQUIRE_PG") == "1":
        pytest.fail("AUTOPATCH_REQUIRE_PG=1 but AUTOPATCH_TEST_PG_URL is not set (source .ci/postgres.sh)")
    pytest.skip("PostgreSQL not configured: set AUTOPATCH_TEST_PG_URL (see .ci/postgres.sh)")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "cloud.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return path


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    admin_url = pg_admin_url()
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{PG_TEMPLATE}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{PG_TEMPLATE}"')
    engine = make_engine(_pg_url(admin_url, PG_TEMPLATE))
    migrate(engine)
    engine.dispose()
    yield admin_url
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{PG_TEMPLATE}" WITH (FORCE)')
    admin.dispose()


def _pg_url(admin_url: str, database: str) -> str:
    return sa.engine.make_url(admin_url).set(database=database).render_as_string(hide_password=False)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL to a fresh, migrated database on the parametrized backend."""
    if request.param == "sqlite":
        path = tmp_path / "cloud.sqlite3"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    admin_url = request.getfixturevalue("pg_template")
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}" TEMPLATE "{PG_TEMPLATE}"')
    try:
        yield _pg_url(admin_url, name)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(CLOUD_START)


@pytest.fixture
def world(engine: Engine, clock: FakeClock) -> World:
    return World(engine=engine, clock=clock)
