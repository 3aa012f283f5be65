"""Other people's words pasted without a quote marker, through the CLI: `memory ingest` + `memory
drain`, then `memory list --json` and `memory show --json`.

Cases in `cases/relayed.json` (our own wording, en and zh): a vendor's numbered rules under a line
that says whose they are ("their docs say:", "他们文档里写的："), a notice opening with a name tag and a
greeting ("【…】您好，…"), a vendor's e-mail summarised in one line after "X email:" are someone
else's words and never the user's statement, while the user's own decision below them is stored; a
status report of numbers observed is no rule; a user's own numbered rules under a colon line are
still one memory each. `count` active memories, each needle of `quoted` in a user source quote of
one of them, no needle of `never_quoted` in any.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_stored, case_file, params

CASES = case_file("relayed")


@pytest.mark.parametrize("case", params(CASES))
def test_other_peoples_words_without_a_marker(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    assert_stored(cli, tmp_path, case)
