"""`scripts/realistic_reader_trace.py` prints the reader's probability per reading for each sentence
of a user turn, with its gold label, for the turns where a non-statement is read as one."""

from __future__ import annotations

import json
from pathlib import Path

from autopatch_j.memory.reader import FORMAT
from tests.support.scripts import run_over_session

RULE = "From now on every service logs JSON lines."
ONE_OFF = "and mail Ana a summary of this in french"

SESSION = {
    "id": "c5-001",
    "language": "en",
    "note": "a rule beside a one-off request",
    "turns": [{"user": f"{RULE} {ONE_OFF}", "assistant": "OK."}, {"user": "thanks", "assistant": "OK."}],
    "memories": [
        {
            "key": "m1",
            "kind": "project_decision",
            "subject": "log format",
            "title": "Log format: JSON",
            "content": RULE,
            "sources": [{"turn": 0, "role": "user", "quote": RULE}],
            "state": "active",
            "superseded_by": None,
        }
    ],
    "not_memories": [{"turn": 0, "quote": ONE_OFF, "why": "one_off"}],
    "queries": [],
}


def _model(tmp_path: Path, surely: str) -> Path:
    """Weights that read every sentence as `surely` (a bias alone)."""
    classes = ["none", "project_decision"]
    data = {"format": FORMAT, "trained_on": {}, "classes": classes, "threshold": 0.4, "weights": {}}
    data["bias"] = [5.0 if c == surely else 0.0 for c in classes]
    path = tmp_path / f"{surely}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_non_statement_read_as_one_prints_its_turn_with_the_neighbours(tmp_path: Path) -> None:
    run = run_over_session(
        "scripts/realistic_reader_trace.py",
        SESSION,
        "c5",
        tmp_path,
        "--model",
        str(_model(tmp_path, "project_decision")),
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "c5-001 turn 0:"
    assert lines[1].startswith("  * [project_decision] pref 0.00 dec 0.99 ") and lines[1].endswith(RULE)
    assert lines[2].startswith("  * [one_off] ") and lines[2].endswith(ONE_OFF)
    assert lines[3:] == ["c5-001 turn 1:", "  * [none] pref 0.00 dec 0.99 disc 0.00 ret 0.00 none 0.01 | thanks"]


def test_nothing_is_printed_when_the_reader_admits_no_non_statement(tmp_path: Path) -> None:
    run = run_over_session(
        "scripts/realistic_reader_trace.py", SESSION, "c5", tmp_path, "--model", str(_model(tmp_path, "none"))
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""


def test_a_named_session_prints_every_user_turn(tmp_path: Path) -> None:
    model = _model(tmp_path, "none")
    run = run_over_session(
        "scripts/realistic_reader_trace.py", SESSION, "c5", tmp_path, "--model", str(model), "--session", "c5-001"
    )
    assert run.returncode == 0, run.stderr
    assert [line for line in run.stdout.splitlines() if not line.startswith("  ")] == [
        "c5-001 turn 0:",
        "c5-001 turn 1:",
    ]
    assert "    [chit_chat] " not in run.stdout and "    [none] " in run.stdout  # read, not admitted
