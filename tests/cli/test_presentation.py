"""How a memory reads, through the CLI (`memory ingest` + `memory drain`, then `memory list --json` and
`memory show --json`): the content without the filler that opened the user's sentence ("oh and", "by
the way", "btw", "对了"), the sources with the exact words, the title in the language the user wrote.
Cases in `cases/presentation.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import params, play

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "presentation.json").read_text("utf-8"))


@pytest.mark.parametrize("case", params(CASES))
def test_a_memory_reads_as_the_user_wrote_it(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    (item,) = play(cli, tmp_path, case["turns"])
    expect = case["expect"]
    assert item["content"] == expect.get("content", item["content"])
    assert item["title"] == expect.get("title", item["title"])
    if "quotes" in expect:
        shown = cli("memory", "show", str(item["id"]), "--json").json()
        assert [s["quote"] for s in shown["sources"]] == expect["quotes"]
