"""The schema's smaller promises hold: malformed JSON gets the documented 422, booleans and integers
are strict (`{"force": 0}`, `{"idle_seconds": true}` are refused), and a 405 names every method the
path allows in `Allow`."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.cloud.api_support import Api, auth, make_app
from tests.cloud.world import World


@pytest.fixture
def api(world: World) -> Api:
    alice = world.user("alice", admin=True)
    client = TestClient(make_app(world))
    return Api(client, alice.token)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/users/me/auto-memory/run", {"force": 0}),
        ("POST", "/users/me/auto-memory/run", {"force": "true"}),
        ("PUT", "/users/me/auto-memory-settings", {"idle_seconds": True}),
        ("PUT", "/users/me/auto-memory-settings", {"generate_memories": True}),
        ("PUT", "/users/me/auto-memory-settings", {"min_rate_limit_remaining_percent": False}),
        ("PUT", "/users/me/auto-memory-settings", {"min_result_chars": "200"}),
        ("POST", "/projects", {"name": True}),
        ("PUT", "/users/1/quota", {"monthly_limit_usd": True}),
    ],
)
def test_booleans_and_integers_are_strict(api: Api, method: str, path: str, body: dict[str, object]) -> None:
    refused = api(method, path, body)
    assert refused.status_code == 422 and refused.json()["detail"].startswith("invalid request")


def test_task_flags_and_member_ids_are_strict(world: World, api: Api) -> None:
    project = api("POST", "/projects", {"name": "p"}).json()
    task = api("POST", f"/projects/{project['id']}/tasks", {"prompt": "x"}).json()
    for path, body in [
        (f"/tasks/{task['id']}/auto-memory-flags", {"use_memories": 1}),
        (f"/tasks/{task['id']}/conversation-memory", {"generate_memories": 0}),
        (f"/projects/{project['id']}/members", {"user_id": True, "role": "viewer"}),
        (f"/projects/{project['id']}/tasks", {"prompt": "y", "parent_task_id": True}),
    ]:
        assert api("POST", path, body).status_code == 422, path


@pytest.mark.parametrize("content_type", ["application/json", None])
def test_malformed_json_gets_the_documented_422(api: Api, content_type: str | None) -> None:
    headers = {**auth(api.token), **({"Content-Type": content_type} if content_type else {})}
    refused = api.client.post("/projects", content=b'{"name": ', headers=headers)
    assert refused.status_code == 422 and refused.json()["detail"]


def test_a_405_names_every_allowed_method(api: Api) -> None:
    for method in ("DELETE", "PATCH", "OPTIONS"):
        refused = api(method, "/users/me/auto-memory-settings")
        assert refused.status_code == 405
        assert sorted(m.strip() for m in refused.headers["allow"].split(",")) == ["GET", "PUT"], method
    assert sorted(api("PUT", "/users/me/memories").headers["allow"].split(", ")) == ["GET", "POST"]
