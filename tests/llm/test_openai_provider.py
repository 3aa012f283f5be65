"""The real `openai` client path, against the loopback fake server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from autopatch_j.llm.diagnostics import DiagnosticsLog, ErrorRecord
from autopatch_j.llm.errors import (
    LLMConnectionError,
    LLMError,
    LLMProviderError,
    LLMResponseError,
    LLMTimeoutError,
)
from autopatch_j.llm.openai_provider import OpenAIProvider
from autopatch_j.llm.provider import (
    ChatRequest,
    ChatResponse,
    Message,
    Purpose,
    TextDelta,
    ToolCall,
    ToolSpec,
    strategy_for,
)
from tests.support.openai_server import FAKE_API_KEY, FakeOpenAIServer, FakeToolCall, Reply, sse

PROMPT = "PROMPT-TEXT-please-never-log-me"
SYSTEM = "SYSTEM-PROMPT-never-log-me"


def _request(purpose: Purpose, *, tools: tuple[ToolSpec, ...] = ()) -> ChatRequest:
    return ChatRequest(purpose, [Message("system", SYSTEM), Message("user", PROMPT)], tools)


@pytest.fixture
def log() -> DiagnosticsLog:
    return DiagnosticsLog()


@pytest.fixture
def provider(openai_server: FakeOpenAIServer, log: DiagnosticsLog) -> Iterator[OpenAIProvider]:
    p = OpenAIProvider(settings=openai_server.settings(), diagnostics=log)
    yield p
    p.close()


def test_main_streams_text_deltas_then_one_final_response(openai_server, provider):
    openai_server.reply_stream(["Hel", "lo, ", "世界"], usage={"prompt_tokens": 4, "completion_tokens": 3})
    events = list(provider.stream(_request(Purpose.MAIN)))
    assert [e.text for e in events[:-1] if isinstance(e, TextDelta)] == ["Hel", "lo, ", "世界"]
    final = events[-1]
    assert isinstance(final, ChatResponse)
    assert final.content == "Hello, 世界"
    assert final.finish_reason == "stop"
    assert (final.usage.prompt_tokens, final.usage.completion_tokens) == (4, 3)
    body = openai_server.last_request().body
    assert body["stream"] is True
    assert "temperature" not in body and "response_format" not in body
    assert body["max_tokens"] == 4096  # the default output cap of the main answer (issue 17)


def test_streamed_tool_call_deltas_are_accumulated(openai_server, provider):
    calls = [
        FakeToolCall("call_a", "read_file", json.dumps({"path": "src/app.py", "start": 1, "end": 40})),
        FakeToolCall("call_b", "search", json.dumps({"query": "记忆 memory"}, ensure_ascii=False)),
    ]
    openai_server.reply_stream([], tool_calls=calls, finish_reason="tool_calls")
    tool = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})
    final = provider.complete(_request(Purpose.MAIN, tools=(tool,)))
    assert final.finish_reason == "tool_calls"
    assert final.tool_calls == tuple(ToolCall(c.id, c.name, c.arguments) for c in calls)
    body = openai_server.last_request().body
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
    ]


def test_tool_results_are_sent_in_openai_format(openai_server, provider):
    openai_server.reply_stream(["done"])
    call = ToolCall("call_1", "read_file", '{"path": "a.py"}')
    history = [
        Message("user", "read a.py"),
        Message("assistant", None, tool_calls=(call,)),
        Message("tool", "print(1)", tool_call_id="call_1"),
    ]
    provider.complete(ChatRequest(Purpose.MAIN, history))
    sent = openai_server.last_request().body["messages"]
    assert sent[1]["tool_calls"] == [
        {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}
    ]
    assert sent[2] == {"role": "tool", "content": "print(1)", "tool_call_id": "call_1"}


@pytest.mark.parametrize(
    ("purpose", "max_tokens"),
    [(Purpose.CLASSIFIER, 200), (Purpose.EXTRACTION, 1800), (Purpose.CONSOLIDATION, 2200)],
)
def test_short_calls_are_one_json_request_at_temperature_0(openai_server, provider, purpose, max_tokens):
    openai_server.reply_json('{"route": "general_chat"}')
    response = provider.complete(_request(purpose))
    assert response.content == '{"route": "general_chat"}'
    body = openai_server.last_request().body
    assert body.get("stream") in (None, False)
    assert body["temperature"] == 0
    assert body["max_tokens"] == max_tokens
    assert body["response_format"] == {"type": "json_object"}
    assert not {"reasoning_effort", "reasoning", "thinking", "enable_thinking"} & body.keys()


def test_stream_of_a_short_purpose_still_makes_one_non_streamed_request(openai_server, provider):
    openai_server.reply_json('{"x": 1}')
    events = list(provider.stream(_request(Purpose.EXTRACTION)))
    assert events == [TextDelta('{"x": 1}'), events[-1]]
    assert openai_server.last_request().body.get("stream") in (None, False)


def test_extra_body_is_merged_but_never_overrides_the_strategy(openai_server):
    settings = openai_server.settings(extra_body={"top_p": 0.3, "temperature": 0.9, "seed": 7})
    with_extra = OpenAIProvider(settings=settings)
    try:
        openai_server.reply_json("{}")
        openai_server.reply_stream(["ok"])
        with_extra.complete(_request(Purpose.EXTRACTION))
        with_extra.complete(_request(Purpose.MAIN))
    finally:
        with_extra.close()
    short, main = (r.body for r in openai_server.requests)
    assert (short["top_p"], short["seed"], short["temperature"]) == (0.3, 7, 0)
    assert (main["top_p"], main["seed"], main["temperature"]) == (0.3, 7, 0.9)


def test_model_and_key_are_sent(openai_server, provider):
    openai_server.reply_json("{}")
    provider.complete(_request(Purpose.CLASSIFIER))
    request = openai_server.last_request()
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "fake-model"
    assert request.headers["authorization"] == f"Bearer {FAKE_API_KEY}"


def test_slow_answer_raises_llm_timeout_error(openai_server, log):
    openai_server.reply_json("{}", delay_s=5)
    fast = OpenAIProvider(settings=openai_server.settings(), diagnostics=log, timeout_s=0.3)
    try:
        with pytest.raises(LLMTimeoutError):
            fast.complete(_request(Purpose.EXTRACTION))
    finally:
        fast.close()
    record = log.last()
    assert record is not None and not record.ok and record.strategy.timeout_s == 0.3
    assert record.error is not None and record.error.exception_type == "LLMTimeoutError"


def test_stalled_stream_raises_llm_timeout_error(openai_server):
    openai_server.reply_stream(["a", "b", "c"], chunk_delay_s=5)
    fast = OpenAIProvider(settings=openai_server.settings(), timeout_s=0.3)
    try:
        with pytest.raises(LLMTimeoutError):
            list(fast.stream(_request(Purpose.MAIN)))
    finally:
        fast.close()


def test_http_500_keeps_the_provider_body_and_never_the_request(openai_server, provider, log):
    body = {"error": {"message": "upstream [bold]exploded[/]", "type": "server_error", "code": "E500"}}
    openai_server.reply_error(500, body)
    with pytest.raises(LLMProviderError) as caught:
        provider.complete(_request(Purpose.CONSOLIDATION))
    exc = caught.value
    assert (exc.status, exc.code) == (500, "E500")
    assert json.loads(exc.response_text or "") == body
    rendered = ErrorRecord.from_exception(exc).render()
    assert "500" in rendered and "E500" in rendered and "upstream [bold]exploded[/]" in rendered
    for secret in (FAKE_API_KEY, PROMPT, SYSTEM, "Bearer", "authorization", "Authorization"):
        assert secret not in rendered
    record = log.last()
    assert record is not None and record.error is not None and record.error.status == 500
    assert record.purpose is Purpose.CONSOLIDATION and record.strategy == strategy_for(Purpose.CONSOLIDATION)


def test_plain_text_error_body_is_kept_verbatim(openai_server, provider):
    openai_server.reply_error(502, "<html>Bad Gateway</html>")
    with pytest.raises(LLMProviderError) as caught:
        provider.complete(_request(Purpose.CLASSIFIER))
    assert caught.value.status == 502
    assert "<html>Bad Gateway</html>" in ErrorRecord.from_exception(caught.value).render()


def test_unreachable_endpoint_raises_connection_error(openai_server):
    settings = openai_server.settings()
    openai_server.stop()
    dead = OpenAIProvider(settings=settings, timeout_s=2)
    try:
        with pytest.raises(LLMConnectionError):
            dead.complete(_request(Purpose.CLASSIFIER))
    finally:
        dead.close()


def test_diagnostics_record_purpose_and_strategy_of_every_call(openai_server, provider, log):
    openai_server.reply_json("{}").reply_stream(["x"])
    provider.complete(_request(Purpose.EXTRACTION))
    provider.complete(_request(Purpose.MAIN))
    records = log.records
    assert [(r.purpose, r.strategy, r.ok) for r in records] == [
        (Purpose.EXTRACTION, strategy_for(Purpose.EXTRACTION), True),
        (Purpose.MAIN, strategy_for(Purpose.MAIN), True),
    ]
    assert all(r.model == "fake-model" and r.duration_s >= 0 for r in records)


def test_openai_is_not_imported_by_the_module(tmp_path):
    import subprocess
    import sys

    code = "import sys, autopatch_j.llm.openai_provider; print('openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("reply", "raw"),
    [
        (Reply(body=b"not json at all"), "not json at all"),
        (Reply(body=b"<html>oops</html>", content_type="text/html"), "<html>oops</html>"),
        (Reply(body=b'{"id": "x", "object": "chat.completion", "choices": []}'), '"choices":[]'),
    ],
)
def test_malformed_short_answers_are_response_errors_keeping_the_body(openai_server, provider, reply, raw):
    openai_server.enqueue(reply)
    with pytest.raises(LLMResponseError) as caught:
        provider.complete(_request(Purpose.EXTRACTION))
    assert raw in (caught.value.raw or "")


def test_malformed_stream_event_is_a_response_error(openai_server, provider):
    openai_server.enqueue(Reply(content_type="text/event-stream", chunks=[b"data: {bad\n\n", b"data: [DONE]\n\n"]))
    with pytest.raises(LLMResponseError) as caught:
        list(provider.stream(_request(Purpose.MAIN)))
    assert caught.value.raw == "{bad"


def test_error_event_inside_a_stream_is_a_provider_error(openai_server, provider):
    events = sse([{"error": {"message": "overloaded [/]", "code": "overloaded"}}])
    openai_server.enqueue(Reply(content_type="text/event-stream", chunks=events))
    with pytest.raises(LLMProviderError) as caught:
        list(provider.stream(_request(Purpose.MAIN)))
    assert caught.value.code == "overloaded"
    assert "overloaded [/]" in ErrorRecord.from_exception(caught.value).render()


def test_plain_json_answer_to_a_streamed_request_is_a_response_error(openai_server, provider):
    openai_server.reply_json("not streamed")
    with pytest.raises(LLMResponseError):
        provider.complete(_request(Purpose.MAIN))


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422, 429, 500, 503])
def test_every_http_error_status_is_an_llm_error_with_its_status(openai_server, provider, status):
    openai_server.reply_error(status, {"error": {"message": f"status {status}", "code": f"c{status}"}})
    with pytest.raises(LLMError) as caught:
        provider.complete(_request(Purpose.CLASSIFIER))
    assert isinstance(caught.value, LLMProviderError)
    assert (caught.value.status, caught.value.code) == (status, f"c{status}")
    assert len(openai_server.requests) == 1  # no SDK retries: the Memory job queue retries


def test_a_stream_abandoned_midway_is_recorded_as_cancelled(openai_server, provider, log):
    openai_server.reply_stream(["one ", "two ", "three"])
    stream = provider.stream(_request(Purpose.MAIN))
    assert next(stream) == TextDelta("one ")
    stream.close()
    record = log.last()
    assert record is not None and not record.ok
    assert record.error is not None and record.error.exception_type == "Cancelled"


def test_a_callers_timeout_is_the_whole_call_bound_of_a_short_purpose(openai_server, log):
    """A caller allowing 300 s per call (cloud memory, `cloud_memory_eval --timeout 300`) was cut at
    the short purposes' fixed 120 s deadline: the live eval's calls all ended at 120.0 s."""
    patient = OpenAIProvider(settings=openai_server.settings(), diagnostics=log, timeout_s=300)
    openai_server.reply_json("{}")
    try:
        patient.complete(_request(Purpose.EXTRACTION))
    finally:
        patient.close()
    record = log.last()
    assert record is not None and record.ok
    assert (record.strategy.timeout_s, record.strategy.deadline_s) == (300, 300)


def test_a_short_callers_timeout_also_shortens_the_deadline(openai_server):
    openai_server.reply_json("{}", delay_s=5)
    fast = OpenAIProvider(settings=openai_server.settings(), timeout_s=0.3)
    try:
        assert fast.strategy(_request(Purpose.CONSOLIDATION)).deadline_s == 0.3
        with pytest.raises(LLMTimeoutError):
            fast.complete(_request(Purpose.CONSOLIDATION))
    finally:
        fast.close()


def test_building_the_sdk_client_is_not_counted_against_the_deadline(openai_server):
    """Importing the SDK takes about a second on a loaded machine; a 0.3 s bound is the request's."""
    from autopatch_j.llm.openai_provider import default_client_factory

    def slow_factory(settings):
        time.sleep(0.6)
        return default_client_factory(settings)

    openai_server.reply_json('{"memories": []}')
    fast = OpenAIProvider(settings=openai_server.settings(), client_factory=slow_factory, timeout_s=0.3)
    try:
        assert fast.complete(_request(Purpose.EXTRACTION)).content == '{"memories": []}'
    finally:
        fast.close()
