"""What a search reads of its question only to label or filter hits: the scopes and variants it names
and its terms' probes are read when there are hits to label, never for a search that finds nothing,
and the hits are the ranking statement's either way."""

from __future__ import annotations

import pytest

from autopatch_j.memory import postings_cache, search
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.search import SearchHit, search_in_tx
from tests.memory.item_factory import add_item


def _in_sql(manager: MemoryManager, thread: int, query: str) -> list[SearchHit]:
    with manager.db.read("test search in SQL") as conn:
        return search_in_tx(conn, thread_id=thread, query=query, cached=False)


@pytest.fixture
def read(manager: MemoryManager, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The questions whose scopes and probes a search read (each call's text, or its keys' first)."""
    calls: list[str] = []
    question_scope, probes_of = search.question_scope, search.probes_of

    def scope_read(query: str) -> object:
        calls.append(f"scope:{query}")
        return question_scope(query)

    def probes_read(keys: frozenset[str]) -> tuple[str, ...]:
        calls.append(f"probes:{min(keys, default='')}")
        return probes_of(keys)

    monkeypatch.setattr(search, "question_scope", scope_read)
    monkeypatch.setattr(search, "probes_of", probes_read)
    return calls


def test_a_search_that_finds_nothing_reads_no_scope_and_no_probe(manager: MemoryManager, read: list[str]) -> None:
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Use redis for the cache", content="Redis in prod.")
    thread = manager.active_thread().id
    postings_cache.clear()
    for query in ("kafka topics in uat", "kafka topics in uat", "quantum annealing on rev B"):
        assert manager.search(thread_id=thread, query=query) == []
    assert read == []


def test_a_search_with_hits_reads_its_scopes_and_drops_another_environment(
    manager: MemoryManager, read: list[str]
) -> None:
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis cache in prod", content="Prod uses redis.")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Redis cache", content="Every service uses redis.")
    thread = manager.active_thread().id
    postings_cache.clear()
    for query in ("redis cache in uat", "Redis cache in UAT?"):
        hits = manager.search(thread_id=thread, query=query)
        assert [hit.title for hit in hits] == ["Redis cache"]
        assert hits == _in_sql(manager, thread, query)
    assert "scope:redis cache in uat" in read
    assert "scope:Redis cache in UAT?" in read
