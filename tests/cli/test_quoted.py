"""Quoted words of other people through the CLI: `memory ingest` + `memory drain`, then `memory list
--json` and `memory show --json`.

Cases in `cases/quoted.json`: a message the user pastes with a `>` quote marker that is no slice of the
assistant's answer before it — a colleague's chat line with a name and a colon (`> name: …`, `> 名字：…`),
a client's e-mail quoted line by line — is someone else's words and never the user's statement; a
quoted slice of the answer stays what the user answers (an inline reply under a quoted point); and
a relayed proposal the user adopts ("就按张工说的办", "agreed, do that.") is the decision, quoting the
relayed sentence and the user's. `count` active memories, each needle of `quoted` in a user source
quote of one of them, no needle of `never_quoted` in any.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_stored, case_file, params

CASES = case_file("quoted")


@pytest.mark.parametrize("case", params(CASES))
def test_quoted_words_of_others_are_not_the_users(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    assert_stored(cli, tmp_path, case)
