"""A Chinese word CC-CEDICT writes as a proper name (a language, a currency: 瑞典语 → Swedish, 欧元 →
euro) or as a variant spelling of another word (連結, a variant of 联结 → link) has that gloss in the
bilingual table, so a question in one language finds the memory in the other — the same hits through
`memory search` (CLI subprocess) and MCP `memory_search`; questions about a language or currency
never decided stay empty."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

CHINESE_QUESTIONS = {
    "提醒信裡可以放連結嗎": ["Reminder emails link only to our own domain"],
    "界面文字要支持瑞典语吗": ["UI copy in Swedish and English"],
    "商品价格是欧元吗": ["Prices shown in euros"],
    # never decided: nothing
    "德语翻译谁来负责": [],
    "瑞典语的日期格式是什么": [],
    "美国用户的价格用美元吗": [],
}

ENGLISH_QUESTIONS = {
    "are report amounts in euros": ["报表金额统一用欧元"],
    "is the app interface text in Swedish": ["界面文案只用瑞典语"],
    # never decided: nothing
    "are report amounts in dollars": [],
    "is the app interface text in German": [],
}


def test_a_chinese_name_or_variant_spelling_finds_the_english_memory(project: Path) -> None:
    store_decisions(
        project,
        ("Reminder emails link only to our own domain", "Reminder emails may include links to our own domain only."),
        ("UI copy in Swedish and English", "Every screen ships its text in Swedish and English."),
        ("Prices shown in euros", "The shop shows every price in euros, VAT included."),
        ("接口超时 10 秒", "对外 HTTP 接口的超时统一为 10 秒。"),
    )
    assert_search_titles(project, CHINESE_QUESTIONS)


def test_an_english_name_finds_the_chinese_memory(project: Path) -> None:
    store_decisions(
        project,
        ("报表金额统一用欧元", "所有报表里的金额统一用欧元显示。"),
        ("界面文案只用瑞典语", "App 界面上的文案只提供瑞典语版本。"),
        ("Lint errors fail the build", "Any lint error fails the CI build."),
    )
    assert_search_titles(project, ENGLISH_QUESTIONS)
