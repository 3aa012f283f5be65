"""Assent through the CLI: `memory ingest` + `memory drain`, then `memory list --json` / `memory show`.

Cases in `cases/assent.json`: an assistant proposal (with its rationale), then the user's answer. A
bare assent stores the proposal sentence naming what is chosen (`content`), quoting it and the
assent (`quotes`); an assent with its own content stores the user's words, quoting the proposal
too; an assent quoting the proposal ("> …") picks the quoted option; what follows an assent in its
turn is read as any other statement (`content_any`: each is the content of an active memory).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner
from tests.cli.sessions import params, play

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "assent.json").read_text("utf-8"))


@pytest.mark.parametrize("case", params(CASES))
def test_an_assent_stores_what_is_decided(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    items = play(cli, tmp_path, case["turns"])
    expect = case["expect"]
    contents = [item["content"] for item in items]
    assert len(items) == expect.get("count", 1), contents
    for content in expect.get("content_any", []):
        assert content in contents, contents
    if "content" in expect:
        (item,) = items
        assert item["content"] == expect["content"]
        shown = cli("memory", "show", str(item["id"]), "--json").json()
        assert [s["quote"] for s in shown["sources"]] == expect["quotes"]
