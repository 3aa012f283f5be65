"""Work runs exactly once and workers survive (issue 10, items 7–9), with real worker processes.

Each test starts `autopatch-j cloud worker` subprocesses with the command executor running a real
agent script (tests/cloud/proc_support.py) that also spawns a grandchild, on SQLite and PostgreSQL.
Short leases (1 s) and bounded polls; no test sleeps for a fixed time to decide an outcome.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from autopatch_j.cloud.queue import claim_next
from autopatch_j.cloud.records import TaskStatus
from tests.cloud.api_support import Api, make_app
from tests.cloud.proc_support import (
    alive,
    pids,
    runs,
    start_worker,
    steal_lease,
    stop,
    task_row,
    wait_until,
    worker_env,
    write_agent,
)
from tests.cloud.world import World


@pytest.fixture
def agent(tmp_path: Path) -> tuple[Path, Path]:
    return write_agent(tmp_path)


def test_a_task_longer_than_its_lease_runs_once_under_two_workers(
    world: World, db_url: str, tmp_path: Path, agent: tuple[Path, Path]
) -> None:
    alice = world.user("alice")
    task = world.task(world.project(alice), alice, "long:5")  # 2.5 leases long
    env = worker_env(db_url, tmp_path, *agent, lease_seconds="2")
    workers = [start_worker(env, log=tmp_path / f"w{i}.log") for i in range(2)]
    try:
        wait_until(lambda: task_row(db_url, task.id)["status"] == "completed", timeout=60, what="the task to finish")
    finally:
        for proc in workers:
            stop(proc)
    row = task_row(db_url, task.id)
    assert runs(agent[1]) == ["long"], (tmp_path / "w0.log").read_text() + (tmp_path / "w1.log").read_text()
    assert row["attempt"] == 1 and "agent finished long" in row["result_text"]


def test_a_lost_lease_stops_the_executor_and_its_children(
    world: World, db_url: str, tmp_path: Path, agent: tuple[Path, Path]
) -> None:
    alice = world.user("alice")
    task = world.task(world.project(alice), alice, "stolen:120")
    env = worker_env(db_url, tmp_path, *agent, lease_seconds="1")
    proc = start_worker(env, log=tmp_path / "w.log")
    try:
        child, grandchild = wait_until(lambda: pids(agent[1], "stolen"), timeout=30, what="the agent to start")
        steal_lease(db_url, task.id)
        wait_until(lambda: not alive(child) and not alive(grandchild), timeout=15, what="the executor to stop")
        assert proc.poll() is None  # the worker itself carries on
    finally:
        stop(proc)
    assert task_row(db_url, task.id)["lease_owner"] == "thief"


def test_a_sigkilled_worker_leaves_no_child_and_the_reclaimed_task_runs_again_once(
    world: World, db_url: str, tmp_path: Path, agent: tuple[Path, Path]
) -> None:
    alice = world.user("alice")
    task = world.task(world.project(alice), alice, "orphan:120")
    env = worker_env(db_url, tmp_path, *agent, lease_seconds="1")
    first = start_worker(env, log=tmp_path / "w1.log")
    child, grandchild = wait_until(lambda: pids(agent[1], "orphan"), timeout=30, what="the agent to start")
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    wait_until(lambda: not alive(child) and not alive(grandchild), timeout=15, what="the orphaned agent to die")
    (agent[1] / "pids" / "orphan").unlink()
    second = start_worker(env, log=tmp_path / "w2.log")
    try:
        wait_until(lambda: pids(agent[1], "orphan"), timeout=30, what="the reclaimed run to start")
        row = task_row(db_url, task.id)
        assert row["attempt"] == 2 and row["status"] == "running"
    finally:
        stop(second)
    assert runs(agent[1]) == ["orphan", "orphan"]


def test_sigterm_stops_a_busy_worker_promptly_and_releases_its_task(
    world: World, db_url: str, tmp_path: Path, agent: tuple[Path, Path]
) -> None:
    alice = world.user("alice")
    task = world.task(world.project(alice), alice, "busy:120")
    env = worker_env(db_url, tmp_path, *agent)  # default 300 s lease: only a release frees the task
    proc = start_worker(env, log=tmp_path / "w.log")
    try:
        child, grandchild = wait_until(lambda: pids(agent[1], "busy"), timeout=30, what="the agent to start")
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0, (tmp_path / "w.log").read_text()
        assert time.monotonic() - started < 20
    finally:
        stop(proc)
    assert not alive(child) and not alive(grandchild)
    row = task_row(db_url, task.id)
    assert row["status"] == "queued" and row["lease_owner"] is None


def test_attempts_are_capped_and_shown_in_the_task_api(world: World) -> None:
    from fastapi.testclient import TestClient

    alice = world.user("alice")
    task = world.task(world.project(alice), alice, "crashes its workers")
    for attempt in range(1, 4):
        claim = claim_next(world.engine, worker_id=f"w{attempt}", now=world.clock(), lease_seconds=10, max_attempts=3)
        assert claim is not None and claim.attempt == attempt
        world.clock.advance(11)  # the worker died: its lease expires
    assert claim_next(world.engine, worker_id="w4", now=world.clock(), lease_seconds=10, max_attempts=3) is None
    with TestClient(make_app(world)) as client:
        body = Api(client, alice.token)("GET", f"/tasks/{task.id}").json()
    assert body["status"] == TaskStatus.FAILED and body["attempt"] == 3
    assert body["result_text"].startswith("attempts_exhausted:")


@pytest.mark.postgres
def test_workers_survive_a_postgres_restart_and_every_task_runs_once(tmp_path: Path, agent: tuple[Path, Path]) -> None:
    from autopatch_j.cloud.db import make_engine
    from autopatch_j.cloud.schema import migrate
    from autopatch_j.runtime import utc_now
    from tests.cloud.proc_support import ThrowawayPostgres

    try:
        pg = ThrowawayPostgres()
    except (FileNotFoundError, subprocess.CalledProcessError) as exc:
        reason = f"cannot start a PostgreSQL cluster of our own: {exc}"
        if os.environ.get("AUTOPATCH_REQUIRE_PG") == "1":  # CI: a missing server is a failure, not a skip
            pytest.fail(reason)
        pytest.skip(reason)
    try:
        engine = make_engine(pg.url)
        migrate(engine)
        world = World(engine=engine, clock=utc_now)  # type: ignore[arg-type]
        alice = world.user("alice")
        project = world.project(alice)
        before = [world.task(project, alice, f"before{i}:0.3").id for i in range(4)]
        engine.dispose()
        env = worker_env(pg.url, tmp_path, *agent, lease_seconds="30")
        logs = [tmp_path / "w1.log", tmp_path / "w2.log"]
        workers = [start_worker(env, log=log) for log in logs]
        try:
            for log in logs:
                wait_until(lambda log=log: "started (executor" in log.read_text(), timeout=30, what="a worker start")
            wait_until(lambda: len(runs(agent[1])) >= 1, timeout=30, what="the first run")
            pg.stop()
            wait_until(
                lambda: all("database refused" in log.read_text() for log in logs), timeout=30, what="both to notice"
            )
            marks = [len(log.read_text()) for log in logs]
            pg.start()
            after = [world.task(project, alice, f"after{i}:1").id for i in range(6)]
            ended = ("completed", "failed", "interrupted")  # a task that ends but not completed fails at once
            try:
                rows = [
                    wait_until(
                        lambda task_id=task_id: (row := task_row(pg.url, task_id))["status"] in ended and row,
                        timeout=90,
                        what=f"task {task_id} to end",
                    )
                    for task_id in before + after
                ]
            except AssertionError as exc:
                rows = [task_row(pg.url, task_id) for task_id in before + after]
                raise AssertionError(f"{exc}\n{_report(rows, logs)}") from None
            assert all(row["status"] == "completed" for row in rows), _report(rows, logs)
            assert [proc.poll() for proc in workers] == [None, None]
            resumed = [log.read_text()[mark:] for log, mark in zip(logs, marks, strict=True)]
            # both survived the outage (alive above) and work resumed; which of the two claims the tasks
            # after the restart is up to the race for the claim, so one may get them all
            assert any("ran " in text for text in resumed), resumed
        finally:
            for proc in workers:
                stop(proc)
            engine.dispose()
        assert sorted(runs(agent[1])) == sorted([f"before{i}" for i in range(4)] + [f"after{i}" for i in range(6)])
    finally:
        pg.remove()


def _report(rows: list[dict[str, object]], logs: list[Path]) -> str:
    """The tasks and the workers' logs, for a failure message."""
    keys = ("id", "status", "attempt", "lease_owner", "lease_expires_at", "result_text")
    lines = [" ".join(f"{key}={row[key]!r}" for key in keys) for row in rows]
    return "\n".join(["tasks:", *lines, *(f"--- {log.name}\n{log.read_text()}" for log in logs)])
