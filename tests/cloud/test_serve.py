"""Serving the API fast: the task-detail read path, and `cloud serve --workers N` (issue 16).

The read path is checked by what it sends to the database and on which thread, never by timing
(the figures are `bench/cloud_api_bench.py`'s). `--workers` runs the real command in a subprocess.
"""

from __future__ import annotations

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
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from autopatch_j.cloud.records import Role
from tests.cloud.api_support import auth, make_app
from tests.cloud.test_cli import free_port, run_cli, serving
from tests.cloud.world import World


def test_task_detail_is_two_statements_and_sqlite_reads_stay_on_the_event_loop(world: World) -> None:
    alice = world.user("alice")
    task = world.task(world.project(alice), alice)
    seen: list[tuple[str, str]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append((" ".join(statement.split()), threading.current_thread().name))

    with TestClient(make_app(world)) as client:
        assert client.get(f"/tasks/{task.id}", headers=auth(alice.token)).status_code == 200  # warm
        event.listen(world.engine, "before_cursor_execute", capture)
        try:
            response = client.get(f"/tasks/{task.id}", headers=auth(alice.token))
        finally:
            event.remove(world.engine, "before_cursor_execute", capture)
    assert response.status_code == 200 and response.json()["prompt"] == "Fix the bug"
    statements = [s for s, _ in seen]
    assert len(statements) == 2, statements  # the caller by token hash; the task with the caller's role
    assert statements[0].startswith("SELECT users.") and "token_hash" in statements[0]
    assert statements[1].startswith("SELECT tasks.") and "project_members" in statements[1]
    workers = [name for _, name in seen if name.startswith("AnyIO worker")]
    if world.engine.dialect.name == "sqlite":
        assert workers == []  # embedded reads run on the loop: no thread hop
    else:
        assert len(workers) == 2  # network reads never block the loop


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
