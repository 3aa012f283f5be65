"""`scripts/realistic_contradictions.py` lists sessions with their sentences, stored memories and, for a
contradiction, its class."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.scripts import run_over_session

RULE = "by default answer me in short bullet points."
TAKEN_BACK = "Actually forget the bullet points thing, it makes the explanations too choppy."

SESSION = {
    "id": "c1-001",
    "language": "en",
    "note": "a preference taken back in words the retirement class does not know: it stays active",
    "turns": [{"user": RULE, "assistant": "Sure."}, {"user": TAKEN_BACK, "assistant": "OK, prose then."}],
    "memories": [
        {
            "key": "m1",
            "kind": "user_preference",
            "subject": "answer format",
            "title": "Answer format: short bullet points",
            "content": "Answer in short bullet points",
            "sources": [{"turn": 0, "role": "user", "quote": RULE}],
            "state": "retired",
            "superseded_by": None,
        }
    ],
    "not_memories": [],
    "queries": [],
}


def _run(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """The script over a part holding SESSION alone, with `options`."""
    return run_over_session("scripts/realistic_contradictions.py", SESSION, "c1", tmp_path, *options)


def test_the_script_lists_the_session_and_classes_a_stale_memory(tmp_path: Path) -> None:
    run = _run(tmp_path, "--all")
    assert run.returncode == 0, run.stderr
    assert "== c1-001 (c1, en): stale " in run.stdout
    assert "gold m1 [user_preference, 'answer format', retired]" in run.stdout
    assert f"t1 user: {TAKEN_BACK}" in run.stdout
    stale = int(run.stdout.split("stale ", 1)[1].split(",", 1)[0])
    # the extractor does not yet retire "the bullet points thing": the stale memory gets its class
    assert (stale == 1) == ("class m1: retirement not read (or read as nothing)" in run.stdout)
    assert run.stdout.rstrip().endswith(f"contradictions: {stale}")


def test_the_summary_counts_each_class_with_the_reader_on(tmp_path: Path) -> None:
    run = _run(tmp_path, "--summary", "--reader")
    assert run.returncode == 0, run.stderr
    assert "== c1-001" not in run.stdout  # no session listing, only counts
    lines = run.stdout.splitlines()
    total = int(lines[-1].removeprefix("contradictions: "))
    counted = {name: int(n) for n, name in (line.split(None, 1) for line in lines[:-1])}
    assert set(counted) >= {"two active memories on one gold subject", "two active memories with one stored subject"}
    # the stale memory (if the reader does not retire it either) is counted by its class
    assert (total > 0) == (counted.get("retirement not read (or read as nothing)", 0) == 1)
