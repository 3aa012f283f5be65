"""A question in one language finds a memory written in the other through the bilingual word table
(`memory/text/bilingual.txt`), not only through the hand-written thesaurus — the same hits through
`memory search` (CLI subprocess) and MCP `memory_search`."""

from __future__ import annotations

from pathlib import Path

import anyio

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.mcp_server.conftest import cli, mcp_session, payload
from tests.memory.item_factory import add_item

QUESTIONS = {
    "how long are logs retained": ["日志保留 30 天"],  # log → 日志, retain → 保留
    "会话多久过期": ["Session cookies expire after 14 days"],  # 会话 → session, 过期 → expire
    "日志级别是什么": [],  # the level was never decided: nothing
    "what user data may we log": [],
}


def _store(project: Path) -> None:
    manager = MemoryManager(root=project)
    assert manager.open().ok
    add_item(
        manager,
        kind=MemoryKind.PROJECT_DECISION,
        title="日志保留 30 天",
        content="应用日志统一保留 30 天，之后自动删除。",
    )
    add_item(
        manager,
        kind=MemoryKind.PROJECT_DECISION,
        title="Session cookies expire after 14 days",
        content="Login sessions expire 14 days after the last request.",
    )
    manager.close()


def test_a_question_in_the_other_language_finds_the_memory(project: Path) -> None:
    _store(project)
    by_cli = {}
    for question, titles in QUESTIONS.items():
        result = cli(project, "memory", "search", question, "--json")
        assert result.code == 0, result.err
        by_cli[question] = result.json()
        assert [hit["title"] for hit in by_cli[question]] == titles, (question, by_cli[question])

    async def main() -> None:
        async with mcp_session(project) as session:
            for question in QUESTIONS:
                hits = payload(await session.call_tool("memory_search", {"query": question}))["hits"]
                assert hits == by_cli[question], question

    anyio.run(main)
