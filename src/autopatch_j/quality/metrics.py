"""Scoring one case against its gold memories and expectations; per-category precision and recall.

Memories (the end state of `list_items`, i.e. active repo preferences/decisions and the active
thread's discussions):

- a gold memory that must be active is found (TP) when an active memory of its kind cites, as user
  sources, every turn the gold memory cites as user source; otherwise it is missed (FN). Its
  assistant sources (a confirmed proposal) are checked too and reported as `sources_ok`;
- an active preference or decision that matches no active gold memory is a false positive (FP), and
  so is any active memory of a forbidden kind, or beyond a per-kind cap (`max_active`).
  An unmatched discussion of a kind that is neither expected nor forbidden is neutral.

Queries: each `must_hit` query that returns a hit (of its kind, if given) is a TP, else a FN; each
`must_not_hit` query that returns a hit (of the listed kinds, if given) is a FP.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from autopatch_j.memory.records import Item, MemoryKind, Source
from autopatch_j.memory.search import SearchHit
from autopatch_j.quality.corpus import Case

_PD = ("user_preference", "project_decision")


@dataclass
class CaseScore:
    id: str
    category: str
    language: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    query_tp: int = 0
    query_fp: int = 0
    query_fn: int = 0
    sources_ok: bool = True
    invariant_breaks: int = 0
    drain: str = ""
    active: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not (self.fp or self.fn or self.query_fp or self.query_fn or self.invariant_breaks) and self.sources_ok

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "category": self.category,
            "language": self.language,
            "passed": self.passed,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "query_tp": self.query_tp,
            "query_fp": self.query_fp,
            "query_fn": self.query_fn,
            "sources_ok": self.sources_ok,
            "invariant_breaks": self.invariant_breaks,
            "drain": self.drain,
            "active": self.active,
            "notes": self.notes,
        }


def score_case(
    case: Case,
    *,
    turn_ids: Sequence[int],
    items: Sequence[Item],
    sources: Mapping[int, Sequence[Source]],
    results: Mapping[str, Sequence[SearchHit]],
) -> CaseScore:
    score = CaseScore(id=case.id, category=case.category, language=case.language)
    matched: set[int] = set()
    for gold in case.memories:
        if gold.state != "active":
            continue
        if any(source.turn >= len(turn_ids) for source in gold.sources):
            score.fn += 1
            continue
        want_user = {turn_ids[s.turn] for s in gold.sources if s.role == "user"}
        want_assistant = {turn_ids[s.turn] for s in gold.sources if s.role == "assistant"}
        hit = next(
            (
                item
                for item in items
                if item.memory_id not in matched
                and item.kind.value == gold.kind
                and want_user <= {s.turn_id for s in sources.get(item.memory_id, ()) if s.role.value == "user"}
            ),
            None,
        )
        if hit is None:
            score.fn += 1
            score.notes.append(f"missed {gold.key} ({gold.kind})")
            continue
        score.tp += 1
        matched.add(hit.memory_id)
        have_assistant = {s.turn_id for s in sources.get(hit.memory_id, ()) if s.role.value == "assistant"}
        if not want_assistant <= have_assistant:
            score.sources_ok = False
            score.notes.append(f"{gold.key}: the proposal is not among the sources")
    forbidden = set(case.expect.forbidden_kinds)
    per_kind: dict[MemoryKind, int] = {}
    for item in items:
        kind = item.kind
        per_kind[kind] = per_kind.get(kind, 0) + 1
        extra = kind in case.expect.max_active and per_kind[kind] > case.expect.max_active[kind]
        unmatched = item.memory_id not in matched and (kind in _PD or kind in forbidden)
        if kind in forbidden or unmatched or extra:
            score.fp += 1
            score.notes.append(f"unexpected {kind} #{item.memory_id}: {item.title[:60]}")
        score.active.append({"id": item.memory_id, "kind": kind, "title": item.title})
    for query in case.expect.must_hit:
        hits = results.get(query.query, ())
        if any(query.kind is None or hit.kind.value == query.kind for hit in hits):
            score.query_tp += 1
        else:
            score.query_fn += 1
            score.notes.append(f"query {query.query[:40]!r} found nothing")
    for no_hit in case.expect.must_not_hit:
        hits = results.get(no_hit.query, ())
        if any(no_hit.kinds is None or hit.kind.value in no_hit.kinds for hit in hits):
            score.query_fp += 1
            score.notes.append(f"query {no_hit.query[:40]!r} must find nothing but found {len(hits)}")
    return score


def ratio(numerator: int, denominator: int) -> float | None:
    """A rounded ratio, or None when there is nothing to measure (never a made-up 1.0 or 0.0)."""
    return None if denominator == 0 else round(numerator / denominator, 4)


def _figures(scores: Iterable[CaseScore]) -> dict[str, Any]:
    items = list(scores)
    tp, fp, fn = sum(s.tp for s in items), sum(s.fp for s in items), sum(s.fn for s in items)
    qtp, qfp, qfn = sum(s.query_tp for s in items), sum(s.query_fp for s in items), sum(s.query_fn for s in items)
    return {
        "cases": len(items),
        "passed": sum(1 for s in items if s.passed),
        "precision": ratio(tp, tp + fp),
        "recall": ratio(tp, tp + fn),
        "query_precision": ratio(qtp, qtp + qfp),
        "query_recall": ratio(qtp, qtp + qfn),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "query_tp": qtp,
        "query_fp": qfp,
        "query_fn": qfn,
    }


def summarize(scores: Sequence[CaseScore], categories: Sequence[str]) -> dict[str, Any]:
    """`totals` and `categories` (in corpus order) of an evaluation."""
    return {
        "totals": _figures(scores),
        "categories": {
            category: _figures(s for s in scores if s.category == category)
            for category in categories
            if any(s.category == category for s in scores)
        },
    }
