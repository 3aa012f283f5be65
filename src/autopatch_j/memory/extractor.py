"""The extractor port of the two stages, its LLM implementation, and how one is chosen.

An extractor turns a Stage-1 request into an `ExtractionOutput` and a Stage-2 request into a
`ConsolidationOutput` (the strict contracts of `llm.contracts`). It never writes: whatever it
returns goes through the same validators and the same fenced transactions, whether it is the
`LLMExtractor` (purposes EXTRACTION / CONSOLIDATION; strategies from `strategy_for`, M-70) or the
offline `RulesExtractor`. The CLI reads `AUTOPATCH_MEMORY_EXTRACTOR` and passes the choice in.
"""

from __future__ import annotations

import enum
import json
from typing import Any, Protocol

from autopatch_j.llm.contracts import CONSOLIDATION_SHAPE, EXTRACTION_SHAPE, ConsolidationOutput, ExtractionOutput
from autopatch_j.llm.json_contract import parse_json_object
from autopatch_j.llm.provider import ChatRequest, LLMProvider, Message, Purpose
from autopatch_j.memory.batches import ConsolidationRequest, ExtractionRequest
from autopatch_j.memory.errors import ExtractorConfigError
from autopatch_j.memory.lexicon import Lexicon, default_lexicon
from autopatch_j.memory.offline import RulesExtractor
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


def _turn_json(turn: Turn) -> dict[str, Any]:
    return {
        "turn_id": turn.id,
        "seq": turn.seq,
        "status": turn.status.value,
        "user": turn.user_text,
        "assistant": turn.assistant_text,
    }


def extraction_payload(request: ExtractionRequest) -> dict[str, Any]:
    return {
        "previous_compaction": request.compaction,
        "context_turn": _turn_json(request.prior_turn) if request.prior_turn else None,
        "turns": [_turn_json(turn) for turn in request.turns],
    }


def consolidation_payload(request: ConsolidationRequest) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "id": c.id,
                "kind": c.kind.value,
                "content": c.content,
                "subject": c.subject,
                "sources": [{"turn_id": s.turn_id, "role": s.role.value, "quote": s.quote} for s in c.sources],
            }
            for c in request.candidates
        ],
        "related_memories": [
            {
                "memory_id": r.item.memory_id,
                "kind": r.item.kind.value,
                "title": r.item.title,
                "content": r.item.content,
                "aliases": list(r.item.aliases),
                "keywords": list(r.item.keywords),
                "subjects": list(r.subjects),
                "sources": [
                    {"turn_id": s.turn_id, "role": s.role.value, "quote": s.quote}
                    for s in r.sources[:MAX_PROVENANCE_PER_ITEM]
                ],
            }
            for r in request.related
        ],
    }


class LLMExtractor:
    """Both stages through an `LLMProvider`; the answers must satisfy the strict JSON contracts."""

    name = ExtractorChoice.LLM.value

    def __init__(self, *, provider: LLMProvider) -> None:
        self._provider = provider

    def _ask(self, purpose: Purpose, system: str, payload: dict[str, Any]) -> str:
        messages = (
            Message(role="system", content=system),
            Message(role="user", content=json.dumps(payload, ensure_ascii=False)),
        )
        return self._provider.complete(ChatRequest(purpose=purpose, messages=messages)).content

    def extract(self, request: ExtractionRequest) -> ExtractionOutput:
        text = self._ask(Purpose.EXTRACTION, EXTRACTION_SYSTEM, extraction_payload(request))
        return parse_json_object(text, ExtractionOutput)

    def consolidate(self, request: ConsolidationRequest) -> ConsolidationOutput:
        text = self._ask(Purpose.CONSOLIDATION, CONSOLIDATION_SYSTEM, consolidation_payload(request))
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
    return LLMExtractor(provider=provider)
