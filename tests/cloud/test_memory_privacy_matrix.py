"""Issue 10 item 3: for every route × every caller kind, the owner's user-memory text never reaches a
response body or a stored row that anyone but the owner can see.

Routes come from `app.routes` (the request builders are the authorization matrix's, which fails when
a route is missing), so the list cannot drift. Each route gets a fresh scene in which the owner's
user memory *was* injected into a run whose agent echoed its whole instruction, the sweep extracted a
project memory, and a followup exists. Callers: member, viewer, co-admin (project admin), non-member,
and last the owner. After the calls, queued work runs again (a continuation, new tasks) and every
stored row except the owner's own user-memory row is searched.
"""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from autopatch_j.cloud.executors import ExecutionRequest, ExecutionResult
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.worker import Worker
from tests.cloud.api_support import Api, auth, make_app
from tests.cloud.test_authz_matrix import MATRIX, Scene, app_routes
from tests.cloud.world import LONG_RESULT, World

PRIVATE = "owner-only note: the vault phrase is zebra-7431 violet"
MARKERS = ("zebra-7431", "vault phrase")
CALLERS = ("member", "viewer", "coadmin", "outsider", "owner")  # the owner last: its calls may delete things


class Echo:
    """An agent that repeats its whole instruction, verbatim and as a JSON event."""

    name = "echo"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        event = json.dumps({"type": "agent_message", "text": request.instruction})
        return ExecutionResult(ok=True, text=f"{request.instruction}\n{event}\n{LONG_RESULT}", cost_usd=0.01)


def scene(world: World, client: TestClient) -> Scene:
    owner, outsider = world.user(), world.user()
    viewer, member, coadmin = world.user(), world.user(), world.user()
    project = world.project(owner)
    world.member(project, owner, viewer, Role.VIEWER)
    world.member(project, owner, member, Role.MEMBER)
    world.member(project, owner, coadmin, Role.ADMIN)
    api = Api(client, owner.token)
    settings = {"generate_memories": 1, "use_memories": 1, "idle_seconds": 0, "min_duration_seconds": 0}
    assert api("PUT", "/users/me/auto-memory-settings", settings).status_code == 200
    user_memory = api("POST", "/users/me/memories", {"content": PRIVATE}).json()
    project_memory = api("POST", f"/projects/{project.id}/memories", {"content": "the API uses FastAPI"}).json()
    task = api("POST", f"/projects/{project.id}/tasks", {"prompt": "Add a health check"}).json()
    run_everything(world)
    task2 = api("POST", f"/projects/{project.id}/tasks", {"prompt": "Add metrics"}).json()
    assert (
        api("POST", f"/tasks/{task['id']}/followups", {"to_task_id": task2["id"], "message": "see"}).status_code == 201
    )
    return Scene(
        owner=owner,
        other=outsider,
        viewer=viewer,
        member=member,
        admin=coadmin,
        project_id=project.id,
        task_id=task["id"],
        task2_id=task2["id"],
        user_memory_id=user_memory["id"],
        project_memory_id=project_memory["id"],
    )


def run_everything(world: World) -> None:
    Worker(engine=world.engine, executor=Echo(), clock=world.clock).run_loop(once=True)


def token_of(s: Scene, caller: str) -> str:
    actor = {"coadmin": s.admin, "outsider": s.other}.get(caller) or getattr(s, caller)
    return str(actor.token)


def rows_others_can_reach(world: World, s: Scene) -> str:
    """Every stored row except the owner's own user-memory rows."""
    out = []
    for table in ("tasks", "task_rounds", "task_followups", "identity_memories", "auto_memory_log", "audit_events"):
        for row in world.rows(table):
            if table == "identity_memories" and row["scope"] == "user" and row["user_id"] == s.owner.user.id:
                continue
            out.append(repr(row))
    return "\n".join(out)


@pytest.mark.parametrize(("method", "path"), app_routes(), ids=lambda v: str(v))
def test_no_route_shows_the_owners_user_memories_to_anyone_else(world: World, method: str, path: str) -> None:
    leaks = []
    with TestClient(make_app(world)) as client:
        s = scene(world, client)
        owner_view = client.get("/users/me/memories", headers=auth(s.owner.token)).text
        assert all(m in owner_view for m in MARKERS)  # the marker is visible where it should be
        for _scenario, make_request, _expected in MATRIX[(method, path)]:
            url, body = make_request(s)
            for caller in CALLERS:
                response = client.request(method, url, json=body, headers=auth(token_of(s, caller)))
                assert response.status_code < 500, (caller, response.text[:200])
                if caller != "owner" and any(m in response.text for m in MARKERS):
                    leaks.append((caller, method, url, response.text[:200]))
        run_everything(world)  # whatever the calls queued (a continuation, new tasks) runs and is stored
        for caller in CALLERS[:-1]:
            for url in (f"/tasks/{s.task_id}", f"/projects/{s.project_id}/tasks", f"/projects/{s.project_id}/memories"):
                response = client.get(url, headers=auth(token_of(s, caller)))
                if any(m in response.text for m in MARKERS):
                    leaks.append((caller, "GET after the run", url, response.text[:200]))
    stored = rows_others_can_reach(world, s)
    assert leaks == []
    assert [m for m in MARKERS if m in stored] == []
