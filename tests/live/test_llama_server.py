"""Issue 17 item 7: the LLM path against a real local llama.cpp server (Gemma 3 270M, 768-token context).

Nothing here asserts the small model's judgement — only what a real server does to the client:
streaming, JSON mode, a context overflow, a cancelled request, and a Memory drain that ends in
terminal job states instead of a retry loop.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from autopatch_j.agent.intents import CLASSIFIER_PROMPT
from autopatch_j.llm.errors import LLMCancelled, LLMProviderError
from autopatch_j.llm.openai_provider import OpenAIProvider
from autopatch_j.llm.provider import ChatRequest, ChatResponse, Message, Purpose, TextDelta
from autopatch_j.llm.pump import CancellableProvider
from autopatch_j.memory.drain import drain
from autopatch_j.memory.extractor import LLMExtractor
from autopatch_j.memory.failures import FailureKind, classify
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.pipeline import Pipeline
from autopatch_j.memory.prompt_budget import PromptBudget
from autopatch_j.memory.records import Intent, Job, JobStatus
from autopatch_j.runtime import FakeClock
from tests.live.conftest import LlamaServer

# one llama.cpp server on one worker (docs/testing.md)
pytestmark = [pytest.mark.llm_live, pytest.mark.xdist_group("llama-server")]

TERMINAL = {JobStatus.SUCCEEDED, JobStatus.SUCCEEDED_NO_OUTPUT, JobStatus.FAILED}


def _chat(purpose: Purpose, user: str, system: str = "You are a terse assistant.") -> ChatRequest:
    return ChatRequest(purpose, [Message("system", system), Message("user", user)])


def test_streaming_yields_deltas_then_one_final_response(llama_server: LlamaServer) -> None:
    provider = OpenAIProvider(settings=llama_server.settings(max_output_tokens=24))
    try:
        events = list(provider.stream(_chat(Purpose.MAIN, "Count from one to ten in words.")))
    finally:
        provider.close()
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    final = events[-1]
    assert isinstance(final, ChatResponse) and len(deltas) >= 2
    assert final.content == "".join(deltas)
    assert final.finish_reason in ("stop", "length")


def test_json_mode_returns_a_json_object(llama_server: LlamaServer) -> None:
    provider = OpenAIProvider(settings=llama_server.settings())
    try:
        response = provider.complete(_chat(Purpose.CLASSIFIER, "how is the config loaded?", CLASSIFIER_PROMPT))
    finally:
        provider.close()
    assert isinstance(json.loads(response.content), dict)  # constrained by response_format json_object


def test_a_context_overflow_is_a_400_the_job_queue_treats_as_too_large(llama_server: LlamaServer) -> None:
    provider = OpenAIProvider(settings=llama_server.settings())
    try:
        with pytest.raises(LLMProviderError) as caught:
            provider.complete(_chat(Purpose.EXTRACTION, "The build runs Maven and the tests. " * 400))
    finally:
        provider.close()
    assert caught.value.status == 400
    assert classify(caught.value) is FailureKind.TOO_LARGE, (caught.value.code, str(caught.value))


def test_a_cancelled_stream_returns_at_once_and_the_server_keeps_serving(llama_server: LlamaServer) -> None:
    inner = OpenAIProvider(settings=llama_server.settings(max_output_tokens=400))
    cancel = threading.Event()
    seen: list[str] = []
    try:
        with pytest.raises(LLMCancelled):
            for event in CancellableProvider(inner, cancel).stream(
                _chat(Purpose.MAIN, "Write a long story about a lighthouse keeper.")
            ):
                if isinstance(event, TextDelta):
                    seen.append(event.text)
                    cancel.set()  # the user presses Ctrl-C after the first words
        assert len(seen) == 1
        after = inner.complete(_chat(Purpose.CLASSIFIER, "hello", CLASSIFIER_PROMPT))
        assert isinstance(json.loads(after.content), dict)
    finally:
        inner.close()


def test_a_drain_against_the_real_server_ends_in_terminal_states(llama_server: LlamaServer, tmp_path: Path) -> None:
    """The issue's scenario: a long pasted log and an explicit preference in one batch, a model whose
    context (768) is smaller than configured (8,192). The batch overflows and is split; the turn
    that cannot fit alone ends `failed` (with the offline rules applied); every job ends, never loops.
    What the 270M model answers for the short turn is not asserted — only that it ends."""
    clock = FakeClock()
    manager = MemoryManager(root=tmp_path, clock=clock, owner="live-test")
    assert manager.open().ok
    # ~97,000 characters: under the per-message limit (issue 9), far over the real context
    log = "ERROR [main] o.a.m.Build - plugin shade failed at step 42, retrying. " * 1_400
    turn_ids = []
    for user, assistant in [
        ("From now on, always answer in English.", "OK."),
        (f"Why does the build fail? Here is the log:\n{log}", "The shade plugin fails at step 42."),
    ]:
        ticket = manager.begin_turn(user, Intent.GENERAL_CHAT)
        manager.complete_turn(ticket, assistant)
        turn_ids.append(ticket.turn_id)
    provider = OpenAIProvider(settings=llama_server.settings())
    # Told 8,192 tokens, the server has 1,024: requests overflow as they did for the reporter.
    extractor = LLMExtractor(provider=provider, budget=PromptBudget(context_tokens=8_192))
    pipeline = Pipeline(
        db=manager.db, clock=clock, owner="live-test", extractor=extractor, heartbeat_seconds=None, max_attempts=1
    )
    try:
        rounds = 0
        while rounds < 12:  # one attempt a job (CI time): a failure is final at once, then the empty round
            rounds += 1
            report = drain(pipeline, budget_s=None)
            if report.jobs_run == 0:
                break
            clock.advance(3_700)  # past every backoff step (M-48)
        jobs = _jobs(manager)
        assert {job.status for job in jobs} <= TERMINAL, [(job.id, job.status) for job in jobs]
        assert drain(pipeline, budget_s=None).jobs_run == 0  # a terminal state, not a loop
        assert rounds < 12  # the loop ended by itself
        (long_job,) = [job for job in jobs if job.turn_id == turn_ids[1]]
        assert long_job.status is JobStatus.FAILED
        # llama.cpp's own overflow answer — or, on a machine so loaded that the one-at-a-time server
        # was still generating the other turn's answer, the 60 s request timeout: terminal either way
        error = (long_job.last_error or "").lower()
        assert "context" in error or "timed out" in error, long_job.last_error
    finally:
        provider.close()
        manager.close()


def _jobs(manager: MemoryManager) -> list[Job]:
    conn = manager.db.connect()
    try:
        return [Job.from_row(row) for row in conn.execute("SELECT * FROM memory_jobs ORDER BY id")]
    finally:
        conn.close()
