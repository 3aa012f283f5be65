"""A canned `LLMProvider` for tests: responses queued per purpose, every request recorded.

    llm = CannedProvider()
    llm.enqueue(Purpose.EXTRACTION, '{"candidates": []}')
    llm.enqueue(Purpose.CONSOLIDATION, LLMTimeoutError("slow"))
    llm.enqueue(Purpose.MAIN, lambda request: ChatResponse(content=f"{len(request.messages)} messages"))

An entry is a `ChatResponse`, a plain string (the content), an exception instance (raised), or a
callable that receives the `ChatRequest` and returns a `ChatResponse` or string (or raises). Each
request pops the oldest entry of its purpose; with none left it asks the `default` responder, or
raises `CannedQueueEmpty` naming the purpose. `stream()` yields the content as word-sized
`TextDelta`s, then the final `ChatResponse`. Thread-safe: background workers may share one.
"""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import TypeAlias

from autopatch_j.llm.diagnostics import CallTimer, DiagnosticsLog
from autopatch_j.llm.errors import CannedQueueEmpty
from autopatch_j.llm.provider import ChatRequest, ChatResponse, Purpose, StreamEvent, TextDelta, strategy_for

Responder: TypeAlias = Callable[[ChatRequest], "ChatResponse | str"]
CannedEntry: TypeAlias = "ChatResponse | str | BaseException | Responder"

_PIECES = re.compile(r"\s*\S+\s*|\s+")


def split_deltas(text: str) -> list[str]:
    """Word-sized pieces whose concatenation is exactly `text`."""
    return _PIECES.findall(text)


class CannedProvider:
    """`LLMProvider` that answers from per-purpose queues and records every request."""

    def __init__(self, *, default: Responder | None = None, diagnostics: DiagnosticsLog | None = None) -> None:
        self._queues: dict[Purpose, deque[CannedEntry]] = {p: deque() for p in Purpose}
        self._requests: list[ChatRequest] = []
        self._default = default
        self._diagnostics = diagnostics
        self._lock = threading.Lock()

    def enqueue(self, purpose: Purpose, *entries: CannedEntry) -> CannedProvider:
        """Queue one or more entries for `purpose`, answered in order. Returns self for chaining."""
        with self._lock:
            self._queues[Purpose(purpose)].extend(entries)
        return self

    def pending(self, purpose: Purpose | None = None) -> int:
        """How many entries are still queued (for one purpose, or all)."""
        with self._lock:
            if purpose is not None:
                return len(self._queues[Purpose(purpose)])
            return sum(len(q) for q in self._queues.values())

    @property
    def requests(self) -> list[ChatRequest]:
        """Every request received, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    def requests_for(self, purpose: Purpose) -> list[ChatRequest]:
        return [r for r in self.requests if r.purpose == purpose]

    def complete(self, request: ChatRequest) -> ChatResponse:
        timer = CallTimer(self._diagnostics, request.purpose, strategy_for(request.purpose))
        try:
            response = self._answer(request)
        except BaseException as exc:
            timer.failed(exc)
            raise
        timer.ok()
        return response

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        # Take the entry now (not on first iteration) so the request is recorded in call order.
        timer = CallTimer(self._diagnostics, request.purpose, strategy_for(request.purpose))
        try:
            response = self._answer(request)
        except BaseException as exc:
            timer.failed(exc)
            return _raising(exc)
        timer.ok()
        return _streamed(response)

    def _answer(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self._requests.append(request)
            queue = self._queues[request.purpose]
            entry: CannedEntry | None = queue.popleft() if queue else None
        if entry is None:
            if self._default is None:
                raise CannedQueueEmpty(request.purpose.value)
            entry = self._default
        if isinstance(entry, BaseException):
            raise entry
        if callable(entry) and not isinstance(entry, ChatResponse):
            entry = entry(request)
        if isinstance(entry, str):
            return ChatResponse(content=entry, finish_reason="stop")
        return entry


def _streamed(response: ChatResponse) -> Iterator[StreamEvent]:
    for piece in split_deltas(response.content):
        yield TextDelta(piece)
    yield response


def _raising(exc: BaseException) -> Iterator[StreamEvent]:
    raise exc
    yield  # pragma: no cover - makes this a generator
