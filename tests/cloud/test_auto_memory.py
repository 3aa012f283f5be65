"""Auto-memory extraction: every gate and its reason, force, quotas, content, supersede, the log."""

from __future__ import annotations

from datetime import datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from autopatch_j.cloud.auto_memory import EXCERPT_CHARS, memory_content, process_auto_memories
from autopatch_j.cloud.auto_memory_records import Reason, log_for_user
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.errors import QuotaLookupError
from autopatch_j.cloud.memories import project_memories, user_memories
from autopatch_j.cloud.quotas import QuotaStatus, set_quota
from autopatch_j.cloud.records import MemoryScope, MemoryStatus, TaskStatus
from autopatch_j.cloud.tables import tasks
from autopatch_j.runtime import FakeClock
from tests.cloud.world import LONG_RESULT, World


class FailingQuotas:
    """A quota port whose lookups always fail."""

    def status(self, conn: Connection, *, user_id: int, now: datetime) -> QuotaStatus:
        raise QuotaLookupError("quota service down")


def sweep(world: World, **kwargs: object) -> dict[int, Reason]:
    report = process_auto_memories(world.engine, clock=world.clock, **kwargs)  # type: ignore[arg-type]
    return {**report.skipped, **{t: Reason.EXTRACTED for t in report.extracted}}


@pytest.fixture
def alice(world: World):  # type: ignore[no-untyped-def]
    return world.user("alice")


@pytest.fixture
def project(world: World, alice):  # type: ignore[no-untyped-def]
    return world.project(alice)


def test_default_settings_never_extract(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    task = world.complete(world.task(project, alice))
    assert sweep(world) == {task.id: Reason.GENERATE_DISABLED}


def test_gate_1_task_flag_beats_user_setting(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    on = world.complete(world.task(project, alice, "on"))
    off = world.complete(world.task(project, alice, "off"))
    world.flags(on, alice, generate_memories=True)
    assert sweep(world) == {on.id: Reason.EXTRACTED, off.id: Reason.GENERATE_DISABLED}
    world.enable(alice)
    other = world.complete(world.task(project, alice, "other"))
    world.flags(other, alice, generate_memories=False)
    assert sweep(world) == {off.id: Reason.EXTRACTED, other.id: Reason.GENERATE_DISABLED}


def test_gate_2_idle_since_terminal_state(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice, idle_seconds=900)
    task = world.complete(world.task(project, alice), ago=899)
    assert sweep(world) == {task.id: Reason.NOT_IDLE}
    world.clock.advance(1)
    assert sweep(world) == {task.id: Reason.EXTRACTED}


def test_gate_3_timestamps_duration_and_length(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice, min_duration_seconds=30, min_result_chars=200)
    short = world.complete(world.task(project, alice, "a"), duration=29)
    tiny = world.complete(world.task(project, alice, "b"), result="x" * 199)
    ok = world.complete(world.task(project, alice, "c"), duration=30, result="y" * 200)
    never_started = world.complete(world.task(project, alice, "d"))
    with write_tx(world.engine) as conn:
        conn.execute(sa.update(tasks).where(tasks.c.id == never_started.id).values(started_at=None))
    assert sweep(world) == {
        short.id: Reason.DURATION_TOO_SHORT,
        tiny.id: Reason.RESULT_TOO_SHORT,
        ok.id: Reason.EXTRACTED,
        never_started.id: Reason.MISSING_TIMESTAMPS,
    }


def test_gate_4_external_context(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    parent = world.complete(world.task(project, alice, "parent"))
    child = world.complete(world.task(project, alice, "child", parent=parent.id))
    a = world.complete(world.task(project, alice, "talks"))
    b = world.complete(world.task(project, alice, "listens"))
    world.followup(alice, a, b)
    assert sweep(world) == {
        parent.id: Reason.EXTRACTED,
        child.id: Reason.EXTERNAL_CONTEXT_SUBTASK,
        a.id: Reason.EXTERNAL_CONTEXT_FOLLOWUPS,
        b.id: Reason.EXTERNAL_CONTEXT_FOLLOWUPS,
    }
    world.settings(alice, disable_on_external_context=0)
    assert set(sweep(world).values()) == {Reason.EXTRACTED}


def test_gate_5_quota_default_ten_dollars(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice, min_rate_limit_remaining_percent=20)
    spent = world.complete(world.task(project, alice, "spent"), cost=8.01)  # $1.99 of $10 left = 19.9 %
    assert sweep(world) == {spent.id: Reason.QUOTA_BELOW_THRESHOLD}
    world.settings(alice, min_rate_limit_remaining_percent=19)
    assert sweep(world) == {spent.id: Reason.EXTRACTED}


def test_gate_5_null_limit_is_unlimited_and_a_row_sets_the_limit(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    task = world.complete(world.task(project, alice), cost=500.0)
    with write_tx(world.engine) as conn:
        set_quota(conn, actor_id=None, user_id=alice.user.id, monthly_limit_usd=600.0, now=world.clock())
    assert sweep(world) == {task.id: Reason.QUOTA_BELOW_THRESHOLD}  # 16.7 % left
    with write_tx(world.engine) as conn:
        set_quota(conn, actor_id=None, user_id=alice.user.id, monthly_limit_usd=None, now=world.clock())
    assert sweep(world) == {task.id: Reason.EXTRACTED}


def test_gate_5_last_months_spending_does_not_count(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    task = world.complete(world.task(project, alice), cost=9.5, ago=40 * 86400)
    assert sweep(world) == {task.id: Reason.EXTRACTED}


def test_gate_5_quota_lookup_failure_fails_closed(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    task = world.complete(world.task(project, alice))
    assert sweep(world, quotas=FailingQuotas()) == {task.id: Reason.QUOTA_CHECK_FAILED}
    assert sweep(world, quotas=FailingQuotas(), force=True) == {task.id: Reason.QUOTA_CHECK_FAILED}
    assert sweep(world) == {task.id: Reason.EXTRACTED}


def test_gates_run_in_order(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    """A task failing every gate reports the first; fixing them one by one walks the order."""
    parent = world.task(project, alice, "parent")
    task = world.complete(world.task(project, alice, parent=parent.id), ago=10, duration=1, result="short", cost=9.9)
    expected = [
        (Reason.GENERATE_DISABLED, {"generate_memories": 1}),
        (Reason.NOT_IDLE, {"idle_seconds": 0}),
        (Reason.DURATION_TOO_SHORT, {"min_duration_seconds": 0}),
        (Reason.RESULT_TOO_SHORT, {"min_result_chars": 0}),
        (Reason.EXTERNAL_CONTEXT_SUBTASK, {"disable_on_external_context": 0}),
        (Reason.QUOTA_BELOW_THRESHOLD, {"min_rate_limit_remaining_percent": 0}),
        (Reason.EXTRACTED, {}),
    ]
    for reason, fix in expected:
        assert sweep(world)[task.id] == reason
        if fix:
            world.settings(alice, **fix)


def test_force_skips_idle_duration_length_only(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    fresh = world.complete(world.task(project, alice, "fresh"), ago=1, duration=1, result="tiny")
    disabled = world.complete(world.task(project, alice, "disabled"), ago=1, duration=1, result="tiny")
    world.flags(disabled, alice, generate_memories=False)
    a = world.complete(world.task(project, alice, "a"), ago=1)
    b = world.complete(world.task(project, alice, "b"), ago=1)
    world.followup(alice, a, b)
    assert sweep(world, force=True) == {
        fresh.id: Reason.EXTRACTED,
        disabled.id: Reason.GENERATE_DISABLED,
        a.id: Reason.EXTERNAL_CONTEXT_FOLLOWUPS,
        b.id: Reason.EXTERNAL_CONTEXT_FOLLOWUPS,
    }
    c = world.complete(world.task(project, alice, "c"), ago=1, cost=9.0)
    assert sweep(world, force=True)[c.id] == Reason.QUOTA_BELOW_THRESHOLD


def test_only_completed_tasks_are_scanned(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    for status in (TaskStatus.FAILED, TaskStatus.INTERRUPTED, TaskStatus.MERGED):
        world.complete(world.task(project, alice, status.value), status=status)
    world.task(project, alice, "queued")
    report = process_auto_memories(world.engine, clock=world.clock)
    assert report.scanned == 0 and report.extracted == []


def test_content_is_goal_line_plus_redacted_excerpt_as_project_fact(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    secret = "token=abc123456789"
    result = f"Done. {secret}\n" + "z" * 2000
    task = world.complete(world.task(project, alice, "prompt line", goal="  \nGoal line one\nsecond"), result=result)
    sweep(world)
    with read_tx(world.engine) as conn:
        [memory] = project_memories(conn, project_id=project.id)
        assert user_memories(conn, user_id=alice.user.id) == []
    assert memory.scope == MemoryScope.PROJECT and memory.project_id == project.id
    assert memory.source_thread_id == str(task.id)
    assert memory.content == memory_content(task.goal, task.prompt, result)
    assert memory.content.startswith("Goal line one\nDone. token=[REDACTED]\n")
    assert len(memory.content) == len("Goal line one\n") + EXCERPT_CHARS
    assert secret not in memory.content


def test_each_task_extracted_once_even_after_continue(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    task = world.complete(world.task(project, alice))
    assert sweep(world) == {task.id: Reason.EXTRACTED}
    assert sweep(world) == {}
    world.complete(task)  # a later round completed again
    assert sweep(world) == {}
    assert len(world.rows("identity_memories")) == 1


def test_newer_result_for_same_goal_supersedes(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    old = world.complete(world.task(project, alice, "Fix login\nv1"), ago=7200)
    sweep(world)
    new = world.complete(world.task(project, alice, "  fix   LOGIN \nv2"), ago=3600)
    other_goal = world.complete(world.task(project, alice, "Fix logout"), ago=3600)
    sweep(world)
    by_source = {r["source_thread_id"]: r["status"] for r in world.rows("identity_memories")}
    assert by_source == {
        str(old.id): MemoryStatus.SUPERSEDED,
        str(new.id): MemoryStatus.ACTIVE,
        str(other_goal.id): MemoryStatus.ACTIVE,
    }


def test_older_result_extracted_late_does_not_replace_newer(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    new = world.complete(world.task(project, alice, "Same goal"), ago=1000)
    old = world.complete(world.task(project, alice, "Same goal"), ago=5000)
    world.flags(old, alice, generate_memories=False)
    sweep(world)
    world.flags(old, alice, generate_memories=True)
    assert sweep(world) == {old.id: Reason.EXTRACTED}
    by_source = {r["source_thread_id"]: r["status"] for r in world.rows("identity_memories")}
    assert by_source == {str(new.id): MemoryStatus.ACTIVE, str(old.id): MemoryStatus.SUPERSEDED}
    [entry] = [e for e in _log(world, alice.user.id) if e.task_id == old.id]
    assert entry.reason == Reason.EXTRACTED_SUPERSEDED


def test_same_goal_in_another_project_is_independent(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice)
    other = world.project(alice, "other")
    world.complete(world.task(project, alice, "Same goal"))
    world.complete(world.task(other, alice, "Same goal"))
    sweep(world)
    assert [r["status"] for r in world.rows("identity_memories")] == [MemoryStatus.ACTIVE] * 2


def _log(world: World, user_id: int):  # type: ignore[no-untyped-def]
    with read_tx(world.engine) as conn:
        return log_for_user(conn, user_id=user_id)


def test_log_has_one_row_per_task_upserted(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    world.enable(alice, idle_seconds=900)
    task = world.complete(world.task(project, alice), ago=10)
    for _ in range(3):
        sweep(world)
    [entry] = _log(world, alice.user.id)
    assert (entry.task_id, entry.outcome, entry.reason, entry.memory_id) == (task.id, "skipped", "not_idle", None)
    world.clock.advance(1000)
    sweep(world)
    [entry] = _log(world, alice.user.id)
    assert entry.outcome == "extracted" and entry.memory_id is not None and entry.at == world.clock()


def test_manual_run_covers_only_the_callers_tasks(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    bob = world.user("bob")
    world.enable(alice)
    world.enable(bob)
    bobs = world.project(bob)
    mine = world.complete(world.task(project, alice))
    world.complete(world.task(bobs, bob))
    report = process_auto_memories(world.engine, clock=world.clock, user_id=alice.user.id)
    assert report.extracted == [mine.id] and report.scanned == 1
    assert _log(world, bob.user.id) == []


def test_stale_skip_never_overwrites_an_extraction_log(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    from autopatch_j.cloud.auto_memory import _candidates
    from autopatch_j.cloud.auto_memory_records import log_skips

    world.enable(alice)
    task = world.complete(world.task(project, alice))
    with read_tx(world.engine) as conn:
        stale = _candidates(conn, user_id=None)
    sweep(world)
    log_skips(world.engine, stale, {task.id: Reason.NOT_IDLE}, now=world.clock())
    [entry] = _log(world, alice.user.id)
    assert entry.outcome == "extracted"


def test_concurrent_sweeps_extract_each_task_exactly_once(engine: Engine, clock: FakeClock) -> None:
    """4 workers sweep at once; every eligible task gets exactly one memory and one active per goal."""
    import threading

    world = World(engine=engine, clock=clock)
    users = [world.user(f"u{i}") for i in range(2)]
    projects = [world.project(u, f"p{i}") for i, u in enumerate(users)]
    for u in users:
        world.enable(u)
    eligible = []
    for round_no in range(15):
        for u, p in zip(users, projects, strict=True):
            t = world.complete(world.task(p, u, f"goal {round_no % 5}\nbody"), ago=5000 - round_no)
            eligible.append(t.id)
    ineligible = world.complete(world.task(projects[0], users[0], "short"), result="tiny")
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []
    extracted: list[int] = []
    lock = threading.Lock()

    def run() -> None:
        try:
            barrier.wait()
            report = process_auto_memories(engine, clock=clock)
            with lock:
                extracted.extend(report.extracted)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sorted(extracted) == sorted(eligible)
    rows = world.rows("identity_memories")
    assert sorted(int(r["source_thread_id"]) for r in rows) == sorted(eligible)
    assert str(ineligible.id) not in {r["source_thread_id"] for r in rows}
    active = [(r["project_id"], r["goal_key"]) for r in rows if r["status"] == MemoryStatus.ACTIVE]
    assert len(active) == len(set(active)) == 10  # 5 goals × 2 projects
    newest = {
        (r["project_id"], r["goal_key"]): r["source_thread_id"] for r in rows if r["status"] == MemoryStatus.ACTIVE
    }
    for (project_id, _key), source in newest.items():
        same_goal = [r for r in rows if r["project_id"] == project_id and r["goal_key"] == _key]
        assert int(source) == max(int(r["source_thread_id"]) for r in same_goal)


def test_gate_4_external_context_seen_inside_the_run(world: World, alice, project) -> None:  # type: ignore[no-untyped-def]
    """C-41: an executor that reported MCP or web search marks the task as external context."""
    from autopatch_j.cloud.executors import ExecutionRequest, ExecutionResult
    from autopatch_j.cloud.worker import Worker

    class SearchingAgent:
        name = "searching"

        def execute(self, request: ExecutionRequest) -> ExecutionResult:
            return ExecutionResult(ok=True, text=LONG_RESULT, external_context=frozenset({"web_search"}))

    world.enable(alice, idle_seconds=0, min_duration_seconds=0)
    task = world.task(project, alice)
    Worker(engine=world.engine, executor=SearchingAgent(), clock=world.clock).run_one()
    assert [(r["task_id"], r["kind"]) for r in world.rows("task_external_context")] == [(task.id, "web_search")]
    assert sweep(world) == {task.id: Reason.EXTERNAL_CONTEXT_RUN}
    world.settings(alice, disable_on_external_context=0)
    assert sweep(world) == {task.id: Reason.EXTRACTED}


def test_worker_sweep_is_bounded_incremental_and_reads_only_generating_users(world: World) -> None:
    """Issue 10, item 10: batches above a watermark, users with generation off are not read, and an
    idle worker does not start a new pass on every poll."""
    from autopatch_j.cloud.executors import ScriptedExecutor
    from autopatch_j.cloud.worker import Worker

    on, off = world.user("on"), world.user("off")
    p_on, p_off = world.project(on, "on"), world.project(off, "off")
    world.enable(on)
    mine = [world.complete(world.task(p_on, on, f"goal {i}")).id for i in range(5)]
    for i in range(4):
        world.complete(world.task(p_off, off, f"other {i}"))
    worker = Worker(engine=world.engine, executor=ScriptedExecutor(), clock=world.clock, sweep_batch=2)
    batches = [worker.sweep(new_work=False) for _ in range(3)]
    assert [b.extracted for b in batches] == [mine[:2], mine[2:4], mine[4:]]
    assert [b.scanned for b in batches] == [2, 2, 1]
    assert worker.sweep(new_work=False).scanned == 0  # the pass is complete: idle polls do not rescan
    assert {e.task_id for e in _log(world, off.user.id)} == set()  # never read, never logged
    late = world.complete(world.task(p_on, on, "late"))
    assert worker.sweep(new_work=True).extracted == [late.id]  # new work starts a new pass at once
