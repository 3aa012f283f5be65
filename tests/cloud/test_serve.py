"""Serving the API fast: the task-detail read path, and `cloud serve --workers N` (issue 16).

The read path is checked by what it sends to the database and on which thread, never by timing
(the figures are `bench/cloud_api_bench.py`'s). `--workers` runs the real command in a subprocess.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.engine import Engine

from autopatch_j.cloud.api.reads import Reads
from autopatch_j.cloud.api.schemas import TaskOut
from autopatch_j.cloud.db import write_tx
from autopatch_j.cloud.projects import remove_member
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.tables import users
from autopatch_j.cloud.tasks import TASK_FOR_TOKEN
from autopatch_j.cloud.users import hash_token
from tests.cloud.api_support import auth, make_app
from tests.cloud.test_cli import free_port, run_cli, serving
from tests.cloud.world import World


def _trace_statements(engine: Engine, seen: list[tuple[str, str]]) -> None:
    """Record what every connection opened from now on sends to the driver, and on which thread.

    At the driver, below SQLAlchemy (the hot read bypasses its execution path and its events):
    SQLite's trace callback, psycopg's cursor factory."""
    engine.dispose()  # connections opened before this are not traced

    def record(statement: str) -> None:
        seen.append((" ".join(statement.split()), threading.current_thread().name))

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        if engine.dialect.name == "sqlite":
            dbapi_conn.set_trace_callback(record)
            return
        import psycopg

        class Tracing(psycopg.Cursor[Any]):
            def execute(self, query: Any, *args: Any, **kwargs: Any) -> Any:
                record(str(query))
                return super().execute(query, *args, **kwargs)

        dbapi_conn.cursor_factory = Tracing


def test_task_detail_is_one_statement_and_sqlite_reads_stay_on_the_event_loop(world: World) -> None:
    alice = world.user("alice")
    task = world.task(world.project(alice), alice)
    seen: list[tuple[str, str]] = []
    _trace_statements(world.engine, seen)
    with TestClient(make_app(world)) as client:
        assert client.get(f"/tasks/{task.id}", headers=auth(alice.token)).status_code == 200  # warm
        seen.clear()
        response = client.get(f"/tasks/{task.id}", headers=auth(alice.token))
    assert response.status_code == 200 and response.json()["prompt"] == "Fix the bug"
    statements = [s for s, _ in seen if not s.startswith("PRAGMA")]
    # the caller by token hash, the task and the caller's role on its project: one SELECT, no BEGIN
    assert len(statements) == 1, statements
    assert statements[0].startswith("SELECT tasks.") and "token_hash" in statements[0]
    assert "project_members" in statements[0]
    threads = {name for _, name in seen}
    if world.engine.dialect.name == "sqlite":
        assert not any(name.startswith(("AnyIO worker", "autopatch-reads")) for name in threads), threads
    else:
        assert {name.split("_")[0] for name in threads} == {"autopatch-reads"}  # never on the loop


def test_task_detail_still_hides_from_non_members(world: World) -> None:
    alice, bob, carol = world.user("alice"), world.user("bob"), world.user("carol")
    project = world.project(alice)
    task = world.task(project, alice)
    world.member(project, alice, bob, Role.VIEWER)
    with TestClient(make_app(world)) as client:
        assert client.get(f"/tasks/{task.id}", headers=auth(bob.token)).status_code == 200
        hidden = client.get(f"/tasks/{task.id}", headers=auth(carol.token))
        missing = client.get(f"/tasks/{task.id + 1000}", headers=auth(carol.token))
        assert hidden.status_code == missing.status_code == 404 and hidden.json() == missing.json()
        assert client.get(f"/tasks/{task.id}", headers=auth("apj_not-a-token")).status_code == 401


def test_task_detail_body_is_the_documented_task_out(world: World) -> None:
    """The hot route serializes the body itself: it must be what the response model would have made,
    and valid against the 200 schema of the OpenAPI document (every column filled, dates included)."""
    alice = world.user("alice")
    project = world.project(alice)
    parent = world.task(project, alice)
    task = world.complete(world.task(project, alice, goal="green tests", parent=parent.id), cost=1.25)
    with TestClient(make_app(world)) as client:
        response = client.get(f"/tasks/{task.id}", headers=auth(alice.token))
        spec = client.get("/openapi.json").json()
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    # the owner paid for the task's one round: its cost is theirs to see
    assert response.json() == TaskOut.of(world.load(task.id), own_cost=1.25).model_dump(mode="json")
    assert None not in response.json().values()
    operation = spec["paths"]["/tasks/{task_id}"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    jsonschema.validate(response.json(), {**schema, "components": spec["components"]})
    # the route reads the token itself, but documents the same bearer security as its neighbours
    assert operation["security"] == spec["paths"]["/tasks/{task_id}/rounds"]["get"]["security"]


@pytest.mark.parametrize(
    "header", [None, "", "Bearer", "Bearer ", "Basic YWxpY2U6c2VjcmV0", "bearer apj_unknown", "Token apj_x"]
)
def test_task_detail_answers_bad_credentials_like_every_other_route(world: World, header: str | None) -> None:
    alice = world.user("alice")
    task = world.task(world.project(alice), alice)
    headers = {} if header is None else {"Authorization": header}
    with TestClient(make_app(world)) as client:
        hot = client.get(f"/tasks/{task.id}", headers=headers)
        other = client.get(f"/tasks/{task.id}/rounds", headers=headers)
    assert hot.status_code == other.status_code == 401
    assert hot.json() == other.json() and hot.headers["www-authenticate"] == other.headers["www-authenticate"]


def test_task_detail_sees_revocations_at_once(world: World) -> None:
    """Nothing about the caller is cached between requests: a removed member and a changed token are
    refused by the very next read, on the same server and the same held connection."""
    alice, bob = world.user("alice"), world.user("bob")
    project = world.project(alice)
    task = world.task(project, alice)
    world.member(project, alice, bob, Role.VIEWER)
    with TestClient(make_app(world)) as client:
        assert client.get(f"/tasks/{task.id}", headers=auth(bob.token)).status_code == 200
        with write_tx(world.engine) as conn:
            remove_member(conn, actor=alice.user, project_id=project.id, user_id=bob.user.id, now=world.clock())
        assert client.get(f"/tasks/{task.id}", headers=auth(bob.token)).status_code == 404
        assert client.get(f"/tasks/{task.id}", headers=auth(alice.token)).status_code == 200
        with write_tx(world.engine) as conn:  # the token replaced (a rotation, done in SQL)
            conn.execute(sa.update(users).where(users.c.id == alice.user.id).values(token_hash=hash_token("apj_new")))
        assert client.get(f"/tasks/{task.id}", headers=auth(alice.token)).status_code == 401
        assert client.get(f"/tasks/{task.id}", headers=auth("apj_new")).status_code == 200


def test_postgres_hot_reads_survive_a_dropped_connection(world: World) -> None:
    """The read threads hold their connections; one the server dropped is replaced, the read retried."""
    if world.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only: SQLite reads on the loop's own connection")
    alice = world.user("alice")
    task = world.task(world.project(alice), alice)
    terminate = sa.text(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
    with TestClient(make_app(world)) as client:
        assert client.get(f"/tasks/{task.id}", headers=auth(alice.token)).status_code == 200
        with world.engine.connect() as conn:
            assert conn.execute(terminate).scalar_one() >= 1  # the read thread's connection among them
        for _ in range(4):  # whichever read thread answers, its connection was dropped
            assert client.get(f"/tasks/{task.id}", headers=auth(alice.token)).status_code == 200


def test_hot_reads_from_several_event_loops_at_once_all_answer_right(world: World) -> None:
    """One `Reads` shared by several loops (threads): on SQLite a loop that finds the loop connection
    busy reads on a pooled one; on PostgreSQL every loop hands off to the same read threads."""
    alice, bob = world.user("alice"), world.user("bob")
    mine, theirs = world.task(world.project(alice), alice), world.task(world.project(bob), bob, prompt="Theirs")
    reads = Reads(world.engine)

    async def many() -> list[tuple[int, str]]:
        answers = []
        for i in range(150):
            caller, task = (alice, mine) if i % 2 else (bob, theirs)
            row = await reads.first(TASK_FOR_TOKEN, {"task_id": task.id, "token_hash": hash_token(caller.token)})
            assert row is not None
            answers.append((row["id"], row["prompt"]))
        return answers

    try:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: asyncio.run(many()), range(4)))
    finally:
        reads.close()
    expected = [(mine.id, "Fix the bug") if i % 2 else (theirs.id, "Theirs") for i in range(150)]
    assert results == [expected] * 4


def _workers(pid: int) -> list[int]:
    """The server processes spawned by `pid` (not multiprocessing's resource tracker)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    children = [int(p) for p in path.read_text().split()] if path.exists() else []
    return [c for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]


@pytest.fixture
def two_workers(db_url: str) -> Iterator[tuple[str, str, subprocess.Popen[str]]]:
    env = {**os.environ, "AUTOPATCH_CLOUD_DB": db_url}
    added = run_cli("cloud", "user", "add", "alice", "--json", env=env)
    assert added.returncode == 0, added.stderr
    token = json.loads(added.stdout)["token"]
    with serving(env, "--workers", "2", startup_s=60) as (base, proc):
        yield base, token, proc


def test_serve_with_two_workers_shares_the_port_reads_and_writes(
    two_workers: tuple[str, str, subprocess.Popen[str]],
) -> None:
    base, token, proc = two_workers
    if Path("/proc").exists():
        deadline = time.monotonic() + 30
        while len(_workers(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(_workers(proc.pid)) == 2
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
        project = http.post("/projects", json={"name": "demo"}).json()

        def create(n: int) -> int:  # concurrent writers in two processes (SQLite: one writer at a time)
            with httpx.Client(base_url=base, headers=headers, timeout=30) as own:
                made = own.post(f"/projects/{project['id']}/tasks", json={"prompt": f"task {n}"})
                assert made.status_code == 201, made.text
                read = own.get(f"/tasks/{made.json()['id']}")
                assert read.status_code == 200 and read.json()["prompt"] == f"task {n}"
                return int(made.json()["id"])

        with ThreadPoolExecutor(8) as pool:
            ids = list(pool.map(create, range(24)))
        assert len(set(ids)) == 24
        listed = http.get(f"/projects/{project['id']}/tasks", params={"limit": 100}).json()
        assert {t["id"] for t in listed} == set(ids)
    proc.terminate()
    assert proc.wait(20) == 0  # the supervisor stops its workers and exits cleanly


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--workers", "0"], "--workers must be between 1 and 64."),
        (["--workers", "2", "--db", "sqlite:///:memory:"], "an in-memory SQLite database cannot be shared"),
    ],
)
def test_serve_refuses_worker_counts_that_cannot_work(tmp_path: Path, args: list[str], expected: str) -> None:
    env = {**os.environ, "AUTOPATCH_CLOUD_DB": f"sqlite:///{tmp_path}/x.sqlite3"}
    done = run_cli("cloud", "serve", "--port", str(free_port()), *args, env=env)
    assert done.returncode != 0
    assert expected in done.stderr and "Traceback" not in done.stderr
