"""Search by words (issue 18; issue 11 item 2): any order, inflections, mixed zh/en, equivalents, ≤ 3 statements."""

from __future__ import annotations

import hashlib
import json

import pytest

from autopatch_j.memory import search as search_module
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.terms import content_terms, grams, metadata_terms
from autopatch_j.memory.words import query_terms
from tests.memory.item_factory import add_item, add_turn
from tests.memory.test_search import search, traced_search

PREF = MemoryKind.USER_PREFERENCE
DECISION = MemoryKind.PROJECT_DECISION
POSTGRES = "We decided to use PostgreSQL for every backend service"


def titles(manager: MemoryManager, query: str) -> list[str]:
    return [hit.title for hit in search(manager, query)]


@pytest.fixture
def words(manager: MemoryManager) -> MemoryManager:
    add_item(manager, kind=DECISION, title="数据库选型", content=POSTGRES)
    add_item(manager, kind=PREF, title="回答简短", content="以后回答简短一些，不要长篇大论。")
    add_item(manager, kind=DECISION, title="缓存方案", content="缓存统一用 Redis，不再用本地 LRU。")
    add_item(manager, kind=DECISION, title="部署流程", content="上线先灰度，再全量。")
    add_item(
        manager,
        kind=DECISION,
        title="Commit rules",
        content="Every commit is signed and the test suite runs first; module names use snake_case.",
        keywords=["git"],
    )
    add_item(
        manager, kind=DECISION, title="Python version", content="CI pins Python 3.10; the entry point is src/app.py."
    )
    return manager


# -- the cases of the issue ------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["service PostgreSQL", "PostgreSQL service", "services", "backend services"])
def test_the_issue_queries_find_the_postgresql_decision(words: MemoryManager, query: str) -> None:
    assert titles(words, query) == ["数据库选型"]


@pytest.mark.parametrize(("query", "title"), [("commits", "Commit rules"), ("tests", "Commit rules")])
def test_plurals_find_the_singular(words: MemoryManager, query: str, title: str) -> None:
    assert titles(words, query) == [title]


def test_verb_forms_and_plurals_both_ways(manager: MemoryManager) -> None:
    add_item(manager, kind=DECISION, title="Deploy on Fridays", content="deploy after the review")
    add_item(manager, kind=DECISION, title="Studies", content="we deployed two services and ran the studies")
    assert titles(manager, "deployed") == ["Deploy on Fridays", "Studies"]  # in a title first
    assert titles(manager, "deploying service") == ["Studies", "Deploy on Fridays"]
    assert titles(manager, "study") == ["Studies"]


# -- order, mixed languages, equivalents ------------------------------------------------------------------


@pytest.mark.parametrize("query", ["缓存 Redis", "Redis 缓存", "redis，缓存"])
def test_mixed_queries_find_items_with_each_part_in_any_order(words: MemoryManager, query: str) -> None:
    assert titles(words, query) == ["缓存方案"]


def test_deploy_and_a_chinese_word_find_the_chinese_memory_through_equivalents(words: MemoryManager) -> None:
    # 部署 ↔ deploy is an equivalent pair; 流程 is in the title.
    assert titles(words, "deploy 流程") == ["部署流程"]


@pytest.mark.parametrize("query", ["简短回答", "回答简短", "brief answers", "short answer", "answers concise"])
def test_chinese_word_order_variants_and_english_equivalents(words: MemoryManager, query: str) -> None:
    assert titles(words, query) == ["回答简短"]


def test_equivalents_are_indexed_for_memories_without_a_subject(manager: MemoryManager) -> None:
    add_item(manager, kind=DECISION, title="Use a local cache", content="keep it in process")
    add_item(manager, kind=DECISION, title="日志格式", content="统一 JSON")
    assert titles(manager, "缓存") == ["Use a local cache"]
    assert titles(manager, "logging") == ["日志格式"]
    assert [hit.match for hit in search(manager, "缓存")] == ["words"]


def test_identifiers_paths_and_versions_are_kept_whole(words: MemoryManager) -> None:
    assert [t.text for t in query_terms("snake_case src/app.py 3.10 pip-tools")[0]] == [
        "snake_case",
        "src/app.py",
        "3.10",
        "pip-tools",
    ]
    assert titles(words, "snake_case") == ["Commit rules"]
    assert titles(words, "src/app.py") == ["Python version"]
    assert titles(words, "python 3.10") == ["Python version"]
    assert titles(words, "python 3.1") == ["Python version"]  # half the terms: python
    assert titles(words, "snake case") == ["Commit rules"]  # an identifier's words are indexed too


# -- ranking ---------------------------------------------------------------------------------------------


def test_more_distinct_terms_rank_first_then_title_then_recency(manager: MemoryManager) -> None:
    both = add_item(manager, kind=DECISION, title="Queue", content="kafka retries are capped", at=1_800_000_001.0)
    one_new = add_item(manager, kind=DECISION, title="Stream", content="kafka only", at=1_800_000_900.0)
    in_title = add_item(manager, kind=DECISION, title="Kafka topics", content="named by team", at=1_800_000_100.0)
    hits = search(manager, "kafka retries")
    assert [h.memory_id for h in hits] == [both.memory_id, in_title.memory_id, one_new.memory_id]
    assert [h.match for h in hits] == ["content", "words", "content"]


def test_the_exact_phrase_still_ranks_first(manager: MemoryManager) -> None:
    add_item(manager, kind=DECISION, title="Retries for kafka", content="kafka retries are capped", at=1_800_000_900.0)
    exact = add_item(manager, kind=DECISION, title="kafka retries", content="see the runbook", at=1_800_000_001.0)
    hits = search(manager, "Kafka retries")
    assert (hits[0].memory_id, hits[0].match) == (exact.memory_id, "exact")
    assert [h.match for h in hits] == ["exact", "words"]


def test_the_rarest_term_drives_even_when_another_term_is_everywhere(manager: MemoryManager) -> None:
    target = add_item(manager, kind=DECISION, title="Old note", content="python quokka", at=1_700_000_000.0)
    for n in range(120):
        add_item(manager, kind=DECISION, title=f"note {n}", content=f"python rule {n}", at=1_800_000_000.0 + n)
    hits = search(manager, "quokka python")
    assert hits[0].memory_id == target.memory_id
    assert len(hits) == 5  # then the newest items that match half of the terms


@pytest.mark.parametrize("scan_max", [0, 1, 3, 10**6])
def test_probing_and_reading_key_ranges_give_the_same_ranked_hits(
    manager: MemoryManager, monkeypatch: pytest.MonkeyPatch, scan_max: int
) -> None:
    """A key with few rows from the oldest candidate on is read as a range, a denser one is probed per
    candidate (search.WORDS_SCAN_MAX): 0 probes every key, 10**6 reads every key as a range."""
    both = add_item(manager, kind=DECISION, title="Queue", content="kafka retries are capped", at=1_800_000_001.0)
    in_title = add_item(manager, kind=DECISION, title="Kafka topics", content="named by team", at=1_800_000_100.0)
    for n in range(6):
        add_item(manager, kind=DECISION, title=f"Stream {n}", content=f"kafka only {n}", at=1_800_000_200.0 + n)
    retries = add_item(manager, kind=DECISION, title="Backoff", content="retries double", at=1_800_000_300.0)
    expected = [both.memory_id, in_title.memory_id, retries.memory_id]
    monkeypatch.setattr(search_module, "WORDS_SCAN_MAX", scan_max)
    hits = search(manager, "kafka retries")
    assert [h.memory_id for h in hits][:3] == expected
    assert [h.match for h in hits] == ["content", "words", "content", "content", "content"]
    assert [h.title for h in hits][3:] == ["Stream 5", "Stream 4"]  # then the newest with one term


# -- no padding, long queries, statements -------------------------------------------------------------------


def test_a_term_that_matches_nothing_adds_nothing(words: MemoryManager) -> None:
    assert titles(words, "PostgreSQL kubernetes") == ["数据库选型"]
    assert titles(words, "kubernetes helm") == []
    assert titles(words, "zzqx") == []


def test_a_query_needs_half_of_its_terms(words: MemoryManager) -> None:
    assert titles(words, "postgresql kubernetes helm") == []  # 1 of 3
    assert titles(words, "postgresql backend helm") == ["数据库选型"]  # 2 of 3


def test_a_sentence_of_a_query_needs_three_quarters_of_its_terms(manager: MemoryManager) -> None:
    """M-64, issue 11: a question of common words is no lookup — sharing half its words with a memory
    ("data", "layer", "use", "queries" and "strings" of seven) does not make that memory its answer."""
    add_item(
        manager,
        kind=DECISION,
        title="Data access",
        content="The data access layer must use parameterized queries, never string concatenation",
    )
    question = "how should the data layer of this project use the strings and the queries we build"
    assert query_terms(question)[1] == 7
    assert titles(manager, question) == []  # 5 of 7
    assert titles(manager, "data layer use parameterized queries") == ["Data access"]  # 5 of 5
    assert titles(manager, "data layer queries string concatenation pooling") == ["Data access"]  # 5 of 6


def test_a_query_that_reads_as_a_sentence_needs_every_word(manager: MemoryManager) -> None:
    """M-64, issue 11, eleventh round: a query with function words between its words is a question,
    not a keyword list — it asks about everything it names, so an item missing one of its words is not
    its answer ("… the before and the after …" is not "show the test before the code"), while the same
    words typed as keywords still need only three quarters, or half of a few."""
    add_item(manager, kind=PREF, title="Tests first", content="By default, show me the test before the code")
    assert titles(manager, "show me the before and the after by default") == []  # 3 of 4, a sentence
    assert titles(manager, "show me the test before the code by default") == ["Tests first"]  # 5 of 5
    assert titles(manager, "show before after default") == ["Tests first"]  # 3 of 4 keywords


def test_the_thesaurus_knows_phrases_of_two_or_three_words(manager: MemoryManager) -> None:
    """Issue 11, twelfth round: an English term of several words has a Chinese equivalent of one
    ("root cause" = 根因, "rate limiting" = 限流, "line number" = 行号, "TL;DR" = 摘要), both ways."""
    add_item(manager, kind=PREF, title="Bugs", content="When you explain a bug, start with the root cause")
    add_item(manager, kind=DECISION, title="接口", content="所有对外接口都要加限流")
    add_item(manager, kind=PREF, title="Answers", content="End every answer with a short TL;DR line")
    add_item(manager, kind=DECISION, title="Errors", content="backend 的 error response 统一用 problem+json")
    assert titles(manager, "根因") == ["Bugs"]
    assert titles(manager, "rate limiting") == ["接口"]
    assert titles(manager, "摘要") == ["Answers"] and titles(manager, "tldr") == ["Answers"]
    assert titles(manager, "错误响应") == ["Errors"]
    assert titles(manager, "cause") == ["Bugs"]  # the phrase's own words stay words
    assert titles(manager, "限额") == []


def test_a_chinese_count_in_the_query_must_match(manager: MemoryManager) -> None:
    """Issue 11, tenth round: "两个空格" shares 个空 and 空格 with "四个空格", but the count is what it
    asks about; a word-order variant without a count still needs only half its bigrams."""
    add_item(manager, kind=DECISION, title="缩进", content="我们用四个空格缩进")
    assert titles(manager, "两个空格") == []
    assert titles(manager, "四个空格") == ["缩进"]
    assert titles(manager, "空格缩进") == ["缩进"]


@pytest.mark.parametrize(
    "query",
    [
        "service PostgreSQL",
        "缓存 Redis",
        "deploy 流程",
        "简短回答",
        "one two three four five six seven eight nine ten eleven twelve",
        "请解释一下这个函数的结论部分为什么会抛出空指针异常 and how python logging works",
        "snake_case src/app.py 3.10",
    ],
)
def test_multi_term_searches_send_at_most_three_statements(words: MemoryManager, query: str) -> None:
    _, statements = traced_search(words, query)
    assert 1 <= statements <= 3


def test_a_query_of_only_function_words_matches_nothing(words: MemoryManager) -> None:
    hits, statements = traced_search(words, "how do we do it")
    assert hits == []
    assert statements == 2  # exact/prefix and substring of the phrase; no words left for the third


# -- stores written before word keys: an explicit, tested rebuild -------------------------------------------


def _index_as_before_word_keys(manager: MemoryManager) -> None:
    """Rewrite the terms the way the previous release did: whole metadata terms with grams, content terms."""
    with manager.db.write("test: old terms") as conn:
        conn.execute("DELETE FROM memory_terms")
        rows = conn.execute("SELECT id, title, aliases, keywords, content FROM memory_items WHERE status = 'active'")
        for item_id, title, aliases, keywords, content in rows.fetchall():
            for term in metadata_terms(title, json.loads(aliases), json.loads(keywords)):
                term_id = conn.execute(
                    "INSERT INTO memory_terms (item_id, source, term) VALUES (?, 'meta', ?) RETURNING id",
                    (item_id, term),
                ).fetchone()[0]
                conn.executemany(
                    "INSERT INTO memory_term_grams (gram, term_id, item_id) VALUES (?, ?, ?)",
                    [(g, term_id, item_id) for g in grams(term)],
                )
            conn.executemany(
                "INSERT INTO memory_terms (item_id, source, term) VALUES (?, 'content', ?)",
                [(item_id, term) for term in content_terms(content)],
            )


def _snapshot(manager: MemoryManager, sql: str) -> str:
    with manager.db.read("test: snapshot") as conn:
        return hashlib.sha256(repr([tuple(row) for row in conn.execute(sql)]).encode()).hexdigest()


def test_reindex_upgrades_an_old_store_and_keeps_raw_turns_and_the_catalog(words: MemoryManager) -> None:
    add_turn(words, user_text="以后回答简短一些", assistant_text="好的")
    fresh_terms = _snapshot(words, "SELECT item_id, source, term FROM memory_terms ORDER BY item_id, source, term")
    _index_as_before_word_keys(words)
    assert titles(words, "services") == []  # the old terms have no stems
    turns = _snapshot(words, "SELECT * FROM turns ORDER BY id")
    items = _snapshot(words, "SELECT * FROM memory_items ORDER BY id")
    assert words.reindex() == 6
    assert titles(words, "services") == ["数据库选型"]
    assert _snapshot(words, "SELECT item_id, source, term FROM memory_terms ORDER BY item_id, source, term") == (
        fresh_terms
    )
    assert _snapshot(words, "SELECT * FROM turns ORDER BY id") == turns
    assert _snapshot(words, "SELECT * FROM memory_items ORDER BY id") == items
    with words.db.read("test: stats") as conn:
        stale = conn.execute(
            "SELECT count(*) FROM memory_gram_stats s WHERE s.terms <> "
            "(SELECT count(*) FROM memory_term_grams g WHERE g.gram = s.gram)"
        ).fetchone()[0]
    assert stale == 0
    reopened = MemoryManager(root=words.paths.root)
    assert reopened.open().ok  # the exact catalog check still passes


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("版本 镜像", ["版本", "镜像"]),  # a space splits CJK words in a query
        ("本地缓存", ["本地", "地缓", "缓存"]),
        ("用 Redis 和 缓存", ["redis", "缓存"]),  # lone characters in a longer query are particles
        ("用", ["用"]),
        ("How do we deploy the services?", ["deploy", "services"]),
    ],
)
def test_query_terms(query: str, terms: list[str]) -> None:
    assert [t.text for t in query_terms(query)[0]] == terms


def test_at_most_eight_terms_are_used_but_all_count_toward_half(words: MemoryManager) -> None:
    used, total = query_terms("alpha beta gamma delta epsilon zeta eta theta iota kappa")
    assert (len(used), total) == (8, 10)
    assert titles(words, "postgresql backend services alpha beta gamma delta epsilon zeta eta") == []  # 3 of 10
