"""The OpenAI-compatible provider, on the official `openai` SDK (H-1).

Works with any endpoint that speaks `POST {base_url}/chat/completions`: OpenAI, DeepSeek,
Qwen/DashScope, vLLM, llama.cpp server, Ollama, LM Studio … Every call follows
`strategy_for(purpose)` (M-70) whichever method is used: the main answer is streamed (`complete()`
streams and accumulates), the short calls are one non-streamed request at temperature 0 with a
bounded `max_tokens`, JSON mode, and no reasoning parameter. The main answer is capped too
(`max_tokens` = `settings.limits.max_output_tokens`), and every request runs under an overall deadline
(`llm.pump`: the main answer's is `settings.limits.deadline_s`) — a clear `LLMTimeoutError` when hit,
however steadily the provider streams. `settings.extra_body` is merged into
every request body but never overrides a parameter the strategy sets. SDK exceptions are translated
here into `LLMError` subclasses. `openai` is imported on the first call, not at module import.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from autopatch_j.llm.config import LLMSettings
from autopatch_j.llm.diagnostics import CallTimer, DiagnosticsLog, bound_text
from autopatch_j.llm.errors import (
    LLMConnectionError,
    LLMError,
    LLMProviderError,
    LLMResponseError,
    LLMTimeoutError,
)
from autopatch_j.llm.provider import (
    ChatRequest,
    ChatResponse,
    Message,
    Purpose,
    RequestStrategy,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolSpec,
    Usage,
    strategy_for,
)
from autopatch_j.llm.pump import pump
from autopatch_j.runtime import MAX_ERROR_CHARS

ClientFactory = Callable[[LLMSettings], Any]
"""Builds the SDK client (an `openai.OpenAI` or anything with `.chat.completions.create`)."""


def default_client_factory(settings: LLMSettings, *, max_retries: int = 0) -> Any:
    """An `openai.OpenAI` client for the settings; retries are left to the Memory job queue."""
    import openai

    return openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url, max_retries=max_retries)


class OpenAIProvider:
    """`LLMProvider` over an OpenAI-compatible endpoint."""

    def __init__(
        self,
        *,
        settings: LLMSettings,
        client_factory: ClientFactory | None = None,
        diagnostics: DiagnosticsLog | None = None,
        timeout_s: float | None = None,
        max_retries: int = 0,
    ) -> None:
        self._settings = settings
        self._factory: ClientFactory = client_factory or (lambda s: default_client_factory(s, max_retries=max_retries))
        self._diagnostics = diagnostics
        # A caller's per-call bound (cloud memory's `memory_llm_timeout_seconds`, the eval's
        # `--timeout`): it replaces the strategy's request timeout and, for the short purposes, their
        # whole-call deadline too — a caller that allows 300 s per call must not be cut at 120 s.
        self._timeout_override = timeout_s
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def settings(self) -> LLMSettings:
        return self._settings

    def strategy(self, request: ChatRequest) -> RequestStrategy:
        """The strategy this provider applies to `request` (M-70), as recorded in diagnostics."""
        strategy = strategy_for(request.purpose)
        if request.purpose is Purpose.MAIN:
            limits = self._settings.limits
            strategy = dataclasses.replace(
                strategy, max_output_tokens=limits.max_output_tokens, deadline_s=limits.deadline_s
            )
        if self._timeout_override is not None:
            deadline = strategy.deadline_s if request.purpose is Purpose.MAIN else self._timeout_override
            strategy = dataclasses.replace(strategy, timeout_s=self._timeout_override, deadline_s=deadline)
        return strategy

    def complete(self, request: ChatRequest) -> ChatResponse:
        final: ChatResponse | None = None
        for event in self.stream(request):
            if isinstance(event, ChatResponse):
                final = event
        if final is None:  # pragma: no cover - stream() always ends with a ChatResponse
            raise LLMResponseError("the LLM stream ended without a final response")
        return final

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        strategy = self.strategy(request)
        timer = CallTimer(self._diagnostics, request.purpose, strategy, model=self._settings.model)
        try:
            self._sdk_client()  # importing the SDK and building its client is not the request's time
            yield from pump(
                lambda: self._events(request, strategy),
                deadline_s=strategy.deadline_s,
                on_deadline=lambda: LLMTimeoutError(deadline_message(request.purpose, strategy)),
            )
        except BaseException as exc:
            timer.failed(exc)
            raise
        timer.ok()

    def _events(self, request: ChatRequest, strategy: RequestStrategy) -> Iterator[StreamEvent]:
        if strategy.stream:
            yield from self._streamed(request, strategy)
            return
        response = self._single(request, strategy)
        if response.content:
            yield TextDelta(response.content)
        yield response

    def close(self) -> None:
        """Close the SDK client's connections, if a client was built."""
        with self._lock:
            client, self._client = self._client, None
        close = getattr(client, "close", None)
        if callable(close):
            close()

    # -- the SDK border ---------------------------------------------------------------------------

    def _sdk_client(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = self._factory(self._settings)
            return self._client

    def _kwargs(self, request: ChatRequest, strategy: RequestStrategy) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self._settings.model,
            "messages": [message_param(m) for m in request.messages],
        }
        if request.tools:
            kwargs["tools"] = [tool_param(t) for t in request.tools]
        if strategy.temperature is not None:
            kwargs["temperature"] = strategy.temperature
        if strategy.max_output_tokens is not None:
            kwargs["max_tokens"] = strategy.max_output_tokens
        if strategy.json_output and not request.tools:
            kwargs["response_format"] = {"type": "json_object"}
        if strategy.stream:
            kwargs["stream"] = True
        extra = {k: v for k, v in self._settings.extra_body.items() if k not in kwargs}
        if extra:
            kwargs["extra_body"] = extra
        kwargs["timeout"] = strategy.timeout_s
        return kwargs

    def _single(self, request: ChatRequest, strategy: RequestStrategy) -> ChatResponse:
        import openai

        try:
            completion = self._sdk_client().chat.completions.create(**self._kwargs(request, strategy))
        except openai.OpenAIError as exc:
            raise translate_sdk_error(exc, strategy.timeout_s) from exc
        except ValueError as exc:  # the SDK could not decode the body as JSON
            raise _undecodable(exc) from exc
        return response_from_completion(completion)

    def _streamed(self, request: ChatRequest, strategy: RequestStrategy) -> Iterator[StreamEvent]:
        import openai

        builder = _StreamBuilder()
        try:
            chunks = self._sdk_client().chat.completions.create(**self._kwargs(request, strategy))
            try:
                for chunk in chunks:
                    text = builder.add(chunk)
                    if text:
                        yield TextDelta(text)
            finally:
                close = getattr(chunks, "close", None)
                if callable(close):
                    close()
        except openai.OpenAIError as exc:
            raise translate_sdk_error(exc, strategy.timeout_s) from exc
        except ValueError as exc:  # an SSE event that is not JSON
            raise _undecodable(exc) from exc
        if builder.chunks == 0:
            raise LLMResponseError("the LLM provider answered a streamed request without any stream event")
        yield builder.response()


def deadline_message(purpose: Purpose, strategy: RequestStrategy) -> str:
    """One sentence for a request that ran past its overall deadline."""
    setting = " (AUTOPATCH_LLM_DEADLINE_SECONDS)" if purpose is Purpose.MAIN else ""
    return (
        f"the LLM request ({purpose.value}) did not finish within its {strategy.deadline_s:g} s deadline{setting}; "
        "it was abandoned — ask a narrower question, or use a faster model"
    )


def translate_sdk_error(exc: Exception, timeout_s: float) -> LLMError:
    """An `openai` SDK exception as an `LLMError`, keeping only the provider's own fields."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return LLMTimeoutError(f"the LLM request timed out after {timeout_s:g} s")
    if isinstance(exc, openai.APIStatusError):
        return LLMProviderError(
            exc.message,
            status=exc.status_code,
            code=exc.code,
            body=exc.body,
            response_text=_response_text(exc.response),
        )
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f"{exc.message} ({type(cause).__name__}: {cause})" if cause else exc.message
        return LLMConnectionError(f"cannot reach the LLM provider: {detail}")
    if isinstance(exc, openai.APIResponseValidationError):
        return LLMResponseError(exc.message, raw=_response_text(exc.response))
    if isinstance(exc, openai.APIError):  # e.g. an `error` event inside an SSE stream
        return LLMProviderError(exc.message, code=exc.code, body=exc.body)
    return LLMProviderError(f"{type(exc).__name__}: {exc}")


def _undecodable(exc: ValueError) -> LLMResponseError:
    doc = getattr(exc, "doc", None)  # json.JSONDecodeError keeps the text it could not decode
    raw = bound_text(doc, MAX_ERROR_CHARS) if isinstance(doc, str) else None
    return LLMResponseError(f"the LLM provider sent a body that is not valid JSON: {exc}", raw=raw)


def _response_text(response: Any) -> str | None:
    try:
        text = response.text
    except Exception:  # an unread streaming body
        return None
    return bound_text(text, MAX_ERROR_CHARS) if isinstance(text, str) else None


# -- conversions (dicts only at this border) ------------------------------------------------------


def message_param(message: Message) -> dict[str, Any]:
    """A `Message` in the OpenAI chat format."""
    param: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.role == "tool":
        param["tool_call_id"] = message.tool_call_id
        param["content"] = message.content or ""
    if message.tool_calls:
        param["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    elif param["content"] is None:
        param["content"] = ""
    return param


def tool_param(tool: ToolSpec) -> dict[str, Any]:
    """A `ToolSpec` as an OpenAI function tool."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": json.loads(json.dumps(dict(tool.parameters))),
        },
    }


def _usage(raw: Any) -> Usage:
    def count(name: str) -> int:
        value = getattr(raw, name, 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return Usage() if raw is None else Usage(count("prompt_tokens"), count("completion_tokens"))


def response_from_completion(completion: Any) -> ChatResponse:
    """A non-streamed `ChatCompletion` as a `ChatResponse`."""
    choices = getattr(completion, "choices", None) or []
    if not choices:
        raise LLMResponseError("the LLM answered with no choices", raw=_dump(completion))
    choice = choices[0]
    message = getattr(choice, "message", None)
    calls: list[ToolCall] = []
    for raw in getattr(message, "tool_calls", None) or []:
        function = getattr(raw, "function", None)
        if function is None:
            continue
        calls.append(
            ToolCall(
                id=str(getattr(raw, "id", None) or f"call_{len(calls)}"),
                name=str(getattr(function, "name", "") or ""),
                arguments=str(getattr(function, "arguments", "") or ""),
            )
        )
    return ChatResponse(
        content=str(getattr(message, "content", None) or ""),
        tool_calls=tuple(calls),
        finish_reason=getattr(choice, "finish_reason", None),
        usage=_usage(getattr(completion, "usage", None)),
    )


def _dump(value: Any) -> str:
    if isinstance(value, str | bytes):  # the SDK hands back a body it could not parse as-is
        text = value if isinstance(value, str) else value.decode("utf-8", errors="replace")
        return bound_text(text, MAX_ERROR_CHARS)
    dump = getattr(value, "model_dump_json", None)
    text = dump() if callable(dump) else repr(value)
    return bound_text(str(text), MAX_ERROR_CHARS)


@dataclass
class _ToolCallBuilder:
    id: str = ""
    name: str = ""
    arguments: str = ""


class _StreamBuilder:
    """Accumulates streamed chunks (text and tool-call deltas) into one final `ChatResponse`."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._calls: dict[int, _ToolCallBuilder] = {}
        self._finish_reason: str | None = None
        self._usage = Usage()
        self.chunks = 0

    def add(self, chunk: Any) -> str:
        """Fold one chunk in; returns the text it added."""
        self.chunks += 1
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self._usage = _usage(usage)
        choices = getattr(chunk, "choices", None) or []
        if not choices:
            return ""
        choice = choices[0]
        if getattr(choice, "finish_reason", None):
            self._finish_reason = choice.finish_reason
        delta = getattr(choice, "delta", None)
        if delta is None:
            return ""
        for raw in getattr(delta, "tool_calls", None) or []:
            index = getattr(raw, "index", None)
            key = index if isinstance(index, int) else len(self._calls)
            call = self._calls.setdefault(key, _ToolCallBuilder())
            if getattr(raw, "id", None):
                call.id = raw.id
            function = getattr(raw, "function", None)
            if function is not None:
                call.name += getattr(function, "name", None) or ""
                call.arguments += getattr(function, "arguments", None) or ""
        text = getattr(delta, "content", None) or ""
        if text:
            self._text.append(text)
        return str(text)

    def response(self) -> ChatResponse:
        calls = tuple(
            ToolCall(id=c.id or f"call_{i}", name=c.name, arguments=c.arguments) for i, c in sorted(self._calls.items())
        )
        return ChatResponse(
            content="".join(self._text),
            tool_calls=calls,
            finish_reason=self._finish_reason,
            usage=self._usage,
        )
