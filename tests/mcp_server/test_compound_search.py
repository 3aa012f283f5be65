"""A Chinese question word the bilingual table does not hold is translated by the words inside it
(坐标系 → 坐标 → coordinate, 模拟器 → 模拟 → simulate), so a Chinese question finds an English memory
that names the thing — the same hits through `memory search` (CLI subprocess) and MCP
`memory_search`; questions about something never decided stay empty."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

QUESTIONS = {
    # 坐标系 and 模拟器 have no gloss of their own; 坐标 and 模拟 have
    "地图用的是什么坐标系": ["Maps use the WGS84 coordinate system"],
    "支付模拟器跑在哪个端口": ["Payment simulator listens on port 9090"],
    # never decided: nothing
    "音频文件的采样率是多少": [],
    "ruff 的 max_complexity 是多少": [],
}


def test_a_chinese_word_without_a_gloss_is_translated_by_its_shorter_words(project: Path) -> None:
    store_decisions(
        project,
        (
            "Maps use the WGS84 coordinate system",
            "Every map layer and stored point uses the WGS84 coordinate system (EPSG:4326).",
        ),
        ("Payment simulator listens on port 9090", "The local payment simulator listens on port 9090."),
        ("Ruff line length 100", "Ruff's line length is 100 characters for every package."),
        ("Sentry traces at 0.2", "Sentry performance traces are sampled at 0.2 in production."),
        ("接口超时 10 秒", "对外 HTTP 接口的超时统一为 10 秒。"),
    )
    assert_search_titles(project, QUESTIONS)
