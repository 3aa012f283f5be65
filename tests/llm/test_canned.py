"""The canned provider is a real test fake: queues per purpose, records requests, streams deltas."""

from __future__ import annotations

import threading

import pytest

from autopatch_j.llm.canned import CannedProvider, split_deltas
from autopatch_j.llm.diagnostics import DiagnosticsLog
from autopatch_j.llm.errors import CannedQueueEmpty, LLMError, LLMTimeoutError
from autopatch_j.llm.provider import (
    ChatRequest,
    ChatResponse,
    LLMProvider,
    Message,
    Purpose,
    TextDelta,
    ToolCall,
    strategy_for,
)


def _req(purpose: Purpose, text: str = "hi") -> ChatRequest:
    return ChatRequest(purpose, [Message("user", text)])


def test_is_an_llm_provider():
    assert isinstance(CannedProvider(), LLMProvider)


def test_answers_in_order_per_purpose():
    llm = CannedProvider()
    llm.enqueue(Purpose.EXTRACTION, "e1", "e2").enqueue(Purpose.CONSOLIDATION, "c1")
    assert llm.complete(_req(Purpose.EXTRACTION)).content == "e1"
    assert llm.complete(_req(Purpose.CONSOLIDATION)).content == "c1"
    assert llm.complete(_req(Purpose.EXTRACTION)).content == "e2"
    assert llm.pending() == 0


def test_plain_string_becomes_a_stop_response():
    llm = CannedProvider().enqueue(Purpose.CLASSIFIER, '{"route": "general_chat"}')
    assert llm.complete(_req(Purpose.CLASSIFIER)) == ChatResponse('{"route": "general_chat"}', finish_reason="stop")


def test_full_response_with_tool_calls_is_returned_as_is():
    response = ChatResponse("", tool_calls=(ToolCall("c1", "read_file", "{}"),), finish_reason="tool_calls")
    llm = CannedProvider().enqueue(Purpose.MAIN, response)
    assert llm.complete(_req(Purpose.MAIN)) is response


def test_exception_entry_is_raised():
    llm = CannedProvider().enqueue(Purpose.EXTRACTION, LLMTimeoutError("slow"))
    with pytest.raises(LLMTimeoutError, match="slow"):
        llm.complete(_req(Purpose.EXTRACTION))


def test_callable_entry_receives_the_request():
    llm = CannedProvider().enqueue(Purpose.MAIN, lambda r: f"echo {r.messages[-1].content}")
    assert llm.complete(_req(Purpose.MAIN, "ping")).content == "echo ping"


def test_callable_entry_may_raise():
    def boom(_request: ChatRequest) -> str:
        raise LLMTimeoutError("from callable")

    llm = CannedProvider().enqueue(Purpose.MAIN, boom)
    with pytest.raises(LLMTimeoutError):
        llm.complete(_req(Purpose.MAIN))


def test_empty_queue_raises_a_typed_error_naming_the_purpose():
    llm = CannedProvider().enqueue(Purpose.MAIN, "only main")
    with pytest.raises(CannedQueueEmpty, match="consolidation") as caught:
        llm.complete(_req(Purpose.CONSOLIDATION))
    assert caught.value.purpose == "consolidation"
    assert isinstance(caught.value, LLMError)


def test_default_responder_answers_when_the_queue_is_empty():
    llm = CannedProvider(default=lambda r: r.purpose.value).enqueue(Purpose.MAIN, "queued first")
    assert llm.complete(_req(Purpose.MAIN)).content == "queued first"
    assert llm.complete(_req(Purpose.MAIN)).content == "main"
    assert llm.complete(_req(Purpose.EXTRACTION)).content == "extraction"


def test_every_request_is_recorded_even_failed_ones():
    llm = CannedProvider().enqueue(Purpose.EXTRACTION, "ok")
    first, second = _req(Purpose.EXTRACTION, "a"), _req(Purpose.CLASSIFIER, "b")
    llm.complete(first)
    with pytest.raises(CannedQueueEmpty):
        llm.complete(second)
    assert llm.requests == [first, second]
    assert llm.requests_for(Purpose.EXTRACTION) == [first]
    assert llm.requests_for(Purpose.MAIN) == []


def test_stream_splits_text_into_deltas_then_one_final_response():
    llm = CannedProvider().enqueue(Purpose.MAIN, "Hello brave  new 世界\n")
    events = list(llm.stream(_req(Purpose.MAIN)))
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == "Hello brave  new 世界\n"
    assert events[-1] == ChatResponse("Hello brave  new 世界\n", finish_reason="stop")
    assert sum(isinstance(e, ChatResponse) for e in events) == 1


@pytest.mark.parametrize("text", ["", " ", "a", "  lead and trail  ", "多字节\t文本 x"])
def test_split_deltas_concatenates_back(text):
    assert "".join(split_deltas(text)) == text


def test_stream_of_a_queued_exception_raises_on_iteration():
    llm = CannedProvider().enqueue(Purpose.MAIN, LLMTimeoutError("slow"))
    stream = llm.stream(_req(Purpose.MAIN))
    assert len(llm.requests) == 1
    with pytest.raises(LLMTimeoutError):
        next(iter(stream))


def test_diagnostics_record_purpose_and_strategy():
    log = DiagnosticsLog()
    llm = CannedProvider(diagnostics=log).enqueue(Purpose.EXTRACTION, "{}")
    llm.complete(_req(Purpose.EXTRACTION))
    with pytest.raises(CannedQueueEmpty):
        llm.complete(_req(Purpose.CONSOLIDATION))
    ok, failed = log.records
    assert (ok.purpose, ok.strategy, ok.ok) == (Purpose.EXTRACTION, strategy_for(Purpose.EXTRACTION), True)
    assert (failed.purpose, failed.ok) == (Purpose.CONSOLIDATION, False)
    assert failed.error is not None and failed.error.exception_type == "CannedQueueEmpty"


def test_threads_share_one_queue_without_losing_or_duplicating_answers():
    llm = CannedProvider().enqueue(Purpose.EXTRACTION, *[str(i) for i in range(400)])
    answers: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(100):
            content = llm.complete(_req(Purpose.EXTRACTION)).content
            with lock:
                answers.append(content)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers, key=int) == [str(i) for i in range(400)]
    assert len(llm.requests) == 400
