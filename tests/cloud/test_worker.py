"""The worker: run_one records results, costs and audit events; injection rules (C-30 … C-32)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError, ProgrammingError

from autopatch_j.cloud import audit
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.errors import QuotaLookupError, QuotaUnreachable, StorageError
from autopatch_j.cloud.executors import SCRIPTED_REPORT, ExecutionRequest, ExecutionResult, ScriptedExecutor
from autopatch_j.cloud.injection import PREFIX
from autopatch_j.cloud.memories import clean_content, create_project_memory, create_user_memory
from autopatch_j.cloud.queue import FinishOutcome, claim_next
from autopatch_j.cloud.quotas import DbQuotas, QuotaStatus, set_quota
from autopatch_j.cloud.records import Memory, Task, TaskStatus
from autopatch_j.cloud.tables import tasks
from autopatch_j.cloud.tasks import continue_task
from autopatch_j.cloud.worker import Worker
from tests.cloud.world import Actor, World


class Recording:
    """The scripted executor, remembering every instruction it received (injection is only visible
    here: the worker withholds the injected block from the stored result)."""

    name = "scripted"

    def __init__(self) -> None:
        self.inner = ScriptedExecutor(cost_usd=0.5)
        self.instructions: list[str] = []

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        self.instructions.append(request.instruction)
        return self.inner.execute(request)


def worker(world: World, **kwargs: object) -> Worker:
    return Worker(engine=world.engine, executor=Recording(), clock=world.clock, worker_id="w1", **kwargs)  # type: ignore[arg-type]


def seen(w: Worker) -> list[str]:
    assert isinstance(w.executor, Recording)
    return w.executor.instructions


def note(n: int) -> str:
    return f"\nIt received {n} injected project memory line(s)."


def remember(world: World, who: Actor, project_id: int, *, user: list[str], project: list[str]) -> None:
    with write_tx(world.engine) as conn:
        for text in user:
            create_user_memory(conn, user=who.user, content=clean_content(text), now=world.clock())
            world.clock.advance(1)
        for text in project:
            create_project_memory(
                conn, user=who.user, project_id=project_id, content=clean_content(text), now=world.clock()
            )
            world.clock.advance(1)


def events(world: World, kind: str) -> list[dict[str, object]]:
    with read_tx(world.engine) as conn:
        return [json.loads(e.detail) | {"task_id": e.task_id} for e in audit.events(conn, kind=kind)]


@pytest.fixture
def alice(world: World) -> Actor:
    return world.user("alice")


def test_run_one_records_result_cost_timestamps_and_audit(world: World, alice: Actor) -> None:
    task = world.task(world.project(alice), alice, "Fix the parser")
    result = worker(world).run_one()
    assert result is not None and result.status == TaskStatus.COMPLETED and result.outcome == FinishOutcome.RECORDED
    done = world.load(task.id)
    assert done.status == TaskStatus.COMPLETED and done.result_text == "Fix the parser" + SCRIPTED_REPORT
    assert done.cost_usd == 0.5 and done.started_at is not None and done.finished_at is not None
    assert [e["status"] for e in events(world, "task_finished")] == ["completed"]
    assert len(events(world, "task_claimed")) == 1
    assert worker(world).run_one() is None


def test_costs_accumulate_over_rounds_and_continuations_run_their_own_prompt(world: World, alice: Actor) -> None:
    task = world.task(world.project(alice), alice, "first", goal="The goal")
    worker(world).run_one()
    assert world.load(task.id).result_text == "The goal" + SCRIPTED_REPORT
    with write_tx(world.engine) as conn:
        continue_task(conn, user=alice.user, task_id=task.id, prompt="second", now=world.clock())
    worker(world).run_one()
    done = world.load(task.id)
    assert done.round == 2 and done.result_text == "second" + SCRIPTED_REPORT and done.cost_usd == 1.0
    assert done.prompt == "first"


def test_exhausted_quota_fails_the_task_without_running_it(world: World, alice: Actor) -> None:
    project = world.project(alice)
    task = world.task(project, alice, "next")  # queued before the quota ran out
    world.complete(world.task(project, alice, "paid"), cost=10.0)
    assert worker(world).run_one().status == TaskStatus.FAILED  # type: ignore[union-attr]
    done = world.load(task.id)
    assert done.result_text.startswith("quota_exhausted") and done.cost_usd == 0  # type: ignore[union-attr]
    with write_tx(world.engine) as conn:
        set_quota(conn, actor_id=None, user_id=alice.user.id, monthly_limit_usd=None, now=world.clock())
    world.task(project, alice, "unlimited now")
    assert worker(world).run_one().status == TaskStatus.COMPLETED  # type: ignore[union-attr]


class Crashing:
    name = "crashing"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        raise RuntimeError("bug")


def test_an_executor_crash_fails_the_task(world: World, alice: Actor) -> None:
    task = world.task(world.project(alice), alice)
    w = Worker(engine=world.engine, executor=Crashing(), clock=world.clock)
    assert w.run_one().status == TaskStatus.FAILED  # type: ignore[union-attr]
    assert world.load(task.id).result_text == "executor crashed: RuntimeError"


def test_result_text_is_redacted_before_it_is_stored(world: World, alice: Actor) -> None:
    task = world.task(world.project(alice), alice, "print api_key=sk-live-0123456789abcdef")
    worker(world).run_one()
    stored = world.load(task.id).result_text or ""
    assert "sk-live" not in stored and "[REDACTED]" in stored
    assert world.load(task.id).prompt == "print api_key=sk-live-0123456789abcdef"  # prompts are kept as given


# --- injection ---------------------------------------------------------------------------------


def test_injects_newest_five_user_and_project_memories_into_an_in_memory_copy(world: World, alice: Actor) -> None:
    project = world.project(alice)
    world.enable(alice)
    remember(world, alice, project.id, user=[f"u{i}" for i in range(7)], project=[f"p{i}" for i in range(7)])
    task = world.task(project, alice, "Do the work", goal="The goal")
    w = worker(world)
    assert w.run_one().injected  # type: ignore[union-attr]
    stored = world.load(task.id)
    assert stored.prompt == "Do the work" and stored.goal == "The goal"
    expected_block = "\n".join(
        [PREFIX] + [f"- [user] u{i}" for i in (6, 5, 4, 3, 2)] + [f"- [project] p{i}" for i in (6, 5, 4, 3, 2)]
    )
    assert seen(w) == [f"{expected_block}\n\nThe goal"]
    assert stored.result_text == "The goal" + SCRIPTED_REPORT + note(5)  # the block is withheld, [user] not counted
    [event] = events(world, "worker_memory_injected")
    assert event["task_id"] == task.id and len(event["memory_ids"]) == 10  # type: ignore[arg-type]


def test_prompt_gets_the_prefix_when_there_is_no_goal(world: World, alice: Actor) -> None:
    project = world.project(alice)
    world.enable(alice)
    remember(world, alice, project.id, user=[], project=["use pytest"])
    task = world.task(project, alice, "Do the work")
    w = worker(world)
    w.run_one()
    assert seen(w) == [f"{PREFIX}\n- [project] use pytest\n\nDo the work"]
    assert world.load(task.id).result_text == "Do the work" + SCRIPTED_REPORT + note(1)


def test_no_injection_when_use_is_off_or_there_are_no_memories(world: World, alice: Actor) -> None:
    project = world.project(alice)
    world.settings(alice, use_memories=1)
    bare = world.task(project, alice, "no memories yet")
    worker(world).run_one()
    world.settings(alice, use_memories=0)
    remember(world, alice, project.id, user=["x"], project=[])
    off = world.task(project, alice, "use off")
    worker(world).run_one()
    assert world.load(bare.id).result_text == "no memories yet" + SCRIPTED_REPORT
    assert world.load(off.id).result_text == "use off" + SCRIPTED_REPORT
    assert events(world, "worker_memory_injected") == []


def test_task_flag_beats_user_setting_for_use(world: World, alice: Actor) -> None:
    project = world.project(alice)
    remember(world, alice, project.id, user=["x"], project=[])
    forced_on = world.task(project, alice, "on")
    world.flags(forced_on, alice, use_memories=True)
    w = worker(world)
    w.run_one()
    world.enable(alice)
    forced_off = world.task(project, alice, "off")
    world.flags(forced_off, alice, use_memories=False)
    w.run_one()
    assert seen(w)[0].startswith(PREFIX) and seen(w)[1] == "off"
    assert world.load(forced_on.id).result_text == "on" + SCRIPTED_REPORT  # a [user] line is not counted
    assert world.load(forced_off.id).result_text == "off" + SCRIPTED_REPORT


def test_no_injection_on_continuations(world: World, alice: Actor) -> None:
    project = world.project(alice)
    world.enable(alice)
    task = world.task(project, alice, "first")
    worker(world).run_one()
    remember(world, alice, project.id, user=["x"], project=[])
    with write_tx(world.engine) as conn:
        continue_task(conn, user=alice.user, task_id=task.id, prompt="again", now=world.clock())
    assert not worker(world).run_one().injected  # type: ignore[union-attr]
    assert world.load(task.id).result_text == "again" + SCRIPTED_REPORT


def test_no_injection_on_resumed_runs(world: World, alice: Actor) -> None:
    project = world.project(alice)
    world.enable(alice)
    remember(world, alice, project.id, user=["x"], project=[])
    task = world.task(project, alice, "crashy")
    assert claim_next(world.engine, worker_id="dead", now=world.clock(), lease_seconds=10) is not None
    world.clock.advance(11)
    assert not worker(world).run_one().injected  # type: ignore[union-attr]
    assert world.load(task.id).result_text == "crashy" + SCRIPTED_REPORT


def test_no_injection_on_coordinator_tasks(world: World, alice: Actor) -> None:
    project = world.project(alice)
    world.enable(alice)
    remember(world, alice, project.id, user=["x"], project=[])
    parent = world.task(project, alice, "coordinate")
    child = world.task(project, alice, "subtask", parent=parent.id)
    w = worker(world)
    assert not w.run_one().injected  # type: ignore[union-attr]
    assert not w.run_one().injected  # type: ignore[union-attr]
    assert world.load(parent.id).result_text == "coordinate" + SCRIPTED_REPORT
    assert world.load(child.id).result_text == "subtask" + SCRIPTED_REPORT


def broken_reader(conn: Connection, task: Task) -> tuple[list[Memory], list[Memory]]:
    raise RuntimeError("memory store unavailable")


def test_injection_failure_is_fail_open_with_a_warning(
    world: World, alice: Actor, caplog: pytest.LogCaptureFixture
) -> None:
    project = world.project(alice)
    world.enable(alice)
    task = world.task(project, alice, "still runs")
    with caplog.at_level(logging.WARNING, logger="autopatch_j.cloud.worker"):
        result = worker(world, memory_reader=broken_reader).run_one()
    assert result is not None and result.status == TaskStatus.COMPLETED and not result.injected
    assert world.load(task.id).result_text == "still runs" + SCRIPTED_REPORT
    assert any("memory injection failed" in r.getMessage() for r in caplog.records)
    assert events(world, "worker_memory_injected") == []
    assert len(events(world, "worker_memory_injection_failed")) == 1


def test_run_loop_once_drains_the_queue_then_sweeps(world: World, alice: Actor) -> None:
    project = world.project(alice)
    world.enable(alice, idle_seconds=0, min_duration_seconds=0)
    ids = [world.task(project, alice, f"goal {i}").id for i in range(3)]
    loops: list[tuple[int, list[int]]] = []
    w = worker(world, tasks_per_loop=2)
    assert w.run_loop(once=True, on_loop=lambda ran, rep: loops.append((ran, rep.extracted))) == 3
    assert loops == [(2, ids[:2]), (1, [ids[2]])]
    follow = world.task(project, alice, "next")
    w.run_loop(once=True)
    assert seen(w)[-1].startswith(PREFIX)
    assert world.load(follow.id).result_text == "next" + SCRIPTED_REPORT + note(3)


def test_quota_lookup_failure_fails_the_task_closed(world: World, alice: Actor) -> None:
    from tests.cloud.test_auto_memory import FailingQuotas

    task = world.task(world.project(alice), alice)
    result = worker(world, quotas=FailingQuotas()).run_one()
    assert result is not None and result.status == TaskStatus.FAILED
    assert (world.load(task.id).result_text or "").startswith("quota_check_failed")


class UnreachableQuotas:
    """The database quota port, failing as a database restart does for the first `outages` lookups;
    `during` runs at each failure (another worker's write while this one cannot reach the database)."""

    def __init__(self, outages: int, during: Callable[[], None] = lambda: None) -> None:
        self.outages = outages
        self.during = during
        self.lookups = 0

    def status(self, conn: Connection, *, user_id: int, now: datetime) -> QuotaStatus:
        self.lookups += 1
        if self.lookups <= self.outages:
            self.during()
            raise QuotaUnreachable("the quota of user 1 could not be read: the cloud database refused the read.")
        return DbQuotas().status(conn, user_id=user_id, now=now)


def test_a_quota_lookup_cut_off_by_a_database_restart_waits_and_the_task_runs_once(
    world: World, alice: Actor, caplog: pytest.LogCaptureFixture
) -> None:
    task = world.task(world.project(alice), alice, "Fix the parser")
    quotas = UnreachableQuotas(outages=2)
    w = worker(world, quotas=quotas)
    with caplog.at_level(logging.WARNING, logger="autopatch_j.cloud.worker"):
        result = w.run_one()
    assert result is not None and result.status == TaskStatus.COMPLETED and result.outcome == FinishOutcome.RECORDED
    done = world.load(task.id)
    assert (
        done.status == TaskStatus.COMPLETED
        and done.attempt == 1
        and done.result_text == "Fix the parser" + SCRIPTED_REPORT
    )
    assert quotas.lookups == 3 and seen(w) == ["Fix the parser"]
    assert sum("could not check the quota for task" in r.getMessage() for r in caplog.records) == 2


def test_a_task_reclaimed_while_the_quota_lookup_waited_for_the_database_is_not_run(
    world: World, alice: Actor, caplog: pytest.LogCaptureFixture
) -> None:
    task = world.task(world.project(alice), alice, "Fix the parser")

    def reclaimed() -> None:  # the lease expired during the outage and another worker claimed the task
        with write_tx(world.engine) as conn:
            conn.execute(sa.update(tasks).where(tasks.c.id == task.id).values(lease_owner="w2", attempt=2))

    w = worker(world, quotas=UnreachableQuotas(outages=1, during=reclaimed))
    with caplog.at_level(logging.WARNING, logger="autopatch_j.cloud.worker"):
        result = w.run_one()
    assert result is not None and result.outcome == FinishOutcome.LEASE_LOST and seen(w) == []
    row = world.load(task.id)
    assert row.status == TaskStatus.RUNNING and row.attempt == 2 and row.result_text is None
    assert any("reclaimed while the database was unreachable" in r.getMessage() for r in caplog.records)


def test_db_quotas_tells_an_unreachable_database_from_a_failed_lookup() -> None:
    class Broken:
        def __init__(self, error: Exception) -> None:
            self.error = error

        def execute(self, *_args: object) -> None:
            raise self.error

    now = datetime(2026, 1, 1, tzinfo=UTC)
    dropped = OperationalError("SELECT", {}, Exception("server closed the connection unexpectedly"))
    with pytest.raises(QuotaUnreachable) as unreachable:
        DbQuotas().status(Broken(dropped), user_id=1, now=now)  # type: ignore[arg-type]
    assert isinstance(unreachable.value, StorageError) and isinstance(unreachable.value, QuotaLookupError)
    broken = ProgrammingError("SELECT", {}, Exception('relation "quotas" does not exist'))
    with pytest.raises(QuotaLookupError) as failed:
        DbQuotas().status(Broken(broken), user_id=1, now=now)  # type: ignore[arg-type]
    assert not isinstance(failed.value, StorageError)


def test_llm_executor_cost_is_accounted_on_the_task(world: World, alice: Actor) -> None:
    from autopatch_j.cloud.executors import LlmExecutor
    from tests.cloud.fake_openai import FakeOpenAI, serve_fake_openai

    task = world.task(world.project(alice), alice, "Explain the diff")
    with serve_fake_openai(FakeOpenAI(reply="It renames a field.", prompt_tokens=2000, completion_tokens=1000)) as fake:
        executor = LlmExecutor(
            base_url=fake.base_url,
            api_key="k",
            model="m",
            timeout_seconds=5,
            input_usd_per_token=0.000001,
            output_usd_per_token=0.000002,
        )
        Worker(engine=world.engine, executor=executor, clock=world.clock).run_one()
    done = world.load(task.id)
    assert done.result_text == "It renames a field."
    assert done.cost_usd == pytest.approx(0.002 + 0.002)
    assert fake.requests[0]["messages"][0]["content"] == "Explain the diff"


def test_multi_line_memories_are_one_line_each_in_the_block(world: World, alice: Actor) -> None:
    project = world.project(alice)
    world.enable(alice)
    remember(world, alice, project.id, user=[], project=["Goal line\nresult\n\n  more"])
    task = world.task(project, alice, "Next")
    w = worker(world)
    w.run_one()
    assert seen(w) == [f"{PREFIX}\n- [project] Goal line result more\n\nNext"]
    assert world.load(task.id).result_text == "Next" + SCRIPTED_REPORT + note(1)
