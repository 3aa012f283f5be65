"""The HTTP API, route by route: status codes, bodies, validation that writes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from autopatch_j.cloud.records import Role
from tests.cloud.api_support import Api, make_app
from tests.cloud.world import Actor, World


@pytest.fixture
def client(world: World) -> Iterator[TestClient]:
    with TestClient(make_app(world)) as c:
        yield c


@pytest.fixture
def alice(world: World) -> Actor:
    return world.user("alice")


@pytest.fixture
def as_alice(client: TestClient, alice: Actor) -> Api:
    return Api(client, alice.token)


def test_health_needs_no_token_and_openapi_is_served(client: TestClient) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    paths = client.get("/openapi.json").json()["paths"]
    assert "/users/me/auto-memory-settings" in paths and "/tasks/{task_id}/continue" in paths


@pytest.mark.parametrize("header", [None, "Bearer nope", "Basic abc", "Bearer "])
def test_missing_or_bad_token_is_401(client: TestClient, header: str | None) -> None:
    response = client.get("/users/me", headers={} if header is None else {"Authorization": header})
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
    assert response.json()["detail"]


def test_users_me(as_alice: Api, alice: Actor) -> None:
    assert as_alice("GET", "/users/me").json() == {"id": alice.user.id, "name": "alice", "is_admin": False}


def test_projects_and_members(world: World, client: TestClient, as_alice: Api) -> None:
    bob = world.user("bob")
    as_bob = Api(client, bob.token)
    created = as_alice("POST", "/projects", {"name": "web"})
    assert created.status_code == 201 and created.json()["role"] == "admin"
    pid = created.json()["id"]
    assert as_bob("GET", "/projects").json() == []
    assert as_bob("POST", f"/projects/{pid}/members", {"user_id": bob.user.id, "role": "admin"}).status_code == 404
    added = as_alice("POST", f"/projects/{pid}/members", {"user_id": bob.user.id, "role": "member"})
    assert added.json() == {"project_id": pid, "user_id": bob.user.id, "role": "member"}
    assert [p["role"] for p in as_bob("GET", "/projects").json()] == ["member"]
    assert as_bob("POST", f"/projects/{pid}/members", {"user_id": bob.user.id, "role": "admin"}).status_code == 403
    unknown = as_alice("POST", f"/projects/{pid}/members", {"user_id": 999, "role": "viewer"})
    assert unknown.status_code == 200  # issue 10, item 13: the same answer as for a real user id
    assert 999 not in {row["user_id"] for row in world.rows("project_members")}
    bad = as_alice("POST", f"/projects/{pid}/members", {"user_id": bob.user.id, "role": "owner"})
    assert bad.status_code == 422 and "role" in bad.json()["detail"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"prompt": ""},
        {"prompt": "x", "extra": 1},
        {"prompt": "nul\x00byte"},
        {"prompt": 5},
        {"prompt": "x", "parent_task_id": 0},
        {"prompt": "x", "parent_task_id": 2**40},
        {"prompt": "x", "goal": ""},
    ],
)
def test_invalid_task_bodies_are_422_and_write_nothing(world: World, as_alice: Api, alice: Actor, body: dict) -> None:  # type: ignore[type-arg]
    project = world.project(alice)
    before = world.dump()
    response = as_alice("POST", f"/projects/{project.id}/tasks", body)
    assert response.status_code == 422
    assert isinstance(response.json()["detail"], str) and response.json()["detail"].startswith("invalid request")
    assert world.dump() == before


def test_parent_task_must_be_in_the_same_project(world: World, as_alice: Api, alice: Actor) -> None:
    p1, p2 = world.project(alice, "a"), world.project(alice, "b")
    foreign = world.task(p2, alice)
    response = as_alice("POST", f"/projects/{p1.id}/tasks", {"prompt": "x", "parent_task_id": foreign.id})
    assert response.status_code == 409 and "same project" in response.json()["detail"]
    ok = as_alice("POST", f"/projects/{p2.id}/tasks", {"prompt": "sub", "parent_task_id": foreign.id})
    assert ok.status_code == 201 and ok.json()["parent_task_id"] == foreign.id


def test_task_lifecycle_create_get_list_continue(world: World, as_alice: Api, alice: Actor) -> None:
    project = world.project(alice)
    created = as_alice("POST", f"/projects/{project.id}/tasks", {"prompt": "Fix it", "goal": "Goal"}).json()
    assert created["status"] == "queued" and created["round"] == 1 and created["cost_usd"] == 0
    assert as_alice("GET", f"/tasks/{created['id']}").json()["prompt"] == "Fix it"
    assert [t["id"] for t in as_alice("GET", f"/projects/{project.id}/tasks").json()] == [created["id"]]
    refused = as_alice("POST", f"/tasks/{created['id']}/continue", {"prompt": "more"})
    assert refused.status_code == 409 and "queued" in refused.json()["detail"]
    world.complete(world.load(created["id"]))
    continued = as_alice("POST", f"/tasks/{created['id']}/continue", {"prompt": "more"}).json()
    assert (continued["status"], continued["round"], continued["prompt"]) == ("queued", 2, "Fix it")
    assert continued["finished_at"] is None


def test_followups_link_two_visible_tasks(world: World, client: TestClient, as_alice: Api, alice: Actor) -> None:
    project = world.project(alice)
    a, b = world.task(project, alice, "a"), world.task(project, alice, "b")
    made = as_alice("POST", f"/tasks/{a.id}/followups", {"to_task_id": b.id, "message": "password=hunter2 ok"})
    assert made.status_code == 201
    assert made.json()["message"] == "password=[REDACTED] ok"
    assert as_alice("POST", f"/tasks/{a.id}/followups", {"to_task_id": a.id, "message": "me"}).status_code == 409
    eve = world.user("eve")
    theirs = world.task(world.project(eve), eve)
    assert as_alice("POST", f"/tasks/{a.id}/followups", {"to_task_id": theirs.id, "message": "x"}).status_code == 404


def test_identity_memories_user_and_project(world: World, client: TestClient, as_alice: Api, alice: Actor) -> None:
    project = world.project(alice)
    mine = as_alice("POST", "/users/me/memories", {"content": "I prefer tabs; secret: s3cr3t"})
    assert mine.status_code == 201 and mine.json()["content"] == "I prefer tabs; secret: [REDACTED]"
    proj = as_alice("POST", f"/projects/{project.id}/memories", {"content": "uses pytest"}).json()
    assert proj["scope"] == "project" and proj["project_id"] == project.id
    assert [m["id"] for m in as_alice("GET", "/users/me/memories").json()] == [mine.json()["id"]]
    assert [m["id"] for m in as_alice("GET", f"/projects/{project.id}/memories").json()] == [proj["id"]]
    eve = Api(client, world.user("eve").token)
    assert eve("DELETE", f"/memories/{mine.json()['id']}").status_code == 404
    assert eve("DELETE", f"/memories/{proj['id']}").status_code == 404
    assert as_alice("DELETE", f"/memories/{proj['id']}").status_code == 204
    assert as_alice("DELETE", f"/memories/{proj['id']}").status_code == 404
    assert as_alice("GET", f"/projects/{project.id}/memories").json() == []


def test_settings_defaults_partial_update_and_422_writes_nothing(world: World, as_alice: Api) -> None:
    defaults = as_alice("GET", "/users/me/auto-memory-settings").json()
    assert defaults == {
        "generate_memories": 0,
        "use_memories": 0,
        "disable_on_external_context": 1,
        "min_rate_limit_remaining_percent": 20.0,
        "idle_seconds": 900,
        "min_duration_seconds": 30,
        "min_result_chars": 200,
        "extract_model": None,
        "consolidation_model": None,
    }
    updated = as_alice("PUT", "/users/me/auto-memory-settings", {"generate_memories": 1, "extract_model": "m"})
    assert updated.json() | {} == defaults | {"generate_memories": 1, "extract_model": "m"}
    for bad in (
        {"generate_memories": 2},
        {"idle_seconds": -1},
        {"min_rate_limit_remaining_percent": 101},
        {"min_result_chars": None},
        {"surprise": 1},
        {"use_memories": 1, "min_duration_seconds": "soon"},
    ):
        before = world.dump()
        response = as_alice("PUT", "/users/me/auto-memory-settings", bad)
        assert response.status_code == 422, bad
        assert response.json()["detail"].startswith("invalid"), response.json()
        assert world.dump() == before
    assert as_alice("GET", "/users/me/auto-memory-settings").json()["use_memories"] == 0


def test_task_flags_need_create_task(world: World, client: TestClient, as_alice: Api, alice: Actor) -> None:
    project = world.project(alice)
    task = world.task(project, alice)
    set_ = as_alice("POST", f"/tasks/{task.id}/auto-memory-flags", {"generate_memories": True})
    assert set_.json() == {"task_id": task.id, "use_memories": None, "generate_memories": True}
    cleared = as_alice(
        "POST", f"/tasks/{task.id}/auto-memory-flags", {"generate_memories": None, "use_memories": False}
    )
    assert cleared.json() == {"task_id": task.id, "use_memories": False, "generate_memories": None}
    viewer = world.user("viewer")
    world.member(project, alice, viewer, Role.VIEWER)
    assert Api(client, viewer.token)("POST", f"/tasks/{task.id}/auto-memory-flags", {}).status_code == 403


def test_manual_run_and_log(world: World, as_alice: Api, alice: Actor) -> None:
    project = world.project(alice)
    as_alice("PUT", "/users/me/auto-memory-settings", {"generate_memories": 1})
    fresh = world.complete(world.task(project, alice), ago=5)
    assert as_alice("POST", "/users/me/auto-memory/run").json() == {
        "scanned": 1,
        "extracted": [],
        "skipped": {str(fresh.id): "not_idle"},
    }
    forced = as_alice("POST", "/users/me/auto-memory/run", {"force": True}).json()
    assert forced["extracted"] == [fresh.id]
    [entry] = as_alice("GET", "/users/me/auto-memory-log").json()
    assert (entry["task_id"], entry["outcome"], entry["reason"]) == (fresh.id, "extracted", "extracted")
    assert as_alice("GET", f"/projects/{project.id}/memories").json()[0]["source_thread_id"] == str(fresh.id)


def test_quotas_default_admin_set_and_null(world: World, client: TestClient, as_alice: Api, alice: Actor) -> None:
    assert as_alice("GET", "/users/me/quota").json() == {
        "user_id": alice.user.id,
        "monthly_limit_usd": 10.0,
        "spent_usd": 0.0,
        "remaining_percent": 100.0,
        "default_applies": True,
    }
    assert as_alice("PUT", f"/users/{alice.user.id}/quota", {"monthly_limit_usd": 99}).status_code == 403
    root = Api(client, world.user("root", admin=True).token)
    assert root("PUT", f"/users/{alice.user.id}/quota", {"monthly_limit_usd": 50}).json()["monthly_limit_usd"] == 50
    unlimited = root("PUT", f"/users/{alice.user.id}/quota", {"monthly_limit_usd": None}).json()
    assert unlimited["monthly_limit_usd"] is None and unlimited["remaining_percent"] == 100.0
    assert not unlimited["default_applies"]
    assert root("PUT", f"/users/{alice.user.id}/quota", {"monthly_limit_usd": -1}).status_code == 422
    assert root("PUT", f"/users/{alice.user.id}/quota", {}).status_code == 422
    assert root("PUT", "/users/4242/quota", {"monthly_limit_usd": 1}).status_code == 404
