"""`scripts/qualifier_features.py` replicates the shipped qualifier on a held folder and scores the
feature sets and rule variants it measures, as a reader would run it."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.quality.test_query_eval_script import ROOT, SESSION


def _write(folder: Path, author: str, sessions: list[dict[str, Any]]) -> None:
    (folder / author).mkdir(parents=True)
    batch = {"author": author, "batch": 1, "sessions": sessions}
    (folder / author / f"{author}-b01.json").write_text(json.dumps(batch), encoding="utf-8")


def _session(author: str, n: int) -> dict[str, Any]:
    """SESSION under another id, with a nothing-query that names two of the memory's words (a candidate
    past the floor that must not answer: the regression's negative)."""
    session = copy.deepcopy(SESSION)
    session["id"] = f"{author}-{n:03d}"
    session["queries"] = [*SESSION["queries"], {"query": "which package manager version do we pin", "target": None}]
    return session


def test_the_script_reproduces_the_query_eval_and_scores_every_variant(tmp_path: Path) -> None:
    train, held = tmp_path / "train", tmp_path / "held"
    for author in ("a1", "a2"):
        _write(train, author, [_session(author, n) for n in range(1, 4)])
    _write(held, "q1", [SESSION])
    command = [sys.executable, str(ROOT / "scripts" / "qualifier_features.py"), "--held", str(held)]
    command += ["--part", str(train), "--folds", "1", "--groups", "2", "--dominant", "0.6", "--dominant-polar", "0.5"]
    command += ["--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    # The replica of the shipped rule gives what scripts/query_eval.py gives on the same folder.
    query_eval = [sys.executable, str(ROOT / "scripts" / "query_eval.py"), "--part", str(held), "--json"]
    evaluated = json.loads(subprocess.run(query_eval, capture_output=True, text=True, timeout=300, check=True).stdout)
    assert report["shipped rule"] == {"hit_at_5": evaluated["hit_at_5"], "empty": evaluated["nothing_empty"]["share"]}
    names = [entry["variant"] for entry in report["variants"]]
    assert names[0] == "shipped features" and names[-2] == "dominant term at 0.6" and len(names) == 11, names
    assert names[-1] == "dominant term of a yes/no question at 0.5", names
    for entry in report["variants"]:
        assert set(entry["held"]) == {"0.7", "0.75", "0.8", "0.85", "0.9"}, entry
        assert all(0.0 <= f["hit_at_5"] <= 1.0 and 0.0 <= f["empty"] <= 1.0 for f in entry["held"].values()), entry


def test_the_weighed_queries_kept_give_the_same_report(tmp_path: Path) -> None:
    train, held, cache = tmp_path / "train", tmp_path / "held", tmp_path / "weighed.pickle"
    for author in ("a1", "a2"):
        _write(train, author, [_session(author, n) for n in range(1, 3)])
    _write(held, "q1", [SESSION])
    command = [sys.executable, str(ROOT / "scripts" / "qualifier_features.py"), "--held", str(held)]
    command += ["--part", str(train), "--folds", "1", "--groups", "2", "--sets", "shipped features,subject keys named"]
    command += ["--cache", str(cache), "--json"]
    first = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True)
    assert cache.exists()
    again = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True)
    report = json.loads(again.stdout)
    assert report == json.loads(first.stdout)
    assert [entry["variant"] for entry in report["variants"]] == ["shipped features", "subject keys named"]


def test_the_held_queries_are_also_scored_on_the_subjects_extraction_assigns(tmp_path: Path) -> None:
    train, held = tmp_path / "train", tmp_path / "held"
    for author in ("a1", "a2"):
        _write(train, author, [_session(author, n) for n in range(1, 3)])
    _write(held, "q1", [SESSION])
    command = [sys.executable, str(ROOT / "scripts" / "qualifier_features.py"), "--held", str(held)]
    command += ["--part", str(train), "--folds", "1", "--groups", "2", "--sets", "shipped features,subject keys named"]
    command += ["--extracted-subjects", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["extracted subjects"]["gold memories"] >= 1, report["extracted subjects"]
    for entry in report["variants"]:
        extracted = entry["held, extraction's subjects"]
        assert set(extracted) == {"0.7", "0.75", "0.8", "0.85", "0.9"}, entry
        if entry["variant"] == "shipped features":  # no shipped feature reads the subject
            assert extracted == entry["held"], entry
