"""Authorization matrix: every route of the app × every actor, generated from `app.routes`.

A route missing from MATRIX fails. Actors: anonymous (no token), owner (created the project, owns
the task and the memories), other (a user with no membership), viewer, member, admin (project admin
and site admin). Foreign objects answer 404; a member lacking the permission 403; no token 401.
Responses to user-scoped reads must never contain another user's data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from autopatch_j.cloud.db import write_tx
from autopatch_j.cloud.memories import clean_content, create_project_memory, create_user_memory
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.settings import CloudSettings
from tests.cloud.api_support import auth, make_app
from tests.cloud.world import Actor, World

ACTORS = ("anonymous", "owner", "other", "viewer", "member", "admin")
OWNER_SECRET = "owner-private-marker"


@dataclass
class Scene:
    owner: Actor
    other: Actor
    viewer: Actor
    member: Actor
    admin: Actor
    project_id: int
    task_id: int
    task2_id: int
    user_memory_id: int
    project_memory_id: int

    def token(self, actor: str) -> str | None:
        return None if actor == "anonymous" else getattr(self, actor).token


def build(world: World, n: int) -> Scene:
    owner, other = world.user(f"owner{n}"), world.user(f"other{n}")
    viewer, member = world.user(f"viewer{n}"), world.user(f"member{n}")
    admin = world.user(f"admin{n}", admin=True)
    project = world.project(owner, f"{OWNER_SECRET} project")
    world.member(project, owner, viewer, Role.VIEWER)
    world.member(project, owner, member, Role.MEMBER)
    world.member(project, owner, admin, Role.ADMIN)
    task = world.complete(world.task(project, owner, f"{OWNER_SECRET} task"))
    task2 = world.task(project, owner, "second")
    world.settings(owner, extract_model=OWNER_SECRET)
    with write_tx(world.engine) as conn:
        um = create_user_memory(
            conn, user=owner.user, content=clean_content(f"{OWNER_SECRET} memory"), now=world.clock()
        )
        pm = create_project_memory(
            conn, user=owner.user, project_id=project.id, content=clean_content("project fact"), now=world.clock()
        )
    world.enable(owner, idle_seconds=0, min_duration_seconds=0)
    return Scene(owner, other, viewer, member, admin, project.id, task.id, task2.id, um.id, pm.id)


Request = Callable[[Scene], tuple[str, Any]]
ALL_OK = {"anonymous": 401, "owner": 200, "other": 200, "viewer": 200, "member": 200, "admin": 200}


def expect(
    ok: int, *, anonymous: int = 401, other: int = 404, viewer: int | None = None, member: int | None = None
) -> dict[str, int]:
    return {
        "anonymous": anonymous,
        "owner": ok,
        "other": other,
        "viewer": ok if viewer is None else viewer,
        "member": ok if member is None else member,
        "admin": ok,
    }


VIEW = expect(200)
CREATE = expect(200, viewer=403)
CREATED = expect(201, viewer=403)

# (method, path) → [(scenario, request builder, expected status per actor)]
MATRIX: dict[tuple[str, str], list[tuple[str, Request, dict[str, int]]]] = {
    ("GET", "/health"): [("public", lambda s: ("/health", None), {**ALL_OK, "anonymous": 200})],
    ("GET", "/users/me"): [("self", lambda s: ("/users/me", None), ALL_OK)],
    ("GET", "/users/me/memories"): [("self", lambda s: ("/users/me/memories", None), ALL_OK)],
    ("POST", "/users/me/memories"): [
        ("self", lambda s: ("/users/me/memories", {"content": "mine"}), {**ALL_OK} | dict.fromkeys(ACTORS[1:], 201))
    ],
    ("GET", "/users/me/auto-memory-settings"): [("self", lambda s: ("/users/me/auto-memory-settings", None), ALL_OK)],
    ("PUT", "/users/me/auto-memory-settings"): [
        ("self", lambda s: ("/users/me/auto-memory-settings", {"use_memories": 1}), ALL_OK)
    ],
    ("POST", "/users/me/auto-memory/run"): [("self", lambda s: ("/users/me/auto-memory/run", {"force": True}), ALL_OK)],
    ("GET", "/users/me/auto-memory-log"): [("self", lambda s: ("/users/me/auto-memory-log", None), ALL_OK)],
    ("GET", "/users/me/quota"): [("self", lambda s: ("/users/me/quota", None), ALL_OK)],
    ("PUT", "/users/{user_id}/quota"): [
        (
            "site admin only",
            lambda s: (f"/users/{s.owner.user.id}/quota", {"monthly_limit_usd": 5}),
            {"anonymous": 401, "owner": 403, "other": 403, "viewer": 403, "member": 403, "admin": 200},
        )
    ],
    ("POST", "/users/{user_id}/token/rotate"): [
        (
            "site admin only",
            lambda s: (f"/users/{s.other.user.id}/token/rotate", None),
            {"anonymous": 401, "owner": 403, "other": 403, "viewer": 403, "member": 403, "admin": 200},
        )
    ],
    ("POST", "/users/{user_id}/token/revoke"): [
        (
            "site admin only",
            lambda s: (f"/users/{s.other.user.id}/token/revoke", None),
            {"anonymous": 401, "owner": 403, "other": 403, "viewer": 403, "member": 403, "admin": 204},
        )
    ],
    ("POST", "/projects"): [
        ("any user", lambda s: ("/projects", {"name": "new"}), {**ALL_OK} | dict.fromkeys(ACTORS[1:], 201))
    ],
    ("GET", "/projects"): [("own list", lambda s: ("/projects", None), ALL_OK)],
    ("POST", "/projects/{project_id}/members"): [
        (
            "admin permission",
            lambda s: (f"/projects/{s.project_id}/members", {"user_id": s.other.user.id, "role": "viewer"}),
            expect(200, viewer=403, member=403),
        )
    ],
    ("DELETE", "/projects/{project_id}/members/{user_id}"): [
        (
            "admin permission",
            lambda s: (f"/projects/{s.project_id}/members/{s.member.user.id}", None),
            expect(204, viewer=403, member=403),
        ),
        (
            "the creator stays",
            lambda s: (f"/projects/{s.project_id}/members/{s.owner.user.id}", None),
            {"anonymous": 401, "owner": 409, "other": 404, "viewer": 403, "member": 403, "admin": 403},
        ),
    ],
    ("POST", "/projects/{project_id}/tasks"): [
        ("create_task", lambda s: (f"/projects/{s.project_id}/tasks", {"prompt": "p"}), CREATED)
    ],
    ("GET", "/projects/{project_id}/tasks"): [("view", lambda s: (f"/projects/{s.project_id}/tasks", None), VIEW)],
    ("GET", "/projects/{project_id}/memories"): [
        ("view", lambda s: (f"/projects/{s.project_id}/memories", None), VIEW)
    ],
    ("POST", "/projects/{project_id}/memories"): [
        ("create_task", lambda s: (f"/projects/{s.project_id}/memories", {"content": "fact"}), CREATED)
    ],
    ("GET", "/tasks/{task_id}"): [("view", lambda s: (f"/tasks/{s.task_id}", None), VIEW)],
    ("GET", "/tasks/{task_id}/rounds"): [("view", lambda s: (f"/tasks/{s.task_id}/rounds", None), VIEW)],
    ("POST", "/tasks/{task_id}/continue"): [
        ("create_task", lambda s: (f"/tasks/{s.task_id}/continue", {"prompt": "more"}), CREATE)
    ],
    ("POST", "/tasks/{task_id}/followups"): [
        (
            "create_task",
            lambda s: (f"/tasks/{s.task_id}/followups", {"to_task_id": s.task2_id, "message": "m"}),
            CREATED,
        )
    ],
    ("POST", "/tasks/{task_id}/auto-memory-flags"): [
        (
            "task owner only",
            lambda s: (f"/tasks/{s.task_id}/auto-memory-flags", {"use_memories": True}),
            expect(200, viewer=403, member=403) | {"admin": 403},
        )
    ],
    ("GET", "/tasks/{task_id}/conversation-memory"): [  # C-43 (issue 14)
        ("view", lambda s: (f"/tasks/{s.task_id}/conversation-memory", None), VIEW)
    ],
    ("POST", "/tasks/{task_id}/conversation-memory"): [
        (
            "conversation owner only",
            lambda s: (f"/tasks/{s.task_id}/conversation-memory", {"use_memories": False}),
            expect(200, viewer=403, member=403) | {"admin": 403},
        )
    ],
    ("DELETE", "/memories/{memory_id}"): [
        ("project memory", lambda s: (f"/memories/{s.project_memory_id}", None), expect(204, viewer=403)),
        (
            "user memory",
            lambda s: (f"/memories/{s.user_memory_id}", None),
            expect(204, viewer=404, member=404) | {"admin": 404},
        ),
    ],
}


def _walk(routes: list[Any]) -> list[APIRoute]:
    """`app.routes`, descending into included routers (newer FastAPI keeps them as one entry)."""
    found: list[APIRoute] = []
    for route in routes:
        if isinstance(route, APIRoute):
            found.append(route)
        elif hasattr(route, "original_router"):  # fastapi.routing._IncludedRouter, mounted without a prefix
            found.extend(_walk(route.original_router.routes))
    return found


def app_routes() -> list[tuple[str, str]]:
    app = create_app_for_listing()
    return sorted((method, route.path) for route in _walk(app.routes) for method in route.methods)


def test_route_walk_agrees_with_the_openapi_schema() -> None:
    schema = create_app_for_listing().openapi()
    from_schema = {(m.upper(), path) for path, ops in schema["paths"].items() for m in ops}
    assert from_schema == set(app_routes())


def create_app_for_listing() -> Any:
    from autopatch_j.cloud.app import create_app

    engine = sa.create_engine("sqlite://")  # never connected: the route table needs no database
    return create_app(settings=CloudSettings(db="sqlite://"), engine=engine)


def leaks(actor: str, path: str) -> bool:
    """Whether seeing the owner's private marker would be a cross-tenant read for this actor."""
    return actor == "other" or (actor != "owner" and path.startswith("/users/"))


def test_every_route_is_in_the_matrix_and_nothing_else() -> None:
    routes = set(app_routes())
    assert routes - set(MATRIX) == set(), "routes missing from the authorization matrix"
    assert set(MATRIX) - routes == set(), "matrix rows for routes that no longer exist"


@pytest.mark.parametrize(("method", "path"), app_routes(), ids=lambda v: str(v))
def test_route_authorization(world: World, method: str, path: str) -> None:
    scenarios = MATRIX[(method, path)]
    mismatches = []
    with TestClient(make_app(world)) as client:
        n = 0
        for scenario, make_request, expected in scenarios:
            for actor in ACTORS:
                n += 1
                scene = build(world, n)
                url, body = make_request(scene)
                response = client.request(method, url, json=body, headers=auth(scene.token(actor)))
                if response.status_code != expected[actor]:
                    mismatches.append((scenario, actor, expected[actor], response.status_code, response.text[:200]))
                elif response.status_code < 300 and OWNER_SECRET in response.text and leaks(actor, path):
                    mismatches.append((scenario, actor, "no cross-tenant data", "leaked", response.text[:200]))
    assert mismatches == []


def test_foreign_objects_are_indistinguishable_from_missing_ones(world: World) -> None:
    scene = build(world, 1)
    with TestClient(make_app(world)) as client:
        headers = auth(scene.other.token)
        for url in (
            f"/tasks/{scene.task_id}",
            "/tasks/999999",
            f"/projects/{scene.project_id}/tasks",
            "/projects/999999/tasks",
        ):
            response = client.get(url, headers=headers)
            assert response.status_code == 404
        assert (
            client.get(f"/tasks/{scene.task_id}", headers=headers).json()
            == client.get("/tasks/999999", headers=headers).json()
        )
