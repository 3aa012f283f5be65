"""Deferrals, options the user weighs and what other people decided, through the CLI: `memory ingest`
+ `memory drain`, then `memory list --json` and `memory show --json`.

Cases in `cases/deferrals.json`, en and zh: an assent that puts the decision off ("嗯，先放着，下周和 DBA
开会再说。", "ok, let's table this until …") after an answer suggesting what to do next stores none of
its suggestions and no decision of its own; the items of a list the user introduces as options ("有两个方案在
考虑：", "two options I can think of:") are weighed, never stated as a preference or decision. Guards:
a user's own decision naming a third party, a standing rule about "these" and a list of rules the
user lays down are stored; a third party's constraint the user reports ("the auditors like …",
"客户那边的数据库是 …") is no decision. `count` active memories; each needle of `quoted` in a user quote,
none of `never_quoted` in any; no needle of `never_assistant` in an assistant quote; no needle of
`never_stated` in a user quote of a preference or decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import assert_quotes, case_file, params, play

CASES = case_file("deferrals")
STATED = ("user_preference", "project_decision")


@pytest.mark.parametrize("case", params(CASES))
def test_what_no_one_decided_is_not_stored(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    items = play(cli, tmp_path, case["turns"])
    expect = case["expect"]
    contents = [item["content"] for item in items]
    if "count" in expect:
        assert len(items) == expect["count"], contents
    sources = [(item["kind"], cli("memory", "show", str(item["id"]), "--json").json()["sources"]) for item in items]
    assert_quotes(expect, [s["quote"] for _, srcs in sources for s in srcs if s["role"] == "user"])
    for needle in expect.get("never_assistant", []):
        assert all(needle not in s["quote"] for _, srcs in sources for s in srcs if s["role"] == "assistant"), (
            needle,
            contents,
        )
    stated = [s["quote"] for kind, srcs in sources if kind in STATED for s in srcs if s["role"] == "user"]
    for needle in expect.get("never_stated", []):
        assert all(needle not in quote for quote in stated), (needle, contents)
