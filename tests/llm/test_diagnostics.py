"""Error records (M-71) and call records (M-70)."""

from __future__ import annotations

import json

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.diagnostics import (
    DiagnosticsLog,
    ErrorRecord,
    RecordingProvider,
    bound_text,
)
from autopatch_j.llm.errors import LLMProviderError, LLMResponseError, LLMTimeoutError
from autopatch_j.llm.provider import ChatRequest, Message, Purpose, strategy_for
from autopatch_j.runtime import MAX_ERROR_CHARS

try:  # the HTTP library the installed `openai` SDK is built on
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef]

SECRET_CHAR = "⟦"  # only the request (prompt) contains it
KEY_CHAR = "~"  # only the API key and headers contain it
free_text = st.text(alphabet=st.characters(blacklist_characters=SECRET_CHAR + KEY_CHAR, codec="utf-8"), max_size=40)


@st.composite
def long_text(draw: st.DrawFn) -> str:
    return draw(free_text) * draw(st.integers(0, 1500))


def _status_error(status: int, body_text: str, *, key: str, messages: list[str]) -> openai.APIStatusError:
    request = httpx.Request(
        "POST",
        "http://127.0.0.1:9/v1/chat/completions",
        headers={"Authorization": f"Bearer {key}", "X-Secret-Header": key},
        json={"model": "m", "messages": [{"role": "user", "content": m} for m in messages]},
    )
    response = httpx.Response(status, request=request, content=body_text.encode())
    try:
        body: object = json.loads(body_text)
    except ValueError:
        body = body_text
    return openai.APIStatusError(f"Error code: {status} - {body_text[:100]}", response=response, body=body)


@settings(max_examples=60, deadline=None)
@given(
    status=st.integers(400, 599),
    body=long_text(),
    message=long_text(),
    code=st.none() | free_text,
    prompt=st.text(min_size=1, max_size=30),
)
def test_any_error_renders_within_bound_and_without_the_request(status, body, message, code, prompt):
    secret_prompt = f"{SECRET_CHAR}PROMPT {prompt}"
    secret_key = f"sk{KEY_CHAR}{abs(hash(prompt))}"
    exceptions: list[BaseException] = [
        _status_error(status, body, key=secret_key, messages=[secret_prompt]),
        LLMProviderError(message, status=status, code=code, body={"detail": body}, response_text=body),
        LLMResponseError(message, raw=body),
        ValueError(message),
    ]
    for exc in exceptions:
        rendered = ErrorRecord.from_exception(exc).render()
        assert len(rendered) <= MAX_ERROR_CHARS
        assert SECRET_CHAR not in rendered
        assert KEY_CHAR not in rendered
        assert type(exc).__name__ in rendered


@given(text=long_text(), limit=st.integers(1, 30_000))
def test_bound_text_never_exceeds_its_limit(text, limit):
    bounded = bound_text(text, limit)
    assert len(bounded) <= limit
    if len(text) <= limit:
        assert bounded == text
    elif limit > 40:
        assert "truncated" in bounded
        assert text.startswith(bounded.split("\n…[truncated")[0])


def test_record_keeps_status_code_bodies_and_provider_content_verbatim():
    exc = LLMProviderError(
        "Error code: 429 - rate limited [bold]now[/]",
        status=429,
        code="rate_limit",
        body={"message": "rate limited [bold]now[/]", "code": "rate_limit"},
        response_text='{"error": {"message": "rate limited [bold]now[/]"}}',
    )
    record = ErrorRecord.from_exception(exc)
    assert (record.exception_type, record.status, record.code) == ("LLMProviderError", 429, "rate_limit")
    rendered = record.render()
    assert rendered.splitlines()[:3] == ["LLMProviderError", "status: 429", "code: rate_limit"]
    assert "message: Error code: 429 - rate limited [bold]now[/]" in rendered
    assert 'exception body: {"message": "rate limited [bold]now[/]", "code": "rate_limit"}' in rendered
    assert 'provider response body: {"error": {"message": "rate limited [bold]now[/]"}}' in rendered


def test_huge_fields_share_the_budget_and_keep_the_head():
    exc = LLMProviderError("m" * 50_000, status=500, code="E", body="b" * 50_000, response_text="p" * 50_000)
    rendered = ErrorRecord.from_exception(exc).render()
    assert len(rendered) <= MAX_ERROR_CHARS
    assert rendered.startswith("LLMProviderError\nstatus: 500\ncode: E\nmessage: mmm")
    assert "exception body: bbb" in rendered and "provider response body: ppp" in rendered
    assert rendered.count("truncated") == 3


def test_response_error_keeps_raw_model_text():
    record = ErrorRecord.from_exception(LLMResponseError("not JSON", raw="Sure! Here is {oops"))
    assert record.provider_body == "Sure! Here is {oops"


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (LLMTimeoutError("slow"), "the LLM request timed out"),
        (LLMProviderError("x", status=503), "the LLM provider returned HTTP 503"),
        (LLMResponseError("bad", raw="{"), "the LLM call failed (LLMResponseError)"),
    ],
)
def test_concise_status_has_no_provider_content(exc, expected):
    assert ErrorRecord.from_exception(exc).concise() == expected


def test_recording_provider_records_purpose_strategy_duration_and_outcome():
    ticks = iter([10.0, 10.25, 20.0, 21.0])
    log = DiagnosticsLog()
    inner = CannedProvider().enqueue(Purpose.EXTRACTION, "{}").enqueue(Purpose.MAIN, LLMTimeoutError("slow"))
    provider = RecordingProvider(inner, log, clock=lambda: next(ticks))
    provider.complete(ChatRequest(Purpose.EXTRACTION, [Message("user", "hi")]))
    with pytest.raises(LLMTimeoutError):
        list(provider.stream(ChatRequest(Purpose.MAIN, [Message("user", "secret prompt")])))
    ok, failed = log.records
    assert (ok.purpose, ok.strategy, ok.duration_s, ok.ok, ok.error) == (
        Purpose.EXTRACTION,
        strategy_for(Purpose.EXTRACTION),
        0.25,
        True,
        None,
    )
    assert (failed.purpose, failed.ok, failed.duration_s) == (Purpose.MAIN, False, 1.0)
    assert failed.error is not None and failed.error.exception_type == "LLMTimeoutError"
    assert "secret prompt" not in json.dumps(failed.to_dict())
    assert log.for_purpose(Purpose.MAIN) == [failed]


def test_log_is_bounded():
    log = DiagnosticsLog(max_records=3)
    provider = RecordingProvider(CannedProvider(default=lambda r: "ok"), log)
    for _ in range(5):
        provider.complete(ChatRequest(Purpose.CLASSIFIER, []))
    assert len(log.records) == 3
    log.clear()
    assert log.records == [] and log.last() is None
