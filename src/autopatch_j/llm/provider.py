"""The provider protocol every LLM backend implements, and the values that cross it.

Four purposes call a model locally (M-70): the main answer, the intent classifier, memory extraction
and memory consolidation. The three short purposes never stream, never ask for reasoning, run at
temperature 0 with a bounded output and a 60 s request timeout; `strategy_for` is the single place
that says so, and diagnostics record the strategy each call used. Every local purpose also has an
output cap and an overall deadline: the request timeout bounds only the gaps between
events; the main answer's cap and deadline come from the settings (`AUTOPATCH_LLM_MAX_OUTPUT_TOKENS`,
`AUTOPATCH_LLM_DEADLINE_SECONDS`) and are applied by the provider. A fifth purpose, `task`, is the
cloud `llm` executor's one non-streamed answer (C-8): no cap, bounded by the executor's own timeout.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable


class Purpose(enum.StrEnum):
    MAIN = "main"
    CLASSIFIER = "classifier"
    EXTRACTION = "extraction"
    CONSOLIDATION = "consolidation"
    TASK = "task"  # the cloud `llm` executor (C-8): one non-streamed answer, no cap, its own timeout


@dataclass(frozen=True, slots=True)
class RequestStrategy:
    """How one purpose is asked: recorded in diagnostics with every call."""

    stream: bool
    reasoning: bool
    temperature: float | None
    max_output_tokens: int | None
    timeout_s: float
    json_output: bool
    deadline_s: float | None = None  # the whole request, from sending it to its last event


REQUEST_TIMEOUT_S = 60.0
SHORT_DEADLINE_S = 120.0  # a short purpose answers at most ~2,200 tokens
MAIN_DEADLINE_S = 300.0
MAIN_MAX_OUTPUT_TOKENS = 4096

_STRATEGIES: Mapping[Purpose, RequestStrategy] = {
    Purpose.MAIN: RequestStrategy(
        stream=True,
        reasoning=True,
        temperature=None,
        max_output_tokens=MAIN_MAX_OUTPUT_TOKENS,
        timeout_s=REQUEST_TIMEOUT_S,
        json_output=False,
        deadline_s=MAIN_DEADLINE_S,
    ),
    Purpose.CLASSIFIER: RequestStrategy(
        stream=False,
        reasoning=False,
        temperature=0.0,
        max_output_tokens=200,
        timeout_s=REQUEST_TIMEOUT_S,
        json_output=True,
        deadline_s=SHORT_DEADLINE_S,
    ),
    Purpose.EXTRACTION: RequestStrategy(
        stream=False,
        reasoning=False,
        temperature=0.0,
        max_output_tokens=1800,
        timeout_s=REQUEST_TIMEOUT_S,
        json_output=True,
        deadline_s=SHORT_DEADLINE_S,
    ),
    Purpose.CONSOLIDATION: RequestStrategy(
        stream=False,
        reasoning=False,
        temperature=0.0,
        max_output_tokens=2200,
        timeout_s=REQUEST_TIMEOUT_S,
        json_output=True,
        deadline_s=SHORT_DEADLINE_S,
    ),
    # The executor passes its own request timeout (AUTOPATCH_CLOUD_LLM_TIMEOUT_SECONDS), which bounds
    # the one non-streamed request; no output cap and no temperature: the model's defaults.
    Purpose.TASK: RequestStrategy(
        stream=False,
        reasoning=True,
        temperature=None,
        max_output_tokens=None,
        timeout_s=REQUEST_TIMEOUT_S,
        json_output=False,
        deadline_s=None,
    ),
}


def strategy_for(purpose: Purpose) -> RequestStrategy:
    """The request strategy of a purpose (M-70)."""
    return _STRATEGIES[purpose]


Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # the raw JSON text the model produced


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A function the model may call; `parameters` is its JSON schema (a border dict)."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ChatRequest:
    purpose: Purpose
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ChatResponse:
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of streamed answer text."""

    text: str


StreamEvent = TextDelta | ChatResponse  # deltas, then exactly one final ChatResponse


@runtime_checkable
class LLMProvider(Protocol):
    """An LLM backend. Failures raise `autopatch_j.llm.errors.LLMError` subclasses."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        """One non-streamed call, using `strategy_for(request.purpose)`."""
        ...

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """A streamed call: zero or more `TextDelta`, then one final `ChatResponse`."""
        ...
