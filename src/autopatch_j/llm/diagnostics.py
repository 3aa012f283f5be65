"""Diagnostics of LLM calls (M-70, M-71).

`ErrorRecord` is the RAW error kept for a failed call: exception type, message, structured
status/code, the exception body and the provider's response body, rendered to at most 20,000
characters. It is built only from the exception's own fields: the request (messages, prompt,
headers, auth) is never read, and the provider's content is never rewritten — only cut to the bound.

`CallRecord` says which purpose and request strategy each call used, how long it took and how it
ended; providers append them to a `DiagnosticsLog`. `RecordingProvider` adds that to any provider.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from autopatch_j.llm.errors import LLMProviderError, LLMResponseError, LLMTimeoutError
from autopatch_j.llm.provider import (
    ChatRequest,
    ChatResponse,
    LLMProvider,
    Purpose,
    RequestStrategy,
    StreamEvent,
    strategy_for,
)
from autopatch_j.runtime import MAX_ERROR_CHARS

TRUNCATION_MARKER = "\n…[truncated {n} chars]"


def bound_text(text: str, limit: int) -> str:
    """`text` cut to at most `limit` chars, ending with a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    keep = limit
    for _ in range(3):  # the marker's length depends on the number it reports
        marker = TRUNCATION_MARKER.format(n=len(text) - keep)
        keep = limit - len(marker)
    if keep <= 0:
        return text[:limit]
    return (text[:keep] + TRUNCATION_MARKER.format(n=len(text) - keep))[:limit]


@dataclass(frozen=True, slots=True)
class ErrorRecord:
    """The RAW diagnostic of one failed call (M-71)."""

    exception_type: str
    message: str
    status: int | None = None
    code: str | None = None
    exception_body: str | None = None
    provider_body: str | None = None

    @classmethod
    def from_exception(cls, exc: BaseException) -> ErrorRecord:
        """Read only the exception's own fields (never `exc.request`, headers or arguments)."""
        status = _as_int(getattr(exc, "status", None))
        if status is None:
            status = _as_int(getattr(exc, "status_code", None))
        code = getattr(exc, "code", None)
        body = getattr(exc, "body", None)
        provider_body: str | None = None
        if isinstance(exc, LLMProviderError):
            provider_body = exc.response_text
        elif isinstance(exc, LLMResponseError):
            provider_body = exc.raw
        else:
            provider_body = _sdk_response_text(exc)
        return cls(
            exception_type=type(exc).__name__,
            message=str(exc),
            status=status,
            code=None if code is None else str(code),
            exception_body=None if body is None else _body_text(body),
            provider_body=provider_body,
        )

    def render(self, limit: int = MAX_ERROR_CHARS) -> str:
        """The RAW text, at most `limit` chars; long free-text fields share the budget fairly."""
        head = [self.exception_type]
        if self.status is not None:
            head.append(f"status: {self.status}")
        if self.code is not None:
            head.append(f"code: {bound_text(self.code, 200)}")
        head_text = "\n".join(head)
        labels = ("message: ", "exception body: ", "provider response body: ")
        values = (self.message, self.exception_body, self.provider_body)
        parts = [(label, value) for label, value in zip(labels, values, strict=True) if value]
        overhead = len(head_text) + sum(len(label) + 1 for label, _ in parts)
        budgets = _share(limit - overhead, [len(value) for _, value in parts])
        lines = [head_text]
        for (label, value), budget in zip(parts, budgets, strict=True):
            lines.append(label + bound_text(value, budget))
        return bound_text("\n".join(lines), limit)

    def concise(self) -> str:
        """A short, content-free status for normal mode (M-72)."""
        if self.exception_type == LLMTimeoutError.__name__:
            return "the LLM request timed out"
        if self.status is not None:
            return f"the LLM provider returned HTTP {self.status}"
        return f"the LLM call failed ({self.exception_type})"

    def to_dict(self) -> dict[str, object]:
        return {
            "exception_type": self.exception_type,
            "message": self.message,
            "status": self.status,
            "code": self.code,
            "exception_body": self.exception_body,
            "provider_body": self.provider_body,
        }


def _share(budget: int, sizes: Sequence[int]) -> list[int]:
    """Split `budget` among fields: small ones whole, the rest equal shares (water-filling)."""
    budget = max(budget, 0)
    result = [0] * len(sizes)
    remaining = sorted(range(len(sizes)), key=lambda i: sizes[i])
    while remaining:
        share = budget // len(remaining)
        i = remaining.pop(0)
        result[i] = min(sizes[i], share)
        budget -= result[i]
    return result


def _as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _body_text(body: object) -> str:
    if isinstance(body, str):
        return body
    if isinstance(body, bytes):
        return body.decode("utf-8", errors="replace")
    try:
        return json.dumps(body, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(body)


def _sdk_response_text(exc: BaseException) -> str | None:
    """The provider's raw body of an SDK status error, if it was read (never the request)."""
    response = getattr(exc, "response", None)
    if response is None:
        return None
    try:
        text = response.text
    except Exception:  # an unread streaming response, or not an HTTP response at all
        return None
    return text if isinstance(text, str) else None


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One LLM call: its purpose and request strategy (M-70), duration and outcome."""

    purpose: Purpose
    strategy: RequestStrategy
    duration_s: float
    ok: bool
    error: ErrorRecord | None = None
    model: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "purpose": self.purpose.value,
            "strategy": {
                "stream": self.strategy.stream,
                "reasoning": self.strategy.reasoning,
                "temperature": self.strategy.temperature,
                "max_output_tokens": self.strategy.max_output_tokens,
                "timeout_s": self.strategy.timeout_s,
                "json_output": self.strategy.json_output,
            },
            "duration_s": self.duration_s,
            "ok": self.ok,
            "error": None if self.error is None else self.error.to_dict(),
            "model": self.model,
        }


class DiagnosticsLog:
    """A bounded, thread-safe, in-memory list of recent `CallRecord`s."""

    def __init__(self, *, max_records: int = 500) -> None:
        self._records: deque[CallRecord] = deque(maxlen=max_records)
        self._lock = threading.Lock()

    def append(self, record: CallRecord) -> None:
        with self._lock:
            self._records.append(record)

    @property
    def records(self) -> list[CallRecord]:
        with self._lock:
            return list(self._records)

    def for_purpose(self, purpose: Purpose) -> list[CallRecord]:
        return [r for r in self.records if r.purpose == purpose]

    def last(self) -> CallRecord | None:
        with self._lock:
            return self._records[-1] if self._records else None

    def clear(self) -> None:
        with self._lock:
            self._records.clear()


class CallTimer:
    """Records one call into a log (or nowhere): `ok()` or `failed(exc)`, exactly once."""

    def __init__(
        self,
        log: DiagnosticsLog | None,
        purpose: Purpose,
        strategy: RequestStrategy,
        *,
        model: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log = log
        self._purpose = purpose
        self._strategy = strategy
        self._model = model
        self._clock = clock
        self._start = clock()
        self._done = False

    def ok(self) -> None:
        self._finish(None)

    def failed(self, exc: BaseException) -> None:
        if isinstance(exc, GeneratorExit):  # the caller stopped reading the stream (e.g. Ctrl-C)
            self._finish(ErrorRecord("Cancelled", "the caller stopped reading the stream"))
        else:
            self._finish(ErrorRecord.from_exception(exc))

    def _finish(self, error: ErrorRecord | None) -> None:
        if self._done or self._log is None:
            self._done = True
            return
        self._done = True
        self._log.append(
            CallRecord(
                purpose=self._purpose,
                strategy=self._strategy,
                duration_s=self._clock() - self._start,
                ok=error is None,
                error=error,
                model=self._model,
            )
        )


class RecordingProvider:
    """Wraps any `LLMProvider` and records every call's purpose, strategy and outcome."""

    def __init__(
        self,
        inner: LLMProvider,
        log: DiagnosticsLog,
        *,
        strategies: Mapping[Purpose, RequestStrategy] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._inner = inner
        self._log = log
        self._strategies = strategies
        self._clock = clock

    def _timer(self, request: ChatRequest) -> CallTimer:
        strategy = (self._strategies or {}).get(request.purpose) or strategy_for(request.purpose)
        return CallTimer(self._log, request.purpose, strategy, clock=self._clock)

    def complete(self, request: ChatRequest) -> ChatResponse:
        timer = self._timer(request)
        try:
            response = self._inner.complete(request)
        except BaseException as exc:
            timer.failed(exc)
            raise
        timer.ok()
        return response

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        timer = self._timer(request)
        try:
            yield from self._inner.stream(request)
        except BaseException as exc:
            timer.failed(exc)
            raise
        timer.ok()
