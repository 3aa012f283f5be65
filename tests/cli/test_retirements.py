"""A rule taken back with no new value, through the CLI: `memory ingest` + `memory drain` of each
turn, then `memory list --json`.

Cases in `cases/retirements.json` (the format of `cases/supersede.json`): the sentence reader reads
a sentence that takes a standing rule back ("… 那条规矩取消吧", "forget the squash-merge thing") as a
retirement; the retirement pass retires the memory on the subject it names and nothing else, and a
one-off request on the rule's own words retires nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import params, play

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "retirements.json").read_text("utf-8"))


@pytest.mark.parametrize("case", params(CASES))
def test_a_rule_taken_back_is_retired_alone(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    contents = [item["content"] for item in play(cli, tmp_path, case["turns"], together=case.get("together", False))]
    expect = case["expect"]
    assert len(contents) == expect["count"], contents
    for word in expect.get("active", []):
        assert any(word.casefold() in c.casefold() for c in contents), (word, contents)
    for word in expect.get("gone", []):
        assert not any(word.casefold() in c.casefold() for c in contents), (word, contents)
