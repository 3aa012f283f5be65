"""memory_search and memory_read (M-60 … M-65): three statements at most, one-directional, scoped."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from autopatch_j.memory import postings_cache
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.reading import read_in_tx
from autopatch_j.memory.records import MemoryKind, SourceRole
from autopatch_j.memory.search import (
    MAX_EXCERPT_CHARS,
    SYNOPSIS_CHARS,
    ReadResult,
    SearchHit,
    prefix_end,
    search_in_tx,
)
from autopatch_j.runtime import FakeClock
from tests.memory.item_factory import Quote, add_item, revise_item, set_status

PREF = MemoryKind.USER_PREFERENCE
DECISION = MemoryKind.PROJECT_DECISION
DISCUSSION = MemoryKind.DISCUSSION_CONTEXT


@pytest.fixture(autouse=True)
def new_process() -> None:
    """Each test searches as a process of its own would: with no copy of another store's index, whose
    stamp a first search would otherwise read and compare (one statement more, still ≤ 3)."""
    postings_cache.clear()


def thread_of(manager: MemoryManager) -> int:
    return manager.active_thread().id


def search(manager: MemoryManager, query: str, *, thread_id: int | None = None, limit: int = 5) -> list[SearchHit]:
    thread = thread_of(manager) if thread_id is None else thread_id
    with manager.db.read("test search") as conn:
        return search_in_tx(conn, thread_id=thread, query=query, limit=limit)


def read(manager: MemoryManager, memory_id: int, *, thread_id: int | None = None) -> ReadResult | None:
    thread = thread_of(manager) if thread_id is None else thread_id
    with manager.db.read("test read") as conn:
        return read_in_tx(conn, thread_id=thread, memory_id=memory_id)


@contextmanager
def traced(manager: MemoryManager) -> Iterator[list[str]]:
    """Every statement sent while the block runs, on connections opened inside it."""
    sent: list[str] = []
    manager.db.set_trace(sent.append)
    try:
        yield sent
    finally:
        manager.db.set_trace(None)


def queries(sent: list[str]) -> list[str]:
    """The SELECT/WITH statements among those sent (BEGIN, PRAGMA and ROLLBACK are not counted)."""
    return [s for s in sent if s.lstrip().upper().startswith(("SELECT", "WITH"))]


def traced_search(manager: MemoryManager, query: str, **kwargs: object) -> tuple[list[SearchHit], int]:
    thread = thread_of(manager)
    with traced(manager) as sent, manager.db.read("test search") as conn:
        hits = search_in_tx(conn, thread_id=thread, query=query, **kwargs)  # type: ignore[arg-type]
    return hits, len(queries(sent))


@pytest.fixture
def store(manager: MemoryManager) -> MemoryManager:
    """A few preferences and decisions in Chinese and English, and one discussion."""
    add_item(
        manager,
        kind=PREF,
        title="回答先给结论",
        content="以后回答先给结论，再给细节。",
        aliases=["answer first", "先说结论"],
        keywords=["结论", "answer style"],
    )
    add_item(
        manager,
        kind=DECISION,
        title="项目统一使用 Python 3.10+",
        content="我们决定项目统一使用 Python 3.10 及以上版本，CI 也按 3.10 配置。",
        aliases=["python version policy"],
        keywords=["python", "版本"],
    )
    add_item(
        manager,
        kind=DECISION,
        title="Use ruff for linting",
        content="From now on we use ruff instead of flake8 for lint and format.",
        aliases=["linter choice"],
        keywords=["ruff", "lint"],
    )
    add_item(
        manager,
        kind=DISCUSSION,
        title="缓存方案对比",
        content="正在比较 Redis 缓存与本地 LRU 缓存两个方案，倾向先做本地缓存。",
        keywords=["cache options"],
    )
    return manager


# -- empty, too long and unrelated queries ----------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "，。！？", "---", "\t\n"])
def test_an_empty_query_returns_nothing_without_any_statement(store: MemoryManager, query: str) -> None:
    hits, statements = traced_search(store, query)
    assert hits == []
    assert statements == 0


def test_a_query_over_256_chars_after_normalization_returns_nothing_without_any_statement(store: MemoryManager) -> None:
    hits, statements = traced_search(store, "结论" * 129)
    assert (hits, statements) == ([], 0)


def test_a_query_of_exactly_256_chars_is_searched(store: MemoryManager) -> None:
    hits, statements = traced_search(store, "x" * 256)
    assert hits == []
    assert 1 <= statements <= 3


def test_punctuation_does_not_count_toward_the_256_char_limit(store: MemoryManager) -> None:
    hits, _ = traced_search(store, "回答先给结论" + "!" * 300)
    assert [h.match for h in hits][:1] == ["exact"]


@pytest.mark.parametrize("query", ["kubernetes", "数据库迁移", "zzz", "完全无关的问题 totally unrelated"])
def test_an_unrelated_query_returns_an_empty_list_never_padded(store: MemoryManager, query: str) -> None:
    assert search(store, query) == []


def test_an_empty_store_returns_an_empty_list(manager: MemoryManager) -> None:
    hits, statements = traced_search(manager, "结论")
    assert hits == []
    assert statements == 1  # the term statistics say the store is empty: no ranking statement


# -- statement budget ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["回答先给结论", "回答", "结论", "python", "py", "rsi", "ion pol", "缓存", "本地", "flake8", "nothing here", "a"],
)
def test_every_search_sends_at_most_three_select_statements(store: MemoryManager, query: str) -> None:
    _, statements = traced_search(store, query)
    assert statements <= 3
    # "a" is a filler: no informative term, nothing sent; a query whose terms no item holds stops after
    # the term statistics
    assert statements == 0 if query == "a" else 1 <= statements <= 3


def test_a_search_with_many_hits_still_sends_at_most_three_statements(manager: MemoryManager) -> None:
    for n in range(6):
        add_item(manager, kind=PREF, title=f"lint rule {n}")
    hits, statements = traced_search(manager, "lint")
    assert len(hits) == 5
    assert statements == 2  # term statistics and the stamp, then the ranking statement
    again, statements = traced_search(manager, "Lint")
    assert again == hits and statements == 1  # the same terms: their kept ranking, labelled again
    fewer, statements = traced_search(manager, "lint", limit=4)
    assert fewer == hits[:4] and statements == 3  # ranked again: the postings of "lint", the item rows
    repeated, statements = traced_search(manager, "lint")
    assert (repeated, statements) == (hits, 1)  # the same query under the same stamp: its kept hits


def test_the_postings_read_once_serve_the_next_searches_until_the_index_changes(manager: MemoryManager) -> None:
    for n in range(3):
        add_item(manager, kind=PREF, title=f"lint rule {n}")
    first, statements = traced_search(manager, "lint rule")
    assert statements == 2  # a process that searches once ranks in SQL
    again, statements = traced_search(manager, "Lint rule")
    assert (again, statements) == (first, 1)  # the same terms: the kept ranking, labelled again
    ranked, statements = traced_search(manager, "lint rule", limit=4)
    assert (ranked, statements) == (first, 3)  # ranked again (another limit): postings and item rows read
    third, statements = traced_search(manager, "LINT RULE", limit=3)
    assert (third, statements) == (first, 1)  # the stamp: statistics, postings and item rows from the copy
    assert traced_search(manager, "lint rule") == (first, 1)  # the same query: its kept hits
    add_item(manager, kind=PREF, title="lint rule new")
    after, statements = traced_search(manager, "lint rule")
    # the kept statistics' stamp is not the store's: the statistics, then the ranking statement
    assert statements == 3 and next(hit.title for hit in after) == "lint rule new"


def test_the_copy_and_the_ranking_statement_give_the_same_hits(store: MemoryManager) -> None:
    for query in ["回答先给结论", "answer first", "python", "缓存", "本地", "flake8", "nothing here", "结论 python"]:
        cached, _ = traced_search(store, query)
        in_sql, statements = traced_search(store, query, cached=False)
        assert cached == in_sql and statements <= 2, query


def test_search_sends_no_bootstrap_or_per_item_query(store: MemoryManager) -> None:
    thread = thread_of(store)
    with traced(store) as sent, store.db.read("test search") as conn:
        search_in_tx(conn, thread_id=thread, query="缓存")
    selects = queries(sent)
    assert all("memory_meta" not in s and "sqlite_master" not in s and "FROM threads" not in s for s in selects)
    assert len(selects) <= 3


# -- match kinds and one-directional matching -----------------------------------------------------------


def test_exact_metadata_match_comes_first(store: MemoryManager) -> None:
    hits = search(store, "结论")
    assert hits[0].title == "回答先给结论"
    assert hits[0].match == "exact"


def test_prefix_match_over_metadata(store: MemoryManager) -> None:
    hits = search(store, "answer")
    assert [(h.title, h.match) for h in hits] == [("回答先给结论", "prefix")]


def test_substring_match_over_metadata_in_english_and_chinese(store: MemoryManager) -> None:
    # the last word may be cut short ("pol" → "policy"); the whole query is inside an alias
    assert [(h.title, h.match) for h in search(store, "version pol")] == [("项目统一使用 Python 3.10+", "substring")]
    assert [(h.title, h.match) for h in search(store, "先给")] == [("回答先给结论", "substring")]
    assert [(h.title, h.match) for h in search(store, "方案对")] == [("缓存方案对比", "substring")]


def test_short_queries_find_whole_words_not_pieces_of_words(store: MemoryManager) -> None:
    assert [(h.title, h.match) for h in search(store, "对比")] == [("缓存方案对比", "substring")]
    # the index holds words, not character grams: a piece inside a word finds nothing
    assert search(store, "uf") == []


def test_content_terms_top_up_only_after_metadata(store: MemoryManager) -> None:
    hits = search(store, "redis")
    assert [(h.title, h.match) for h in hits] == [("缓存方案对比", "content")]
    # 本地 and 地缓 are only in the content, 缓存 is also in the title: a word match.
    assert [(h.title, h.match) for h in search(store, "本地缓存")] == [("缓存方案对比", "words")]


def test_chinese_query_hits_inside_a_content_run(store: MemoryManager) -> None:
    hits = search(store, "配置")
    assert [(h.title, h.match) for h in hits] == [("项目统一使用 Python 3.10+", "content")]


@pytest.mark.parametrize("query", ["项目统一使用python", "项目统一使用 Python", "统一使用 PYTHON 3.10"])
def test_mixed_chinese_english_queries_ignore_spaces_beside_cjk(store: MemoryManager, query: str) -> None:
    assert [h.title for h in search(store, query)] == ["项目统一使用 Python 3.10+"]


def test_a_mixed_query_finds_a_latin_word_in_chinese_content(manager: MemoryManager) -> None:
    add_item(manager, kind=DECISION, title="依赖管理", content="以后依赖统一用uv管理，不再用pip-tools。")
    assert [h.match for h in search(manager, "pip")] == ["content"]
    assert [h.match for h in search(manager, "依赖统一用")] == ["words"]  # 依赖 is also a word of the title


def test_queries_are_nfkc_casefold_and_punctuation_normalized(store: MemoryManager) -> None:
    assert [h.match for h in search(store, "ＰＹＴＨＯＮ")] == ["exact"]
    assert [h.match for h in search(store, "  Answer—First!! ")] == ["exact"]
    assert [h.match for h in search(store, "回答，先给结论。")] == ["exact"]
    assert [h.match for h in search(store, "先给 结论")] == ["substring"]


def test_a_long_query_containing_a_short_common_word_does_not_match(store: MemoryManager) -> None:
    # "python", "lint" and "结论" are terms, but the query is compared against terms, not the reverse.
    # The English question about packaging a monorepo shares two words with the Chinese Python rule
    # (python, configure → 配置). A known false hit: the qualifier keeps it with the necessity table fitted
    # on d40–d42 (round 33's necessity.txt drops it; docs/retrieval.md, "Round 34, after the first look:
    # refit on d40–d42").
    hits = search(store, "how do I configure python packaging for a monorepo with lint rules")
    assert [h.title for h in hits] == ["项目统一使用 Python 3.10+"]
    assert search(store, "请解释一下这个函数的结论部分为什么会抛出空指针异常") == []


def test_each_item_appears_once_with_its_best_match(store: MemoryManager) -> None:
    hits = search(store, "python")
    assert [h.memory_id for h in hits] == sorted({h.memory_id for h in hits})
    assert hits[0].match == "exact"


def test_results_are_ordered_by_score_then_update_time_then_id(manager: MemoryManager) -> None:
    older = add_item(manager, kind=PREF, title="lint strict", content="lint strict", at=1_900_000_000.0)
    newer = add_item(manager, kind=PREF, title="lint fast", content="lint fast", at=1_900_000_100.0)
    exact = add_item(manager, kind=PREF, title="lint", content="lint", at=1_800_000_000.0)
    tie_a = add_item(manager, kind=PREF, title="lint alpha", content="lint alpha", at=1_900_000_500.0)
    tie_b = add_item(manager, kind=PREF, title="lint bravo", content="lint bravo", at=1_900_000_500.0)
    mylint = add_item(manager, kind=PREF, title="mylint", at=1_900_000_900.0)
    hits = search(manager, "lint")
    # the shortest item holding the term scores highest (BM25); equal scores: newest, then highest id
    assert [h.memory_id for h in hits] == [
        exact.memory_id,
        tie_b.memory_id,
        tie_a.memory_id,
        newer.memory_id,
        older.memory_id,
    ]
    assert mylint.memory_id not in {h.memory_id for h in hits}  # words, not pieces of words
    assert [h.match for h in hits] == ["exact", "prefix", "prefix", "prefix", "prefix"]


def test_limit_is_respected_and_capped_at_five(manager: MemoryManager) -> None:
    for n in range(8):
        add_item(manager, kind=DECISION, title=f"build step {n}")
    assert len(search(manager, "build", limit=2)) == 2
    assert len(search(manager, "build", limit=50)) == 5


def test_the_synopsis_is_a_bounded_start_of_the_content(manager: MemoryManager) -> None:
    body = "以后所有接口都要写单元测试。" * 40
    add_item(manager, kind=PREF, title="单元测试", content=body)
    (hit,) = search(manager, "单元测试")
    assert len(hit.synopsis) <= SYNOPSIS_CHARS
    assert body.startswith(hit.synopsis[:-1])
    assert hit.synopsis.endswith("…")


# -- scope ----------------------------------------------------------------------------------------------


def test_forgotten_superseded_and_revised_rows_are_never_returned(manager: MemoryManager) -> None:
    forgotten = add_item(manager, kind=PREF, title="tabs not spaces", content="always use tabs for indentation")
    superseded = add_item(manager, kind=DECISION, title="tabs in makefiles", content="tabs everywhere")
    revised = add_item(manager, kind=DECISION, title="tabs width 8", content="tab width 8 always")
    set_status(manager, forgotten.memory_id, "forgotten")
    set_status(manager, superseded.memory_id, "superseded")
    revise_item(manager, revised.memory_id, title="indent width 4", content="indent width four")
    assert search(manager, "tabs") == []
    assert search(manager, "always") == []
    assert [h.title for h in search(manager, "indent")] == ["indent width 4"]
    assert [h.memory_id for h in search(manager, "width")] == [revised.memory_id]


def test_archived_discussions_are_never_returned_but_preferences_stay(manager: MemoryManager) -> None:
    add_item(manager, kind=DISCUSSION, title="比较两个日志方案", content="structlog 还是 loguru")
    add_item(manager, kind=PREF, title="日志用英文", content="以后日志一律用英文")
    old_thread = thread_of(manager)
    manager.start_new_thread()
    assert [h.title for h in search(manager, "日志")] == ["日志用英文"]
    assert search(manager, "structlog") == []
    # A request admitted before /new stays bound to its thread (M-22).
    assert {h.title for h in search(manager, "日志", thread_id=old_thread)} == {"比较两个日志方案", "日志用英文"}


def test_another_threads_discussion_is_never_returned(manager: MemoryManager) -> None:
    first = thread_of(manager)
    _, second = manager.start_new_thread()
    add_item(manager, kind=DISCUSSION, title="部署方案讨论", thread_id=second.id)
    assert search(manager, "部署", thread_id=first) == []
    assert [h.kind for h in search(manager, "部署", thread_id=second.id)] == [DISCUSSION]


def test_a_stale_term_of_a_retired_revision_still_cannot_leak(manager: MemoryManager) -> None:
    made = add_item(manager, kind=PREF, title="stale term check")
    with manager.db.write("test: retire without dropping terms") as conn:
        conn.execute("UPDATE memory_items SET status = 'forgotten' WHERE id = ?", (made.id,))
    assert search(manager, "stale term check") == []
    assert search(manager, "term check") == []


# -- term statistics ---------------------------------------------------------------------------------------


def test_a_query_no_item_holds_sends_only_the_statistics_statement(store: MemoryManager) -> None:
    hits, statements = traced_search(store, "qqxyz")
    assert hits == []
    assert statements == 1


def test_a_query_whose_synonyms_and_translations_no_item_holds_sends_one_statement(store: MemoryManager) -> None:
    # "deploy" has a thesaurus group and Chinese words in the bilingual table, none of them held here:
    # the statistics say so, and no ranking statement follows.
    hits, statements = traced_search(store, "deployment rollback")
    assert hits == []
    assert statements == 1


def test_term_statistics_follow_forgetting(manager: MemoryManager) -> None:
    made = add_item(manager, kind=PREF, title="quokka habitat")
    with manager.db.read("stats") as conn:
        assert conn.execute("SELECT items FROM memory_term_stats WHERE term = 'quokka'").fetchone()[0] == 1
    set_status(manager, made.memory_id, "forgotten")
    with manager.db.read("stats") as conn:
        assert conn.execute("SELECT items FROM memory_term_stats WHERE term = 'quokka'").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM memory_postings").fetchone()[0] == 0
    assert search(manager, "quokka habitat") == []


@pytest.mark.parametrize(
    ("q", "expected"),
    [("a", "b"), ("ab", "ac"), ("结论", "结讻"), ("\U0010ffff", "\U0010ffff\U0010ffff"), ("a\U0010ffff", "b")],
)
def test_prefix_end_is_the_exclusive_upper_bound(q: str, expected: str) -> None:
    assert prefix_end(q) == expected
    assert q < prefix_end(q)
    assert q + "\U0010ffff" * 3 < prefix_end(q) or q.endswith("\U0010ffff")


def test_prefix_end_skips_surrogates() -> None:
    assert prefix_end("a\ud7ff") == "a\ue000"


# -- memory_read -----------------------------------------------------------------------------------------------


def test_read_returns_bounded_detail_with_at_most_three_excerpts(manager: MemoryManager) -> None:
    quotes = [Quote(f"以后第{n}条规则：" + "很长的原话" * 300) for n in range(5)]
    made = add_item(manager, kind=PREF, title="很多来源", content="很多来源的偏好", quotes=quotes)
    result = read(manager, made.memory_id)
    assert result is not None
    assert result.memory_id == made.memory_id
    assert result.kind is PREF
    assert result.non_factual is False
    assert len(result.excerpts) == 3
    assert all(len(e.quote) <= MAX_EXCERPT_CHARS for e in result.excerpts)
    assert all(e.quote.endswith("…") for e in result.excerpts)


def test_read_shows_both_sides_of_a_confirmed_proposal(manager: MemoryManager) -> None:
    made = add_item(
        manager,
        kind=DECISION,
        title="使用 uv 管理依赖",
        quotes=[Quote("我建议用 uv 管理依赖。", SourceRole.ASSISTANT), Quote("同意")],
    )
    result = read(manager, made.memory_id)
    assert result is not None
    assert {(e.role, e.quote) for e in result.excerpts} == {
        (SourceRole.ASSISTANT, "我建议用 uv 管理依赖。"),
        (SourceRole.USER, "同意"),
    }


def test_read_flags_discussions_as_non_factual(store: MemoryManager) -> None:
    (hit,) = search(store, "缓存方案对比")
    result = read(store, hit.memory_id)
    assert result is not None and result.non_factual is True


@pytest.mark.parametrize("status", ["forgotten", "superseded"])
def test_read_returns_none_for_retired_items(manager: MemoryManager, status: str) -> None:
    made = add_item(manager, kind=PREF, title="retired")
    set_status(manager, made.memory_id, status)
    assert read(manager, made.memory_id) is None


def test_read_returns_the_current_revision_only(manager: MemoryManager) -> None:
    made = add_item(manager, kind=PREF, title="old title", content="old content")
    revise_item(manager, made.memory_id, title="new title", content="new content")
    result = read(manager, made.memory_id)
    assert result is not None
    assert (result.title, result.content) == ("new title", "new content")


def test_read_returns_none_for_unknown_ids_and_archived_or_foreign_discussions(manager: MemoryManager) -> None:
    made = add_item(manager, kind=DISCUSSION, title="old discussion")
    old_thread = thread_of(manager)
    assert read(manager, 999_999) is None
    manager.start_new_thread()
    assert read(manager, made.memory_id) is None
    assert read(manager, made.memory_id, thread_id=old_thread) is not None


def test_the_manager_wrapper_adds_no_statement(tmp_path: Path) -> None:
    """`MemoryManager.search` (the agent's tool) also stays within three SELECT/WITH statements."""
    sent: list[str] = []
    manager = MemoryManager(root=tmp_path, clock=FakeClock(), trace=sent.append)
    assert manager.open().ok
    add_item(manager, kind=PREF, title="回答先给结论")
    thread = manager.active_thread().id
    for query in ("回答先给结论", "先给", "无关", "x" * 300):
        sent.clear()
        manager.search(thread_id=thread, query=query)
        assert len(queries(sent)) <= (0 if len(query) > 256 else 3)


def test_an_item_with_exact_and_prefix_terms_appears_once_as_exact(manager: MemoryManager) -> None:
    """Through the manager: the exact term wins over the item's prefix terms, and every other item
    holding several terms that start with the query still appears once, newest first."""
    both = add_item(
        manager, kind=PREF, title="lint rules", aliases=["lint strict"], keywords=["lint"], at=1_800_000_000.0
    )
    many = add_item(manager, kind=PREF, title="linters", aliases=["lint a", "lint b"], at=1_900_000_100.0)
    one = add_item(manager, kind=DECISION, title="lint fast", at=1_900_000_000.0)
    hits = manager.search(thread_id=thread_of(manager), query="LINT")
    assert [(h.memory_id, h.match) for h in hits] == [
        (both.memory_id, "exact"),
        (many.memory_id, "prefix"),
        (one.memory_id, "prefix"),
    ]


def test_the_exact_match_ranks_first_among_hundreds_sharing_the_prefix(manager: MemoryManager) -> None:
    for n in range(300):
        add_item(manager, kind=DECISION, title=f"cache {n}", at=1_900_000_000.0 + n)
    exact = add_item(manager, kind=PREF, title="caching", keywords=["cache"], at=1_000_000_000.0)
    hits = manager.search(thread_id=thread_of(manager), query="cache")
    assert [h.match for h in hits] == ["exact", "prefix", "prefix", "prefix", "prefix"]
    assert hits[0].memory_id == exact.memory_id
    assert [h.title for h in hits[1:]] == ["cache 299", "cache 298", "cache 297", "cache 296"]


def test_a_small_store_is_read_whole_so_new_terms_need_only_their_statistics(manager: MemoryManager) -> None:
    for n in range(3):
        add_item(manager, kind=PREF, title=f"lint rule {n}")
    add_item(manager, kind=PREF, title="kafka topics keep seven days", content="retention of kafka topics")
    first, _ = traced_search(manager, "lint rule")
    _, statements = traced_search(manager, "lint rule", limit=4)  # ranked again: another limit
    assert statements == 3  # statistics, every posting of the store, every indexed item's row
    hits, statements = traced_search(manager, "kafka retention")  # terms no search asked for before
    expected, _ = traced_search(manager, "kafka retention", cached=False)
    assert (hits, statements) == (expected, 1) and [hit.title for hit in hits] == ["kafka topics keep seven days"]
    assert traced_search(manager, "lint rule") == (first, 1)


def test_a_query_is_analysed_again_when_the_learned_associations_change(manager: MemoryManager) -> None:
    from autopatch_j.memory.index import use_associations

    add_item(manager, kind=DECISION, title="Postgres for the main database")
    thread = thread_of(manager)
    query = "which queue broker"
    assert manager.search(thread_id=thread, query=query) == []
    use_associations({"queue": ["postgr"], "broker": ["databas"]})
    try:
        assert [hit.title for hit in manager.search(thread_id=thread, query=query)] == [
            "Postgres for the main database"
        ]
    finally:
        use_associations(None)
    assert manager.search(thread_id=thread, query=query) == []
