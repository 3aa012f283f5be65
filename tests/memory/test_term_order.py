"""A one-term query's candidates kept in ranking order in a small store's copy: the order the ranking
statement gives, scope and the qualifier still decided per search, the same hits as the statement."""

from __future__ import annotations

import random

import pytest

from autopatch_j.memory import postings_cache
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.search import SearchHit, search_in_tx
from autopatch_j.memory.term_order import candidates_of, first_answers, ordered_holders
from tests.memory.item_factory import add_item_in_tx


def _row(
    *, every: bool, thread: int | None, updated_at: float, memory_id: int, keys: int = 10, title: str = "cache"
) -> tuple:
    row = (memory_id, "project_decision", title, "", "", "", "")
    return (every, thread, updated_at, row, keys, any("\u4e00" <= c <= "\u9fff" for c in title))


def test_holders_are_ordered_by_product_then_time_then_memory_id() -> None:
    items = {
        1: _row(every=True, thread=None, updated_at=5.0, memory_id=1),
        2: _row(every=True, thread=None, updated_at=9.0, memory_id=2),  # same product as 1, newer
        3: _row(every=True, thread=None, updated_at=9.0, memory_id=7),  # same product and time as 2
        4: _row(every=True, thread=None, updated_at=1.0, memory_id=4),  # the best product
    }
    holders = ordered_holders(
        values={1: 2.0, 2: 2.0, 3: 2.0, 4: 3.0},
        candidates=candidates_of({"redis": (4, 3, 2, 1)}, ["redis"], 32),
        items=items,  # type: ignore[arg-type]
    )
    assert [holder[0] for holder in holders] == [4, 3, 2, 1]


def test_holders_leave_out_what_no_scope_holds_and_mark_a_title_in_cjk() -> None:
    items = {
        1: _row(every=True, thread=None, updated_at=1.0, memory_id=1),
        2: _row(every=False, thread=None, updated_at=2.0, memory_id=2),  # retired
        3: _row(every=False, thread=8, updated_at=3.0, memory_id=3, title="缓存 TTL 10 分钟"),  # thread 8's
        4: None,  # no row
    }
    holders = ordered_holders(
        values={1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0},
        candidates=candidates_of({"缓存": (4, 3, 2, 1)}, ["缓存"], 32),
        items=items,  # type: ignore[arg-type]
    )
    assert holders == [(3, False, 8, 10, True), (1, True, None, 10, False)]


def test_holders_are_the_newest_cap_of_each_driving_key() -> None:
    items = {n: _row(every=True, thread=None, updated_at=float(n), memory_id=n) for n in range(1, 7)}
    holders = ordered_holders(
        values=dict.fromkeys(range(1, 7), 1.0),
        candidates=candidates_of({"cache": (6, 5, 4, 1), "caching": (3, 2)}, ["cache", "caching"], 2),
        items=items,  # type: ignore[arg-type]
    )
    assert [holder[0] for holder in holders] == [6, 5, 3, 2]


def test_the_first_answers_keep_scope_the_qualifier_and_the_limit() -> None:
    holders = [(9, False, 2, 4, False), (8, True, None, 60, True), (7, True, None, 4, False), (6, True, None, 4, False)]
    asked: list[tuple[float, int, int, bool]] = []

    def answers(share: float, held: int, keys: int, across: bool) -> bool:
        asked.append((share, held, keys, across))
        return keys < 60  # a memory of many keys does not answer

    found = first_answers(holders, share=1.5, answers=answers, query_cjk=False, thread_id=1, limit=1)
    assert found == [7]  # 9 is another thread's discussion, 8 does not answer
    assert asked == [(1.5, 1, 60, True), (1.5, 1, 4, False)]
    assert first_answers(holders, share=1.5, answers=answers, query_cjk=False, thread_id=2, limit=2) == [9, 7]


def _in_sql(manager: MemoryManager, thread: int, query: str, limit: int) -> list[SearchHit]:
    with manager.db.read("test search in sql") as conn:
        return search_in_tx(conn, thread_id=thread, query=query, limit=limit, cached=False)


@pytest.mark.parametrize("limit", [1, 3, 5])
def test_a_small_store_keeps_a_terms_holders_and_ranks_one_term_queries_as_the_statement(
    manager: MemoryManager, limit: int
) -> None:
    """One-term queries over a small store read whole: the copy keeps each term's holders in order, and
    every search's hits — both threads, ties of time, retired rows, a CJK and a Latin term — are the
    ranking statement's."""
    rng = random.Random(11)  # fixed seed
    active = manager.active_thread().id
    with manager.db.write("test: another thread") as conn:
        other = conn.execute(
            "INSERT INTO threads (status, created_at, archived_at) VALUES ('archived', 0, 0) RETURNING id"
        ).fetchone()[0]
    words = ["redis", "cache", "缓存", "deploy", "日志"]
    with manager.db.write("test: memories") as conn:
        for n in range(120):
            kind = rng.choice(list(MemoryKind))
            made = add_item_in_tx(
                conn,
                kind=kind,
                title=" ".join(rng.sample(words, 2)),
                content=f"{rng.choice(words)} {rng.choice(words)} note {n}",
                thread_id=rng.choice((active, other)) if kind is MemoryKind.DISCUSSION_CONTEXT else None,
                at=float(rng.randint(1, 10)),  # ties of time: broken by memory id
            )
            if rng.random() < 0.1:
                conn.execute("UPDATE memory_items SET status = 'forgotten' WHERE id = ?", (made.id,))
    postings_cache.clear()
    compared = 0
    for word in words:
        for query in (word, word.upper(), f" {word} "):  # the term asked again by other texts
            for thread in (active, other):
                hits = manager.search(thread_id=thread, query=query, limit=limit)
                assert hits == _in_sql(manager, thread, query, limit), (word, query, thread)
                compared += bool(hits)
    assert compared > 20
    kept = [copy.ordered for copy in postings_cache._copies.values() if copy.ordered]
    assert kept, "the copy kept no term's holders: one-term queries were not ranked from it"
