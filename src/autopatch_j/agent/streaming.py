"""One streamed model call, shown as it arrives: the loop the ReAct host and the repair agents share."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from autopatch_j.llm.provider import ChatRequest, ChatResponse, LLMProvider, StreamEvent, TextDelta


def stream_call(
    provider: LLMProvider,
    request: ChatRequest,
    *,
    check: Callable[[], None],
    emit: Callable[[str], None] | None = None,
    before_first: Callable[[], None] | None = None,
) -> tuple[str, ChatResponse | None]:
    """Stream `request`: `check()` before each event (it raises to cancel), each text piece to `emit`
    (the call's leading whitespace dropped; `before_first` runs once before the first piece). Returns
    the text shown and the final response, if the stream sent one; the stream is always closed."""
    events: Iterator[StreamEvent] = provider.stream(request)
    parts: list[str] = []
    final: ChatResponse | None = None
    try:
        for event in events:
            check()
            if isinstance(event, TextDelta):
                text = event.text if parts else event.text.lstrip()
                if not text:
                    continue  # leading whitespace is not shown
                if not parts and before_first is not None:
                    before_first()
                parts.append(text)
                if emit is not None:
                    emit(text)
            else:
                final = event
    finally:
        close = getattr(events, "close", None)
        if callable(close):
            close()
    return "".join(parts), final
