"""Questions as authors ask them: in Traditional characters about a memory in Simplified ones (and the
other way round) — search's terms read Traditional characters as Simplified (`text.simplified`) — and with words
that say how they ask rather than what the memory says ("how long before …", "tap"), which weigh
less through the learned term necessity (`memory/text/necessity.txt`). The same hits through `memory
search` (CLI subprocess) and MCP `memory_search`; questions about something never decided stay empty."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

QUESTIONS = {
    "日誌保留多久": ["日志保留 30 天"],  # Traditional question, Simplified memory
    "應用日誌要保留幾天": ["日志保留 30 天"],
    "部署前要跑什么测试": ["部署前必須跑整合測試"],  # Simplified question, Traditional memory
    "how long before a user can tap resend on the OTP screen": ["OTP resend timer: 45 seconds"],
    "日誌級別是什麼": [],  # the level was never decided: nothing
    "which registry do we push images to": [],
}


def _store(project: Path) -> None:
    store_decisions(
        project,
        ("日志保留 30 天", "应用日志统一保留 30 天，之后自动删除。"),
        ("部署前必須跑整合測試", "每次部署到正式環境之前，整合測試必須全部通過。"),
        ("OTP resend timer: 45 seconds", "The resend button for the OTP stays disabled for 45 seconds."),
        ("Base image: python:3.12-slim", "Docker images build from python:3.12-slim."),
    )


def test_traditional_characters_and_ways_of_asking_find_the_memory(project: Path) -> None:
    _store(project)
    assert_search_titles(project, QUESTIONS)
