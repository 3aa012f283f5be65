"""The ordinary agent (H-21): a ReAct loop with function calling and a bounded number of rounds.

Each round is one streamed `Purpose.MAIN` call with the request's tools. Text the model streams is
passed to `on_delta` as it arrives — that is what the user sees, and exactly that text (rounds
joined by a blank line, also streamed) is returned as the answer to store (M-20). Tool calls are
executed by the `Toolbox` and fed back as `tool` messages; nothing of them is persisted (M-3).
The last allowed round tells the model to answer without tools; if it still calls tools and has
said nothing, the request ends with `RoundLimitReached`.

Cancellation: `cancel` (a `threading.Event`) is checked before every round and between streamed
chunks; when set, the stream is closed and `RequestCancelled` raised.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from autopatch_j.agent.errors import EmptyAnswer, RequestCancelled, RoundLimitReached
from autopatch_j.agent.streaming import stream_call
from autopatch_j.agent.tools import Toolbox
from autopatch_j.llm.provider import ChatRequest, ChatResponse, LLMProvider, Message, Purpose

DEFAULT_MAX_ROUNDS = 8
ROUND_SEPARATOR = "\n\n"
LAST_ROUND_NOTE = (
    "You have used all tool rounds for this request. Do not call tools again: answer the user now with what "
    "you have found, and say what you could not check."
)

DeltaSink = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class ReactResult:
    answer: str
    rounds: int
    tool_calls: int
    truncated: bool = False  # the last round stopped at the output cap (finish_reason "length")


class ReactAgent:
    def __init__(self, *, provider: LLMProvider, toolbox: Toolbox, max_rounds: int = DEFAULT_MAX_ROUNDS) -> None:
        if max_rounds < 1:
            raise ValueError("max_rounds must be at least 1")
        self._provider = provider
        self._toolbox = toolbox
        self._max_rounds = max_rounds

    def run(
        self,
        messages: Sequence[Message],
        *,
        on_delta: DeltaSink | None = None,
        cancel: threading.Event | None = None,
    ) -> ReactResult:
        """Run the loop from `messages` (system, history, current user message)."""
        conversation = list(messages)
        shown: list[str] = []
        tool_calls = 0

        def emit(text: str) -> None:
            if not text:
                return
            shown.append(text)
            if on_delta is not None:
                on_delta(text)

        for round_no in range(1, self._max_rounds + 1):
            _check(cancel)
            last = round_no == self._max_rounds
            forced = last and round_no > 1  # a one-round agent needs no "rounds used up" note
            request_messages = conversation
            if forced:
                request_messages = [*conversation, Message(role="user", content=LAST_ROUND_NOTE)]
            response = self._stream_round(
                ChatRequest(purpose=Purpose.MAIN, messages=tuple(request_messages), tools=self._toolbox.specs),
                emit,
                cancel,
                earlier_text=bool(shown),
            )
            if not response.tool_calls or last:
                answer = "".join(shown)
                if response.tool_calls and not response.content.strip():
                    raise RoundLimitReached(
                        f"The agent used all {self._max_rounds} tool rounds without an answer; ask a narrower question."
                    )
                if not answer.strip():
                    raise EmptyAnswer()
                truncated = response.finish_reason == "length"
                return ReactResult(answer=answer, rounds=round_no, tool_calls=tool_calls, truncated=truncated)
            conversation.append(
                Message(role="assistant", content=response.content or None, tool_calls=response.tool_calls)
            )
            for call in response.tool_calls:
                _check(cancel)
                tool_calls += 1
                conversation.append(Message(role="tool", tool_call_id=call.id, content=self._toolbox.call(call)))
        raise AssertionError("unreachable")  # pragma: no cover

    def _stream_round(
        self, request: ChatRequest, emit: DeltaSink, cancel: threading.Event | None, *, earlier_text: bool
    ) -> ChatResponse:
        text, final = stream_call(
            self._provider,
            request,
            check=lambda: _check(cancel),
            emit=emit,
            before_first=(lambda: emit(ROUND_SEPARATOR)) if earlier_text else None,
        )
        return final if final is not None else ChatResponse(content=text)


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise RequestCancelled()
