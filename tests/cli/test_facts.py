"""Facts about the code or the system, reports, deferrals and hypotheticals, through the CLI: `memory
ingest` + `memory drain`, then `memory list --json` and `memory show --json`.

Cases in `cases/facts.json`, en and zh: a sentence whose subject is the code, a machine or another
team and whose verb states how things are ("the generated SDK is massive …", "前端状态管理确实是 MobX
…"), a report of what happened or what someone said, a choice put off ("但这个先不急", "not decided")
and a tool one could write decide nothing and store nothing. Guards: a change or rule the user states
right after the fact it changes is stored. `count` active memories; each needle of `quoted` in a user
quote, none of `never_quoted` in any.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_stored, case_file, params

CASES = case_file("facts")


@pytest.mark.parametrize("case", params(CASES))
def test_facts_reports_and_deferrals_decide_nothing(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    assert_stored(cli, tmp_path, case)
