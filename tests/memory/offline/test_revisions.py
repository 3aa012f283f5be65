"""Revisions: a correction, reversal, withdrawal or new value replaces what it revises.

`cases/revisions.json`, through `autopatch-j eval --part realistic` in a subprocess: each case is
one realistic session (`eval/realistic/FORMAT.md`) with its gold, and what the run
must show: how many gold memories are found, how many memories are active, and no contradiction (an
active memory the user took back, or two active memories on one subject). A new rule on the subject
of an active one replaces it, whatever its words; a comparison is settled by the decision that ends
it; a rule on another subject and a one-off request leave it alone.

`cases/revisions_sessions.json`, through admission, the pipeline and drain: the replacement is the
only active memory of its topic, of the kind of what it revises; it states the new rule (a clause
only retiring the old value is quoted, not stated), quotes what it corrects when it names nothing
of it, keeps the topic findable and leaves the retired value unfindable; a restatement after a
forget forms a fresh memory.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.offline.conftest import cases, check_session, params
from tests.memory.pipeline_support import admit, pipeline_for
from tests.memory.test_offline import extracted
from tests.memory.test_validation import turn

# the sessions are scored once (module fixture) for the file (docs/testing.md)
pytestmark = pytest.mark.xdist_group("offline-revisions")

REVISIONS = cases("revisions")
SESSIONS = cases("revisions_sessions")
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


@pytest.mark.parametrize("case", params(SESSIONS))
def test_a_revision_in_a_session_replaces_what_it_revises(manager: MemoryManager, case: dict[str, Any]) -> None:
    check_session(manager, case)


def test_a_correction_with_a_reason_after_it_corrects_in_one_request() -> None:
    found = extracted(turn(1, "日志统一保留 7 天，这个我们定了。"), turn(2, "等一下，我记错了，是 30 天，7 天太短了。"))
    assert [k for k, _ in found] == ["project_decision", "project_decision"]
    assert "30 天" in found[1][1]


def test_a_supersede_keeps_the_keywords_of_what_it_replaces(manager: MemoryManager) -> None:
    pipeline = pipeline_for(manager)
    admit(manager, [("前端路由统一用 React Router。", "好。")])
    drain(pipeline)
    admit(manager, [("React Router 太重了，团队决定改用 Wouter，别再引入 React Router 了。", "好。")])
    drain(pipeline)
    (active,) = [i for i in manager.list_items() if i.kind is MemoryKind.PROJECT_DECISION]
    assert "wouter" in active.content.casefold() and "路由" in active.keywords
    hits = manager.search(thread_id=manager.active_thread().id, query="路由")
    assert [h.memory_id for h in hits] == [active.memory_id]
