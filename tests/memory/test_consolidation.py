"""Stage 2 with a canned LLM (M-44 … M-46): validated operations applied all at once, append-only revisions."""

from __future__ import annotations

import json

import pytest

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import Purpose
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.pipeline import Outcome, Pipeline
from autopatch_j.memory.records import ItemStatus, JobStatus
from autopatch_j.runtime import FakeClock
from tests.memory.pipeline_support import (
    admit,
    candidate,
    consolidation_json,
    extraction_json,
    job,
    jobs,
    llm_pipeline,
    op,
    rows,
    source,
    table_counts,
)

PREF = "以后先给结论。"


def extract(pipeline: Pipeline, canned: CannedProvider, *candidates: dict[str, object]) -> int:
    canned.enqueue(Purpose.EXTRACTION, extraction_json(*candidates))
    result = pipeline.step(force=True)
    assert result is not None and result.outcome is Outcome.SUCCEEDED, result
    assert result.consolidation_job_id is not None
    return result.consolidation_job_id


def consolidate(pipeline: Pipeline, canned: CannedProvider, *operations: dict[str, object]) -> Outcome:
    canned.enqueue(Purpose.CONSOLIDATION, consolidation_json(*operations))
    result = pipeline.step(force=True)
    assert result is not None
    return result.outcome


def item_rows(manager: MemoryManager) -> list[tuple[object, ...]]:
    return [
        tuple(r)
        for r in rows(
            manager, "SELECT memory_id, revision, status, operation, superseded_by FROM memory_items ORDER BY id"
        )
    ]


def terms_of(manager: MemoryManager, item_id: int) -> set[str]:
    return {
        r[0]
        for r in rows(
            manager,
            "SELECT t.term FROM memory_postings p JOIN memory_term_stats t ON t.id = p.term_id WHERE p.item_id = ?",
            (item_id,),
        )
    }


@pytest.fixture
def canned() -> CannedProvider:
    return CannedProvider()


@pytest.fixture
def pipeline(manager: MemoryManager, canned: CannedProvider) -> Pipeline:
    return llm_pipeline(manager, canned)


def test_create_links_candidates_and_indexes_terms(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    child = extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    outcome = consolidate(
        pipeline, canned, op("create", [1], title="先给结论", aliases=["answer first"], keywords=["结论", "conclusion"])
    )
    assert outcome is Outcome.SUCCEEDED
    assert item_rows(manager) == [(1, 1, "active", "create", None)]
    assert rows(manager, "SELECT status FROM memory_candidates")[0][0] == "applied"
    assert {"先给", "结论", "answer", "conclus"} <= terms_of(manager, 1)  # index keys: words, stems
    assert job(manager, child).status is JobStatus.SUCCEEDED
    (detail_source,) = manager.show_item(1).sources
    assert (detail_source.turn_id, detail_source.quote) == (t1, "以后先给结论")


def test_request_shows_related_active_items_with_provenance(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    (t1,) = admit(manager, [("项目统一使用 Python 3.10。", "好的。")])
    extract(
        pipeline, canned, candidate("project_decision", "统一使用 Python 3.10", source(t1, "项目统一使用 Python 3.10"))
    )
    consolidate(
        pipeline, canned, op("create", [1], title="Python 版本", keywords=["python", "版本"], content="Python 3.10")
    )
    (t2,) = admit(manager, [("我们决定以后改用 Python 3.12。", "好的。")])
    extract(
        pipeline, canned, candidate("project_decision", "改用 Python 3.12", source(t2, "我们决定以后改用 Python 3.12"))
    )
    consolidate(
        pipeline, canned, op("supersede", [2], target=1, title="Python 版本", keywords=["python"], content="3.12")
    )
    payload = json.loads(canned.requests_for(Purpose.CONSOLIDATION)[-1].messages[-1].content or "")
    (related,) = payload["related_memories"]
    assert related["memory_id"] == 1 and related["sources"][0]["quote"] == "项目统一使用 Python 3.10"
    assert item_rows(manager) == [(1, 1, "superseded", "create", 2), (2, 1, "active", "supersede", None)]
    assert terms_of(manager, 1) == set()
    assert [i.memory_id for i in manager.list_items()] == [2]


def test_revise_appends_a_revision_and_keeps_provenance(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    consolidate(pipeline, canned, op("create", [1], title="先给结论", content="先给结论"))
    (t2,) = admit(manager, [("以后先给结论，并且结论要加粗。", "好的。")])
    extract(pipeline, canned, candidate("user_preference", "结论要加粗", source(t2, "以后先给结论，并且结论要加粗")))
    assert (
        consolidate(pipeline, canned, op("revise", [2], target=1, title="先给结论", content="先给加粗的结论"))
        is Outcome.SUCCEEDED
    )
    assert item_rows(manager) == [(1, 1, "revised", "create", None), (1, 2, "active", "revise", None)]
    detail = manager.show_item(1)
    assert detail.item.revision == 2 and detail.item.content == "先给加粗的结论"
    assert {s.turn_id for s in detail.sources} == {t1, t2}


def test_reject_marks_candidates_rejected(manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    assert consolidate(pipeline, canned, op("reject", [1])) is Outcome.SUCCEEDED
    assert rows(manager, "SELECT status FROM memory_candidates")[0][0] == "rejected"
    assert table_counts(manager)["memory_items"] == 0


ILLEGAL = {
    "unknown candidate": [op("create", [1]), op("create", [99])],
    "candidate twice": [op("create", [1]), op("reject", [1])],
    "candidate missing": [],
    "unknown target": [op("revise", [1], target=42)],
    "create with target": [op("create", [1], target=1)],
    "empty title": [op("create", [1], title=" ")],
    "no keywords": [op("create", [1], keywords=[])],
    "no candidates": [op("create", [1]), op("create", [])],
}


@pytest.mark.parametrize("operations", ILLEGAL.values(), ids=ILLEGAL.keys())
def test_any_illegal_operation_applies_nothing(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline, operations: list[dict[str, object]]
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    child = extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    before = table_counts(manager)
    assert consolidate(pipeline, canned, *operations) is Outcome.RETRY
    assert table_counts(manager) == before
    assert job(manager, child).status is JobStatus.RETRY_WAIT and job(manager, child).last_error
    assert rows(manager, "SELECT status FROM memory_candidates")[0][0] == "pending"


def test_forgotten_or_superseded_items_cannot_be_revised(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline, clock: FakeClock
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    consolidate(pipeline, canned, op("create", [1], title="结论", keywords=["结论"], content="先给结论"))
    (t2,) = admit(manager, [("以后用中文回答。", "好的。")])
    extract(pipeline, canned, candidate("user_preference", "用中文回答 先给结论", source(t2, "以后用中文回答")))
    # The model is shown item 1; it is forgotten while the model "thinks" (the answer is queued).
    canned.enqueue(
        Purpose.CONSOLIDATION, lambda request: (manager.forget(1), consolidation_json(op("revise", [2], target=1)))[1]
    )
    result = pipeline.step(force=True)
    assert result is not None and result.outcome is Outcome.RETRY
    assert "no longer active" in (result.error or "")
    assert item_rows(manager) == [(1, 1, "forgotten", "create", None)]
    clock.advance(5)
    canned.enqueue(Purpose.CONSOLIDATION, consolidation_json(op("revise", [2], target=1)))
    result = pipeline.step(force=True)
    assert result is not None and result.outcome is Outcome.RETRY  # no longer among the related items
    assert "not a related active item" in (result.error or "")


def test_a_revision_of_another_kind_is_illegal(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    consolidate(pipeline, canned, op("create", [1], title="结论", keywords=["结论"], content="先给结论"))
    (t2,) = admit(manager, [("我们决定以后先给结论再写代码。", "好的。")])
    extract(
        pipeline, canned, candidate("project_decision", "先给结论再写代码", source(t2, "我们决定以后先给结论再写代码"))
    )
    assert consolidate(pipeline, canned, op("revise", [2], target=1)) is Outcome.RETRY


def test_a_decision_may_supersede_a_preference_on_its_subject(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    consolidate(pipeline, canned, op("create", [1], title="结论", keywords=["结论"], content="先给结论"))
    (t2,) = admit(manager, [("我们决定以后先给结论再写代码。", "好的。")])
    extract(
        pipeline, canned, candidate("project_decision", "先给结论再写代码", source(t2, "我们决定以后先给结论再写代码"))
    )
    assert consolidate(pipeline, canned, op("supersede", [2], target=1)) is Outcome.SUCCEEDED
    assert [(r[2], r[4]) for r in item_rows(manager)] == [("superseded", 2), ("active", None)]


def test_retire_ends_a_memory_with_nothing_in_its_place(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    consolidate(pipeline, canned, op("create", [1], title="结论", keywords=["结论"], content="先给结论"))
    (t2,) = admit(manager, [("先给结论那条不要了。", "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论那条不要了", source(t2, "先给结论那条不要了")))
    assert consolidate(pipeline, canned, {"op": "retire", "candidate_ids": [2], "target_memory_id": 1}) is (
        Outcome.SUCCEEDED
    )
    assert manager.list_items() == []
    assert [(r[2], r[4]) for r in item_rows(manager)] == [("superseded", None)]
    assert [tuple(r) for r in rows(manager, "SELECT status FROM memory_candidates ORDER BY id")] == [
        ("applied",),
        ("applied",),
    ]


def test_retire_needs_a_related_target(manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    assert consolidate(pipeline, canned, {"op": "retire", "candidate_ids": [1], "target_memory_id": 99}) is (
        Outcome.RETRY
    )


def test_forget_suppresses_candidates_and_old_evidence_never_rebuilds(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    consolidate(pipeline, canned, op("create", [1], title="结论", keywords=["结论"], content="先给结论"))
    manager.forget(1)
    assert rows(manager, "SELECT status FROM memory_candidates")[0][0] == "suppressed"
    # A later batch sees turn 1 as its context turn; a model quoting it again is filtered.
    (t3,) = admit(manager, [("再见", "再见。")])
    canned.enqueue(
        Purpose.EXTRACTION, extraction_json(candidate("user_preference", "先给结论", source(t1, "以后先给结论。")))
    )
    with manager.db.write("reopen") as conn:  # make turn 1 part of a batch again, as a worst case
        conn.execute("UPDATE memory_jobs SET status = 'pending' WHERE turn_id = ?", (t1,))
    result = pipeline.step(force=True)
    assert result is not None and result.candidates == 0 and result.filtered == 1
    # A NEW explicit user turn can form the memory again.
    (t4,) = admit(manager, [("以后还是先给结论吧。", "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t4, "以后还是先给结论吧")))
    assert (
        consolidate(pipeline, canned, op("create", [2], title="结论", keywords=["结论"], content="先给结论"))
        is Outcome.SUCCEEDED
    )
    assert [(i.memory_id, i.status) for i in manager.list_items()] == [(2, ItemStatus.ACTIVE)]
    assert t3 > t1


def test_candidates_forgotten_before_consolidation_skip_the_model(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    child = extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    with manager.db.write("suppress") as conn:
        conn.execute("UPDATE memory_candidates SET status = 'suppressed'")
    result = pipeline.step(force=True)
    assert result is not None and result.outcome is Outcome.SUCCEEDED_NO_OUTPUT
    assert canned.requests_for(Purpose.CONSOLIDATION) == []
    assert job(manager, child).status is JobStatus.SUCCEEDED_NO_OUTPUT


def test_consolidation_after_clear_writes_nothing(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    (t1,) = admit(manager, [(PREF, "好的。")])
    extract(pipeline, canned, candidate("user_preference", "先给结论", source(t1, "以后先给结论")))
    canned.enqueue(
        Purpose.CONSOLIDATION, lambda request: (manager.clear(confirm=True), consolidation_json(op("create", [1])))[1]
    )
    result = pipeline.step(force=True)
    assert result is not None and result.outcome is Outcome.LEASE_LOST
    assert table_counts(manager)["memory_items"] == 0 and jobs(manager) == []


def test_related_items_are_bounded_ranked_and_loaded_without_n_plus_1(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    from autopatch_j.memory.records import MemoryKind
    from tests.memory.item_factory import add_item

    for n in range(25):
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title=f"数据库选择 {n}", content=f"主数据库方案 {n}")
    best = add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="主数据库", content="主数据库用 MySQL",
                    keywords=["mysql"])  # fmt: skip
    forgotten = add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="mysql 旧决定", content="主数据库用 MySQL 5")
    manager.forget(forgotten.memory_id)
    (t1,) = admit(manager, [("我们决定主数据库改用 PostgreSQL，不用 MySQL 了。", "好的。")])
    statement = "我们决定主数据库改用 PostgreSQL，不用 MySQL 了"
    extract(
        pipeline, canned, candidate("project_decision", "主数据库改用 PostgreSQL，不用 MySQL", source(t1, statement))
    )
    sent: list[str] = []
    manager.db.set_trace(sent.append)
    consolidate(
        pipeline, canned, op("supersede", [1], target=best.memory_id, title="主数据库", keywords=["postgresql"])
    )
    manager.db.set_trace(None)
    payload = json.loads(canned.requests_for(Purpose.CONSOLIDATION)[-1].messages[-1].content or "")
    related = [r["memory_id"] for r in payload["related_memories"]]
    assert len(related) == 20 and related[0] == best.memory_id
    assert forgotten.memory_id not in related
    selects = [s for s in sent if s.lstrip().upper().startswith(("SELECT", "WITH"))]
    assert sum("memory_postings" in s for s in selects) == 1  # one lookup statement, one provenance statement
    assert sum("memory_item_candidates" in s for s in selects) == 1


def test_a_create_repeating_an_active_memory_word_for_word_adds_no_duplicate(
    manager: MemoryManager, canned: CannedProvider, pipeline: Pipeline
) -> None:
    """A duplicate delivery of an extraction job (at-least-once), or a model that re-proposes what is
    already active when the user says it again, must not leave two copies: the repeated create is
    applied as a reject."""
    for n in (1, 2):
        (turn_id,) = admit(manager, [(PREF, "好的。")])
        extract(pipeline, canned, candidate("user_preference", "先给结论", source(turn_id, "以后先给结论")))
        outcome = consolidate(pipeline, canned, op("create", [n], title="先给结论", keywords=["结论"]))
        assert outcome is Outcome.SUCCEEDED
    assert item_rows(manager) == [(1, 1, "active", "create", None)]
    assert [r[0] for r in rows(manager, "SELECT status FROM memory_candidates ORDER BY id")] == ["applied", "rejected"]
