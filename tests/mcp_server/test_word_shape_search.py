"""Questions whose words have another shape than the memory's — a Chinese word the segmenter guessed,
an identifier whose words the memory writes apart, a word the memory holds only inside a longer one —
find it through `memory search` (CLI subprocess) and MCP `memory_search` alike; nothing-queries of the
same shapes stay empty."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_mcp_search_agrees, cli, store_decisions

QUESTIONS = {
    "Node 版本能升到 22 吗": ["Node 版本固定为 20"],  # 能升: a particle the segmenter joined to a verb
    "nginx 版本能升吗": [],  # the same shape, about nothing stored
    "which retry-policy applies": ["Retry policy for outbound calls"],  # the memory writes it apart
    "what is the cache-policy for images": [],  # an identifier whose words no memory holds
    "which make target": ["Task runner: Makefile"],  # make → Makefile
}


def _store(project: Path) -> None:
    store_decisions(
        project,
        ("Node 版本固定为 20", "项目的 Node 版本固定为 20 LTS"),
        ("Retry policy for outbound calls", "Outbound HTTP calls retry three times with exponential backoff"),
        ("Task runner: Makefile", "Repository scripts all go through the Makefile targets"),
    )


def test_cli_and_mcp_find_memories_by_the_shape_of_their_words(project: Path) -> None:
    _store(project)
    by_cli = {}
    for question, titles in QUESTIONS.items():
        result = cli(project, "memory", "search", question, "--json")
        assert result.code == 0, result.err
        by_cli[question] = result.json()
        assert [hit["title"] for hit in by_cli[question]] == titles, (question, by_cli[question])

    assert_mcp_search_agrees(project, by_cli)
