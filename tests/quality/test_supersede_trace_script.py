"""`scripts/realistic_supersede_trace.py` prints what Stage 2 decided and the probabilities it decided on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autopatch_j.quality.realistic import Session
from autopatch_j.quality.realistic_eval import Stored
from tests.support.scripts import load_script, run_over_session

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = load_script("scripts/realistic_supersede_trace.py")
RULE = "From now on every service logs JSON lines."
REVISION = "Change of plan: every service logs plain text from now on, JSON is unreadable in the terminal."

SESSION = {
    "id": "c4-001",
    "language": "en",
    "note": "a rule and its revision",
    "turns": [{"user": RULE, "assistant": "OK."}, {"user": REVISION, "assistant": "OK."}],
    "memories": [
        {
            "key": "m1",
            "kind": "project_decision",
            "subject": "log format",
            "title": "Log format: JSON",
            "content": RULE,
            "sources": [{"turn": 0, "role": "user", "quote": RULE}],
            "state": "superseded",
            "superseded_by": "m2",
        },
        {
            "key": "m2",
            "kind": "project_decision",
            "subject": "log format",
            "title": "Log format: plain text",
            "content": REVISION,
            "sources": [{"turn": 1, "role": "user", "quote": REVISION}],
            "state": "active",
            "superseded_by": None,
        },
    ],
    "not_memories": [],
    "queries": [],
}


def test_a_traced_session_shows_every_candidate_with_both_probabilities(tmp_path: Path) -> None:
    run = run_over_session("scripts/realistic_supersede_trace.py", SESSION, "c4", tmp_path, "--session", "c4-001")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.startswith("===== c4-001 (en): ")
    assert " gold m1 project_decision [log format] superseded: 0u: " in out
    candidates = [line for line in out.splitlines() if line.startswith("  candidate ")]
    assert len(candidates) == 2, out  # the rule, then its revision
    related = [line for line in out.splitlines() if line.startswith("      memory ")]
    assert len(related) == 1 and " same " in related[0] and " rev " in related[0], out  # the revision against the rule
    assert "same-subject threshold " in out and "revision threshold " in out
    assert "-> supersede 1 (step: " in candidates[1], out  # the step that chose the revision's target
    assert out.splitlines()[-1] in {"nothing wrong", "stale 1, subject conflict 1", "superseded miss 1"}, out


def test_the_summary_prints_only_the_counts(tmp_path: Path) -> None:
    run = run_over_session("scripts/realistic_supersede_trace.py", SESSION, "c4", tmp_path, "--summary")
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.splitlines()) == 1


def test_each_class_of_note_is_told_apart() -> None:
    assert SCRIPT.marked("duplicate of m2: make it 45s") == "duplicate"
    assert SCRIPT.marked("still active, gold superseded: m1 (…)") == "stale"
    assert SCRIPT.marked("2 active memories on subject 'log format'") == "subject conflict"
    assert SCRIPT.marked("2 active memories with the stored subject 'log format'") == "store subject conflict"
    assert SCRIPT.marked("missed m3 (project_decision, log format)") == ""


def test_a_gold_memory_lost_to_a_supersede_is_a_superseded_miss() -> None:
    session = Session.model_validate(SESSION)
    lost = Stored(1, "project_decision", "superseded", "t", "c", [(1, "user", REVISION)])
    kept = Stored(2, "project_decision", "active", "t", "c", [(1, "user", REVISION)])
    assert SCRIPT.superseded_misses(session, [lost], {"m2"}) == ["superseded miss m2"]
    assert SCRIPT.superseded_misses(session, [lost, kept], {"m2"}) == []
    assert SCRIPT.superseded_misses(session, [], {"m2"}) == []  # never stored is another class


def test_a_missing_folder_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    script = ROOT / "scripts" / "realistic_supersede_trace.py"
    run = subprocess.run(
        [sys.executable, str(script), "--corpus", str(tmp_path / "nowhere")], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2
    assert run.stderr.strip() == f"No such folder: {tmp_path / 'nowhere'}."
