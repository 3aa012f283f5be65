"""A long-lived server answers a new text whose terms an earlier text had exactly as a fresh CLI process
does: its own match kinds and order (the whole query as a title first), and the store's current
memories after a write between the two (search.py keeps a query's ranking per terms and stamp)."""

from __future__ import annotations

from pathlib import Path

import anyio

from tests.mcp_server.conftest import cli_searches, mcp_session, payload, store_decisions

#: One term (`redi`) each: "the", "what" and "please" are ways of asking; only "redis" is a title.
BEFORE = ("redis", "the redis", "what redis")
AFTER = ("redis please", "redis", "the redis")


def test_texts_with_the_same_terms_get_their_own_labels_and_the_stores_current_hits(project: Path) -> None:
    store_decisions(
        project,
        ("Redis", "Redis is the cache of every service."),
        ("Cache eviction", "Redis evicts the least recently used keys first."),
    )
    by_cli = cli_searches(project, BEFORE)
    assert [hit["match"] for hit in by_cli["redis"]][:1] == ["exact"], by_cli["redis"]
    assert "exact" not in [hit["match"] for hit in by_cli["the redis"]], by_cli["the redis"]

    async def main() -> None:
        async with mcp_session(project) as session:
            for question in BEFORE:
                got = payload(await session.call_tool("memory_search", {"query": question}))["hits"]
                assert got == by_cli[question], question
            store_decisions(project, ("Redis sentinel", "Redis runs with sentinel for failover."))
            after = cli_searches(project, AFTER)
            assert "Redis sentinel" in [hit["title"] for hit in after["redis please"]], after
            for question in AFTER:
                got = payload(await session.call_tool("memory_search", {"query": question}))["hits"]
                assert got == after[question], question

    anyio.run(main)
