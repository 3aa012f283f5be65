"""Search by words (issue 18; issue 11 item 2): any order, inflections, mixed zh/en, equivalents, ≤ 3 statements."""

from __future__ import annotations

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.index import query_terms
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.item_factory import add_item
from tests.memory.pipeline_support import admit, pipeline_for
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
    # an item must hold two of the query's terms: "Deploy on Fridays" holds only deploy
    assert titles(manager, "deploying studies") == ["Studies"]
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
    assert [t.key for t in query_terms("snake_case src/app.py 3.10 pip-tools")] == [
        "snake_case",
        "src/app.py",
        "3.10",
        "pip-tools",
    ]
    assert titles(words, "snake_case") == ["Commit rules"]
    assert titles(words, "src/app.py") == ["Python version"]
    assert titles(words, "python 3.10") == ["Python version"]
    assert titles(words, "python 3.1") == []  # "3.1" is not 3.10: one term of two is not enough
    assert titles(words, "snake case") == ["Commit rules"]  # an identifier's words are indexed too


# -- ranking ---------------------------------------------------------------------------------------------


def test_an_item_holding_one_term_of_two_is_left_out_and_the_title_weighs_more(manager: MemoryManager) -> None:
    both = add_item(manager, kind=DECISION, title="Queue", content="kafka retries are capped", at=1_800_000_001.0)
    add_item(manager, kind=DECISION, title="Stream", content="kafka only", at=1_800_000_900.0)
    in_title = add_item(
        manager, kind=DECISION, title="Kafka retries policy", content="named by team", at=1_800_000_100.0
    )
    hits = search(manager, "kafka retries")
    assert [h.memory_id for h in hits] == [in_title.memory_id, both.memory_id]
    assert [h.match for h in hits] == ["prefix", "content"]


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
    assert len(hits) == 1  # the others hold one term of two


# -- no padding, long queries, statements -------------------------------------------------------------------


def test_a_term_that_matches_nothing_adds_nothing(words: MemoryManager) -> None:
    assert titles(words, "PostgreSQL kubernetes postgres") == ["数据库选型"]
    assert titles(words, "PostgreSQL kubernetes") == []  # a term no item holds still counts toward the query
    assert titles(words, "kubernetes helm") == []
    assert titles(words, "zzqx") == []


def test_a_query_needs_half_of_its_terms(words: MemoryManager) -> None:
    assert titles(words, "postgresql kubernetes helm") == []  # 1 of 3
    assert titles(words, "postgresql backend helm") == ["数据库选型"]  # 2 of 3


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
    assert statements == 0  # fillers only: no informative term, nothing sent


@pytest.mark.parametrize(
    ("rule", "queries"),
    [
        ("前端从下个版本起只支持最新的 Firefox 和 Chrome。", ["浏览器", "browser"]),
        ("All cloud infrastructure is managed with Pulumi from now on.", ["基础设施"]),
        ("以后 connection pool 的上限统一设成 20。", ["连接池"]),
        ("以后订单金额一律用整数分存。", ["amount"]),
        ("我们决定菜单图标统一用 SVG。", ["icon"]),
        ("Refund amounts are stored in cents from now on.", ["金额"]),
    ],
)
def test_a_rule_extracted_in_one_language_is_found_by_the_other_languages_words(
    manager: MemoryManager, rule: str, queries: list[str]
) -> None:
    """A rule the offline extractor stores is found by the words of the concept it names, in either
    language (browser, infrastructure, connection pool, amount, icon)."""
    pipeline = pipeline_for(manager)
    admit(manager, [(rule, "OK.")])
    drain(pipeline)
    for query in queries:
        assert search(manager, query), query
