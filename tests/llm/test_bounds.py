"""Issue 17 on the real SDK path (loopback fake server): output cap, overall deadline, abandonment."""

from __future__ import annotations

import threading

import pytest

from autopatch_j.llm.config import LLMLimits, load_llm_limits
from autopatch_j.llm.errors import LLMCancelled, LLMConfigError, LLMTimeoutError
from autopatch_j.llm.openai_provider import OpenAIProvider
from autopatch_j.llm.provider import ChatRequest, ChatResponse, Message, Purpose, TextDelta
from autopatch_j.llm.pump import CancellableProvider
from tests.support.openai_server import FakeOpenAIServer, RecordedRequest, Reply, sse, stream_chunks


def _request(purpose: Purpose = Purpose.MAIN) -> ChatRequest:
    return ChatRequest(purpose, [Message("user", "hello")])


def test_main_answer_sends_the_configured_output_cap(openai_server: FakeOpenAIServer) -> None:
    openai_server.reply_stream(["ok"])
    provider = OpenAIProvider(settings=openai_server.settings(limits=LLMLimits(max_output_tokens=321)))
    try:
        list(provider.stream(_request()))
    finally:
        provider.close()
    assert openai_server.last_request().body["max_tokens"] == 321


def test_a_steady_stream_past_the_deadline_is_abandoned_with_a_clear_message(openai_server: FakeOpenAIServer) -> None:
    # every gap is far below the 60 s request timeout, but the whole answer would take 40 × 0.25 s
    openai_server.reply_stream([f"t{i} " for i in range(40)], chunk_delay_s=0.25)
    provider = OpenAIProvider(settings=openai_server.settings(limits=LLMLimits(deadline_s=0.6)))
    seen: list[str] = []
    try:
        with pytest.raises(LLMTimeoutError, match=r"0\.6 s deadline \(AUTOPATCH_LLM_DEADLINE_SECONDS\)"):
            for event in provider.stream(_request()):
                if isinstance(event, TextDelta):
                    seen.append(event.text)
    finally:
        provider.close()
    assert len(seen) < 40  # stopped at the deadline, long before the provider would have finished


def test_cancel_returns_while_the_provider_still_sends_nothing(openai_server: FakeOpenAIServer) -> None:
    release = threading.Event()
    served = threading.Event()
    arrived = threading.Event()

    def blocking(_request: RecordedRequest) -> Reply:
        arrived.set()
        release.wait(30)  # a busy provider: no status line, no chunk
        served.set()
        return Reply(content_type="text/event-stream", chunks=sse(stream_chunks(["late"])))

    openai_server.enqueue(blocking)
    inner = OpenAIProvider(settings=openai_server.settings())
    cancel = threading.Event()
    threading.Thread(target=lambda: arrived.wait(10) and cancel.set(), daemon=True).start()
    try:
        with pytest.raises(LLMCancelled):
            list(CancellableProvider(inner, cancel).stream(_request()))
        assert not served.is_set()  # it returned without waiting for the provider
    finally:
        release.set()
        inner.close()


def test_cancellable_complete_returns_the_inner_answer(openai_server: FakeOpenAIServer) -> None:
    openai_server.reply_json('{"intent": "general_chat"}')
    inner = OpenAIProvider(settings=openai_server.settings())
    try:
        response = CancellableProvider(inner, threading.Event()).complete(_request(Purpose.CLASSIFIER))
    finally:
        inner.close()
    assert isinstance(response, ChatResponse) and response.content == '{"intent": "general_chat"}'


def test_limits_come_from_the_environment_and_bad_values_are_one_sentence() -> None:
    limits = load_llm_limits(
        {
            "AUTOPATCH_LLM_CONTEXT_TOKENS": "8192",
            "AUTOPATCH_LLM_MAX_OUTPUT_TOKENS": "512",
            "AUTOPATCH_LLM_DEADLINE_SECONDS": "90.5",
        }
    )
    assert limits == LLMLimits(context_tokens=8192, max_output_tokens=512, deadline_s=90.5)
    assert load_llm_limits({}) == LLMLimits()
    for name, value in [
        ("AUTOPATCH_LLM_CONTEXT_TOKENS", "lots"),
        ("AUTOPATCH_LLM_CONTEXT_TOKENS", "100"),
        ("AUTOPATCH_LLM_MAX_OUTPUT_TOKENS", "1.5"),
        ("AUTOPATCH_LLM_DEADLINE_SECONDS", "-1"),
    ]:
        with pytest.raises(LLMConfigError, match=name):
            load_llm_limits({name: value})
