"""A user's own environment with the answer format it asks for, through the CLI: `memory ingest` +
`memory drain`, then `memory list --json` and `memory show --json`.

Cases in `cases/environment.json`: a sentence that states the user's own environment and, in the same
sentence, asks for the answers' form ("I'm on Windows, so please give PowerShell commands.",
"记住我用的是 Windows，命令请给 PowerShell 的。") is one standing preference of the user; the same
environment said with a report ("I'm on Windows right now, the build failed.") or a machine's system in
a pasted report is no memory. `kinds` are the active memories' kinds, each needle of `quoted` in a user
quote of one of them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_quotes, params, play, user_quotes

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "environment.json").read_text("utf-8"))


@pytest.mark.parametrize("case", params(CASES))
def test_own_environment_and_answer_format(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    items = play(cli, tmp_path, case["turns"])
    expect = case["expect"]
    assert sorted(item["kind"] for item in items) == expect["kinds"], [(i["kind"], i["content"]) for i in items]
    assert_quotes(expect, user_quotes(cli, items))
