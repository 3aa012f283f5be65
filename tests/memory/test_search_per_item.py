"""What a small store's copy keeps per item so that a search does not derive it per candidate: the
script of each item's title is read once, with its row, and a one-term query's first search weighs
only its candidates; the hits are the ranking statement's."""

from __future__ import annotations

import random

import pytest

from autopatch_j.memory import postings_cache, term_order
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.search import SearchHit, search_in_tx
from tests.memory.item_factory import add_item_in_tx

WORDS = ["redis", "cache", "缓存", "deploy", "日志", "队列"]


def _in_sql(manager: MemoryManager, thread: int, query: str, limit: int) -> list[SearchHit]:
    with manager.db.read("test search in sql") as conn:
        return search_in_tx(conn, thread_id=thread, query=query, limit=limit, cached=False)


def _fill(manager: MemoryManager, n: int) -> None:
    rng = random.Random(7)  # fixed seed
    with manager.db.write("test: memories") as conn:
        for k in range(n):
            add_item_in_tx(
                conn,
                kind=rng.choice((MemoryKind.PROJECT_DECISION, MemoryKind.USER_PREFERENCE)),
                title=" ".join(rng.sample(WORDS, 2)),
                content=f"{rng.choice(WORDS)} {rng.choice(WORDS)} note {k}",
                at=float(rng.randint(1, 10)),
            )


def test_a_ranking_over_the_copy_reads_no_titles_script_again(
    manager: MemoryManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(manager, 80)
    thread = manager.active_thread().id
    read: list[str] = []

    def script_read(text: str) -> bool:
        read.append(text)
        return any("\u4e00" <= c <= "\u9fff" for c in text)

    for module in (postings_cache, term_order):
        monkeypatch.setattr(module, "has_cjk", script_read, raising=False)
    postings_cache.clear()
    queries = ["redis", "缓存", "redis cache", "日志 deploy", "deploy", "队列 cache"]
    seen = 0
    for limit in (5, 4, 3, 2):  # a term's first search ranks in SQL, later ones over the copy
        if limit == 3:  # every item's row (and its title's script) read by now
            assert any(copy.whole_rows for copy in postings_cache._copies.values()), "nothing ranked over the copy"
            seen = len(read)
            assert seen <= 80
        for query in queries:
            hits = manager.search(thread_id=thread, query=query, limit=limit)
            assert hits, query
            assert hits == _in_sql(manager, thread, query, limit), query
    assert len(read) == seen, "a ranking read a title's script again"


def test_a_one_term_query_weighs_only_its_candidates(manager: MemoryManager) -> None:
    _fill(manager, 150)  # every word is held by more items than a term's candidates
    thread = manager.active_thread().id
    postings_cache.clear()
    for limit in (5, 4):  # the store read whole, then its rows on the first ranking over the copy
        manager.search(thread_id=thread, query="队列", limit=limit)
    (copy,) = postings_cache._copies.values()
    assert copy.whole_rows
    weighed = set(copy.values)
    for limit in (5, 4, 3):
        for query in ("redis", "缓存", "deploy"):
            hits = manager.search(thread_id=thread, query=query, limit=limit)
            assert hits == _in_sql(manager, thread, query, limit)
    assert len(copy.ordered) >= 3, "one-term queries were not ranked from the copy"
    assert set(copy.values) == weighed, "a one-term query weighed every holder of its term"
