"""Terse decisions and bare assents through the CLI: `memory ingest` + `memory drain`, then `memory
list --json` and `memory show --json`.

Cases in `cases/terse.json`: a rule said with no marker at all ("max 3 retries per job. hard
limit", "那 node 就写 20.11.1"), a request to the assistant that decides nothing (a translation, a
reply to word), and a bare assent to an answer — to a question closing it that offers a standing
check, to one that offers a one-off action, to a plan for one edit, to a suggestion introducing an
example. `count` active memories, each needle of `quoted` in a user quote of one of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_stored, case_file, params

CASES = case_file("terse")


@pytest.mark.parametrize("case", params(CASES))
def test_what_a_terse_turn_decides(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    assert_stored(cli, tmp_path, case)
