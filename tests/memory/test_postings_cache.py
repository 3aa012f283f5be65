"""The process's copy of the postings: the same hits as the ranking statement on generated stores, and
never believed after the index changed — in this process, in another one, or in a rolled-back write."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autopatch_j.memory import matching, postings_cache, search
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.search import SearchHit, search_in_tx
from tests.memory.item_factory import add_item, add_item_in_tx

EN = [
    "python",
    "pytest",
    "ruff",
    "lint",
    "cache",
    "redis",
    "deploy",
    "docker",
    "release",
    "branch",
    "commit",
    "review",
    "schema",
    "index",
    "log",
    "retry",
]
ZH = ["缓存", "日志", "部署", "测试", "发布", "分支", "提交", "评审", "索引", "重试", "数据库", "迁移", "配置", "监控"]
KINDS = (MemoryKind.USER_PREFERENCE, MemoryKind.PROJECT_DECISION, MemoryKind.DISCUSSION_CONTEXT)


def _phrase(rng: random.Random) -> str:
    words = rng.sample(EN, rng.randint(1, 3)) if rng.random() < 0.5 else rng.sample(ZH, rng.randint(1, 2))
    return (" " if words[0].isascii() else "").join(words)


def _fill(manager: MemoryManager, rng: random.Random, items: int) -> tuple[int, int]:
    """`items` generated memories (repeated titles for ties, two threads, some retired); returns the
    active thread and the other thread."""
    active = manager.active_thread().id
    with manager.db.write("test: another thread") as conn:
        other = conn.execute(
            "INSERT INTO threads (status, created_at, archived_at) VALUES ('archived', 0, 0) RETURNING id"
        ).fetchone()[0]
    titles = [_phrase(rng) for _ in range(max(1, items // 3))]
    with manager.db.write("test: generated memories") as conn:
        for _n in range(items):
            kind = rng.choice(KINDS)
            thread = rng.choice((active, other)) if kind is MemoryKind.DISCUSSION_CONTEXT else None
            made = add_item_in_tx(
                conn,
                kind=kind,
                title=rng.choice(titles),
                content=f"{_phrase(rng)}, {_phrase(rng)}",
                aliases=[_phrase(rng)] if rng.random() < 0.5 else [],
                keywords=rng.sample(EN + ZH, rng.randint(0, 2)),
                thread_id=thread,
                at=float(rng.randint(1, max(2, items // 4))),  # equal times: ties broken by memory id
            )
            if rng.random() < 0.1:  # a stale posting: the row is retired, its postings stay
                conn.execute("UPDATE memory_items SET status = 'forgotten' WHERE id = ?", (made.id,))
    return active, other


def _both(manager: MemoryManager, thread: int, query: str) -> tuple[list[SearchHit], list[SearchHit]]:
    """The hits ranked over the copy and by the ranking statement (asserting the kept hits of the
    query's own text are the ones ranked first)."""
    with manager.db.read("test search") as conn:
        first = search_in_tx(conn, thread_id=thread, query=query)  # asked once: the next one reads the copy
        cached = search_in_tx(conn, thread_id=thread, query=query + " ")  # the same terms, another text
        assert search_in_tx(conn, thread_id=thread, query=query) == first  # its kept hits
        in_sql = search_in_tx(conn, thread_id=thread, query=query, cached=False)
    return cached, in_sql


def _queries(rng: random.Random, n: int) -> list[str]:
    words = EN + ZH + ["what do we use for", "是怎么定的", "pyt", "nothing", "区块链"]
    return [" ".join(rng.sample(words, rng.randint(1, 4))) for _ in range(n)]


@pytest.mark.parametrize(
    ("whole_items", "busy_items"),
    [(postings_cache.WHOLE_ITEMS, 0), (0, postings_cache.BUSY_ITEMS), (0, 0)],
    ids=["read-whole", "per-term-then-whole", "per-term"],
)
def test_a_generated_store_of_hundreds_ranks_the_same_in_the_copy_and_in_sql(
    manager: MemoryManager, monkeypatch: pytest.MonkeyPatch, whole_items: int, busy_items: int
) -> None:
    monkeypatch.setattr(postings_cache, "WHOLE_ITEMS", whole_items)  # a small store read whole at once
    monkeypatch.setattr(postings_cache, "BUSY_ITEMS", busy_items)  # or whole once the process is busy
    rng = random.Random(7)  # fixed seed, logged by the assertion's message
    threads = _fill(manager, rng, 600)  # ≥ 32 items per key: the newest-candidates bound matters
    differ = []
    compared = 0
    for query in _queries(rng, 150) + EN + ZH:
        for thread in threads:
            cached, in_sql = _both(manager, thread, query)
            compared += bool(in_sql)
            if cached != in_sql:
                differ.append(query)
    assert differ == [], f"seed 7: {differ[:5]}"
    assert compared > 150  # most queries find something, so the comparison says something


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), items=st.integers(min_value=1, max_value=80))
def test_any_generated_store_ranks_the_same_in_the_copy_and_in_sql(tmp_path: Path, seed: int, items: int) -> None:
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    manager = MemoryManager(root=root)
    assert manager.open().ok
    try:
        rng = random.Random(seed)
        threads = _fill(manager, rng, items)
        for query in _queries(rng, 20):
            for thread in threads:
                cached, in_sql = _both(manager, thread, query)
                assert cached == in_sql, (seed, query)
    finally:
        manager.close()


def test_a_rolled_back_write_leaves_the_stamp_and_the_copy_true(manager: MemoryManager) -> None:
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache")
    thread = manager.active_thread().id
    assert [hit.title for hit in manager.search(thread_id=thread, query="redis")] == ["Use redis for the cache"]
    stamp = "SELECT stamp FROM memory_index_state"
    with manager.db.read("test") as conn:
        before = conn.execute(stamp).fetchone()[0]
    conn = sqlite3.connect(manager.paths.db, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DELETE FROM memory_search_docs")  # drops every posting, in this transaction only
        assert conn.execute(stamp).fetchone()[0] != before
        assert search_in_tx(conn, thread_id=thread, query="redis") == []  # seen inside the transaction
        conn.execute("ROLLBACK")
    finally:
        conn.close()
    with manager.db.read("test") as conn:
        assert conn.execute(stamp).fetchone()[0] == before
    assert [hit.title for hit in manager.search(thread_id=thread, query="redis")] == ["Use redis for the cache"]


def test_every_change_of_the_index_replaces_the_stamp(manager: MemoryManager) -> None:
    stamps = []

    def stamp() -> int | None:
        with manager.db.read("test") as conn:
            row = conn.execute("SELECT stamp FROM memory_index_state").fetchone()
        return None if row is None else int(row[0])

    made = add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache")
    stamps.append(stamp())
    with manager.db.write("test") as conn:
        conn.execute("UPDATE memory_postings SET weight = weight + 1 WHERE item_id = ?", (made.id,))
    stamps.append(stamp())
    manager.forget(made.memory_id)
    stamps.append(stamp())
    with manager.db.write("test") as conn:
        from autopatch_j.memory.index import reindex_in_tx

        reindex_in_tx(conn)
    stamps.append(stamp())
    assert None not in stamps and len(set(stamps)) == len(stamps)


def test_a_long_lived_process_sees_what_another_process_wrote(manager: MemoryManager, tmp_path: Path) -> None:
    """One process keeps searching (its copy warm) while another process indexes and forgets."""
    first = add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache")
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from autopatch_j.memory.manager import MemoryManager
        manager = MemoryManager(root=Path({str(manager.paths.root)!r}))
        assert manager.open().ok
        thread = manager.active_thread().id
        for line in sys.stdin:
            titles = [hit.title for hit in manager.search(thread_id=thread, query="redis cache")]
            print("|".join(titles), flush=True)
        """
    )
    reader = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    assert reader.stdin is not None and reader.stdout is not None

    def ask() -> str:
        assert reader.stdin is not None and reader.stdout is not None
        reader.stdin.write("search\n")
        reader.stdin.flush()
        return reader.stdout.readline().strip()

    try:
        assert ask() == "Use redis for the cache"
        assert ask() == "Use redis for the cache"
        assert ask() == "Use redis for the cache"  # served from the copy now
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis cache keys expire after an hour")
        assert sorted(ask().split("|")) == ["Redis cache keys expire after an hour", "Use redis for the cache"]
        manager.forget(first.memory_id)
        assert ask() == "Redis cache keys expire after an hour"
    finally:
        reader.stdin.close()
        reader.wait(timeout=30)
        reader.stdout.close()


def test_the_copy_stays_within_its_bound(manager: MemoryManager) -> None:
    with manager.db.write("test") as conn:
        for n in range(40):
            add_item_in_tx(conn, kind=MemoryKind.PROJECT_DECISION, title=f"redis rule {n}")
    postings_cache.clear()
    thread = manager.active_thread().id
    manager.search(thread_id=thread, query="redis rule")
    assert postings_cache.cached_rows() == 0  # one search: ranked in SQL, nothing read into the copy
    manager.search(thread_id=thread, query="redis rule", limit=4)  # ranked again: another limit
    assert 0 < postings_cache.cached_rows() <= postings_cache.LOAD_ROWS + 40


def test_an_item_row_changed_without_its_postings_is_seen_by_the_next_search(manager: MemoryManager) -> None:
    made = add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache")
    thread = manager.active_thread().id
    assert [hit.title for hit in manager.search(thread_id=thread, query="redis")] == ["Use redis for the cache"]
    with manager.db.write("test: retire the row, keep its postings") as conn:
        conn.execute("UPDATE memory_items SET status = 'superseded' WHERE id = ?", (made.id,))
    assert manager.search(thread_id=thread, query="redis") == []
    with manager.db.write("test: a new title, same postings") as conn:
        conn.execute("UPDATE memory_items SET status = 'active', title = 'Redis caches' WHERE id = ?", (made.id,))
    assert [hit.title for hit in manager.search(thread_id=thread, query="redis")] == ["Redis caches"]


def _in_sql(manager: MemoryManager, thread: int, query: str, limit: int = 5) -> list[SearchHit]:
    with manager.db.read("test search in SQL") as conn:
        return search_in_tx(conn, thread_id=thread, query=query, limit=limit, cached=False)


def test_a_write_is_seen_by_a_search_whose_terms_the_copy_weighed_before(manager: MemoryManager) -> None:
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis streams for the job queue")
    add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="Postgres for the main database")
    thread = manager.active_thread().id
    postings_cache.clear()
    for _ in range(3):  # weighed, then ranked over the copy with the terms' kept parts
        assert manager.search(thread_id=thread, query="redis cache") == _in_sql(manager, thread, "redis cache")
    assert postings_cache.cached_parts() > 0
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis cache keys expire after an hour")
    hits = manager.search(thread_id=thread, query="redis cache")
    assert "Redis cache keys expire after an hour" in [hit.title for hit in hits]
    assert hits == _in_sql(manager, thread, "redis cache")
    manager.forget(hits[0].memory_id)
    after = manager.search(thread_id=thread, query="redis cache")
    assert hits[0].memory_id not in [hit.memory_id for hit in after]
    assert after == _in_sql(manager, thread, "redis cache")


def test_the_kept_parts_stay_within_their_bound(manager: MemoryManager, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postings_cache, "MAX_PARTS", 4)
    words = ["redis", "cache", "deploy", "docker", "release", "branch", "commit", "review", "schema", "index"]
    for word in words:
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title=f"Use {word} rules")
    thread = manager.active_thread().id
    postings_cache.clear()
    for _ in range(2):
        for word in words:
            assert manager.search(thread_id=thread, query=word) == _in_sql(manager, thread, word)
            assert postings_cache.cached_parts() <= 4


def test_a_repeated_query_sees_what_another_process_and_connection_wrote(manager: MemoryManager) -> None:
    """A query this process repeats answers from what it kept only while the store is unchanged: a
    forget by another process and an item added through another connection are seen at once."""
    first = add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis streams for the job queue")
    thread = manager.active_thread().id
    postings_cache.clear()
    for _ in range(4):  # asked, read into the copy, then answered from what the process kept
        hits = manager.search(thread_id=thread, query="redis cache")
    assert [hit.memory_id for hit in hits][:1] == [first.memory_id]
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from autopatch_j.memory.manager import MemoryManager
        manager = MemoryManager(root=Path({str(manager.paths.root)!r}))
        assert manager.open().ok
        manager.forget({first.memory_id})
        manager.close()
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    after = manager.search(thread_id=thread, query="redis cache")
    assert first.memory_id not in [hit.memory_id for hit in after]
    assert after == _in_sql(manager, thread, "redis cache")
    other = MemoryManager(root=manager.paths.root)  # a second connection to the same store
    assert other.open().ok
    try:
        added = add_item(other, kind=MemoryKind.PROJECT_DECISION, title="Redis cache keys expire after an hour")
    finally:
        other.close()
    again = manager.search(thread_id=thread, query="redis cache")
    assert added.memory_id in [hit.memory_id for hit in again]
    assert again == _in_sql(manager, thread, "redis cache")


def _traced_search(manager: MemoryManager, thread: int, query: str, limit: int = 5) -> tuple[list[SearchHit], int]:
    """A search's hits and the number of SELECT statements it sent."""
    sent: list[str] = []
    manager.db.set_trace(sent.append)
    try:
        hits = manager.search(thread_id=thread, query=query, limit=limit)
    finally:
        manager.db.set_trace(None)
    return hits, sum(s.lstrip().upper().startswith(("SELECT", "WITH")) for s in sent)


def test_a_repeated_query_sends_one_statement_and_at_most_three_after_a_write(manager: MemoryManager) -> None:
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache")
    thread = manager.active_thread().id
    postings_cache.clear()
    sent: list[str] = []
    for _ in range(3):
        first = manager.search(thread_id=thread, query="redis cache")
    manager.db.set_trace(sent.append)
    try:
        assert manager.search(thread_id=thread, query="redis cache") == first
        assert sum(s.lstrip().upper().startswith(("SELECT", "WITH")) for s in sent) == 1  # the stamp
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis cache keys expire after an hour")
        sent.clear()
        after = manager.search(thread_id=thread, query="redis cache")
        assert sum(s.lstrip().upper().startswith(("SELECT", "WITH")) for s in sent) <= 3
    finally:
        manager.db.set_trace(None)
    assert len(after) == 2 and after == _in_sql(manager, thread, "redis cache")


def test_a_store_past_the_whole_bound_is_read_per_term(manager: MemoryManager, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postings_cache, "WHOLE_ROWS", 5)
    for n in range(3):
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title=f"lint rule {n}")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="kafka topics", content="retention of kafka topics")
    thread = manager.active_thread().id
    postings_cache.clear()
    statements = []
    # the same terms ranked again (a ranking is kept per terms, thread and limit): other limits
    for query, limit in (
        ("lint rule", 5),
        ("lint rule", 4),
        ("lint rule", 3),
        ("lint rule", 2),
        ("kafka retention", 5),
    ):
        hits, sent = _traced_search(manager, thread, query, limit)
        statements.append(sent)
        assert hits == _in_sql(manager, thread, query, limit)
    assert 0 < postings_cache.cached_rows() < 20  # the postings of "lint" and "rule", not the store's
    # asked again: the store whole refused (ranked in SQL), then the terms' postings and rows, then
    # the copy; terms no search asked for: the statistics and the ranking statement
    assert statements == [2, 3, 3, 1, 2]


def test_a_busy_reader_reads_a_larger_store_whole(manager: MemoryManager, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postings_cache, "WHOLE_ITEMS", 0)  # not small: read per term until the reader is busy
    monkeypatch.setattr(postings_cache, "BUSY_SEARCHES", 4)
    for n in range(3):
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title=f"lint rule {n}")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="kafka topics", content="retention of kafka topics")
    thread = manager.active_thread().id
    postings_cache.clear()
    statements = []
    searches = [("lint rule", 5), ("lint rule", 4), ("lint rule", 3), ("lint rule", 2), ("kafka retention", 5)]
    for query, limit in (*searches, ("kafka topics", 5)):  # the same terms ranked again: other limits
        hits, sent = _traced_search(manager, thread, query, limit)
        statements.append(sent)
        assert hits == _in_sql(manager, thread, query, limit)
    # in SQL, then the terms' postings and rows, then the copy; the fifth search ranked under the stamp
    # reads every posting and row (its terms unasked), so the next new terms need only the stamp
    assert statements == [2, 3, 1, 1, 3, 1]


def test_a_query_mixing_a_weighed_term_and_a_new_one_sees_what_another_connection_wrote(
    manager: MemoryManager,
) -> None:
    """A term weighed under an earlier stamp (here: held by no memory) is weighed again when a query
    pairs it with a term never asked for, after another connection wrote a memory holding both."""
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis streams for the job queue")
    thread = manager.active_thread().id
    postings_cache.clear()
    for _ in range(3):  # kafka weighed (held by nothing) and kept, the store read whole
        assert manager.search(thread_id=thread, query="kafka redis") == _in_sql(manager, thread, "kafka redis")
    other = MemoryManager(root=manager.paths.root)  # a second connection to the same store
    assert other.open().ok
    try:
        added = add_item(other, kind=MemoryKind.PROJECT_DECISION, title="Kafka topics carry the billing events")
    finally:
        other.close()
    hits = manager.search(thread_id=thread, query="kafka billing")
    assert [hit.memory_id for hit in hits] == [added.memory_id]
    assert hits == _in_sql(manager, thread, "kafka billing")


def test_a_small_store_completes_a_cut_word_from_its_copy_when_completions_tie(manager: MemoryManager) -> None:
    """A last word cut short whose completions tie at the bound (more terms held alike than
    `MAX_COMPLETIONS`) is completed from a small store's copy: the stamp is the only statement, and
    the hits are the ranking statement's (which takes the terms held alike in term order)."""
    names = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")
    for name in names:  # ten terms after `zeta`, each held by one memory
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title=f"zeta{name} service")
    thread = manager.active_thread().id
    postings_cache.clear()
    for limit in (5, 4, 3):  # the store read whole into the copy (each limit ranked again)
        manager.search(thread_id=thread, query="service", limit=limit)
    sent: list[str] = []
    manager.db.set_trace(sent.append)
    try:
        hits = manager.search(thread_id=thread, query="zeta")
    finally:
        manager.db.set_trace(None)
    selects = [s for s in sent if s.lstrip().upper().startswith(("SELECT", "WITH"))]
    assert selects == ["SELECT stamp FROM memory_index_state"]
    assert len(hits) == 5 and hits == _in_sql(manager, thread, "zeta")
    # the completions are the first eight terms in term order (the ranking statement's choice)
    assert {hit.title for hit in hits} <= {f"zeta{name} service" for name in names[:8]}


def test_a_small_store_read_whole_labels_its_first_hits_with_keys_derived_at_the_read(
    manager: MemoryManager,
) -> None:
    """A store read whole derives its items' match keys (Latin, then all) with their rows, so that a
    first hit labelled by its words derives none on the search's path."""
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Kafka topics for billing")
    thread = manager.active_thread().id
    postings_cache.clear()
    matching.latin_keys.cache_clear()
    for limit in (5, 4, 3):  # the store read whole into the copy (each limit ranked again)
        manager.search(thread_id=thread, query="kafka", limit=limit)
    derived = matching.latin_keys.cache_info().misses
    hits = manager.search(thread_id=thread, query="redis caching")
    assert [(hit.title, hit.match) for hit in hits] == [("Use redis for the cache", "words")]
    assert matching.latin_keys.cache_info().misses == derived


def test_a_new_text_whose_terms_were_ranked_is_only_labelled(
    manager: MemoryManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another text with the same terms, thread and limit under the same stamp takes the kept ranking
    (no ranking again) and is labelled as its own text; another limit is ranked again."""
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis", content="Redis is the cache of every service.")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Cache eviction", content="Redis evicts old keys.")
    thread = manager.active_thread().id
    postings_cache.clear()
    expected = _in_sql(manager, thread, "the redis")
    first = manager.search(thread_id=thread, query="redis")
    assert [hit.match for hit in first] == ["exact", "content"]
    assert [hit.match for hit in expected] == ["words", "content"]

    def ranked_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("ranked again")

    monkeypatch.setattr(search, "_ranked", ranked_again)
    assert manager.search(thread_id=thread, query="the redis") == expected
    with pytest.raises(AssertionError, match="ranked again"):
        manager.search(thread_id=thread, query="the redis", limit=4)


def test_a_search_looks_at_the_copy_once(manager: MemoryManager, monkeypatch: pytest.MonkeyPatch) -> None:
    """One lookup of the last copy per search finds the text's hits, its terms' ranking and its terms'
    parts alike (the fixed cost of a search: one lock, one walk of the copies), and the hits are the
    ranking statement's whatever was kept."""
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis", content="Redis is the cache of every service.")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Deploy with docker", content="Redis runs in docker.")
    thread = manager.active_thread().id
    postings_cache.clear()
    looked: list[int] = []
    kept_parts = postings_cache.kept_parts

    def counted(keys: tuple[object, ...]) -> object:
        looked.append(len(keys))
        return kept_parts(keys)

    monkeypatch.setattr(search, "kept_parts", counted)
    # nothing kept; the same text; a new text of kept terms; a new text with a kept and a new term
    for query in ("redis", "redis", "Redis?", "redis docker", "docker redis deploy", "deploy"):
        looked.clear()
        hits = manager.search(thread_id=thread, query=query)
        assert len(looked) == 1, query
        assert hits == _in_sql(manager, thread, query)
