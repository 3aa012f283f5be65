"""Bounded context of an ordinary request (M-66): initial history and the routing context."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autopatch_j.memory.context import (
    BOUNDARY_NOTICE,
    COMPACTION_FLOOR,
    INDEX_HEADING,
    ITEMS_HEADING,
    MAX_HISTORY_CHARS,
    MAX_ITEM_LINE_CHARS,
    MAX_ROUTING_CHARS,
    OMITTED_NOTE,
    SUMMARY_HEADING,
    HistoryTurn,
    compose_routing_context,
    history_in_tx,
    routing_context_in_tx,
)
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.item_factory import add_item, add_turn, set_compaction, set_status

PREF = MemoryKind.USER_PREFERENCE
DECISION = MemoryKind.PROJECT_DECISION
DISCUSSION = MemoryKind.DISCUSSION_CONTEXT


def history(manager: MemoryManager, **kwargs: int) -> list[HistoryTurn]:
    thread = manager.active_thread().id
    with manager.db.read("test history") as conn:
        return history_in_tx(conn, thread_id=kwargs.pop("thread_id", thread), **kwargs)


def routing(manager: MemoryManager, *, thread_id: int | None = None, max_chars: int = MAX_ROUTING_CHARS) -> str:
    thread = manager.active_thread().id if thread_id is None else thread_id
    with manager.db.read("test routing") as conn:
        return routing_context_in_tx(conn, thread_id=thread, max_chars=max_chars)


# -- history -------------------------------------------------------------------------------------------


def test_history_of_an_empty_thread_is_empty(manager: MemoryManager) -> None:
    assert history(manager) == []


def test_history_keeps_the_eight_newest_completed_turns_oldest_first(manager: MemoryManager) -> None:
    ids = [add_turn(manager, user_text=f"question {n}", assistant_text=f"answer {n}") for n in range(12)]
    turns = history(manager)
    assert [t.turn_id for t in turns] == ids[-8:]
    assert turns[0] == HistoryTurn(turn_id=ids[4], user_text="question 4", assistant_text="answer 4")


def test_history_skips_open_failed_and_interrupted_turns(manager: MemoryManager) -> None:
    done = add_turn(manager, user_text="done", assistant_text="yes")
    add_turn(manager, user_text="failed", status="failed")
    add_turn(manager, user_text="interrupted", status="interrupted")
    add_turn(manager, user_text="open", status="open")
    assert [t.turn_id for t in history(manager)] == [done]


def test_history_is_only_of_the_given_thread(manager: MemoryManager) -> None:
    old = add_turn(manager, user_text="old thread", assistant_text="a")
    old_thread = manager.active_thread().id
    manager.start_new_thread()
    new = add_turn(manager, user_text="new thread", assistant_text="b")
    assert [t.turn_id for t in history(manager)] == [new]
    assert [t.turn_id for t in history(manager, thread_id=old_thread)] == [old]


def test_history_char_budget_keeps_the_newest_whole_turns(manager: MemoryManager) -> None:
    ids = [add_turn(manager, user_text="问" * 1000, assistant_text="答" * 2000) for _ in range(6)]
    turns = history(manager)
    assert [t.turn_id for t in turns] == ids[-4:]  # 4 × 3,000 = 12,000
    assert sum(len(t.user_text) + len(t.assistant_text) for t in turns) == MAX_HISTORY_CHARS


def test_an_oversized_newest_turn_is_sent_clipped_and_raw_is_untouched(manager: MemoryManager) -> None:
    add_turn(manager, user_text="earlier", assistant_text="earlier answer")
    huge = add_turn(manager, user_text="u" * 9_000, assistant_text="a" * 9_000)
    (turn,) = history(manager)
    assert turn.turn_id == huge
    assert len(turn.user_text) + len(turn.assistant_text) <= MAX_HISTORY_CHARS
    assert turn.user_text.startswith("u") and turn.assistant_text.startswith("a")
    with manager.db.read("raw") as conn:
        row = conn.execute("SELECT user_text, assistant_text FROM turns WHERE id = ?", (huge,)).fetchone()
    assert (len(row[0]), len(row[1])) == (9_000, 9_000)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.tuples(st.integers(1, 7_000), st.integers(0, 7_000)), min_size=0, max_size=12),
    max_turns=st.integers(0, 10),
    max_chars=st.integers(0, 15_000),
)
def test_history_always_within_both_budgets(
    manager: MemoryManager, sizes: list[tuple[int, int]], max_turns: int, max_chars: int
) -> None:
    manager.start_new_thread()
    ids = [add_turn(manager, user_text="x" * u, assistant_text="y" * a) for u, a in sizes]
    turns = history(manager, max_turns=max_turns, max_chars=max_chars)
    assert len(turns) <= max_turns
    assert sum(len(t.user_text) + len(t.assistant_text) for t in turns) <= max_chars
    # A contiguous run of the newest turns, oldest first.
    assert [t.turn_id for t in turns] == (ids[len(ids) - len(turns) :] if turns else [])
    if ids and max_turns and max_chars:
        assert turns, "the newest turn is always sent, clipped if need be"


# -- routing context -------------------------------------------------------------------------------------


def test_a_healthy_empty_store_gives_an_empty_routing_context(manager: MemoryManager) -> None:
    assert routing(manager) == ""


def test_routing_context_has_notice_summary_preferences_decisions_and_index(manager: MemoryManager) -> None:
    set_compaction(manager, "用户在比较两个缓存方案。")
    pref = add_item(manager, kind=PREF, title="回答先给结论", content="以后回答先给结论")
    decision = add_item(manager, kind=DECISION, title="Python 3.10+", content="项目统一使用 Python 3.10+")
    discussion = add_item(manager, kind=DISCUSSION, title="缓存方案对比", content="Redis 还是本地 LRU——正文不注入")
    text = routing(manager)
    assert text.startswith(BOUNDARY_NOTICE)
    assert "not source evidence" in text and "不是源码证据" in text and "current instruction" in text
    assert f"{SUMMARY_HEADING}\n用户在比较两个缓存方案。" in text
    assert f"- [#{decision.memory_id}] decision · Python 3.10+: 项目统一使用 Python 3.10+" in text
    assert f"- [#{pref.memory_id}] preference · 回答先给结论: 以后回答先给结论" in text
    assert text.index(f"[#{decision.memory_id}]") < text.index(f"[#{pref.memory_id}]"), "newest first"
    assert f"{INDEX_HEADING}\n- [#{discussion.memory_id}] 缓存方案对比" in text
    assert "正文不注入" not in text, "discussion bodies are only for memory_read"
    assert OMITTED_NOTE not in text


def test_routing_context_only_has_active_items_and_the_bound_threads_discussions(manager: MemoryManager) -> None:
    gone = add_item(manager, kind=PREF, title="forgotten preference")
    set_status(manager, gone.memory_id, "forgotten")
    old_thread = manager.active_thread().id
    add_item(manager, kind=DISCUSSION, title="old discussion")
    manager.start_new_thread()
    add_item(manager, kind=PREF, title="kept preference")
    text = routing(manager)
    assert "kept preference" in text
    assert "forgotten preference" not in text and "old discussion" not in text
    assert "old discussion" in routing(manager, thread_id=old_thread)


def test_a_compaction_alone_is_routed(manager: MemoryManager) -> None:
    set_compaction(manager, "summary only")
    assert routing(manager).endswith(f"{SUMMARY_HEADING}\nsummary only")


def test_each_preference_line_is_at_most_400_chars(manager: MemoryManager) -> None:
    add_item(manager, kind=PREF, title="很长的偏好", content="以后" + "非常详细的要求" * 200)
    lines = [line for line in routing(manager).splitlines() if line.startswith("- [#")]
    assert len(lines) == 1
    assert len(lines[0]) == MAX_ITEM_LINE_CHARS
    assert lines[0].endswith("…")


def test_over_budget_cuts_compaction_first_then_index_then_oldest_preferences(manager: MemoryManager) -> None:
    set_compaction(manager, "摘" * 4_000)
    prefs = [add_item(manager, kind=PREF, title=f"pref {n}", content="以后" + "要" * 100) for n in range(30)]
    # Index lines longer than a preference line cannot sneak into the slack the preferences leave.
    discussions = [add_item(manager, kind=DISCUSSION, title=f"discussion {n} " + "d" * 180) for n in range(3)]
    text = routing(manager)
    assert len(text) <= MAX_ROUTING_CHARS
    summary = text.split(f"{SUMMARY_HEADING}\n", 1)[1].split("\n\n", 1)[0]
    # The compaction keeps its floor plus only the slack that no further preference line fits into.
    assert COMPACTION_FLOOR <= len(summary) < COMPACTION_FLOOR + MAX_ITEM_LINE_CHARS
    assert f"[#{prefs[-1].memory_id}]" in text, "the newest preference stays"
    assert f"[#{prefs[0].memory_id}]" not in text, "the oldest preference goes"
    assert all(f"[#{d.memory_id}]" not in text for d in discussions), "the index goes before preferences"
    assert text.endswith(OMITTED_NOTE)


def test_the_index_survives_when_only_the_compaction_is_long(manager: MemoryManager) -> None:
    set_compaction(manager, "摘" * 4_000)
    made = add_item(manager, kind=DISCUSSION, title="当前讨论")
    pref = add_item(manager, kind=PREF, title="偏好")
    text = routing(manager)
    assert len(text) == MAX_ROUTING_CHARS, "the compaction fills the rest of the budget"
    assert f"[#{made.memory_id}] 当前讨论" in text and f"[#{pref.memory_id}]" in text
    assert "摘" * COMPACTION_FLOOR in text
    assert OMITTED_NOTE not in text


def test_routing_reads_only_as_many_rows_as_could_fit(manager: MemoryManager) -> None:
    for n in range(30):
        add_item(manager, kind=PREF, title=f"p{n}")
    text = routing(manager, max_chars=len(BOUNDARY_NOTICE) + 200)
    assert len(text) <= len(BOUNDARY_NOTICE) + 200
    assert text.endswith(OMITTED_NOTE)


body = st.text(alphabet=st.sampled_from("ab结论 x"), min_size=1, max_size=MAX_ITEM_LINE_CHARS - 10)


def numbered(tag: str) -> st.SearchStrategy[list[str]]:
    """Distinct lines, like the real ones (each carries its memory id)."""
    return st.lists(body, max_size=30).map(lambda xs: [f"- [#{tag}{n}] {x}" for n, x in enumerate(xs)])


@settings(max_examples=300, deadline=None)
@given(
    compaction=st.text(alphabet=st.sampled_from("摘要 ab"), max_size=4_000).map(str.strip),
    decisions=numbered("d"),
    index=numbered("i"),
    max_chars=st.integers(0, 6_000),
)
def test_routing_context_is_always_within_budget(
    compaction: str, decisions: list[str], index: list[str], max_chars: int
) -> None:
    text = compose_routing_context(compaction=compaction, decisions=decisions, index=index, max_chars=max_chars)
    assert len(text) <= max_chars
    if not (compaction or decisions or index):
        assert text == ""
    if text:
        assert text.startswith(BOUNDARY_NOTICE)
        assert text != BOUNDARY_NOTICE
    kept = [x for x in decisions if f"\n{x}\n" in f"{text}\n"]
    # The kept preferences are always the newest ones (a prefix of the newest-first list).
    assert kept == decisions[: len(kept)]
    if max_chars >= MAX_ROUTING_CHARS and decisions:
        assert decisions[0] in text, "the newest preference always fits the full budget"
    if max_chars >= MAX_ROUTING_CHARS and compaction:
        assert compaction[: min(len(compaction), COMPACTION_FLOOR) - 1] in text


@pytest.mark.parametrize("max_chars", [0, 10, len(BOUNDARY_NOTICE), len(BOUNDARY_NOTICE) + 5])
def test_a_budget_without_room_for_the_notice_and_content_gives_nothing(manager: MemoryManager, max_chars: int) -> None:
    add_item(manager, kind=PREF, title="a preference with a long enough title")
    assert routing(manager, max_chars=max_chars) == ""


def test_headings_name_the_sections(manager: MemoryManager) -> None:
    add_item(manager, kind=PREF, title="p")
    assert ITEMS_HEADING in routing(manager)
