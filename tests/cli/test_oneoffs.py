"""What a message that states a rule also holds, through the CLI: `memory ingest` + `memory drain`,
then `memory list --json` and `memory show --json`.

Cases in `cases/oneoffs.json`: one turn holding a standing rule beside something that is no memory —
a one-off request to the assistant (a message to send, a script to write), the lines of an incident
report, a deferral ("not yet", "先不要"). `count` active memories; each needle of `quoted` in a user
quote of one of them (the rule beside it is still stored), none of `never_quoted` in any.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_stored, case_file, params

CASES = case_file("oneoffs")


@pytest.mark.parametrize("case", params(CASES))
def test_only_the_rule_of_the_turn_is_stored(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    assert_stored(cli, tmp_path, case)
