"""Spend is visible only to its owner: a round's `cost_usd` only to the user who paid for it, a
task's `cost_usd` is the caller's own spend on its rounds (null when the caller paid for none), in
the API (task detail, project list, continue, rounds) and on the console's task page."""

from __future__ import annotations

from fastapi.testclient import TestClient

from autopatch_j.cloud.executors import ScriptedExecutor
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.worker import Worker
from tests.cloud.api_support import Api, make_app
from tests.cloud.console_support import sign_in
from tests.cloud.world import World


def test_each_user_sees_only_their_own_spend(world: World) -> None:
    owner, bob, carol = world.user("owner"), world.user("bob"), world.user("carol")
    project = world.project(owner)
    world.member(project, owner, bob, Role.MEMBER)
    world.member(project, owner, carol, Role.VIEWER)
    with TestClient(make_app(world)) as client:
        as_owner, as_bob, as_carol = (Api(client, a.token) for a in (owner, bob, carol))
        task = as_owner("POST", f"/projects/{project.id}/tasks", {"prompt": "round one"}).json()
        assert task["cost_usd"] == 0.0  # the creator pays for round one
        Worker(engine=world.engine, executor=ScriptedExecutor(cost_usd=0.5), clock=world.clock).run_one()
        continued = as_bob("POST", f"/tasks/{task['id']}/continue", {"prompt": "round two"}).json()
        assert continued["cost_usd"] == 0.0  # bob's own share so far, never the owner's $0.50
        Worker(engine=world.engine, executor=ScriptedExecutor(cost_usd=0.25), clock=world.clock).run_one()
        seen = {}
        for name, api in (("owner", as_owner), ("bob", as_bob), ("carol", as_carol)):
            detail = api("GET", f"/tasks/{task['id']}").json()
            listed = [t for t in api("GET", f"/projects/{project.id}/tasks").json() if t["id"] == task["id"]]
            rounds = api("GET", f"/tasks/{task['id']}/rounds").json()
            seen[name] = (detail["cost_usd"], listed[0]["cost_usd"], [r["cost_usd"] for r in rounds])
    pages = {}
    with TestClient(make_app(world), follow_redirects=False) as console:
        for name, actor in (("owner", owner), ("bob", bob), ("carol", carol)):
            console.cookies.clear()
            sign_in(console, actor.token)
            pages[name] = console.get(f"/console/tasks/{task['id']}").text
    assert seen == {
        "owner": (0.5, 0.5, [0.5, None]),
        "bob": (0.25, 0.25, [None, 0.25]),
        "carol": (None, None, [None, None]),
    }
    assert "0.5000" in pages["owner"] and "0.2500" not in pages["owner"]
    assert "0.2500" in pages["bob"] and "0.5000" not in pages["bob"]
    assert "0.5000" not in pages["carol"] and "0.2500" not in pages["carol"] and "0.7500" not in pages["carol"]
    assert all("0.7500" not in page for page in pages.values())  # the total of two payers: nobody's
