"""Each invariant detector can fail: fabricated leaks and illegal sources are counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.llm.provider import ChatRequest, Message, Purpose, ToolSpec
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.quality import invariants as inv
from autopatch_j.runtime import FakeClock

PREF = "以后回答先给结论，再展开解释。"


@pytest.fixture
def manager(tmp_path: Path) -> MemoryManager:
    m = MemoryManager(root=tmp_path, clock=FakeClock(), owner="t")
    assert m.open().ok
    return m


def _turn(manager: MemoryManager, user: str, answer: str) -> int:
    ticket = manager.begin_turn(user, Intent.GENERAL_CHAT)
    manager.complete_turn(ticket, answer)
    return ticket.turn_id


def _fabricate(manager: MemoryManager, *, sources: list[tuple[int, str, str]], kind: str = "user_preference") -> int:
    """Write a candidate and an active item directly, bypassing every validator (what a bug would do)."""
    with manager.db.write("test: fabricate") as conn:
        thread = conn.execute("SELECT id FROM threads WHERE status = 'active'").fetchone()[0]
        job = conn.execute("SELECT id FROM memory_jobs ORDER BY id LIMIT 1").fetchone()[0]
        cid = conn.execute(
            "INSERT INTO memory_candidates (thread_id, extraction_job_id, kind, content, non_factual, status, "
            "created_at) VALUES (?, ?, ?, 'x', 0, 'applied', 0) RETURNING id",
            (thread, job, kind),
        ).fetchone()[0]
        for n, (turn_id, role, quote) in enumerate(sources):
            conn.execute(
                "INSERT INTO candidate_sources (candidate_id, ordinal, turn_id, role, quote) VALUES (?, ?, ?, ?, ?)",
                (cid, n, turn_id, role, quote),
            )
        item = conn.execute(
            "INSERT INTO memory_items (memory_id, revision, kind, title, content, non_factual, status, operation, "
            "created_at, updated_at) VALUES (0, 1, ?, 'fabricated', 'x', 0, 'active', 'create', 0, 0) RETURNING id",
            (kind,),
        ).fetchone()[0]
        conn.execute("UPDATE memory_items SET memory_id = id WHERE id = ?", (item,))
        conn.execute("INSERT INTO memory_item_candidates (item_id, candidate_id) VALUES (?, ?)", (item, cid))
        return int(item)


def test_a_sound_store_has_no_finding(manager: MemoryManager) -> None:
    turn = _turn(manager, PREF, "好的。")
    _fabricate(manager, sources=[(turn, "user", "以后回答先给结论")])
    with manager.db.read("t") as conn:
        assert inv.illegal_provenance(conn) == []
        assert inv.provenance_completeness(conn).ratio == 1.0


@pytest.mark.parametrize(
    ("sources", "reason"),
    [
        ([(0, "user", "以后回答一律用英文")], "not in turn"),  # not a substring of the RAW text
        ([(0, "assistant", "好的")], "without a user source"),  # assistant-only
    ],
)
def test_illegal_sources_are_counted(manager: MemoryManager, sources: list[tuple[int, str, str]], reason: str) -> None:
    turn = _turn(manager, PREF, "好的。")
    _fabricate(manager, sources=[(turn, role, quote) for _, role, quote in sources])
    with manager.db.read("t") as conn:
        findings = inv.illegal_provenance(conn)
        completeness = inv.provenance_completeness(conn)
    assert any(reason in f.reason for f in findings)
    assert completeness.ratio == 0.0 and completeness.total == 1


def test_a_bare_confirmation_without_its_proposal_is_illegal(manager: MemoryManager) -> None:
    _turn(manager, "格式化用哪个？", "我建议统一使用 ruff。")
    confirm = _turn(manager, "同意", "好的。")
    _fabricate(manager, sources=[(confirm, "user", "同意")], kind="project_decision")
    with manager.db.read("t") as conn:
        assert any("confirmation" in f.reason for f in inv.illegal_provenance(conn))


def test_a_memory_rebuilt_from_forgotten_evidence_is_counted(manager: MemoryManager) -> None:
    turn = _turn(manager, PREF, "好的。")
    memory = _fabricate(manager, sources=[(turn, "user", "以后回答先给结论")])
    evidence = [(turn, "user", "以后回答先给结论")]
    with manager.db.read("t") as conn:
        assert inv.forgotten_rebuilt(conn, old_evidence=evidence) == [memory]
        assert inv.forgotten_rebuilt(conn, old_evidence=[]) == []


def test_repair_requests_carrying_memory_are_counted(manager: MemoryManager) -> None:
    _turn(manager, PREF, "好的。")
    with manager.db.read("t") as conn:
        prints = inv.fingerprints(conn)
    clean = ChatRequest(purpose=Purpose.MAIN, messages=[Message(role="user", content="review src/app.py")])
    content = ChatRequest(purpose=Purpose.MAIN, messages=[Message(role="system", content=f"note: {PREF}")])
    tool = ChatRequest(
        purpose=Purpose.MAIN,
        messages=[Message(role="user", content="review")],
        tools=[ToolSpec(name="memory_search", description="", parameters={})],
    )
    context = ChatRequest(purpose=Purpose.MAIN, messages=[Message(role="system", content="## Memory context\n…")])
    assert inv.leaking_requests([clean], prints=prints) == []
    assert len(inv.leaking_requests([clean, content, tool, context], prints=prints)) == 3


def test_another_repos_text_is_found(tmp_path: Path) -> None:
    a = MemoryManager(root=tmp_path / "a", clock=FakeClock(), owner="a")
    b = MemoryManager(root=tmp_path / "b", clock=FakeClock(), owner="b")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert a.open().ok and b.open().ok
    _turn(a, PREF, "好的，先给结论。")
    _turn(b, "We decided to use pytest.", "Great.")
    with a.db.read("t") as conn:
        prints_a = inv.fingerprints(conn)
    with b.db.read("t") as conn:
        texts_b = inv.database_texts(conn)
    assert inv.foreign_texts(texts_b, foreign=prints_a, own=texts_b) == []
    leaked = [*texts_b, f"leaked: {PREF}"]
    assert inv.foreign_texts(leaked, foreign=prints_a, own=texts_b) == [PREF]


def test_bare_confirmations() -> None:
    for text in ("同意", "好的，就按你说的办。", "Sounds good, let's do that.", "OK."):
        assert inv.is_bare_confirmation(text), text
    for text in (PREF, "From now on, answer first.", ""):
        assert not inv.is_bare_confirmation(text), text


def test_an_assistant_sourced_memory_rebuilt_from_forgotten_evidence_is_counted(manager: MemoryManager) -> None:
    turn = _turn(manager, "订单服务怎么拆？", "方案甲用消息队列解耦订单服务。")
    memory = _fabricate(manager, sources=[(turn, "assistant", "方案甲用消息队列解耦订单服务")])
    evidence = [(turn, "assistant", "方案甲用消息队列解耦订单服务")]
    with manager.db.read("t") as conn:
        assert inv.forgotten_rebuilt(conn, old_evidence=evidence) == [memory]


def test_a_compaction_still_quoting_forgotten_evidence_is_counted(manager: MemoryManager) -> None:
    turn = _turn(manager, "订单服务怎么拆？", "方案甲用消息队列解耦订单服务。")
    evidence = [(turn, "assistant", "方案甲用消息队列解耦订单服务")]
    with manager.db.write("t") as conn:
        conn.execute("UPDATE threads SET compaction = '讨论：方案甲用消息队列解耦订单服务'")
    with manager.db.read("t") as conn:
        assert inv.forgotten_in_compaction(conn, old_evidence=evidence) == [1]
    _turn(manager, "我再说一次：方案甲用消息队列解耦订单服务", "好的。")  # a new turn repeats it: legitimate
    with manager.db.read("t") as conn:
        assert inv.forgotten_in_compaction(conn, old_evidence=evidence) == []


def test_two_active_rules_on_one_subject_saying_different_things_are_counted(manager: MemoryManager) -> None:
    turn = _turn(manager, PREF, "好的。")
    first = _fabricate(manager, sources=[(turn, "user", "以后回答先给结论")])
    second = _fabricate(manager, sources=[(turn, "user", "以后回答先给结论")])
    with manager.db.write("test: subjects") as conn:
        conn.execute("UPDATE memory_items SET subject = 'answer order' WHERE id IN (?, ?)", (first, second))
    with manager.db.read("t") as conn:
        assert inv.subject_conflicts(conn) == []  # one content said twice is no contradiction
    with manager.db.write("test: contents") as conn:
        conn.execute("UPDATE memory_items SET content = 'y' WHERE id = ?", (second,))
    with manager.db.read("t") as conn:
        assert inv.subject_conflicts(conn) == ["answer order"]
