"""The extractor port of the two stages, its LLM implementation, and how one is chosen.

An extractor turns a Stage-1 request into an `ExtractionOutput` and a Stage-2 request into a
`ConsolidationOutput` (the strict contracts of `memory.contracts`). It never writes: whatever it
returns goes through the same validators and the same fenced transactions, whether it is the
`LLMExtractor` (purposes EXTRACTION / CONSOLIDATION; strategies from `strategy_for`, M-70) or the
offline `RulesExtractor`. The CLI reads `AUTOPATCH_MEMORY_EXTRACTOR` and passes the choice in.

Every request the `LLMExtractor` sends is bounded (`prompt_budget`): each text is an
excerpt of verbatim pieces of its RAW text (quotes stay verifiable against the full text) and the
whole user message fits the character budget and, when the model's context is known, the token
budget; the per-field caps shrink until it does.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol

from autopatch_j.llm.json_contract import parse_json_object
from autopatch_j.llm.provider import ChatRequest, LLMProvider, Message, Purpose, strategy_for
from autopatch_j.memory.batches import ConsolidationRequest, ExtractionRequest
from autopatch_j.memory.contracts import CONSOLIDATION_SHAPE, EXTRACTION_SHAPE, ConsolidationOutput, ExtractionOutput
from autopatch_j.memory.errors import ExtractorConfigError
from autopatch_j.memory.lexicon import Lexicon, default_lexicon
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.prompt_budget import PromptBudget, excerpt, fit
from autopatch_j.memory.records import Turn

MAX_PROVENANCE_PER_ITEM = 3


class Extractor(Protocol):
    name: str

    def extract(self, request: ExtractionRequest) -> ExtractionOutput: ...

    def consolidate(self, request: ConsolidationRequest) -> ConsolidationOutput: ...


class ExtractorChoice(enum.StrEnum):
    LLM = "llm"
    RULES = "rules"


EXTRACTION_SYSTEM = (
    "You maintain the memory of a coding-agent conversation. Given the previous thread summary, one turn "
    "of context and the new turns, answer ONLY with one JSON object of this shape: "
    f"{EXTRACTION_SHAPE}\n"
    "Rules: compaction is the updated rolling summary of the whole thread (at most 4000 chars). Candidates "
    "are optional; none is a normal answer. user_preference: an answer/collaboration/engineering preference "
    "the USER stated explicitly for the future (以后/默认/统一/不要再/from now on/always/never/by default). "
    "project_decision: a project choice the USER explicitly made or confirmed (我们决定/就用/let's use/we "
    "decided). A short confirmation (同意/好的/agreed/ok let's do that) of an assistant proposal must quote "
    "BOTH the assistant proposal (from the turn just before) and the user's confirmation. Never derive them "
    "from current code facts, tool output, assistant-only claims, speculation, undecided questions or "
    "one-off requests (这次/just this once/for now). discussion_context: non-factual context needed to "
    "continue the current discussion (e.g. options being compared). Every quote must be copied exactly "
    "from the named turn's user or assistant text; write content in the language of the quote, reusing its "
    "key words."
)
CONSOLIDATION_SYSTEM = (
    "You consolidate new memory candidates with the related existing memories. Answer ONLY with one JSON "
    f"object of this shape: {CONSOLIDATION_SHAPE}\n"
    "Every candidate id appears in exactly one operation. create: a new memory (target_memory_id null). "
    "revise: refine an existing memory of the same kind with the same meaning (target_memory_id = its id). "
    "supersede: the user explicitly replaced an existing memory of the same kind with a new choice. "
    "reject: duplicates or nothing worth keeping. For create/revise/supersede give a short title, aliases "
    "and keywords in Chinese and English where possible, and the content."
)


@dataclass(frozen=True, slots=True)
class Caps:
    """Characters allowed per text of one request, at scale 1 (they shrink together to fit the budget)."""

    compaction: int = 4_000
    user: int = 6_000
    assistant: int = 3_000
    context_text: int = 1_500  # each text of the turn just before the batch
    content: int = 2_000
    quote: int = 800
    related: int = 20

    def scaled(self, scale: float) -> Caps:
        def s(value: int, floor: int) -> int:
            return max(floor, int(value * scale))

        return Caps(
            compaction=s(self.compaction, 200),
            user=s(self.user, 300),
            assistant=s(self.assistant, 200),
            context_text=s(self.context_text, 200),
            content=s(self.content, 200),
            quote=s(self.quote, 120),
            related=s(self.related, 2),
        )


def _turn_json(turn: Turn, lexicon: Lexicon, *, user_cap: int, assistant_cap: int) -> dict[str, Any]:
    return {
        "turn_id": turn.id,
        "seq": turn.seq,
        "status": turn.status.value,
        "user": excerpt(turn.user_text, user_cap, important=lambda s: _user_signal(lexicon, s)),
        "assistant": None
        if turn.assistant_text is None
        else excerpt(turn.assistant_text, assistant_cap, important=lexicon.has_proposal_signal),
    }


def _user_signal(lexicon: Lexicon, sentence: str) -> bool:
    return lexicon.is_explicit(sentence) or lexicon.is_confirmation(sentence)


def extraction_payload(
    request: ExtractionRequest, *, caps: Caps = Caps(), lexicon: Lexicon | None = None
) -> dict[str, Any]:
    lex = lexicon or default_lexicon()
    prior = request.prior_turn
    return {
        "previous_compaction": excerpt(request.compaction, caps.compaction),
        "context_turn": _turn_json(prior, lex, user_cap=caps.context_text, assistant_cap=caps.context_text)
        if prior
        else None,
        "turns": [_turn_json(t, lex, user_cap=caps.user, assistant_cap=caps.assistant) for t in request.turns],
    }


def _sources_json(sources: Any, caps: Caps) -> list[dict[str, Any]]:
    return [{"turn_id": s.turn_id, "role": s.role.value, "quote": excerpt(s.quote, caps.quote)} for s in sources]


def consolidation_payload(request: ConsolidationRequest, *, caps: Caps = Caps()) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "id": c.id,
                "kind": c.kind.value,
                "content": excerpt(c.content, caps.content),
                "subject": c.subject,
                "sources": _sources_json(c.sources, caps),
            }
            for c in request.candidates
        ],
        "related_memories": [
            {
                "memory_id": r.item.memory_id,
                "kind": r.item.kind.value,
                "title": r.item.title,
                "content": excerpt(r.item.content, caps.content),
                "aliases": list(r.item.aliases),
                "keywords": list(r.item.keywords),
                "subjects": list(r.subjects),
                "sources": _sources_json(r.sources[:MAX_PROVENANCE_PER_ITEM], caps),
            }
            for r in request.related[: caps.related]
        ],
    }


class LLMExtractor:
    """Both stages through an `LLMProvider`; the answers must satisfy the strict JSON contracts."""

    name = ExtractorChoice.LLM.value

    def __init__(
        self, *, provider: LLMProvider, budget: PromptBudget | None = None, lexicon: Lexicon | None = None
    ) -> None:
        self._provider = provider
        self.budget = budget or PromptBudget()
        self._lexicon = lexicon or default_lexicon()

    def _ask(self, purpose: Purpose, system: str, build: Any) -> str:
        """`build(caps)` → payload; the largest caps whose JSON fits the budget are sent."""
        cap = strategy_for(purpose).max_output_tokens or 0
        user = fit(lambda scale: build(Caps().scaled(scale)), self.budget, system=system, max_output_tokens=cap)
        messages = (Message(role="system", content=system), Message(role="user", content=user))
        return self._provider.complete(ChatRequest(purpose=purpose, messages=messages)).content

    def extract(self, request: ExtractionRequest) -> ExtractionOutput:
        text = self._ask(
            Purpose.EXTRACTION,
            EXTRACTION_SYSTEM,
            lambda caps: extraction_payload(request, caps=caps, lexicon=self._lexicon),
        )
        return parse_json_object(text, ExtractionOutput)

    def consolidate(self, request: ConsolidationRequest) -> ConsolidationOutput:
        text = self._ask(
            Purpose.CONSOLIDATION, CONSOLIDATION_SYSTEM, lambda caps: consolidation_payload(request, caps=caps)
        )
        return parse_json_object(text, ConsolidationOutput)


def choose_extractor(*, mode: str | None, provider: LLMProvider | None, lexicon: Lexicon | None = None) -> Extractor:
    """`rules` → offline; `llm` → the LLM (which must be configured); unset → LLM when configured."""
    choice = (mode or "").strip().lower()
    if choice not in ("", *ExtractorChoice):
        raise ExtractorConfigError(f"AUTOPATCH_MEMORY_EXTRACTOR must be `llm` or `rules`, not {mode!r}.")
    if choice == ExtractorChoice.RULES or (not choice and provider is None):
        return RulesExtractor(lexicon=lexicon or default_lexicon())
    if provider is None:
        raise ExtractorConfigError()
    return LLMExtractor(provider=provider, budget=budget_for(provider), lexicon=lexicon)


def budget_for(provider: LLMProvider) -> PromptBudget:
    """The request budget of a provider that exposes its settings (the model's context, when configured)."""
    limits = getattr(getattr(provider, "settings", None), "limits", None)
    return PromptBudget(context_tokens=getattr(limits, "context_tokens", None))
