"""Assent to options the answer lists, through the CLI: `memory ingest` + `memory drain`, then
`memory list --json` and `memory show --json`.

Cases in `cases/options.json`, en and zh: an answer offering a bulleted, numbered or lettered list
of options (one per service, per retention policy …) answered by a short reply that selects over
them — "yes both", "第二个", "a but not b", an option's own word — stores each selected item as a
memory of its own, quoting that item and the reply; a labelled "结论：建议 …" confirmed with "同意" is
a project decision; guards: a one-off "do 2 now" for a single edit, a question back, "neither"
store nothing. Options with pro/con sub-points: a selection stores the chosen option's head line
(with the reply's own detail), never a sub-point; a reply that weighs both and leaves the choice open
stores only its own discussion sentence. `count` active memories; `kinds` their kinds; each needle
of `each_assistant` in an assistant quote of exactly one memory, no needle of `never_assistant` in
any; each needle of `quoted` in a user quote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_quotes, params, play

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "options.json").read_text("utf-8"))


def _sources(cli: CliRunner, items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [cli("memory", "show", str(item["id"]), "--json").json()["sources"] for item in items]


@pytest.mark.parametrize("case", params(CASES))
def test_a_reply_selects_over_listed_options(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    items = play(cli, tmp_path, case["turns"])
    expect = case["expect"]
    assert len(items) == expect["count"], [item["content"] for item in items]
    assert sorted(item["kind"] for item in items) == sorted(expect.get("kinds", []))
    sources = _sources(cli, items)
    assistant = [[s["quote"] for s in srcs if s["role"] == "assistant"] for srcs in sources]
    for needle in expect.get("each_assistant", []):
        holding = [quotes for quotes in assistant if any(needle in q for q in quotes)]
        assert len(holding) == 1, (needle, assistant)
    for needle in expect.get("never_assistant", []):
        assert all(needle not in q for quotes in assistant for q in quotes), (needle, assistant)
    assert_quotes(expect, [s["quote"] for srcs in sources for s in srcs if s["role"] == "user"])
