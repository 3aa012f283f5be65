"""Random and adversarial model outputs against both validators: 0 illegal provenance, 0 partial applies.

Pure properties run on constructed requests; the end-to-end ones feed the JSON through the canned
LLM, the pipeline and SQLite and then check every stored quote and every table. Derandomized.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import Purpose
from autopatch_j.memory.batches import ConsolidationRequest, RelatedItem
from autopatch_j.memory.consolidation import plan_consolidation
from autopatch_j.memory.contracts import ConsolidationOutput, ExtractionOutput, OperationOut
from autopatch_j.memory.errors import ConsolidationRejected, ExtractionRejected
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.pipeline import Outcome
from autopatch_j.memory.records import Candidate, CandidateStatus, Item, ItemStatus, MemoryKind
from autopatch_j.memory.validation import validate_extraction
from autopatch_j.runtime import FakeClock
from tests.memory.pipeline_support import admit, llm_pipeline, rows, table_counts
from tests.memory.test_validation import request, turn

PROPS = settings(max_examples=150, deadline=None, derandomize=True)
DB_PROPS = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
_RAM = Path("/dev/shm")
SCRATCH = str(_RAM) if _RAM.is_dir() and os.access(_RAM, os.W_OK) else None

TEXTS = [
    "以后先给结论，再展开。",
    "项目统一使用 Python 3.10+。",
    "这次简单说一下就行",
    "From now on, answer first.",
    "pom.xml 里现在配置的是 Java 17",
    "同意",
    "OK, let's do that.",
    "我建议项目统一用 uv 管理依赖。",
    "Maybe we should switch to Poetry.",
    "We're comparing FastAPI and Flask.",
]
KINDS = ["user_preference", "project_decision", "discussion_context"]


@st.composite
def turns_and_output(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    n = draw(st.integers(1, 4))
    texts = [(draw(st.sampled_from(TEXTS)), draw(st.sampled_from([*TEXTS, None]))) for _ in range(n + 1)]
    prior = turn(1, *texts[0])
    batch = tuple(turn(i + 2, *texts[i + 1]) for i in range(n))
    visible = (prior, *batch)

    def a_source() -> dict[str, Any]:
        t = draw(st.sampled_from(visible))
        role = draw(st.sampled_from(["user", "assistant"]))
        text = t.user_text if role == "user" else (t.assistant_text or "")
        quote: str
        how = draw(st.sampled_from(["slice", "slice", "slice", "mutate", "foreign", "whole"]))
        if how == "whole" or not text:
            quote = text or draw(st.text(max_size=5))
        elif how == "slice":
            i = draw(st.integers(0, len(text) - 1))
            quote = text[i : draw(st.integers(i + 1, len(text)))]
        elif how == "mutate":
            quote = text[: max(1, len(text) // 2)] + draw(st.sampled_from(["！", "x", " ", "了"]))
        else:
            quote = draw(st.text(min_size=0, max_size=12))
        turn_id = draw(st.sampled_from([t.id, t.id, t.id, 99, -1]))
        return {"turn_id": turn_id, "role": role, "quote": quote}

    candidates = [
        {
            "kind": draw(st.sampled_from(KINDS)),
            "content": draw(st.sampled_from([*TEXTS, "", "先给结论", "use uv"])),
            "subject": "",
            "sources": [a_source() for _ in range(draw(st.integers(0, 3)))],
        }
        for _ in range(draw(st.integers(0, 4)))
    ]
    return request(*batch, prior=prior), {"compaction": draw(st.text(max_size=50)), "candidates": candidates}


def _legal_source(req: Any, turn_id: int, role: str, quote: str) -> bool:
    t = req.turn(turn_id)
    return t is not None and bool(quote) and quote in (t.user_text if role == "user" else (t.assistant_text or ""))


@PROPS
@given(turns_and_output())
def test_extraction_validator_never_lets_illegal_provenance_through(case: tuple[Any, dict[str, Any]]) -> None:
    req, raw = case
    output = ExtractionOutput.model_validate(raw)
    all_legal = all(
        _legal_source(req, s["turn_id"], s["role"], s["quote"]) and 1 <= len(c["sources"]) <= 8 and c["content"]
        for c in raw["candidates"]
        for s in c["sources"]
    ) and all(c["sources"] and c["content"] for c in raw["candidates"])
    try:
        result = validate_extraction(output, req, default_lexicon())
    except ExtractionRejected:
        assert not all_legal, "a structurally valid output was rejected"
        return
    assert all_legal, "an output with illegal provenance was accepted"
    batch_ids = {t.id for t in req.turns}
    for cand in result.candidates:
        for src in cand.sources:
            assert _legal_source(req, src.turn_id, src.role.value, src.quote)
        if cand.kind is not MemoryKind.DISCUSSION_CONTEXT:
            assert any(s.role.value == "user" and s.turn_id in batch_ids for s in cand.sources)
        assert cand.non_factual == (cand.kind is MemoryKind.DISCUSSION_CONTEXT)
    assert len(result.candidates) + len(result.filtered) == len(raw["candidates"])


def _candidate(cid: int, kind: MemoryKind) -> Candidate:
    return Candidate(
        id=cid, thread_id=1, extraction_job_id=1, consolidation_job_id=9, kind=kind, content="c", subject="",
        non_factual=kind is MemoryKind.DISCUSSION_CONTEXT, status=CandidateStatus.PENDING, created_at=0.0,
    )  # fmt: skip


def _item(memory_id: int, kind: MemoryKind) -> Item:
    return Item(
        id=memory_id, memory_id=memory_id, revision=1, kind=kind, thread_id=1 if kind is MemoryKind.DISCUSSION_CONTEXT
        else None, title="t", content="c", aliases=(), keywords=(), non_factual=False, status=ItemStatus.ACTIVE,
        operation="create", superseded_by=None, job_id=None, created_at=0.0, updated_at=0.0,
    )  # fmt: skip


kinds = st.sampled_from(list(MemoryKind))
operation = st.builds(
    OperationOut,
    op=st.sampled_from(["create", "revise", "supersede", "reject"]),
    candidate_ids=st.lists(st.integers(0, 6), max_size=3),
    target_memory_id=st.one_of(st.none(), st.integers(10, 14)),
    title=st.sampled_from(["", "title", " "]),
    aliases=st.lists(st.sampled_from(["a", "", "别名"]), max_size=2),
    keywords=st.lists(st.sampled_from(["k", "关键词", "x" * 161]), max_size=2),
    content=st.sampled_from(["", "content"]),
)


@PROPS
@given(
    st.lists(kinds, min_size=1, max_size=4),
    st.lists(kinds, max_size=3),
    st.lists(operation, max_size=5),
)
def test_consolidation_plan_is_all_legal_or_rejected(
    candidate_kinds: list[MemoryKind], item_kinds: list[MemoryKind], ops: list[OperationOut]
) -> None:
    candidates = tuple(_candidate(i + 1, k) for i, k in enumerate(candidate_kinds))
    related = tuple(RelatedItem(item=_item(10 + i, k)) for i, k in enumerate(item_kinds))
    req = ConsolidationRequest(thread_id=1, candidates=candidates, related=related)
    try:
        plan = plan_consolidation(ConsolidationOutput(operations=ops), req)
    except ConsolidationRejected:
        return
    used = Counter(cid for p in plan.operations for cid in p.candidate_ids)
    assert set(used) == {c.id for c in candidates} and set(used.values()) == {1}
    kind_of = {c.id: c.kind for c in candidates}
    targets = {r.item.memory_id: r.item.kind for r in related}
    for p in plan.operations:
        assert {kind_of[c] for c in p.candidate_ids} == {p.kind}
        if p.op in ("revise", "supersede"):
            assert targets[p.target_memory_id] is p.kind  # type: ignore[index]
        if p.op != "reject":
            assert p.title and p.content and p.aliases and p.keywords
            assert all(1 <= len(t) <= 160 for t in (*p.aliases, *p.keywords))


# -- end to end: through the canned LLM, the pipeline and SQLite ----------------------------------------


_GARBAGE = st.sampled_from(
    ["", "null", "[]", "{", "```json\n{}\n```", '{"compaction": 1, "candidates": []}', '{"candidates": []}']
)


@DB_PROPS
@given(st.data())
def test_stored_provenance_is_always_legal_and_never_partial(data: st.DataObject) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="props-", dir=SCRATCH))
    try:
        manager = MemoryManager(root=tmp, clock=FakeClock(), owner="props")
        assert manager.open().ok
        admit(manager, [(data.draw(st.sampled_from(TEXTS)), data.draw(st.sampled_from(TEXTS))) for _ in range(3)])
        canned = CannedProvider()
        pipeline = llm_pipeline(manager, canned)
        for _ in range(3):
            req = pipeline.snapshot()
            if not req:
                break
            raw_turns = {r["id"]: r for r in rows(manager, "SELECT id, user_text, assistant_text FROM turns")}
            ids = sorted(raw_turns)
            sources = [
                {
                    "turn_id": data.draw(st.sampled_from([*ids, 77])),
                    "role": data.draw(st.sampled_from(["user", "assistant"])),
                    "quote": data.draw(st.sampled_from([*TEXTS, "以后", "统一", "uv"])),
                }
                for _ in range(data.draw(st.integers(1, 3)))
            ]
            answer = data.draw(
                st.one_of(
                    _GARBAGE,
                    st.just(json.dumps({"compaction": "s", "candidates": [
                        {"kind": data.draw(st.sampled_from(KINDS)), "content": "以后先给结论 uv Python", "subject": "",
                         "sources": sources},
                    ]}, ensure_ascii=False)),
                )
            )  # fmt: skip
            canned.enqueue(Purpose.EXTRACTION, answer)
            canned.enqueue(Purpose.CONSOLIDATION, data.draw(st.sampled_from([
                json.dumps({"operations": [{"op": "create", "candidate_ids": [1], "title": "t", "aliases": ["a"],
                                            "keywords": ["k"], "content": "c"}]}),
                json.dumps({"operations": [{"op": "reject", "candidate_ids": [1]}, {"op": "create",
                            "candidate_ids": [2], "title": "t", "aliases": ["a"], "keywords": ["k"], "content": "c"}]}),
                "not json",
            ])))  # fmt: skip
            before = table_counts(manager)
            result = pipeline.step(force=True)
            assert result is not None
            if result.outcome is Outcome.RETRY:
                assert table_counts(manager) == before, "a failed step wrote something"
            manager.clock.advance(3600)  # type: ignore[attr-defined]
        for src in rows(
            manager,
            "SELECT s.role, s.quote, t.user_text, t.assistant_text FROM candidate_sources s JOIN turns t "
            "ON t.id = s.turn_id",
        ):
            assert src["quote"] in (src["user_text"] if src["role"] == "user" else (src["assistant_text"] or ""))
        for item_id, linked in rows(
            manager,
            "SELECT i.id, count(ic.candidate_id) FROM memory_items i LEFT JOIN memory_item_candidates ic "
            "ON ic.item_id = i.id WHERE i.status = 'active' AND i.kind <> 'discussion_context' GROUP BY i.id",
        ):
            assert linked >= 1, f"active item {item_id} has no provenance"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
