"""Issue 10 items 1–2: a user's memories are theirs alone.

The injected block exists only in the executor's input: nothing stored (task result, project memory,
audit) and nothing shown to another member holds it, whatever the executor echoes (verbatim, as
codex-style JSON, ASCII-escaped). Only a task's owner may set its auto-memory flags.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from autopatch_j.cloud.executors import ExecutionRequest, ExecutionResult
from autopatch_j.cloud.injection import PREFIX
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.worker import Worker
from tests.cloud.api_support import Api, make_app
from tests.cloud.world import LONG_RESULT, Actor, World

PRIVATE = 'Private: my "salary" band is 42k — 私密笔记'


class Echo:
    """An agent that repeats its whole instruction: verbatim, as a JSON event, and ASCII-escaped."""

    name = "echo"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        text = request.instruction
        event = json.dumps({"type": "agent_message", "text": text}, ensure_ascii=False)
        return ExecutionResult(ok=True, text=f"{text}\n{event}\n{json.dumps(text)}\n{LONG_RESULT}", cost_usd=0.01)


def team(world: World) -> tuple[Actor, dict[str, Actor], int]:
    owner = world.user("owner")
    others = {kind: world.user(kind) for kind in ("member", "viewer", "coadmin", "outsider")}
    project = world.project(owner)
    world.member(project, owner, others["member"], Role.MEMBER)
    world.member(project, owner, others["viewer"], Role.VIEWER)
    world.member(project, owner, others["coadmin"], Role.ADMIN)
    return owner, others, project.id


def everything_but_the_memory_itself(world: World) -> str:
    """Every stored row except the owner's user-memory row (which legitimately holds the text)."""
    rows = []
    for table in ("tasks", "task_rounds", "task_followups", "identity_memories", "audit_events", "auto_memory_log"):
        for row in world.rows(table):
            if table == "identity_memories" and row["scope"] == "user":
                continue
            rows.append(repr(row))
    return "\n".join(rows)


def fragments(text: str) -> list[str]:
    return [text, "salary", "私密笔记", json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]]


def test_injected_user_memories_are_never_stored_or_shown_to_members(world: World) -> None:
    owner, others, project_id = team(world)
    with TestClient(make_app(world)) as client:
        api = Api(client, owner.token)
        settings = {"generate_memories": 1, "use_memories": 1, "idle_seconds": 0, "min_duration_seconds": 0}
        assert api("PUT", "/users/me/auto-memory-settings", settings).status_code == 200
        memory = api("POST", "/users/me/memories", {"content": PRIVATE}).json()
        assert api("POST", f"/projects/{project_id}/memories", {"content": "uses pytest"}).status_code == 201
        task = api("POST", f"/projects/{project_id}/tasks", {"prompt": "Fix the parser"}).json()
        worker = Worker(engine=world.engine, executor=Echo(), clock=world.clock)
        worker.run_loop(once=True)
        api("POST", "/users/me/auto-memory/run", {"force": True})
        log = {e["task_id"]: e["outcome"] for e in api("GET", "/users/me/auto-memory-log").json()}
        assert log[task["id"]] == "extracted"  # the sweep made a project memory from this very run
        for kind, actor in others.items():
            seen = Api(client, actor.token)(
                "GET", f"/tasks/{task['id']}" if kind != "outsider" else f"/projects/{project_id}/memories"
            )
            leaked = [f for f in fragments(PRIVATE) if f in seen.text]
            assert leaked == [], (kind, seen.text[:300])
        stored = api("GET", f"/tasks/{task['id']}").json()
        assert stored["status"] == "completed" and "Fix the parser" in stored["result_text"]
        assert PREFIX not in stored["result_text"] and "uses pytest" not in stored["result_text"]
        assert api("DELETE", f"/memories/{memory['id']}").status_code == 204
    dump = everything_but_the_memory_itself(world)
    assert [f for f in fragments(PRIVATE) if f in dump] == []
    assert PREFIX not in dump  # no block reached a project memory either, so memories cannot snowball


COMMAND_ECHO = (
    "import json, sys; t = sys.argv[-1]; "
    "print(json.dumps({'type': 'item.completed', 'item': {'type': 'agent_message', 'text': t}})); "
    "print(t); print('done ' * 60)"
)


def test_a_real_worker_with_a_command_agent_withholds_the_block(world: World, db_url: str, tmp_path: Path) -> None:
    owner, others, project_id = team(world)
    with TestClient(make_app(world)) as client:
        api = Api(client, owner.token)
        assert api("PUT", "/users/me/auto-memory-settings", {"use_memories": 1}).status_code == 200
        assert api("POST", "/users/me/memories", {"content": PRIVATE}).status_code == 201
        task = api("POST", f"/projects/{project_id}/tasks", {"prompt": "Refactor the CLI"}).json()
        env = {
            **os.environ,
            "AUTOPATCH_CLOUD_DB": db_url,
            "AUTOPATCH_CLOUD_COMMAND": f"{sys.executable} -c {json.dumps(COMMAND_ECHO)}",
            "AUTOPATCH_CLOUD_WORK_DIR": str(tmp_path / "work"),
        }
        done = subprocess.run(
            [sys.executable, "-m", "autopatch_j", "cloud", "worker", "--once", "--executor", "command"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        shown = Api(client, others["viewer"].token)("GET", f"/tasks/{task['id']}").json()
    assert shown["status"] == "completed" and "Refactor the CLI" in shown["result_text"]
    assert [f for f in fragments(PRIVATE) if f in shown["result_text"]] == []
    assert PREFIX not in shown["result_text"] and json.dumps(PREFIX)[1:-1] not in shown["result_text"]


@pytest.mark.parametrize(
    ("caller", "expected"), [("member", 403), ("coadmin", 403), ("viewer", 403), ("outsider", 404)]
)
def test_only_the_owner_may_set_a_tasks_auto_memory_flags(world: World, caller: str, expected: int) -> None:
    owner, others, project_id = team(world)
    with TestClient(make_app(world)) as client:
        task = Api(client, owner.token)("POST", f"/projects/{project_id}/tasks", {"prompt": "p"}).json()
        refused = Api(client, others[caller].token)(
            "POST", f"/tasks/{task['id']}/auto-memory-flags", {"use_memories": True}
        )
        assert refused.status_code == expected
        assert refused.json()["detail"]
        own = Api(client, owner.token)("POST", f"/tasks/{task['id']}/auto-memory-flags", {"generate_memories": False})
        assert own.status_code == 200
        assert own.json()["use_memories"] is None  # the refused call wrote nothing


def test_a_member_cannot_pull_the_owners_memories_into_a_run(world: World) -> None:
    owner, others, project_id = team(world)
    with TestClient(make_app(world)) as client:
        assert Api(client, owner.token)("POST", "/users/me/memories", {"content": PRIVATE}).status_code == 201
        task = Api(client, owner.token)("POST", f"/projects/{project_id}/tasks", {"prompt": "p"}).json()
        member = Api(client, others["member"].token)
        assert member("POST", f"/tasks/{task['id']}/auto-memory-flags", {"use_memories": True}).status_code == 403
        recorder = Echo()
        result = Worker(engine=world.engine, executor=recorder, clock=world.clock).run_one()
        assert result is not None and not result.injected
