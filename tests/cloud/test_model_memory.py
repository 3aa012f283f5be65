"""C-40 (issue 14): cloud memories written by a model, through the real SDK against a loopback server.

Every test runs on SQLite and PostgreSQL (the `engine` fixture) and drives the public sweep
(`process_auto_memories`, or `POST /users/me/auto-memory/run`) with a scripted OpenAI-compatible
server: valid output, invalid JSON, a quote that is not in the text, a secret only the unredacted
text holds, a timeout, 429 and 500, and the cost caps.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from autopatch_j.cloud.app import create_app
from autopatch_j.cloud.auto_memory import SweepReport, process_auto_memories
from autopatch_j.cloud.model_memory import ModelMemory
from autopatch_j.cloud.records import Project
from autopatch_j.cloud.settings import CloudSettings
from tests.cloud.api_support import Api
from tests.cloud.scripted_openai import Reply, ScriptedOpenAI, serve_scripted_openai
from tests.cloud.world import Actor, World

PREFERENCE = "From now on, always answer in Chinese."
DECISION = "We decided to use PostgreSQL 15 for the service database."
SECRET = "sk-live4f9c2b7e1d0a8c6b"
PROMPT = f"{PREFERENCE} {DECISION} Please fix the flaky parser test."
RESULT = "I fixed the flaky parser test by pinning the random seed; the suite passes. " * 4


def extraction(*candidates: dict[str, Any]) -> str:
    return json.dumps({"compaction": "parser test fixed", "candidates": list(candidates)})


def candidate(kind: str, content: str, quote: str, subject: str = "") -> dict[str, Any]:
    return {
        "kind": kind,
        "content": content,
        "subject": subject,
        "sources": [{"turn_id": 1, "role": "user", "quote": quote}],
    }


def create(cid: int, content: str, title: str, *, op: str = "create", target: int | None = None) -> dict[str, Any]:
    return {
        "op": op,
        "candidate_ids": [cid],
        "target_memory_id": target,
        "title": title,
        "aliases": [title],
        "keywords": [title.split()[0]],
        "content": content,
    }


VALID_EXTRACTION = extraction(
    candidate("user_preference", "always answer in Chinese", "From now on, always answer in Chinese", "language"),
    candidate("project_decision", "use PostgreSQL 15 for the service database", "We decided to use PostgreSQL 15"),
)
VALID_CONSOLIDATION = json.dumps(
    {
        "operations": [
            create(1, "Always answer in Chinese.", "answer language"),
            create(2, "The service database is PostgreSQL 15.", "service database"),
        ]
    }
)


@pytest.fixture
def server() -> Iterator[ScriptedOpenAI]:
    with serve_scripted_openai() as fake:
        yield fake


def model_for(server: ScriptedOpenAI, world: World, **caps: Any) -> ModelMemory:
    settings = CloudSettings(
        db=str(world.engine.url), memory_llm_base_url=server.base_url, memory_llm_timeout_seconds=1.0, **caps
    )
    model = ModelMemory.from_settings(settings)
    assert model is not None
    return model


@pytest.fixture
def alice(world: World) -> Actor:
    actor = world.user("alice")
    world.enable(actor, extract_model="mem-extract", consolidation_model="mem-consolidate")
    return actor


def finished_task(world: World, alice: Actor, prompt: str = PROMPT, *, project: Project | None = None) -> int:
    project = project or world.project(alice)
    return world.complete(world.task(project, alice, prompt), result=RESULT).id


def sweep(world: World, model: ModelMemory) -> SweepReport:
    try:
        return process_auto_memories(world.engine, clock=world.clock, model=model)
    finally:
        model.close()


def log_reason(world: World, task_id: int) -> str:
    (row,) = [r for r in world.rows("auto_memory_log") if r["task_id"] == task_id]
    return str(row["reason"])


def memories(world: World) -> list[dict[str, Any]]:
    return [r for r in world.rows("identity_memories") if r["status"] == "active"]


def test_valid_output_writes_user_and_project_memories_with_their_quotes(
    world: World, alice: Actor, server: ScriptedOpenAI
) -> None:
    task_id = finished_task(world, alice)
    server.script(VALID_EXTRACTION, VALID_CONSOLIDATION)
    report = sweep(world, model_for(server, world))
    assert report.extracted == [task_id] and report.fallbacks == {}
    by_scope = {m["scope"]: m for m in memories(world)}
    assert by_scope["user"]["content"] == "Always answer in Chinese." and by_scope["user"]["project_id"] is None
    assert by_scope["project"]["content"] == "The service database is PostgreSQL 15."
    sources = {(s["memory_id"], s["quote"]) for s in world.rows("identity_memory_sources")}
    assert sources == {
        (by_scope["user"]["id"], "From now on, always answer in Chinese"),
        (by_scope["project"]["id"], "We decided to use PostgreSQL 15"),
    }
    assert all(q in PROMPT for _, q in sources)
    assert log_reason(world, task_id) == "model_extracted"
    assert [r["model"] for r in server.requests] == ["mem-extract", "mem-consolidate"]
    charges = world.rows("auto_memory_charges")
    assert sorted(c["stage"] for c in charges) == ["consolidation", "extraction"]
    assert sum(c["tokens"] for c in charges) == 800  # the usage the server reported, 2 × (300 + 100)

    again = sweep(world, model_for(server, world))  # a retried sweep: no call, no duplicate, no charge
    assert again.extracted == [] and len(server.requests) == 2
    assert len(memories(world)) == 2 and len(world.rows("auto_memory_charges")) == 2


def test_revise_and_supersede_act_on_the_users_existing_memories(
    world: World, alice: Actor, server: ScriptedOpenAI
) -> None:
    project = world.project(alice)
    first = finished_task(world, alice, project=project)
    server.script(VALID_EXTRACTION, VALID_CONSOLIDATION)
    sweep(world, model_for(server, world))
    ids = {m["scope"]: m["id"] for m in memories(world)}
    second = finished_task(world, alice, project=project)
    server.script(
        VALID_EXTRACTION,
        json.dumps(
            {
                "operations": [
                    create(
                        1, "Always answer in Simplified Chinese.", "answer language", op="revise", target=ids["user"]
                    ),
                    create(2, "PostgreSQL 15 it is.", "service database", op="supersede", target=ids["project"]),
                ]
            }
        ),
    )
    report = sweep(world, model_for(server, world))
    assert report.extracted == [second] and report.fallbacks == {} and first != second
    active = {m["scope"]: m for m in memories(world)}
    assert active["user"]["id"] == ids["user"] and active["user"]["content"] == "Always answer in Simplified Chinese."
    assert active["project"]["id"] != ids["project"]
    (old,) = [r for r in world.rows("identity_memories") if r["id"] == ids["project"]]
    assert old["status"] == "superseded"
    # the revised memory keeps its first proof and gains the new one
    assert len([s for s in world.rows("identity_memory_sources") if s["memory_id"] == ids["user"]]) == 2


@pytest.mark.parametrize(
    ("replies", "reason"),
    [
        (["this is not json"], "invalid_json"),
        ([extraction(candidate("user_preference", "always answer in Chinese", "From now on, always reply in French"))],
         "invalid_output"),
        ([Reply(status=429)], "rate_limited"),
        ([Reply(status=500)], "provider_error"),
        ([Reply(content=VALID_EXTRACTION, delay_s=2.5)], "timeout"),
        ([VALID_EXTRACTION, '{"operations": [{"op": "create", "candidate_ids": [1]}]}'], "invalid_output"),
        ([VALID_EXTRACTION, Reply(status=500)], "provider_error"),
        ([VALID_EXTRACTION, '{"operations": [{"op": "retire", "candidate_ids": [1], "target_memory_id": 1}]}'],
         "invalid_output"),
    ],
    ids=["invalid-json", "quote-not-in-text", "429", "500", "timeout", "partial-stage2", "stage2-500", "stage2-retire"],
)  # fmt: skip
def test_a_model_fault_runs_the_deterministic_path_and_says_why(
    world: World, alice: Actor, server: ScriptedOpenAI, replies: list[Reply | str], reason: str
) -> None:
    task_id = finished_task(world, alice)
    server.script(*replies)
    report = sweep(world, model_for(server, world))
    assert report.fallbacks == {task_id: f"model_fallback:{reason}"}
    assert report.extracted == [task_id]
    assert log_reason(world, task_id) == f"model_fallback:{reason}"
    (memory,) = memories(world)  # exactly the deterministic memory: nothing of the model was written
    assert memory["source_thread_id"] == str(task_id) and memory["scope"] == "project"
    assert world.rows("identity_memory_sources") == [] and world.rows("auto_memory_model_runs") == []
    calls = len(server.requests)
    sweep(world, model_for(server, world))
    assert len(server.requests) == calls and len(memories(world)) == 1  # never again, never twice


def test_a_secret_only_in_the_unredacted_text_never_reaches_the_model_or_a_memory(
    world: World, alice: Actor, server: ScriptedOpenAI
) -> None:
    task_id = finished_task(world, alice, f"From now on, always use api_key={SECRET} for staging. {DECISION}")
    quote = f"From now on, always use api_key={SECRET} for staging"
    server.script(extraction(candidate("user_preference", f"always use api_key={SECRET}", quote)))
    report = sweep(world, model_for(server, world))
    assert report.fallbacks == {task_id: "model_fallback:invalid_output"}  # the quote is not in the redacted text
    assert SECRET not in server.bodies() and "[REDACTED]" in server.bodies()
    derived = ("identity_memories", "identity_memory_sources", "auto_memory_log", "audit_events")
    assert all(SECRET not in repr(world.rows(table)) for table in derived)  # the prompt itself stays the user's


def test_caps_are_checked_before_each_call_and_fail_closed(world: World, alice: Actor, server: ScriptedOpenAI) -> None:
    task_id = finished_task(world, alice)
    report = sweep(world, model_for(server, world, memory_sweep_max_tokens=100))
    assert report.fallbacks == {task_id: "model_fallback:cap_reached"} and server.requests == []

    other = finished_task(world, alice)
    server.script(VALID_EXTRACTION)  # stage 1 fits the daily dollars, stage 2 no longer does
    report = sweep(world, model_for(server, world, memory_user_daily_max_usd=0.0014))
    assert report.fallbacks == {other: "model_fallback:cap_reached"} and len(server.requests) == 1
    assert [c["stage"] for c in world.rows("auto_memory_charges")] == ["extraction"]


def test_without_a_model_setting_or_a_service_llm_the_deterministic_path_runs(
    world: World, server: ScriptedOpenAI
) -> None:
    bob = world.user("bob")
    world.enable(bob)  # no extract_model
    task_id = finished_task(world, bob)
    report = sweep(world, model_for(server, world))
    assert report.extracted == [task_id] and server.requests == [] and log_reason(world, task_id) == "extracted"
    assert ModelMemory.from_settings(CloudSettings(db=str(world.engine.url))) is None


def test_the_run_endpoint_uses_the_model(world: World, alice: Actor, server: ScriptedOpenAI) -> None:
    task_id = finished_task(world, alice)
    server.script(VALID_EXTRACTION, VALID_CONSOLIDATION)
    model = model_for(server, world)
    app = create_app(settings=CloudSettings(db=str(world.engine.url)), engine=world.engine, clock=world.clock,
                     memory_model=model)  # fmt: skip
    with TestClient(app) as client:
        answer = Api(client, alice.token)("POST", "/users/me/auto-memory/run", {"force": True})
        assert answer.status_code == 200, answer.text
        assert answer.json()["extracted"] == [task_id]
        log = Api(client, alice.token)("GET", "/users/me/auto-memory-log").json()
    model.close()
    assert [(e["task_id"], e["reason"]) for e in log] == [(task_id, "model_extracted")]


def test_two_racing_sweeps_write_one_set_of_memories_and_charge_once(
    world: World, alice: Actor, server: ScriptedOpenAI
) -> None:
    task_id = finished_task(world, alice)
    # both sweeps see the task before either commits, and both call the model for both stages: each
    # stage answers only when both sweeps have asked it (a barrier, not a delay: a loaded machine may
    # let one sweep commit before the other asks)
    stages = {1800: threading.Barrier(2, timeout=20), 2200: threading.Barrier(2, timeout=20)}

    def answer_when_both_asked(body: dict[str, Any]) -> Reply:
        stages[body["max_tokens"]].wait()
        return Reply(content=VALID_EXTRACTION if body["max_tokens"] == 1800 else VALID_CONSOLIDATION)

    server.responder = answer_when_both_asked
    reports: list[SweepReport] = []
    threads = [threading.Thread(target=lambda: reports.append(sweep(world, model_for(server, world)))) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(len(r.extracted) for r in reports) == [0, 1] and len(server.requests) == 4
    assert len(memories(world)) == 2 and len(world.rows("auto_memory_model_runs")) == 1
    assert len(world.rows("auto_memory_charges")) == 2  # keyed by (task, stage): the loser's calls count once
    assert log_reason(world, task_id) == "model_extracted"
