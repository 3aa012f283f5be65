"""Request size limits (issue 10, item 12): 413 before parsing and before auth, on both backends."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi.testclient import TestClient

from autopatch_j.cloud.api.body_limit import DEFAULT_MAX_BODY_BYTES
from tests.cloud.api_support import Api, make_app
from tests.cloud.world import World

TOO_BIG = DEFAULT_MAX_BODY_BYTES + 1


def test_an_oversized_declared_body_is_413_before_auth(world: World) -> None:
    with TestClient(make_app(world)) as client:
        anonymous = client.post("/projects", content=b"x" * TOO_BIG, headers={"Content-Type": "application/json"})
    assert anonymous.status_code == 413
    assert anonymous.json()["detail"].startswith("the request body is larger than the limit")


def test_an_oversized_streamed_body_is_counted_and_refused(world: World) -> None:
    alice = world.user("alice")

    def chunks() -> Iterator[bytes]:
        for _ in range(TOO_BIG // 65536 + 1):
            yield b" " * 65536

    with TestClient(make_app(world)) as client:
        streamed = client.post("/projects", content=chunks(), headers={"Authorization": f"Bearer {alice.token}"})
        assert streamed.status_code == 413
        assert "content-length" not in streamed.request.headers  # chunked: no length declared
        fits = Api(client, alice.token)("POST", "/projects", {"name": "x" * 200})
    assert fits.status_code == 201
    assert "demo" not in world.dump()  # nothing was written by the refused request


def test_a_largest_valid_task_fits_the_limit(world: World) -> None:
    alice = world.user("alice")
    with TestClient(make_app(world)) as client:
        api = Api(client, alice.token)
        project = api("POST", "/projects", {"name": "p"}).json()
        created = api("POST", f"/projects/{project['id']}/tasks", {"prompt": "界" * 100_000, "goal": "界" * 100_000})
    assert created.status_code == 201
