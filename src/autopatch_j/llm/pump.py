"""Requests that can be abandoned: an overall deadline, and cancellation that returns at once.

`pump(produce, cancel=…, deadline_s=…)` runs the provider's event iterator in a daemon thread and
hands its events over through a queue. The consumer stops waiting as soon as `cancel` is set
(`LLMCancelled`) or the deadline passes (`on_deadline()`), even while the provider is silent: the
request is abandoned, not awaited — its thread ends on its own when the provider answers or its
socket times out, and whatever it still produces is dropped. The SDK's request timeout bounds only
the gaps between events; the deadline bounds the whole request. The consumer never blocks longer
than one poll: a SIGINT/SIGTERM the kernel hands to the request's thread runs its Python handler
only when the main thread next runs bytecode, so an unbounded wait would hold the signal until the
provider answers.

`CancellableProvider(provider, cancel)` applies the same to any `LLMProvider`, for one request.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from autopatch_j.llm.errors import LLMCancelled, LLMResponseError
from autopatch_j.llm.provider import ChatRequest, ChatResponse, LLMProvider, StreamEvent

T = TypeVar("T")
POLL_SECONDS = 0.05
_END = object()


def pump(
    produce: Callable[[], Iterator[T]],
    *,
    cancel: threading.Event | None = None,
    deadline_s: float | None = None,
    on_deadline: Callable[[], BaseException] | None = None,
    poll_s: float = POLL_SECONDS,
) -> Iterator[T]:
    """The events of `produce()`, abandoned on `cancel` or after `deadline_s` seconds."""
    handoff: queue.SimpleQueue[tuple[object, BaseException | None]] = queue.SimpleQueue()
    abandoned = threading.Event()

    def run() -> None:
        try:
            events = produce()
            try:
                for event in events:
                    if abandoned.is_set():
                        break
                    handoff.put((event, None))
            finally:
                close = getattr(events, "close", None)
                if callable(close):
                    with contextlib.suppress(Exception):
                        close()
        except BaseException as exc:  # handed to the consumer, re-raised there
            handoff.put((_END, exc))
            return
        handoff.put((_END, None))

    threading.Thread(target=run, name="llm-request", daemon=True).start()
    ends_at = None if deadline_s is None else time.monotonic() + deadline_s
    try:
        while True:
            if cancel is not None and cancel.is_set():
                raise LLMCancelled()
            wait = poll_s
            if ends_at is not None:
                remaining = ends_at - time.monotonic()
                if remaining <= 0:
                    raise on_deadline() if on_deadline is not None else TimeoutError(f"deadline of {deadline_s} s")
                wait = min(wait, remaining)
            try:
                item, error = handoff.get(timeout=wait)
            except queue.Empty:
                continue
            if item is _END:
                if error is not None:
                    raise error
                return
            yield item  # type: ignore[misc]  # everything but _END came from `produce()`
    finally:
        abandoned.set()


class CancellableProvider:
    """An `LLMProvider` whose calls stop waiting the moment `cancel` is set (one request's view)."""

    def __init__(self, provider: LLMProvider, cancel: threading.Event) -> None:
        self._provider = provider
        self._cancel = cancel

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        return pump(lambda: self._provider.stream(request), cancel=self._cancel)

    def complete(self, request: ChatRequest) -> ChatResponse:
        for response in pump(lambda: iter((self._provider.complete(request),)), cancel=self._cancel):
            return response
        raise LLMResponseError("the LLM call ended without a response")  # pragma: no cover
