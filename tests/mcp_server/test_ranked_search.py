"""Ranked search answers a later agent's questions the same way through `memory search` (CLI subprocess)
and MCP `memory_search` (the SDK's client over stdio): one function behind both."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_mcp_search_agrees, cli_searches, store_decisions

QUESTIONS = {
    "what package manager are we on": ["Package manager: pnpm"],
    "我们用的包管理器是什么": ["Package manager: pnpm"],  # the other language
    "多语言国际化方案": ["国际化方案"],  # a compound the memory holds apart
    "which test framework do we use": ["测试框架用 vitest"],
    "what database do we deploy on": [],  # never decided: nothing
}


def _store(project: Path) -> None:
    store_decisions(
        project,
        ("Package manager: pnpm", "We use pnpm for every package in the monorepo, never npm or yarn."),
        ("国际化方案", "多语言文案统一用 i18next 管理。"),
        ("测试框架用 vitest", "单元测试统一用 vitest，不再用 jest。"),
    )


def test_cli_and_mcp_answer_questions_with_the_same_ranked_hits(project: Path) -> None:
    _store(project)
    by_cli = cli_searches(project, QUESTIONS)
    for question, titles in QUESTIONS.items():
        assert [hit["title"] for hit in by_cli[question]][: len(titles) or 1] == titles or (
            not titles and by_cli[question] == []
        ), (question, by_cli[question])

    assert_mcp_search_agrees(project, by_cli)
