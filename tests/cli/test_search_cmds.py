"""`autopatch-j memory search QUERY [--json]` through the real CLI entry point."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.cli.conftest import CliRunner
from tests.memory.item_factory import add_item


@pytest.fixture
def seeded(project: Path) -> MemoryManager:
    manager = MemoryManager(root=project)
    assert manager.open().ok
    add_item(
        manager,
        kind=MemoryKind.USER_PREFERENCE,
        title="回答先给结论",
        content="以后回答先给结论，再给细节。",
        aliases=["answer first"],
    )
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="[bold]literal[/] title", content="markup [/] stays text")
    return manager


def test_json_output_lists_hits_with_the_documented_fields(cli: CliRunner, seeded: MemoryManager) -> None:
    result = cli("memory", "search", "结论", "--json")
    assert result.code == 0, result.err
    (hit,) = result.json()
    assert set(hit) == {"id", "kind", "title", "synopsis", "match"}
    assert hit["kind"] == "user_preference"
    assert hit["title"] == "回答先给结论"
    assert hit["synopsis"] == "以后回答先给结论，再给细节。"
    assert hit["match"] == "substring"


def test_json_output_is_an_empty_list_when_nothing_matches(cli: CliRunner, seeded: MemoryManager) -> None:
    result = cli("memory", "search", "kubernetes", "--json")
    assert result.code == 0
    assert result.json() == []


def test_an_empty_query_gives_an_empty_list(cli: CliRunner, seeded: MemoryManager) -> None:
    result = cli("memory", "search", "  ", "--json")
    assert (result.code, result.json()) == (0, [])


def test_text_output_is_a_table_and_markup_is_literal(cli: CliRunner, seeded: MemoryManager) -> None:
    result = cli("memory", "search", "answer")
    assert result.code == 0
    assert "回答先给结论" in result.out and "prefix" in result.out
    literal = cli("memory", "search", "literal")
    assert literal.code == 0
    assert "[bold]literal[/]" in literal.out


def test_text_output_says_when_nothing_matches(cli: CliRunner, seeded: MemoryManager) -> None:
    result = cli("memory", "search", "kubernetes")
    assert result.code == 0
    assert result.out.strip() == "No memories match."


def test_search_works_in_a_fresh_project(cli: CliRunner) -> None:
    result = cli("memory", "search", "anything", "--json")
    assert (result.code, result.json()) == (0, [])


def test_search_has_help(cli: CliRunner) -> None:
    result = cli("memory", "search", "--help")
    assert result.code == 0
    assert "QUERY" in result.out and "--json" in result.out


def test_words_in_any_order_and_either_language(cli: CliRunner, seeded: MemoryManager) -> None:
    result = cli("memory", "search", "conclusion answers", "--json")
    assert result.code == 0, result.err
    assert [(hit["title"], hit["match"]) for hit in result.json()] == [("回答先给结论", "words")]


def test_reindex_rebuilds_the_terms_and_reports_the_count(cli: CliRunner, seeded: MemoryManager) -> None:
    with seeded.db.write("test: drop the terms") as conn:
        conn.execute("DELETE FROM memory_search_docs")
    assert cli("memory", "search", "结论", "--json").json() == []
    result = cli("memory", "reindex", "--json")
    assert result.code == 0, result.err
    assert result.json() == {"indexed": 2, "raw_turns_kept": True}
    assert [hit["title"] for hit in cli("memory", "search", "结论", "--json").json()] == ["回答先给结论"]
    text = cli("memory", "reindex")
    assert text.code == 0 and "Rebuilt the search terms of 2 active memories" in text.out


def test_memory_status_does_not_import_the_stemmer(project: Path) -> None:
    code = (
        "import sys\n"
        "from autopatch_j.cli.app import main\n"
        "try:\n    main(['memory', 'status', '--json'])\nexcept SystemExit:\n    pass\n"
        "print('Stemmer' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "False"


@pytest.fixture
def session_store(project: Path) -> MemoryManager:
    """A store as one realistic session leaves it: a few short decisions (issue 29)."""
    manager = MemoryManager(root=project)
    assert manager.open().ok
    for title, content in [
        ("Minimum Android version: API 26", "The delivery app supports Android API 26 and up."),
        ("Error tracking: Sentry", "Errors go to Sentry, not Crashlytics."),
        ("Kotlin line length 120", "ktlint max line length is 120."),
    ]:
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title=title, content=content)
    return manager


def test_a_question_that_says_more_than_the_memory_finds_it(cli: CliRunner, session_store: MemoryManager) -> None:
    # The question's own words ("lowest", "still", "phones") are not the memory's; the few words the
    # memory has are all asked for, so it answers (memory/qualifier.py).
    result = cli("memory", "search", "what's the lowest android version we still support on phones", "--json")
    assert result.code == 0, result.err
    assert [hit["title"] for hit in result.json()] == ["Minimum Android version: API 26"]


def test_a_question_about_something_never_decided_stays_empty(cli: CliRunner, session_store: MemoryManager) -> None:
    result = cli("memory", "search", "how often do we rotate the database passwords", "--json")
    assert (result.code, result.json()) == (0, [])


@pytest.mark.parametrize(
    ("title", "content", "query"),
    [
        # a memory written in Traditional Chinese, asked about in Simplified, in English, and the other way
        ("資料庫連線逾時 30 秒", "資料庫連線的逾時統一設成 30 秒。", "资料库连线逾时"),
        ("日志保留 30 天", "服务的日志统一保留 30 天。", "日誌保留幾天"),
        ("日志级别统一 info", "所有服务的日志级别统一用 info。", "日誌級別"),
    ],
)
def test_traditional_and_simplified_chinese_find_each_other(
    cli: CliRunner, project: Path, title: str, content: str, query: str
) -> None:
    manager = MemoryManager(root=project)
    assert manager.open().ok
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title=title, content=content)
    result = cli("memory", "search", query, "--json")
    assert result.code == 0, result.err
    assert [hit["title"] for hit in result.json()] == [title]
