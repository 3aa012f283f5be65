"""Supersede by subject through the CLI: `memory ingest` + `memory drain`, then `memory list --json`.

Cases in `cases/supersede.json`: a short realistic session (user turns; the assistant answers
"OK."), each turn ingested and drained before the next (the worker's rhythm) or, with `together`,
all ingested and drained once. `expect`: how many memories are active, a word each of some active
memory holds (`active`), and words no active memory holds (`gone`, what the user took back). A case
with `xfail` is a known miss that must keep failing (strict), so fixing it shows up.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner

CASES: list[dict[str, Any]] = json.loads((Path(__file__).parent / "cases" / "supersede.json").read_text("utf-8"))


def _params() -> list[Any]:
    return [
        pytest.param(
            case,
            id=case["name"],
            marks=[pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else [],
        )
        for case in CASES
    ]


def _ingest(cli: CliRunner, tmp_path: Path, turns: list[str], name: str) -> None:
    path = tmp_path / f"{name}.jsonl"
    lines = [json.dumps({"user": user, "assistant": "OK."}, ensure_ascii=False) for user in turns]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli("memory", "ingest", str(path)).code == 0
    drained = cli("memory", "drain", "--json")
    assert drained.code == 0, drained.err


@pytest.mark.parametrize("case", _params())
def test_one_active_memory_per_subject(cli: CliRunner, tmp_path: Path, case: dict[str, Any]) -> None:
    if case.get("together"):
        _ingest(cli, tmp_path, case["turns"], "all")
    else:
        for n, user in enumerate(case["turns"]):
            _ingest(cli, tmp_path, [user], f"turn{n}")
    listed = cli("memory", "list", "--json")
    assert listed.code == 0, listed.err
    contents = [item["content"] for item in listed.json()]
    expect = case["expect"]
    assert len(contents) == expect["count"], contents
    for word in expect.get("active", []):
        assert any(word.casefold() in c.casefold() for c in contents), (word, contents)
    for word in expect.get("gone", []):
        assert not any(word.casefold() in c.casefold() for c in contents), (word, contents)
