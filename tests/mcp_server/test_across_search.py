"""A question in one language about a memory in the other holds fewer of its words than a question in
the memory's own language would (the thesaurus translates some words, not all): the learned qualifier
weighs a match that crosses scripts apart, so such a question still finds the memory — the same hits
through `memory search` (CLI subprocess) and MCP `memory_search`; questions about something never
decided stay empty."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

QUESTIONS = {
    # English questions about a Chinese rule: "stored", "format", "use" have no Chinese word in it
    "where are the prometheus alert rules stored and in what format": ["告警规则放 monitoring/rules"],
    "what format do prometheus alert rules use": ["告警规则放 monitoring/rules"],
    "how many levels can a relative import path have": ["相对路径最多两级"],
    # never decided: nothing
    "which registry do we push images to": [],
    "where should new prometheus alerts be added": [],
}


def test_a_question_across_languages_finds_the_memory_holding_part_of_it(project: Path) -> None:
    store_decisions(
        project,
        ("告警规则放 monitoring/rules", "告警规则统一放在 monitoring/rules 目录，用 PrometheusRule CRD 管理。"),
        ("相对路径最多两级", "相对路径 import 最多两级，再深就用 @ 别名。"),
        ("接口超时 10 秒", "对外 HTTP 接口的超时统一为 10 秒。"),
        ("Base image: python:3.12-slim", "Docker images build from python:3.12-slim."),
    )
    assert_search_titles(project, QUESTIONS)
