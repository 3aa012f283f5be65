"""Statements of one message: one memory per rule, a rule's detail or reason kept with it (issue 28,
`memory/joining.py`), through the CLI: `memory ingest` + `memory drain`, then `memory list --json`.

Cases in `cases/joining.json` (the format of `cases/supersede.json`); a case with `xfail` is a known
wrong join that must keep failing until a retrain fixes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import params, play

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "joining.json").read_text("utf-8"))


@pytest.mark.parametrize("case", params(CASES))
def test_one_memory_per_rule_of_a_message(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    contents = [item["content"] for item in play(cli, tmp_path, case["turns"])]
    expect = case["expect"]
    assert len(contents) == expect["count"], contents
    for word in expect["active"]:
        assert any(word.casefold() in c.casefold() for c in contents), (word, contents)
