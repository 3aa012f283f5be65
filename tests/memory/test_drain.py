"""Exit drain, `/new` drain and `memory drain` (M-52): snapshot allow-list, one try each, children may follow."""

from __future__ import annotations

import itertools

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.errors import LLMTimeoutError
from autopatch_j.llm.provider import Purpose
from autopatch_j.memory import jobs as q
from autopatch_j.memory.drain import drain, drain_at_exit, drain_thread
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import JobKind, JobStatus
from autopatch_j.runtime import FakeClock
from tests.memory.pipeline_support import (
    admit,
    candidate,
    consolidation_json,
    extraction_json,
    jobs,
    llm_pipeline,
    op,
    pipeline_for,
    source,
)


def test_exit_drain_runs_snapshot_jobs_and_their_children(manager: MemoryManager) -> None:
    (t1,) = admit(manager, [("以后先给结论。", "好的。")])  # one turn: the trigger alone would wait 30 s
    canned = CannedProvider()
    canned.enqueue(
        Purpose.EXTRACTION, extraction_json(candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    )
    canned.enqueue(Purpose.CONSOLIDATION, consolidation_json(op("create", [1])))
    report = drain_at_exit(llm_pipeline(manager, canned))
    assert report.snapshot == frozenset({1})
    assert [s.kind for s in report.steps] == [JobKind.EXTRACTION, JobKind.CONSOLIDATION]
    assert report.to_dict()["operations"] == {"create": 1} and report.warnings == ()
    assert {j.status for j in jobs(manager)} == {JobStatus.SUCCEEDED}


def test_each_snapshot_job_is_tried_at_most_once(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("a", "b")])
    canned = CannedProvider().enqueue(Purpose.EXTRACTION, LLMTimeoutError("timed out after 60 s"))
    pipeline = llm_pipeline(manager, canned, backoff=q.Backoff(steps=(0.001,)))
    clock.advance(1)
    report = drain(pipeline)
    assert len(report.steps) == 1 and len(canned.requests) == 1
    (warning,) = report.warnings
    assert "will be retried" in warning and "timed out" in warning
    assert jobs(manager)[0].status is JobStatus.RETRY_WAIT


def test_jobs_created_during_the_drain_are_left_for_later(manager: MemoryManager) -> None:
    admit(manager, [("first", "x")])

    def answer_and_admit(request: object) -> str:
        admit(manager, [("arrived while draining", "y")])
        return extraction_json()

    canned = CannedProvider().enqueue(Purpose.EXTRACTION, answer_and_admit)
    report = drain(llm_pipeline(manager, canned))
    assert len(report.steps) == 1
    assert [j.status for j in jobs(manager)] == [JobStatus.SUCCEEDED_NO_OUTPUT, JobStatus.PENDING]


def test_unrelated_consolidation_neither_blocks_nor_joins(manager: MemoryManager) -> None:
    admit(manager, [("old", "x")])
    with manager.db.write("unrelated") as conn:
        conn.execute("UPDATE memory_jobs SET status = 'succeeded'")
    (t2,) = admit(manager, [("以后先给结论。", "好的。")])
    canned = CannedProvider()

    def extraction_then_unrelated(request: object) -> str:
        with manager.db.write("unrelated consolidation") as conn:  # older id than the child-to-be
            q.enqueue_consolidation_in_tx(conn, thread_id=1, parent_job_id=1, generation=1, now=0)
        return extraction_json(candidate("user_preference", "先给结论", source(t2, "以后先给结论")))

    canned.enqueue(Purpose.EXTRACTION, extraction_then_unrelated)
    canned.enqueue(Purpose.CONSOLIDATION, consolidation_json(op("create", [1])))
    report = drain(llm_pipeline(manager, canned))
    unrelated, child = (j for j in jobs(manager) if j.kind is JobKind.CONSOLIDATION)
    assert unrelated.id < child.id
    assert (unrelated.status, child.status) == (JobStatus.PENDING, JobStatus.SUCCEEDED)
    assert report.jobs_run == 2


def test_thread_drain_touches_only_that_thread(manager: MemoryManager) -> None:
    admit(manager, [("old thread", "x")])
    archived, _new = manager.start_new_thread()
    admit(manager, [("new thread", "y")])
    report = drain_thread(pipeline_for(manager), thread_id=archived.id)
    assert report.snapshot == frozenset({1})
    assert [j.status for j in jobs(manager)] == [JobStatus.SUCCEEDED_NO_OUTPUT, JobStatus.PENDING]


def test_out_of_time_leaves_the_rest_with_a_warning(manager: MemoryManager) -> None:
    admit(manager, [("a", "x")])
    manager.start_new_thread()
    admit(manager, [("b", "y")])
    ticks = itertools.count(0.0, 40.0)  # every look at the clock costs 40 s
    report = drain(pipeline_for(manager), budget_s=60.0, monotonic=lambda: next(ticks))
    assert len(report.steps) == 1 and report.left == frozenset({2})
    assert "left for the next start" in report.warnings[0]


def test_storage_trouble_becomes_a_warning(manager: MemoryManager) -> None:
    admit(manager, [("a", "x")])
    with manager.db.write("degrade") as conn:
        conn.execute("DELETE FROM memory_meta")
    report = drain(pipeline_for(manager), budget_s=5)
    assert report.steps == () and report.warnings
