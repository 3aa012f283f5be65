"""Supersede by subject through the CLI: `memory ingest` + `memory drain`, then `memory list --json`.

Cases in `cases/supersede.json`: a short realistic session (user turns; the assistant answers
"OK."), each turn ingested and drained before the next (the worker's rhythm) or, with `together`,
all ingested and drained once. `expect`: how many memories are active, a word each of some active
memory holds (`active`), and words no active memory holds (`gone`, what the user took back). A case
with `xfail` is a known miss that must keep failing (strict), so fixing it shows up; a case with
`reader` is read by the trained sentence reader (`offline.READER_PRIMARY`) whatever the default; a
case with `revisions` plays with the shipped revision model's threshold and floor replaced by its
values ({"threshold": 0.0, "floor": 0.0}: every pair it is asked about reads as a revision), so what
must hold whatever that model reads is tested.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.memory import offline, supersede
from autopatch_j.memory.revisions import default_revision_model
from tests.cli.conftest import CliRunner
from tests.cli.sessions import params, play

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "supersede.json").read_text("utf-8"))


@pytest.mark.parametrize("case", params(CASES))
def test_one_active_memory_per_subject(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: dict[str, Any]
) -> None:
    if case.get("reader"):
        monkeypatch.setattr(offline, "READER_PRIMARY", True)
    if "revisions" in case:
        model = replace(default_revision_model(), **case["revisions"])
        monkeypatch.setattr(supersede, "default_revision_model", lambda: model)
    contents = [item["content"] for item in play(cli, tmp_path, case["turns"], together=case.get("together", False))]
    expect = case["expect"]
    assert len(contents) == expect.get("count", len(contents)), contents
    for word in expect.get("active", []):
        assert any(word.casefold() in c.casefold() for c in contents), (word, contents)
    for word in expect.get("gone", []):
        assert not any(word.casefold() in c.casefold() for c in contents), (word, contents)
