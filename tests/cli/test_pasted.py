"""Pasted material through the CLI: `memory ingest` + `memory drain`, then `memory list --json` and
`memory show --json`.

Cases in `cases/pasted.json`: a turn holding a table (pipes without a header rule, tabs, columns
aligned by spaces), a message relayed from a chat or a tracker (an author and a time, a handle, an
issue key), or a parenthetical gloss of a pasted quote, and the user's own words beside it. Only the
user's own words become memories: `count` active memories, each needle of `quoted` in a source quote
of one of them, no needle of `never_quoted` in any.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_quotes, params, play, user_quotes

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "pasted.json").read_text("utf-8"))


@pytest.mark.parametrize("case", params(CASES))
def test_only_the_users_own_words_become_memories(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    items = play(cli, tmp_path, case["turns"])
    expect = case["expect"]
    quotes = user_quotes(cli, items)
    assert len(items) == expect["count"], quotes
    assert_quotes(expect, quotes)
