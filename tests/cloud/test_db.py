"""Engines and transactions: the statements actually sent for writers, readers and claims."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine

from autopatch_j.cloud.db import PreparedRead, make_engine, normalize_url, read_tx, write_tx
from autopatch_j.cloud.errors import ConfigError
from autopatch_j.cloud.queue import claim_next
from autopatch_j.cloud.tables import tasks
from autopatch_j.cloud.tasks import TASK_FOR_TOKEN
from autopatch_j.cloud.users import hash_token
from tests.cloud.world import World


@contextmanager
def captured(engine: Engine) -> Iterator[list[str]]:
    statements: list[str] = []

    def capture(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", capture)


@contextmanager
def sent_to_sqlite(engine: Engine) -> Iterator[list[str]]:
    """Every statement SQLite itself runs (its trace callback), connection set-up pragmas left out.

    The transaction hook sends BEGIN straight to the driver, so only SQLite's own trace sees it."""
    sent: list[str] = []

    def trace(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.set_trace_callback(sent.append)

    engine.dispose()  # every connection from now on is a new one, traced
    event.listen(engine, "connect", trace)
    try:
        yield sent
    finally:
        event.remove(engine, "connect", trace)
        engine.dispose()
        sent[:] = [" ".join(s.split()) for s in sent if not s.startswith("PRAGMA")]


def test_sqlite_writers_begin_immediate_and_readers_begin_deferred(tmp_path: Any) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/x.sqlite3")
    with sent_to_sqlite(engine) as statements:
        with write_tx(engine) as conn:
            conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        with read_tx(engine) as conn:
            conn.exec_driver_sql("SELECT * FROM t")
    assert statements == [
        "BEGIN IMMEDIATE",
        "CREATE TABLE t (x INTEGER)",
        "COMMIT",
        "BEGIN",
        "SELECT * FROM t",
        "COMMIT",
    ]
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_claims_skip_locked_rows_on_postgres_only(world: World) -> None:
    alice = world.user()
    world.task(world.project(alice), alice)
    with captured(world.engine) as statements:
        assert claim_next(world.engine, worker_id="w", now=world.clock(), lease_seconds=5) is not None
    selects = [s for s in statements if s.startswith("SELECT tasks.id, tasks.status")]
    assert len(selects) == 1
    if world.engine.dialect.name == "postgresql":
        assert selects[0].endswith("FOR UPDATE SKIP LOCKED")
    else:
        assert "FOR UPDATE" not in selects[0]
    updates = [s for s in statements if s.startswith("UPDATE tasks SET")]
    assert len(updates) == 1 and "WHERE tasks.id = " in updates[0] and "tasks.attempt = " in updates[0]


def test_sqlite_claims_run_in_an_immediate_transaction(world: World) -> None:
    if world.engine.dialect.name != "sqlite":
        pytest.skip("BEGIN IMMEDIATE is SQLite's")
    alice = world.user()
    world.task(world.project(alice), alice)
    with sent_to_sqlite(world.engine) as statements:
        assert claim_next(world.engine, worker_id="w", now=world.clock(), lease_seconds=5) is not None
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert any(s.startswith("UPDATE tasks SET") for s in statements)


def test_values_are_bound_never_inlined(world: World) -> None:
    alice = world.user()
    with captured(world.engine) as statements:
        world.task(world.project(alice), alice, "quote ' and -- comment")
    assert not any("quote '" in s for s in statements)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgres://u@h/d", "postgresql+psycopg://u@h/d"),
        ("postgresql://u@h/d", "postgresql+psycopg://u@h/d"),
        ("sqlite:///x", "sqlite:///x"),
    ],
)
def test_postgres_urls_use_psycopg_3(url: str, expected: str) -> None:
    assert normalize_url(url) == expected


@pytest.mark.parametrize("url", ["mysql://u@h/d", "postgresql+psycopg2://u@h/d", "::nonsense::"])
def test_unsupported_urls_are_config_errors(url: str) -> None:
    with pytest.raises(ConfigError):
        make_engine(url)


def test_a_prepared_read_returns_what_sqlalchemy_returns(world: World) -> None:
    """The hot read's driver-level path applies the columns' own result processors (aware UTC
    datetimes, floats, …): the same values as `Connection.execute`, on both backends."""
    alice, bob = world.user("alice"), world.user("bob")
    project = world.project(alice)
    task = world.complete(world.task(project, alice, goal="a goal"), cost=0.5)
    prepared = PreparedRead(TASK_FOR_TOKEN, world.engine.dialect)
    cases = [
        {"task_id": task.id, "token_hash": hash_token(alice.token)},  # the owner: task and role
        {"task_id": task.id, "token_hash": hash_token(bob.token)},  # a stranger: task, no role
        {"task_id": task.id + 99, "token_hash": hash_token(alice.token)},  # no such task
        {"task_id": task.id, "token_hash": hash_token("apj_nobody")},  # no such caller: no row
    ]
    got: list[dict[str, Any] | None] = []
    with world.engine.connect() as conn:
        for params in cases:
            expected = conn.execute(TASK_FOR_TOKEN, params).mappings().first()
            got.append(prepared.first(conn.connection.driver_connection, params))
            assert got[-1] == (None if expected is None else dict(expected)), params
            conn.rollback()
    owner, stranger, missing, nobody = got
    assert owner is not None and owner["caller_role"] == "admin" and owner["finished_at"].tzinfo is not None
    assert stranger is not None and stranger["id"] == task.id and stranger["caller_role"] is None
    assert missing is not None and missing["id"] is None and nobody is None


def test_a_prepared_read_refuses_binds_that_need_converting(engine: Engine) -> None:
    since = sa.select(tasks.c.id).where(tasks.c.created_at > sa.bindparam("since"))  # UtcDateTime converts
    with pytest.raises(ConfigError, match="binds"):
        PreparedRead(since, engine.dialect)
