"""Issue 17 item 2: permanent failures end — split, bounded attempts, terminal `failed`, offline fallback.

Fake clock throughout: no test sleeps; backoff is crossed by advancing the clock.
"""

from __future__ import annotations

import json

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.errors import LLMProviderError, LLMTimeoutError
from autopatch_j.llm.provider import ChatRequest, Purpose
from autopatch_j.memory.drain import drain, retry_failed
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.pipeline import Outcome
from autopatch_j.memory.records import JobStatus
from autopatch_j.memory.status import read_status
from autopatch_j.runtime import FakeClock
from tests.memory.pipeline_support import admit, candidate, extraction_json, jobs, llm_pipeline, rows, source

LONG = "LONG-ANSWER " + "x" * 5_000
PREFERENCE = "以后先给结论。"
TOO_LARGE = LLMProviderError(
    "request (8959 tokens) exceeds the available context size (8192 tokens), try increasing it",
    status=400,
    code="context_length_exceeded",
)


def _batch_turns(request: ChatRequest) -> list[dict[str, object]]:
    turns: list[dict[str, object]] = json.loads(request.messages[1].content or "{}")["turns"]
    return turns


def _batch_turn_ids(request: ChatRequest) -> list[object]:
    return [turn["turn_id"] for turn in _batch_turns(request)]


def test_a_batch_too_large_is_split_and_only_the_oversized_turn_fails(manager: MemoryManager) -> None:
    t_pref, t_long, t3, t4 = admit(manager, [(PREFERENCE, "好的。"), ("解释构建", LONG), ("a", "b"), ("c", "d")])

    def eight_k_model(request: ChatRequest) -> str:
        if any(LONG[:20] in str(turn["assistant"]) for turn in _batch_turns(request)):
            raise TOO_LARGE  # (the turn before the batch is sent as a short excerpt and fits)
        if t_pref in _batch_turn_ids(request):
            return extraction_json(candidate("user_preference", "先给结论", source(t_pref, "以后先给结论")))
        return extraction_json()

    canned = CannedProvider(default=eight_k_model)
    pipeline = llm_pipeline(manager, canned, max_attempts=99)
    result = pipeline.step(force=True)
    assert result is not None and [p.job_ids for p in result.leaves()] == [(1,), (2,), (3, 4)]
    assert [leaf.outcome for leaf in result.leaves()] == [
        Outcome.SUCCEEDED,
        Outcome.FAILED,
        Outcome.SUCCEEDED_NO_OUTPUT,
    ]
    states = {job.turn_id: job for job in jobs(manager) if job.turn_id is not None}
    assert states[t_long].status is JobStatus.FAILED and "context_length_exceeded" in (states[t_long].last_error or "")
    assert states[t_long].attempts == 1
    assert {states[t].status for t in (t_pref, t3, t4)} == {JobStatus.SUCCEEDED, JobStatus.SUCCEEDED_NO_OUTPUT}
    assert rows(manager, "SELECT quote FROM candidate_sources")[0]["quote"] == "以后先给结论"
    manager.clock.advance(10 * 3600)  # type: ignore[attr-defined]
    before = len(canned.requests)
    while (step := pipeline.step(force=True)) is not None:  # only the consolidation child is left
        assert step.kind.value == "consolidation"
    assert all(_batch_turn_ids(r) != [t_long] for r in canned.requests[before:] if r.purpose is Purpose.EXTRACTION)


def test_the_same_contract_violation_twice_fails_the_job_and_the_offline_rules_still_extract(
    manager: MemoryManager, clock: FakeClock
) -> None:
    (t1,) = admit(manager, [(PREFERENCE, "好的。")])
    canned = CannedProvider(default=lambda request: "Sure! The user likes conclusions first.")
    pipeline = llm_pipeline(manager, canned)
    first = pipeline.step(force=True)
    assert first is not None and first.outcome is Outcome.RETRY
    admit(manager, [("另一个问题", "另一个回答")])  # other turns of the thread keep flowing
    canned_ok = extraction_json()
    canned.enqueue(Purpose.EXTRACTION, canned_ok)
    second = pipeline.step(force=True)
    assert second is not None and second.job_ids == (2,) and second.outcome is Outcome.SUCCEEDED_NO_OUTPUT
    clock.advance(5)
    third = pipeline.step(force=True)
    assert third is not None and third.outcome is Outcome.FAILED and third.fallback
    job = next(j for j in jobs(manager) if j.turn_id == t1)
    assert job.status is JobStatus.FAILED and job.attempts == 2 and "Sure!" in (job.last_error or "")
    quotes = [r["quote"] for r in rows(manager, "SELECT quote FROM candidate_sources")]
    assert quotes and all(q in PREFERENCE for q in quotes)  # the offline rules kept the explicit preference
    clock.advance(10 * 3600)
    assert pipeline.step(force=True) is not None  # the consolidation child of the offline candidates
    while pipeline.step(force=True) is not None:
        pass
    assert next(j for j in jobs(manager) if j.turn_id == t1).status is JobStatus.FAILED  # terminal: no loop
    report = read_status(db=manager.db, health=manager.health)
    assert report.jobs.get("failed") == 1


def test_transient_errors_end_after_the_bounded_attempts(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("hello", "hi")])
    canned = CannedProvider(default=lambda request: (_ for _ in ()).throw(LLMTimeoutError("timed out after 60 s")))
    pipeline = llm_pipeline(manager, canned, max_attempts=4)
    outcomes = []
    for _ in range(10):
        step = pipeline.step(force=True)
        if step is None:
            break
        outcomes.append(step.outcome)
        clock.advance(3_700)
    assert outcomes == [Outcome.RETRY] * 3 + [Outcome.FAILED]
    (job,) = jobs(manager)
    assert job.status is JobStatus.FAILED and job.attempts == 4


def test_retry_failed_revives_failed_jobs_and_a_working_model_finishes_them(
    manager: MemoryManager, clock: FakeClock
) -> None:
    admit(manager, [("hello", "hi")])
    canned = CannedProvider()
    canned.enqueue(Purpose.EXTRACTION, TOO_LARGE)
    pipeline = llm_pipeline(manager, canned)
    assert drain(pipeline, budget_s=None).to_dict()["failed"] == [1]
    assert drain(pipeline, budget_s=None).jobs_run == 0  # failed is not due
    canned.enqueue(Purpose.EXTRACTION, extraction_json())
    report = retry_failed(pipeline).to_dict()
    assert report["revived"] == [1] and report["failed"] == [] and report["jobs_run"] == 1
    assert jobs(manager)[0].status is JobStatus.SUCCEEDED_NO_OUTPUT
