"""Membership (issue 10, item 13): removal, the creator's protection, no user-id existence leak."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.cloud.api_support import Api, make_app
from tests.cloud.world import World


def test_an_admin_removes_a_member_who_then_loses_access(world: World) -> None:
    owner, bob = world.user("owner"), world.user("bob")
    project = world.project(owner)
    with TestClient(make_app(world)) as client:
        as_owner, as_bob = Api(client, owner.token), Api(client, bob.token)
        added = as_owner("POST", f"/projects/{project.id}/members", {"user_id": bob.user.id, "role": "member"})
        assert added.is_success
        assert as_bob("GET", f"/projects/{project.id}/tasks").status_code == 200
        assert as_bob("DELETE", f"/projects/{project.id}/members/{owner.user.id}").status_code == 403
        removed = as_owner("DELETE", f"/projects/{project.id}/members/{bob.user.id}")
        assert removed.status_code == 204
        assert as_bob("GET", f"/projects/{project.id}/tasks").status_code == 404
        assert as_bob("DELETE", f"/projects/{project.id}/members/{owner.user.id}").status_code == 404
        assert as_owner("DELETE", f"/projects/{project.id}/members/{bob.user.id}").status_code == 204  # idempotent


def test_a_co_admin_cannot_demote_or_remove_the_creator(world: World) -> None:
    owner, co = world.user("owner"), world.user("co")
    project = world.project(owner)
    with TestClient(make_app(world)) as client:
        as_owner, as_co = Api(client, owner.token), Api(client, co.token)
        assert as_owner("POST", f"/projects/{project.id}/members", {"user_id": co.user.id, "role": "admin"}).is_success
        for role in ("member", "viewer"):
            demoted = as_co("POST", f"/projects/{project.id}/members", {"user_id": owner.user.id, "role": role})
            assert demoted.status_code == 403 and "creator" in demoted.json()["detail"]
        removed = as_co("DELETE", f"/projects/{project.id}/members/{owner.user.id}")
        assert removed.status_code == 403 and "creator" in removed.json()["detail"]
        assert as_owner("DELETE", f"/projects/{project.id}/members/{owner.user.id}").status_code == 409
        assert [p["role"] for p in as_owner("GET", "/projects").json()] == ["admin"]
        assert as_owner("DELETE", f"/projects/{project.id}/members/{co.user.id}").status_code == 204


def test_adding_a_member_does_not_reveal_whether_a_user_id_exists(world: World) -> None:
    owner, stranger = world.user("owner"), world.user("stranger")
    project = world.project(owner)
    unknown = stranger.user.id + 1000
    with TestClient(make_app(world)) as client:
        as_owner = Api(client, owner.token)
        answers = []
        for user_id in (stranger.user.id, unknown):
            got = as_owner("POST", f"/projects/{project.id}/members", {"user_id": user_id, "role": "viewer"})
            body = got.json()
            body.pop("user_id")
            answers.append((got.status_code, body))
        assert answers[0] == answers[1] and answers[0][0] == 200
        for user_id in (stranger.user.id, unknown):  # removing them again answers alike too
            assert as_owner("DELETE", f"/projects/{project.id}/members/{user_id}").status_code == 204
        readd = as_owner("POST", f"/projects/{project.id}/members", {"user_id": stranger.user.id, "role": "viewer"})
        assert readd.status_code == 200
        assert Api(client, stranger.token)("GET", f"/projects/{project.id}/tasks").status_code == 200
        assert str(unknown) not in {str(r["user_id"]) for r in world.rows("project_members")}


def test_removing_a_member_cancels_their_tasks_and_keeps_them_out_of_project_memory(world: World) -> None:
    from autopatch_j.cloud.executors import ScriptedExecutor
    from autopatch_j.cloud.queue import FinishOutcome, claim_next, finish
    from autopatch_j.cloud.records import Role, TaskStatus
    from autopatch_j.cloud.worker import Worker

    owner, bob = world.user("owner"), world.user("bob")
    project = world.project(owner)
    world.member(project, owner, bob, Role.MEMBER)
    with TestClient(make_app(world)) as client:
        as_owner, as_bob = Api(client, owner.token), Api(client, bob.token)
        on = {"generate_memories": 1, "use_memories": 1, "idle_seconds": 0, "min_duration_seconds": 0}
        assert as_bob("PUT", "/users/me/auto-memory-settings", on).status_code == 200
        assert as_owner("POST", f"/projects/{project.id}/memories", {"content": "the deploy key rotates"}).is_success
        done = world.complete(world.task(project, bob, "finished before removal"))
        running = world.task(project, bob, "running at removal")
        claim = claim_next(world.engine, worker_id="w1", now=world.clock(), lease_seconds=300)
        assert claim is not None and claim.task.id == running.id
        queued = as_bob("POST", f"/projects/{project.id}/tasks", {"prompt": "queued at removal"}).json()
        owners = world.complete(world.task(project, owner, "the owner's task"), result="the owner's result")
        assert as_bob("POST", f"/tasks/{owners.id}/continue", {"prompt": "bob's round"}).status_code == 200
        assert as_owner("DELETE", f"/projects/{project.id}/members/{bob.user.id}").status_code == 204
        back = world.load(owners.id)  # bob's round is cancelled, the owner's task is as it was
        assert (back.status, back.result_text) == (TaskStatus.COMPLETED, "the owner's result")
        assert as_owner("POST", f"/tasks/{owners.id}/continue", {"prompt": "mine"}).status_code == 200
        for task_id in (running.id, queued["id"]):
            assert world.load(task_id).status is TaskStatus.INTERRUPTED, task_id
            assert "removed from the project" in (world.load(task_id).result_text or "")
        with world.engine.begin() as conn:  # the running worker's result is discarded
            now = world.clock()
            lost = finish(conn, claim=claim, status=TaskStatus.COMPLETED, result_text="x", cost_usd=0.0, now=now)
        assert lost is FinishOutcome.LEASE_LOST
        ran = Worker(engine=world.engine, executor=ScriptedExecutor(), clock=world.clock).run_loop(once=True)
        assert ran == 1 and world.load(owners.id).round == 3  # only the owner's own new round ran
        swept = as_bob("POST", "/users/me/auto-memory/run", {"force": True}).json()
        assert swept["extracted"] == [] and swept["skipped"] == {str(done.id): "not_a_member"}
        memories = as_owner("GET", f"/projects/{project.id}/memories").json()
        assert [m["content"] for m in memories] == ["the deploy key rotates"]
        assert [row["task_id"] for row in as_bob("GET", "/users/me/auto-memory-log").json()] == [done.id]
