"""Revisions by subject, through `autopatch-j eval --part realistic` in a subprocess.

Each case is one realistic session (`eval/realistic/FORMAT.md`) with its gold, and what the run
must show: how many gold memories are found, how many memories are active, and no contradiction (an
active memory the user took back, or two active memories on one subject). A new rule on the subject
of an active one replaces it, whatever its words; a comparison is settled by the decision that ends
it; a rule on another subject and a one-off request leave it alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.memory.offline.conftest import cases

REVISIONS = cases("revisions")
CLI = Path(sys.executable).with_name("autopatch-j")


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("revisions")
    batch = {"author": "cases", "batch": 1, "sessions": [c["session"] for c in REVISIONS]}
    (folder / "revisions.json").write_text(json.dumps(batch, ensure_ascii=False), encoding="utf-8")
    run = subprocess.run(
        [str(CLI), "eval", "--part", "realistic", "--corpus", str(folder), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
    )
    assert run.returncode in (0, 1), run.stderr
    part = json.loads(run.stdout)["parts"]["realistic"]
    return {s["id"]: s for s in part["sessions"]}


@pytest.mark.parametrize("case", REVISIONS, ids=[c["session"]["id"] for c in REVISIONS])
def test_a_revision_leaves_one_memory_per_subject(scored: dict[str, dict[str, Any]], case: dict[str, Any]) -> None:
    got = scored[case["session"]["id"]]
    contradictions = got["stale"] + got["subject_conflicts"] + got["store_subject_conflicts"]
    assert (got["found"], got["stored_active"], contradictions) == (
        case["expect"]["found"],
        case["expect"]["stored_active"],
        case["expect"]["contradictions"],
    ), got["notes"]
