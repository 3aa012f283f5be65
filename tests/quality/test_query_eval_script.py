"""`scripts/query_eval.py` runs as a reader would run it, on a folder of realistic sessions."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from autopatch_j.memory.qualifier import FEATURES

ROOT = Path(__file__).resolve().parents[2]

SESSION = {
    "id": "q1-001",
    "language": "en",
    "note": "one decision, one question that finds it, one that must find nothing",
    "turns": [{"user": "we use pnpm for this repo, not npm", "assistant": "Noted: pnpm."}],
    "memories": [
        {
            "key": "m1",
            "kind": "project_decision",
            "subject": "package manager",
            "title": "Package manager: pnpm",
            "content": "The repository uses pnpm, not npm",
            "sources": [{"turn": 0, "role": "user", "quote": "we use pnpm for this repo, not npm"}],
            "state": "active",
            "superseded_by": None,
        }
    ],
    "not_memories": [],
    "queries": [
        {"query": "which package manager does the repo use", "target": "m1"},
        {"query": "what database do we deploy on", "target": None},
    ],
}


def test_the_script_scores_a_folder_of_sessions(tmp_path: Path) -> None:
    done = _run_script("query_eval.py", tmp_path, SESSION)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    text = json.dumps(report)
    assert "Traceback" not in done.stderr
    assert report["sessions"] == 1, text
    assert report["hit_at_5"] == 1.0, text
    assert report["nothing_empty"]["share"] == 1.0, text


def test_the_miss_classifier_names_why_each_query_missed(tmp_path: Path) -> None:
    session = dict(SESSION)
    session["queries"] = [
        *SESSION["queries"],  # type: ignore[list-item]
        {"query": "which bundler do we ship with", "target": "m1"},  # shares no word with the memory
    ]
    done = _run_script("search_misses.py", tmp_path, session)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["classes"] == {"no_shared_term": 1}, report
    (miss,) = report["misses"]
    assert miss["query"] == "which bundler do we ship with"
    assert any(term.startswith("-bundler") for term in miss["terms"]), miss


def _run_script(
    script: str, tmp_path: Path, session: Mapping[str, object], *extra: str
) -> subprocess.CompletedProcess[str]:
    """Run `scripts/<script> --part <a folder holding one batch of `session`> --json [extra …]`."""
    folder = tmp_path / "part" / "q1"
    folder.mkdir(parents=True, exist_ok=True)
    batch = {"author": "q1", "batch": 1, "sessions": [session]}
    (folder / "q1-b01.json").write_text(json.dumps(batch), encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--part", str(tmp_path / "part"), "--json", *extra],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_refused_target_shows_each_feature_s_part_of_the_qualifier_s_score(tmp_path: Path) -> None:
    session = dict(SESSION)
    # holds package and manager, about half the weight: past the floor, refused by the learned rule
    session["queries"] = [{"query": "package manager lockfile policy for the repo", "target": "m1"}]
    done = _run_script("search_misses.py", tmp_path, session)
    assert done.returncode == 0, done.stderr
    (miss,) = json.loads(done.stdout)["misses"]
    assert miss["class"] == "not_an_answer", miss
    rule = miss["qualifier"]
    assert list(rule["parts"]) == ["bias", *FEATURES], rule
    assert abs(sum(rule["parts"].values()) - rule["score"]) < 1e-9, rule
    assert rule["score"] < rule["threshold"], rule
