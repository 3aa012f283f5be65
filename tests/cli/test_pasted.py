"""Pasted material through the CLI: `memory ingest` + `memory drain`, then `memory list --json` and
`memory show --json`.

Cases in `cases/pasted.json`: a turn holding a table (pipes without a header rule, tabs, columns
aligned by spaces), a message relayed from a chat or a tracker (an author and a time, a handle, an
issue key), or a parenthetical gloss of a pasted quote, and the user's own words beside it. Only the
user's own words become memories: `count` active memories, each needle of `quoted` in a source quote
of one of them, no needle of `never_quoted` in any.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_stored, case_file, params

CASES = case_file("pasted")


@pytest.mark.parametrize("case", params(CASES))
def test_only_the_users_own_words_become_memories(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    assert_stored(cli, tmp_path, case)
