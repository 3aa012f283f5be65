"""C-43 (issue 14): the per-conversation memory control, over HTTP, on SQLite and PostgreSQL.

Rule under test: off at the conversation is sticky (beats a task flag that says on); otherwise the
most specific explicit value wins (task flag, then conversation, then the user's setting).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from autopatch_j.cloud.auto_memory import process_auto_memories
from autopatch_j.cloud.auto_memory_records import Reason
from autopatch_j.cloud.conversation_control import combine
from autopatch_j.cloud.db import write_tx
from autopatch_j.cloud.executors import SCRIPTED_REPORT, ScriptedExecutor
from autopatch_j.cloud.memories import create_user_memory
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.worker import Worker
from tests.cloud.api_support import Api, make_app
from tests.cloud.world import Actor, World


@pytest.fixture
def client(world: World) -> Iterator[TestClient]:
    with TestClient(make_app(world)) as c:
        yield c


@pytest.fixture
def alice(world: World) -> Actor:
    return world.user("alice")


def sweep(world: World) -> dict[int, str]:
    report = process_auto_memories(world.engine, clock=world.clock)
    return {**{k: v.value for k, v in report.skipped.items()}, **{t: "extracted" for t in report.extracted}}


@pytest.mark.parametrize(
    ("task", "conversation", "user", "expected"),
    [
        (None, None, 1, True),
        (None, None, 0, False),
        (None, True, 0, True),  # the conversation is more specific than the user's setting
        (False, True, 1, False),  # the task flag is more specific than the conversation
        (True, None, 0, True),
        (True, False, 1, False),  # off at the conversation is sticky
        (None, False, 1, False),
    ],
)
def test_the_combination_rule(task: bool | None, conversation: bool | None, user: int, expected: bool) -> None:
    assert combine(task, conversation, user) is expected


def test_off_for_a_conversation_stops_generation_for_every_task_in_it_even_a_flagged_one(
    world: World, alice: Actor, client: TestClient
) -> None:
    world.enable(alice, disable_on_external_context=0)
    project = world.project(alice)
    first = world.complete(world.task(project, alice, "first"))
    second = world.complete(world.task(project, alice, "second"))
    world.followup(alice, first, second)
    elsewhere = world.complete(world.task(project, alice, "elsewhere"))
    world.flags(second, alice, generate_memories=True)
    answer = Api(client, alice.token)("POST", f"/tasks/{second.id}/conversation-memory", {"generate_memories": False})
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "root_task_id": first.id,
        "use_memories": None,
        "generate_memories": False,
        "effective_use_memories": True,
        "effective_generate_memories": False,
    }
    assert sweep(world) == {first.id: "generate_disabled", second.id: "generate_disabled", elsewhere.id: "extracted"}
    Api(client, alice.token)("POST", f"/tasks/{first.id}/conversation-memory", {"generate_memories": None})
    assert sweep(world) == {first.id: "extracted", second.id: "extracted"}


def test_on_for_a_conversation_beats_the_users_off_but_not_a_task_flag(
    world: World, alice: Actor, client: TestClient
) -> None:
    project = world.project(alice)
    on = world.complete(world.task(project, alice, "on"))
    flagged = world.complete(world.task(project, alice, "flagged off"))
    world.flags(flagged, alice, generate_memories=False)
    api = Api(client, alice.token)
    for task in (on, flagged):
        assert api("POST", f"/tasks/{task.id}/conversation-memory", {"generate_memories": True}).status_code == 200
    assert sweep(world) == {on.id: Reason.EXTRACTED.value, flagged.id: Reason.GENERATE_DISABLED.value}
    got = api("GET", f"/tasks/{flagged.id}/conversation-memory").json()
    assert got["generate_memories"] is True and got["effective_generate_memories"] is False


def test_use_off_for_a_conversation_stops_injection(world: World, alice: Actor, client: TestClient) -> None:
    world.enable(alice)
    project = world.project(alice)
    with write_tx(world.engine) as conn:
        create_user_memory(conn, user=alice.user, content="answer in Chinese", now=world.clock())
    task = world.task(project, alice, "private work")
    world.flags(task, alice, use_memories=True)
    assert (
        Api(client, alice.token)("POST", f"/tasks/{task.id}/conversation-memory", {"use_memories": False}).json()[
            "effective_use_memories"
        ]
        is False
    )
    ran = Worker(engine=world.engine, executor=ScriptedExecutor(), clock=world.clock).run_one()
    assert ran is not None and not ran.injected
    assert world.load(task.id).result_text == "private work" + SCRIPTED_REPORT


def test_only_the_owner_changes_it_and_bad_input_writes_nothing(world: World, alice: Actor, client: TestClient) -> None:
    project = world.project(alice)
    task = world.task(project, alice, "mine")
    bob, eve = world.user("bob"), world.user("eve")
    world.member(project, alice, bob, Role.MEMBER)
    denied = Api(client, bob.token)("POST", f"/tasks/{task.id}/conversation-memory", {"use_memories": True})
    assert denied.status_code == 403 and "owner" in denied.json()["detail"]
    assert Api(client, bob.token)("GET", f"/tasks/{task.id}/conversation-memory").status_code == 200
    hidden = Api(client, eve.token)("POST", f"/tasks/{task.id}/conversation-memory", {"use_memories": True})
    assert hidden.status_code == 404
    bad = Api(client, alice.token)("POST", f"/tasks/{task.id}/conversation-memory", {"use_memories": "maybe"})
    assert bad.status_code == 422
    unknown = Api(client, alice.token)("POST", f"/tasks/{task.id}/conversation-memory", {"forget": True})
    assert unknown.status_code == 422
    assert world.rows("conversation_memory_controls") == []


def test_a_followup_between_projects_is_refused(world: World, alice: Actor, client: TestClient) -> None:
    """Conversations stay in one project: a followup to a task of another project gets 409."""
    here, there = world.project(alice, "here"), world.project(alice, "there")
    a, b = world.task(here, alice, "a"), world.task(there, alice, "b")
    refused = Api(client, alice.token)("POST", f"/tasks/{a.id}/followups", {"to_task_id": b.id, "message": "see"})
    assert refused.status_code == 409 and "project" in refused.json()["detail"]
    assert world.rows("task_followups") == []


def test_a_teammates_followup_cannot_take_over_a_conversation(world: World, alice: Actor, client: TestClient) -> None:
    """Bob links his older task to Alice's: Alice keeps the control of her task's conversation, and
    Bob's control of his own conversation never changes what happens to Alice's task."""
    project = world.project(alice)
    bob = world.user("bob")
    world.member(project, alice, bob, Role.MEMBER)
    bobs = world.task(project, bob, "bob's older task")
    alices = world.task(project, alice, "alice's task")
    as_alice, as_bob = Api(client, alice.token), Api(client, bob.token)
    made = as_bob("POST", f"/tasks/{bobs.id}/followups", {"to_task_id": alices.id, "message": "see"})
    assert made.status_code == 201
    mine = as_alice("POST", f"/tasks/{alices.id}/conversation-memory", {"use_memories": True})
    assert mine.status_code == 200 and mine.json()["root_task_id"] == alices.id
    assert as_bob("POST", f"/tasks/{alices.id}/conversation-memory", {"use_memories": False}).status_code == 403
    theirs = as_bob("POST", f"/tasks/{bobs.id}/conversation-memory", {"use_memories": False})
    assert theirs.status_code == 200 and theirs.json()["root_task_id"] == bobs.id
    shown = as_alice("GET", f"/tasks/{alices.id}/conversation-memory").json()
    assert (shown["root_task_id"], shown["use_memories"], shown["effective_use_memories"]) == (alices.id, True, True)


def test_a_viewer_never_reads_the_owners_settings_through_effective_values(
    world: World, alice: Actor, client: TestClient
) -> None:
    project = world.project(alice)
    viewer = world.user("viewer")
    world.member(project, alice, viewer, Role.VIEWER)
    task = world.task(project, alice, "mine")
    as_alice = Api(client, alice.token)
    assert as_alice("PUT", "/users/me/auto-memory-settings", {"use_memories": 1}).status_code == 200
    assert as_alice("GET", f"/tasks/{task.id}/conversation-memory").json()["effective_use_memories"] is True
    shown = Api(client, viewer.token)("GET", f"/tasks/{task.id}/conversation-memory").json()
    assert shown["root_task_id"] == task.id
    assert shown["effective_use_memories"] is None and shown["effective_generate_memories"] is None
