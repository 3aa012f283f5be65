"""A Chinese question finds an English memory that names the thing in another form of the word:
a word the segmenter cuts into lone characters is still asked for when the bilingual table knows
it (挂 + 起 → 挂起 → suspend), a word glossed only by a rarer English word or by a two-word phrase
is translated (插值 → interpolation, 人名 → personal name, 存档 → saved data), and a gloss meets
the memory's irregular form of the word (保留 → keep → kept) — the same hits through `memory search`
(CLI subprocess) and MCP `memory_search`; questions about something never decided stay empty."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

QUESTIONS = {
    # 挂起 is cut into 挂 + 起, lone characters a question drops
    "进程空闲时自动挂起吗": ["Idle workers suspend after 10 minutes"],
    # 人名: "personal name" (two words), also cut into lone characters
    "日志里可以出现人名吗": ["Logs never contain personal names"],
    # 插值: "interpolation", rarer than the 20,000 most frequent English words
    "相机插值用的是什么": ["Camera interpolation: cubic"],
    # 存档: "saved data", 二进制: "binary system"
    "存档是二进制的吗": ["Save files are JSON"],
    # 保留 → keep; the memory says kept
    "产物保留几天": ["Build artifacts kept 14 days"],
    # never decided: nothing
    "日志保留多久": [],
    "崩溃日志保留多久": [],
    "二进制包发布到哪里": [],
    "人名要不要脱敏后再存数据库": [],
}


def test_a_gloss_meets_the_memory_in_another_form_of_its_word(project: Path) -> None:
    store_decisions(
        project,
        ("Idle workers suspend after 10 minutes", "Background workers are suspended after 10 idle minutes."),
        ("Logs never contain personal names", "Application logs must not contain any personal name; use the user id."),
        ("Camera interpolation: cubic", "The follow camera uses cubic interpolation between keyframes."),
        ("Save files are JSON", "Save files are written as JSON, not a binary format."),
        ("Build artifacts kept 14 days", "CI build artifacts are kept for 14 days, then deleted."),
        ("Ruff line length 100", "Ruff's line length is 100 characters for every package."),
        ("接口超时 10 秒", "对外 HTTP 接口的超时统一为 10 秒。"),
    )
    assert_search_titles(project, QUESTIONS)
