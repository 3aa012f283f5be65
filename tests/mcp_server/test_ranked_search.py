"""Ranked search answers a later agent's questions the same way through `memory search` (CLI subprocess)
and MCP `memory_search` (the SDK's client over stdio): one function behind both."""

from __future__ import annotations

from pathlib import Path

import anyio

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.mcp_server.conftest import cli, mcp_session, payload
from tests.memory.item_factory import add_item

QUESTIONS = {
    "what package manager are we on": ["Package manager: pnpm"],
    "我们用的包管理器是什么": ["Package manager: pnpm"],  # the other language
    "多语言国际化方案": ["国际化方案"],  # a compound the memory holds apart
    "which test framework do we use": ["测试框架用 vitest"],
    "what database do we deploy on": [],  # never decided: nothing
}


def _store(project: Path) -> None:
    manager = MemoryManager(root=project)
    assert manager.open().ok
    add_item(
        manager,
        kind=MemoryKind.PROJECT_DECISION,
        title="Package manager: pnpm",
        content="We use pnpm for every package in the monorepo, never npm or yarn.",
    )
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="国际化方案", content="多语言文案统一用 i18next 管理。")
    add_item(
        manager,
        kind=MemoryKind.PROJECT_DECISION,
        title="测试框架用 vitest",
        content="单元测试统一用 vitest，不再用 jest。",
    )
    manager.close()


def test_cli_and_mcp_answer_questions_with_the_same_ranked_hits(project: Path) -> None:
    _store(project)
    by_cli = {}
    for question, titles in QUESTIONS.items():
        result = cli(project, "memory", "search", question, "--json")
        assert result.code == 0, result.err
        by_cli[question] = result.json()
        assert [hit["title"] for hit in by_cli[question]][: len(titles) or 1] == titles or (
            not titles and by_cli[question] == []
        ), (question, by_cli[question])

    async def main() -> None:
        async with mcp_session(project) as session:
            for question in QUESTIONS:
                hits = payload(await session.call_tool("memory_search", {"query": question}))["hits"]
                assert hits == by_cli[question], question

    anyio.run(main)
