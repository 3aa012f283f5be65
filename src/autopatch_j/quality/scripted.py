"""The canned model of the evaluation: Stage-1/Stage-2 answers scripted from a case's gold memories.

`ScriptedModel` answers the EXTRACTION and CONSOLIDATION purposes of a `CannedProvider` (it is its
`default` responder) by reading the same JSON payload a real model receives. It emits the gold
candidates whose newest source turn is in the batch, and — the point of the canned mode — mixes in
adversarial output that the pipeline's validators must reject, with a seeded rate:

- structural (the whole first answer for a batch or job): prose instead of JSON, an unknown field,
  a quote that is not in the turn, a turn id that is not in the input, an operation on a memory that
  does not exist, an unknown candidate id. The job must go to retry; the next answer is the good one.
- semantic (mixed into a good answer): a preference quoting only the assistant's text, which the
  gates must filter.
- replay: once a gold memory was forgotten, any batch that still shows its old evidence (the batch's
  turns or the context turn) re-emits it — old evidence must never rebuild it (M-46).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from autopatch_j.llm.provider import ChatRequest, Purpose
from autopatch_j.quality.corpus import Case, GoldMemory

STRUCTURAL_EXTRACTION = ("prose", "unknown_field", "fabricated_quote", "unknown_turn")
STRUCTURAL_CONSOLIDATION = ("unknown_candidate", "unknown_target", "unknown_op")


@dataclass
class AdversarialCounts:
    structural_injected: Counter[str] = field(default_factory=Counter)
    semantic_injected: int = 0
    replays: int = 0


def gold_subject(memory: GoldMemory) -> str:
    return memory.keywords[0] if memory.keywords else memory.title


class ScriptedModel:
    """Answers a case's Stage-1/Stage-2 requests from its gold memories (thread-safe enough: one worker)."""

    def __init__(self, *, case: Case, rng: random.Random, adversarial_rate: float) -> None:
        self.case = case
        self.rng = rng
        self.rate = adversarial_rate
        self.turn_ids: list[int] = []  # case turn index -> stored turn id
        self.forgotten: set[str] = set()  # gold keys forgotten so far
        self.counts = AdversarialCounts()
        self._attempts: Counter[tuple[str, tuple[int, ...]]] = Counter()

    def __call__(self, request: ChatRequest) -> str:
        payload = json.loads(request.messages[-1].content or "{}")
        if request.purpose is Purpose.EXTRACTION:
            return self._extract(payload)
        if request.purpose is Purpose.CONSOLIDATION:
            return self._consolidate(payload)
        raise AssertionError(f"the scripted model answers no {request.purpose} request")

    # -- Stage 1 -----------------------------------------------------------------------------------

    def _sources(self, memory: GoldMemory) -> list[dict[str, Any]] | None:
        out = []
        for source in memory.sources:
            if source.turn >= len(self.turn_ids):
                return None
            out.append({"turn_id": self.turn_ids[source.turn], "role": source.role, "quote": source.quote})
        return out

    def _extract(self, payload: dict[str, Any]) -> str:
        turns = payload.get("turns") or []
        batch = [turn["turn_id"] for turn in turns]
        context = payload.get("context_turn")
        visible = set(batch) | ({context["turn_id"]} if context else set())
        self._attempts["x", tuple(batch)] += 1
        if self._attempts["x", tuple(batch)] == 1 and self.rng.random() < self.rate:
            return self._bad_extraction(turns)
        candidates = []
        for memory in self.case.memories:
            sources = self._sources(memory)
            if sources is None:
                continue
            cited = {source["turn_id"] for source in sources}
            newest = self.turn_ids[max(source.turn for source in memory.sources)]
            replay = memory.key in self.forgotten and cited & visible
            if newest in batch or replay:
                if replay and newest not in batch:
                    self.counts.replays += 1
                candidates.append(
                    {
                        "kind": memory.kind,
                        "content": memory.content,
                        "subject": gold_subject(memory),
                        "sources": sources,
                    }
                )
        if turns and turns[-1].get("assistant") and self.rng.random() < self.rate:
            self.counts.semantic_injected += 1
            answer = turns[-1]["assistant"]
            candidates.append(
                {
                    "kind": "user_preference",
                    "content": answer[:200],
                    "subject": "assistant claim",
                    "sources": [{"turn_id": batch[-1], "role": "assistant", "quote": answer}],
                }
            )
        digest = " / ".join(turn["user"][:80] for turn in turns)
        compaction = ((payload.get("previous_compaction") or "") + "\n" + digest).strip()[-4000:]
        return json.dumps({"compaction": compaction, "candidates": candidates}, ensure_ascii=False)

    def _bad_extraction(self, turns: list[dict[str, Any]]) -> str:
        kind = self.rng.choice(STRUCTURAL_EXTRACTION)
        self.counts.structural_injected[kind] += 1
        turn_id = turns[-1]["turn_id"] if turns else 1
        good_source = {"turn_id": turn_id, "role": "user", "quote": (turns[-1]["user"] if turns else "x")}
        candidate = {"kind": "user_preference", "content": "from now on answer first", "sources": [good_source]}
        if kind == "prose":
            return "Sure! Here are the memories I found: the user likes short answers."
        if kind == "unknown_field":
            return json.dumps({"compaction": "", "candidates": [], "confidence": 0.9})
        if kind == "fabricated_quote":
            fabricated = dict(good_source, quote="from now on, always deploy on Fridays (never said)")
            return json.dumps({"compaction": "", "candidates": [dict(candidate, sources=[fabricated])]})
        unknown = dict(good_source, turn_id=turn_id + 10_000)
        return json.dumps({"compaction": "", "candidates": [dict(candidate, sources=[unknown])]})

    # -- Stage 2 -----------------------------------------------------------------------------------

    def _gold_for(self, candidate: dict[str, Any]) -> GoldMemory | None:
        cited = {(source["turn_id"], source["role"]) for source in candidate.get("sources", [])}
        for memory in self.case.memories:
            sources = self._sources(memory)
            if memory.kind == candidate["kind"] and sources and {(s["turn_id"], s["role"]) for s in sources} == cited:
                return memory
        return None

    def _consolidate(self, payload: dict[str, Any]) -> str:
        candidates = payload.get("candidates") or []
        related = payload.get("related_memories") or []
        ids = tuple(candidate["id"] for candidate in candidates)
        self._attempts["c", ids] += 1
        if self._attempts["c", ids] == 1 and self.rng.random() < self.rate:
            return self._bad_consolidation(ids, related)
        operations = []
        golds = [self._gold_for(candidate) for candidate in candidates]
        # Within one batch the later statement wins: a memory superseded in the same batch is rejected.
        replaced = {gold.supersedes for gold in golds if gold is not None and gold.supersedes}
        for candidate, gold in zip(candidates, golds, strict=True):
            if gold is None or gold.key in replaced:  # not gold (an adversarial one got through), or replaced
                operations.append({"op": "reject", "candidate_ids": [candidate["id"]]})
                continue
            op: dict[str, Any] = {
                "op": "create",
                "candidate_ids": [candidate["id"]],
                "target_memory_id": None,
                "title": gold.title,
                "aliases": [gold.title],
                "keywords": gold.keywords or [gold.title],
                "content": gold.content,
            }
            if gold.supersedes is not None:
                old_subject = gold_subject(self.case.memory(gold.supersedes))
                target = next((r for r in related if old_subject in r.get("subjects", [])), None)
                if target is not None:
                    op |= {"op": "supersede", "target_memory_id": target["memory_id"]}
            operations.append(op)
        return json.dumps({"operations": operations}, ensure_ascii=False)

    def _bad_consolidation(self, ids: tuple[int, ...], related: list[dict[str, Any]]) -> str:
        kind = self.rng.choice(STRUCTURAL_CONSOLIDATION)
        self.counts.structural_injected[kind] += 1
        base = {"title": "t", "aliases": ["t"], "keywords": ["k"], "content": "c"}
        if kind == "unknown_candidate":
            return json.dumps({"operations": [dict(base, op="create", candidate_ids=[max(ids, default=0) + 10_000])]})
        if kind == "unknown_target":
            return json.dumps(
                {"operations": [dict(base, op="supersede", candidate_ids=list(ids), target_memory_id=987_654)]}
            )
        return json.dumps({"operations": [dict(base, op="delete", candidate_ids=list(ids))]})
