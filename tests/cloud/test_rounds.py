"""Continuations by another member (issue 10, item 11): the caller pays, a caller without quota is
refused, and every round keeps its own result; plus the migration that adds the round records."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from fastapi.testclient import TestClient

from autopatch_j.cloud.db import make_engine, read_tx, write_tx
from autopatch_j.cloud.executors import ScriptedExecutor
from autopatch_j.cloud.quotas import DbQuotas, set_quota
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.schema import current_revision, migrate
from autopatch_j.cloud.tables import metadata, task_rounds, tasks
from autopatch_j.cloud.worker import Worker
from tests.cloud.api_support import Api, make_app
from tests.cloud.test_schema import HEAD
from tests.cloud.world import World


def spent(world: World, user_id: int) -> float:
    with read_tx(world.engine) as conn:
        return DbQuotas().status(conn, user_id=user_id, now=world.clock()).spent_usd


def test_the_member_who_continues_pays_and_each_round_keeps_its_result(world: World) -> None:
    owner, bob = world.user("owner"), world.user("bob")
    project = world.project(owner)
    world.member(project, owner, bob, Role.MEMBER)
    worker = Worker(engine=world.engine, executor=ScriptedExecutor(cost_usd=0.5), clock=world.clock)
    with TestClient(make_app(world)) as client:
        as_owner, as_bob = Api(client, owner.token), Api(client, bob.token)
        task = as_owner("POST", f"/projects/{project.id}/tasks", {"prompt": "round one"}).json()
        worker.run_one()
        assert as_bob("POST", f"/tasks/{task['id']}/continue", {"prompt": "round two"}).status_code == 200
        worker.run_one()
        rounds = as_owner("GET", f"/tasks/{task['id']}/rounds").json()
        detail = as_owner("GET", f"/tasks/{task['id']}").json()
    assert [(r["round"], r["user_id"], r["status"], r["cost_usd"]) for r in rounds] == [
        (1, owner.user.id, "completed", 0.5),
        (2, bob.user.id, "completed", None),  # bob's spend is shown to bob only
    ]
    assert rounds[0]["result_text"].startswith("round one") and rounds[1]["result_text"].startswith("round two")
    # the task's cost as the owner sees it: what the owner paid
    assert detail["round"] == 2 and detail["cost_usd"] == 0.5 and detail["result_text"].startswith("round two")
    assert (spent(world, owner.user.id), spent(world, bob.user.id)) == (0.5, 0.5)


def test_a_caller_without_quota_cannot_continue_and_nothing_changes(world: World) -> None:
    owner, bob = world.user("owner"), world.user("bob")
    project = world.project(owner)
    world.member(project, owner, bob, Role.MEMBER)
    with write_tx(world.engine) as conn:
        set_quota(conn, actor_id=None, user_id=bob.user.id, monthly_limit_usd=0, now=world.clock())
    done = world.complete(world.task(project, owner, "first"))
    with TestClient(make_app(world)) as client:
        refused = Api(client, bob.token)("POST", f"/tasks/{done.id}/continue", {"prompt": "on my dime"})
        assert refused.status_code == 429 and "quota" in refused.json()["detail"]
        assert Api(client, owner.token)("POST", f"/tasks/{done.id}/continue", {"prompt": "mine"}).status_code == 200
    assert world.load(done.id).round == 2
    assert [r["prompt"] for r in world.rows("task_rounds")] == ["first", "mine"]


def test_a_payers_quota_failure_never_changes_the_owners_task(world: World) -> None:
    """Bob's round is refused when his quota ran out before it ran: Alice's task goes back to its
    last completed round (she can continue it), and nobody but Bob reads his figures."""
    owner, bob, viewer = world.user("owner"), world.user("bob"), world.user("viewer")
    project = world.project(owner)
    world.member(project, owner, bob, Role.MEMBER)
    world.member(project, owner, viewer, Role.VIEWER)
    done = world.complete(world.task(project, owner, "first"), result="the first result")
    before = world.load(done.id)
    with TestClient(make_app(world)) as client:
        assert Api(client, bob.token)("POST", f"/tasks/{done.id}/continue", {"prompt": "later"}).status_code == 200
        with write_tx(world.engine) as conn:  # bob's quota runs out before the round runs
            set_quota(conn, actor_id=None, user_id=bob.user.id, monthly_limit_usd=0, now=world.clock())
        Worker(engine=world.engine, executor=ScriptedExecutor(cost_usd=0.5), clock=world.clock).run_one()
        task = world.load(done.id)
        assert (task.status, task.result_text) == ("completed", "the first result")
        assert task.finished_at == before.finished_at
        rounds = Api(client, viewer.token)("GET", f"/tasks/{done.id}/rounds").json()
        assert [(r["round"], r["status"]) for r in rounds] == [(1, "completed"), (2, "failed")]
        assert rounds[1]["result_text"].startswith("quota_exhausted") and "$" not in rounds[1]["result_text"]
        assert "$" not in Api(client, viewer.token)("GET", f"/tasks/{done.id}").text
        again = Api(client, owner.token)("POST", f"/tasks/{done.id}/continue", {"prompt": "mine"})
        assert again.status_code == 200 and again.json()["round"] == 3
    assert spent(world, owner.user.id) == 0 and spent(world, bob.user.id) == 0


def test_a_caller_without_quota_cannot_create_a_task(world: World) -> None:
    """Quotas are checked before anything is queued: 429 with the caller's own figures."""
    owner = world.user("owner")
    project = world.project(owner)
    with write_tx(world.engine) as conn:
        set_quota(conn, actor_id=None, user_id=owner.user.id, monthly_limit_usd=0, now=world.clock())
    with TestClient(make_app(world)) as client:
        refused = Api(client, owner.token)("POST", f"/projects/{project.id}/tasks", {"prompt": "on credit"})
    assert refused.status_code == 429 and "$0.00 of $0.00" in refused.json()["detail"]
    assert world.rows("tasks") == []


def test_the_worker_refuses_an_owners_own_round_without_figures(world: World) -> None:
    owner, viewer = world.user("owner"), world.user("viewer")
    project = world.project(owner)
    world.member(project, owner, viewer, Role.VIEWER)
    task = world.task(project, owner, "first")
    with write_tx(world.engine) as conn:
        set_quota(conn, actor_id=None, user_id=owner.user.id, monthly_limit_usd=0, now=world.clock())
    Worker(engine=world.engine, executor=ScriptedExecutor(cost_usd=0.5), clock=world.clock).run_one()
    with TestClient(make_app(world)) as client:
        shown = Api(client, viewer.token)("GET", f"/tasks/{task.id}").json()
    assert shown["status"] == "failed" and shown["result_text"].startswith("quota_exhausted")
    assert "$" not in shown["result_text"]


def test_upgrading_from_0002_keeps_rounds_and_attributes_them(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/old.sqlite3")
    migrate(engine, revision="0002_task_external_context")
    now = "2026-01-15 12:00:00"
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO users (id, name, is_admin, token_hash, created_at) VALUES (1, 'a', 0, 'h', ?)", (now,)
        )
        conn.exec_driver_sql("INSERT INTO projects (id, name, created_by, created_at) VALUES (1, 'p', 1, ?)", (now,))
        conn.exec_driver_sql(
            "INSERT INTO tasks (id, project_id, user_id, prompt, status, result_text, cost_usd, round, attempt,"
            " started_at, finished_at, created_at, updated_at)"
            " VALUES (1, 1, 1, 'p1', 'completed', 'latest', 2.5, 2, 1, ?, ?, ?, ?)",
            (now, now, now, now),
        )
        conn.exec_driver_sql(
            "INSERT INTO task_rounds (task_id, round, prompt, created_at) VALUES (1, 1, 'p1', ?), (1, 2, 'p2', ?)",
            (now, now),
        )
    migrate(engine)
    assert current_revision(engine) == HEAD  # 0003 (the rounds) and every later revision
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
        rows = conn.execute(sa.select(task_rounds).order_by(task_rounds.c.round)).mappings().all()
        assert conn.execute(sa.select(tasks.c.cost_usd)).scalar_one() == 2.5
    assert [(r["user_id"], r["result_text"], r["cost_usd"]) for r in rows] == [(1, None, 0.0), (1, "latest", 2.5)]
    engine.dispose()


def test_a_task_continued_many_times_runs_every_round(world: World) -> None:
    """The attempt cap counts the claims of one round: a sixth round still runs (found by the soak)."""
    owner = world.user("owner")
    project = world.project(owner)
    worker = Worker(engine=world.engine, executor=ScriptedExecutor(cost_usd=0.0), clock=world.clock)
    with TestClient(make_app(world)) as client:
        api = Api(client, owner.token)
        task = api("POST", f"/projects/{project.id}/tasks", {"prompt": "round 1"}).json()
        worker.run_one()
        for n in range(2, 9):
            assert api("POST", f"/tasks/{task['id']}/continue", {"prompt": f"round {n}"}).status_code == 200
            worker.run_one()
        rounds = api("GET", f"/tasks/{task['id']}/rounds").json()
    assert [r["status"] for r in rounds] == ["completed"] * 8
