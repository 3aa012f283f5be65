"""Stage 1 through the pipeline with a canned LLM (M-41 … M-43, M-48, M-70, M-71)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.errors import LLMProviderError, LLMTimeoutError
from autopatch_j.llm.provider import Purpose
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.pipeline import Outcome
from autopatch_j.memory.records import JobKind, JobStatus
from autopatch_j.runtime import FakeClock
from tests.memory.pipeline_support import (
    admit,
    candidate,
    extraction_json,
    jobs,
    llm_pipeline,
    meta,
    rows,
    source,
    table_counts,
)


def test_request_carries_compaction_batch_and_the_turn_before(manager: MemoryManager) -> None:
    canned = CannedProvider()
    admit(manager, [("第一轮", "答一")])
    with manager.db.write("seed compaction") as conn:
        conn.execute("UPDATE threads SET compaction = 'earlier summary'")
        conn.execute("UPDATE memory_jobs SET status = 'succeeded'")
    t2, t3 = admit(manager, [("第二轮", "答二"), ("第三轮", "答三")])
    canned.enqueue(Purpose.EXTRACTION, extraction_json(compaction="new summary"))
    result = llm_pipeline(manager, canned).step()
    assert result is not None and result.outcome is Outcome.SUCCEEDED_NO_OUTPUT
    (request,) = canned.requests_for(Purpose.EXTRACTION)
    payload = json.loads(request.messages[-1].content or "")
    assert payload["previous_compaction"] == "earlier summary"
    assert payload["context_turn"]["user"] == "第一轮"
    assert [t["turn_id"] for t in payload["turns"]] == [t2, t3]
    assert rows(manager, "SELECT compaction, compacted_through_seq FROM threads")[0][:] == ("new summary", 3)


def test_candidates_are_stored_with_exact_quotes_and_a_consolidation_job(manager: MemoryManager) -> None:
    canned = CannedProvider()
    t1, t2 = admit(manager, [("以后先给结论。", "好的。"), ("我们在比较 A 和 B 两个方案", "各有利弊。")])
    canned.enqueue(
        Purpose.EXTRACTION,
        extraction_json(
            candidate("user_preference", "先给结论", source(t1, "以后先给结论"), subject="answer order"),
            candidate("discussion_context", "比较 A 和 B", source(t2, "比较 A 和 B")),
        ),
    )
    result = llm_pipeline(manager, canned).step()
    assert result is not None and result.outcome is Outcome.SUCCEEDED and result.candidates == 2
    cands = rows(manager, "SELECT * FROM memory_candidates ORDER BY id")
    assert [(c["kind"], c["non_factual"], c["status"]) for c in cands] == [
        ("user_preference", 0, "pending"),
        ("discussion_context", 1, "pending"),
    ]
    srcs = rows(manager, "SELECT turn_id, role, quote FROM candidate_sources ORDER BY candidate_id")
    assert [tuple(s) for s in srcs] == [(t1, "user", "以后先给结论"), (t2, "user", "比较 A 和 B")]
    consolidation = [j for j in jobs(manager) if j.kind is JobKind.CONSOLIDATION]
    assert len(consolidation) == 1 and consolidation[0].id == result.consolidation_job_id
    assert {c["consolidation_job_id"] for c in cands} == {result.consolidation_job_id}
    assert consolidation[0].parent_job_id == result.job_ids[0]


def test_no_candidates_is_succeeded_no_output_and_never_reprocessed(manager: MemoryManager, clock: FakeClock) -> None:
    canned = CannedProvider()
    admit(manager, [("你好", "你好！"), ("谢谢", "不客气。")])
    canned.enqueue(Purpose.EXTRACTION, extraction_json())
    pipeline = llm_pipeline(manager, canned)
    result = pipeline.step()
    assert result is not None and result.outcome is Outcome.SUCCEEDED_NO_OUTPUT
    assert {j.status for j in jobs(manager)} == {JobStatus.SUCCEEDED_NO_OUTPUT}
    assert all(j.kind is JobKind.EXTRACTION for j in jobs(manager))
    clock.advance(10_000)
    pipeline.recover()
    assert pipeline.step(force=True) is None
    assert len(canned.requests) == 1
    assert meta(manager)["last_error"] is None


def test_filtered_candidates_leave_no_rows_but_the_job_succeeds(manager: MemoryManager) -> None:
    canned = CannedProvider()
    (t1,) = admit(manager, [("这次简单说一下就行", "好。")])
    canned.enqueue(
        Purpose.EXTRACTION, extraction_json(candidate("user_preference", "简单说", source(t1, "这次简单说一下就行")))
    )
    result = llm_pipeline(manager, canned).step(force=True)
    assert result is not None and result.outcome is Outcome.SUCCEEDED_NO_OUTPUT and result.filtered == 1
    assert table_counts(manager)["memory_candidates"] == 0


def test_bad_model_output_goes_to_retry_with_raw_error_and_writes_nothing(manager: MemoryManager) -> None:
    (t1,) = admit(manager, [("以后先给结论。", "好的。")])
    bad_outputs = [
        "I think the user likes conclusions first.",  # not JSON
        json.dumps({"compaction": "c", "candidates": [], "confidence": 0.9}),  # unknown field
        extraction_json(candidate("user_preference", "先给结论", source(t1, "以后先给出结论"))),  # not a substring
        extraction_json(candidate("user_preference", "先给结论", source(t1 + 7, "以后先给结论"))),  # unknown turn
        extraction_json(candidate("opinion", "先给结论", source(t1, "以后先给结论"))),  # unknown kind
        LLMTimeoutError("the request timed out after 60 s"),
        LLMProviderError("rate limited", status=429, response_text='{"error": "slow down [bold]"}'),
    ]
    canned = CannedProvider()
    pipeline = llm_pipeline(manager, canned, max_attempts=len(bad_outputs) + 1)  # the bound: test_job_states
    before = table_counts(manager)
    for attempt, bad in enumerate(bad_outputs, start=1):
        canned.enqueue(Purpose.EXTRACTION, bad)
        result = pipeline.step(force=True)
        assert result is not None and result.outcome is Outcome.RETRY, bad
        (only,) = jobs(manager)
        assert only.status is JobStatus.RETRY_WAIT and only.attempts == attempt
        assert only.last_error and len(only.last_error) <= 20_000
        assert meta(manager)["last_error"] == only.last_error
        assert table_counts(manager) == before
        assert rows(manager, "SELECT compaction FROM threads")[0][0] == ""
        manager.clock.advance(3600)  # type: ignore[attr-defined]
    assert "slow down [bold]" in (jobs(manager)[0].last_error or "")
    assert "以后先给结论" not in (jobs(manager)[0].last_error or "")  # the request's messages are never attached


def test_a_retry_that_succeeds_resolves_the_error(manager: MemoryManager, clock: FakeClock) -> None:
    admit(manager, [("hi", "hello")])
    canned = CannedProvider().enqueue(Purpose.EXTRACTION, "not json", extraction_json())
    pipeline = llm_pipeline(manager, canned)
    assert pipeline.step(force=True).outcome is Outcome.RETRY  # type: ignore[union-attr]
    assert pipeline.step(force=True) is None
    clock.advance(5)
    assert pipeline.step(force=True).outcome is Outcome.SUCCEEDED_NO_OUTPUT  # type: ignore[union-attr]
    assert meta(manager)["last_error"] is None


def test_extraction_uses_the_extraction_purpose_and_strategy(manager: MemoryManager) -> None:
    from autopatch_j.llm.diagnostics import DiagnosticsLog

    log = DiagnosticsLog()
    canned = CannedProvider(diagnostics=log).enqueue(Purpose.EXTRACTION, extraction_json())
    admit(manager, [("hi", "hello")])
    llm_pipeline(manager, canned).step(force=True)
    (record,) = log.records
    assert record.purpose is Purpose.EXTRACTION
    assert (record.strategy.stream, record.strategy.reasoning, record.strategy.temperature) == (False, False, 0.0)
    assert record.strategy.max_output_tokens == 1800 and record.strategy.timeout_s == 60.0


def test_a_failed_turn_is_extracted_from_its_user_text(manager: MemoryManager) -> None:
    from autopatch_j.memory.records import Intent

    ticket = manager.begin_turn("以后先给结论。", Intent.GENERAL_CHAT)
    manager.fail_turn(ticket, "main call failed")
    canned = CannedProvider().enqueue(
        Purpose.EXTRACTION,
        extraction_json(candidate("user_preference", "先给结论", source(ticket.turn_id, "以后先给结论"))),
    )
    result = llm_pipeline(manager, canned).step(force=True)
    assert result is not None and result.candidates == 1


def test_the_model_is_called_with_no_transaction_open(manager: MemoryManager) -> None:
    import sqlite3

    admit(manager, [("以后先给结论。", "好的。"), ("hi", "hello")])
    observed: list[str] = []

    def probe(request: object) -> str:
        other = sqlite3.connect(manager.paths.db, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # fails at once if the pipeline held a write transaction
            other.execute("ROLLBACK")
            observed.append("free")
        finally:
            other.close()
        return extraction_json()

    sent: list[str] = []
    manager.db.set_trace(sent.append)
    llm_pipeline(manager, CannedProvider().enqueue(Purpose.EXTRACTION, probe)).step()
    manager.db.set_trace(None)
    assert observed == ["free"]
    transactions = [s for s in sent if s in ("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")]
    assert transactions == ["BEGIN IMMEDIATE", "COMMIT", "BEGIN IMMEDIATE", "COMMIT"]  # claim, then commit


PROPOSAL = [("依赖怎么管？", "我建议统一用 uv 管理依赖。"), ("同意", "好的。")]
# name: (exchanges, (kind, content, [(turn index, role, quote)]), kept?)
GATES = {
    "explicit preference": (
        [("以后先给结论。", "好的。")],
        ("user_preference", "先给结论", [(0, "user", "以后先给结论")]),
        True,
    ),
    "explicit decision (en)": (
        [("Let's use uv for dependencies.", "OK.")],
        ("project_decision", "use uv for dependencies", [(0, "user", "Let's use uv for dependencies.")]),
        True,
    ),
    "temporary": (
        [("这次简单说一下就行", "好。")],
        ("user_preference", "简单说一下", [(0, "user", "这次简单说一下就行")]),
        False,
    ),
    "just this once": (
        [("Just this once, from now on skip tests.", "ok")],
        ("user_preference", "skip tests", [(0, "user", "Just this once, from now on skip tests.")]),
        False,
    ),
    "code fact": (
        [("pom.xml 里默认现在配置的是 Java 17", "对。")],
        ("project_decision", "Java 17", [(0, "user", "pom.xml 里默认现在配置的是 Java 17")]),
        False,
    ),
    "assistant only": (
        [("怎么测试？", "以后统一用 pytest。")],
        ("project_decision", "统一用 pytest", [(0, "assistant", "以后统一用 pytest")]),
        False,
    ),
    "undecided question": (
        [("以后要不要都用 uv？", "可以。")],
        ("project_decision", "都用 uv", [(0, "user", "以后要不要都用 uv？")]),
        False,
    ),
    "speculation": (
        [("也许以后都用 Go", "嗯。")],
        ("project_decision", "用 Go", [(0, "user", "也许以后都用 Go")]),
        False,
    ),
    "confirmation with proposal": (
        PROPOSAL,
        ("project_decision", "统一用 uv 管理依赖", [(0, "assistant", "我建议统一用 uv 管理依赖"), (1, "user", "同意")]),
        True,
    ),
    "confirmation alone": (PROPOSAL, ("project_decision", "统一用 uv 管理依赖", [(1, "user", "同意")]), False),
}


@pytest.mark.parametrize(("exchanges", "spec", "kept"), GATES.values(), ids=GATES.keys())
def test_semantic_gates_through_the_canned_llm(
    manager: MemoryManager, exchanges: list[tuple[str, str]], spec: Any, kept: bool
) -> None:
    turn_ids = admit(manager, exchanges)
    kind, content, quotes = spec
    answer = extraction_json(candidate(kind, content, *(source(turn_ids[i], q, role) for i, role, q in quotes)))
    canned = CannedProvider().enqueue(Purpose.EXTRACTION, answer)
    result = llm_pipeline(manager, canned).step(force=True)
    assert result is not None and result.job_ids == tuple(range(1, len(turn_ids) + 1))
    stored = rows(manager, "SELECT count(*) FROM memory_candidates")[0][0]
    assert (stored, result.filtered) == ((1, 0) if kept else (0, 1))
    assert result.outcome is (Outcome.SUCCEEDED if kept else Outcome.SUCCEEDED_NO_OUTPUT)
