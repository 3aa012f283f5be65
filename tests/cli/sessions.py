"""A short session through the CLI: `memory ingest` of each exchange and `memory drain` after it (the
worker's rhythm), or of all exchanges at once; then what `memory list --json` shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import CliRunner

CASE_DIR = Path(__file__).parent / "cases"


def case_file(name: str) -> list[dict[str, Any]]:
    """The cases of `cases/<name>.json`."""
    cases: list[dict[str, Any]] = json.loads((CASE_DIR / f"{name}.json").read_text("utf-8"))
    return cases


def params(cases: list[dict[str, Any]]) -> list[Any]:
    """pytest parameters named by each case's `name`; a case with `xfail` (its reason) is a known miss
    that must keep failing (strict), so fixing it shows up."""
    return [
        pytest.param(
            case,
            id=case["name"],
            marks=[pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else [],
        )
        for case in cases
    ]


def play(cli: CliRunner, folder: Path, turns: list[Any], *, together: bool = False) -> list[dict[str, Any]]:
    """Ingest and drain `turns` (a user text, or {"user", "assistant"}; the assistant answers "OK."
    unless given) and return the active memories as `memory list --json` shows them."""
    exchanges = [t if isinstance(t, dict) else {"user": t} for t in turns]
    batches = [exchanges] if together else [[e] for e in exchanges]
    for n, batch in enumerate(batches):
        path = folder / f"turn{n}.jsonl"
        lines = [
            json.dumps({"user": e["user"], "assistant": e.get("assistant", "OK.")}, ensure_ascii=False) for e in batch
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert cli("memory", "ingest", str(path)).code == 0
        drained = cli("memory", "drain", "--json")
        assert drained.code == 0, drained.err
    listed = cli("memory", "list", "--json")
    assert listed.code == 0, listed.err
    items: list[dict[str, Any]] = listed.json()
    return items


def user_quotes(cli: CliRunner, items: list[dict[str, Any]]) -> list[str]:
    """The user's quotes behind `items` (`memory show --json`'s sources of role user)."""
    return [
        source["quote"]
        for item in items
        for source in cli("memory", "show", str(item["id"]), "--json").json()["sources"]
        if source["role"] == "user"
    ]


def assert_quotes(expect: dict[str, Any], quotes: list[str]) -> None:
    """Every needle of `expect["quoted"]` is in some quote and none of `expect["never_quoted"]` is."""
    for needle in expect.get("quoted", []):
        assert any(needle in quote for quote in quotes), (needle, quotes)
    for needle in expect.get("never_quoted", []):
        assert all(needle not in quote for quote in quotes), (needle, quotes)


def assert_stored(cli: CliRunner, folder: Path, case: dict[str, Any]) -> list[dict[str, Any]]:
    """Play `case["turns"]` and check what it leaves: `expect["count"]` active memories and the needles of
    `expect["quoted"]` / `expect["never_quoted"]` in (not in) their user quotes. Returns the memories."""
    items = play(cli, folder, case["turns"])
    expect = case["expect"]
    assert len(items) == expect["count"], [item["content"] for item in items]
    assert_quotes(expect, user_quotes(cli, items))
    return items
