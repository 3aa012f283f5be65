"""`scripts/realistic_misses.py` classes why a gold memory of a realistic part was not stored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from autopatch_j.quality.realistic import Session
from autopatch_j.quality.realistic_eval import Stored
from tests.support.scripts import load_script, run_over_session

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = load_script("scripts/realistic_misses.py")
CLASSES = SCRIPT.CLASSES
PROPOSAL = "Keep the build cache keyed on `poetry.lock` and let one warm-up job fill it for the others."
ASSENT = "do it"

SESSION = {
    "id": "c2-001",
    "language": "en",
    "note": "an assent to a proposal that carries no proposal signal word",
    "turns": [
        {"user": "our CI installs dependencies from scratch in every job, it takes ages", "assistant": PROPOSAL},
        {"user": ASSENT, "assistant": "Done."},
    ],
    "memories": [
        {
            "key": "m1",
            "kind": "project_decision",
            "subject": "ci dependency cache",
            "title": "CI cache keyed on poetry.lock",
            "content": PROPOSAL,
            "sources": [
                {"turn": 0, "role": "assistant", "quote": PROPOSAL},
                {"turn": 1, "role": "user", "quote": ASSENT},
            ],
            "state": "active",
            "superseded_by": None,
        }
    ],
    "not_memories": [],
    "queries": [],
}


def _run(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """The script over a part holding SESSION alone, with `options`."""
    return run_over_session("scripts/realistic_misses.py", SESSION, "c2", tmp_path, *options)


def test_the_script_reports_counts_and_each_miss(tmp_path: Path) -> None:
    run = _run(tmp_path, "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    counts = report["counts"]
    assert counts["missed"] == len(report["misses"]) == sum(counts[c] for c in CLASSES)
    # the offline extractor does not yet read an assent to a proposal without a signal word: if it
    # misses m1, the miss is of that class
    for miss in report["misses"]:
        assert (miss["gold"], miss["cls"], miss["unsignalled"]) == ("m1", "never_stored", True)
    assert counts["assent_unsignalled"] == len(report["misses"])
    assert sum(counts[f"never_stored_at_{name}"] for name in SCRIPT.STAGES) == counts["never_stored"]
    for miss in report["misses"]:
        assert miss["stage"].split()[0] in SCRIPT.STAGES


def test_the_list_starts_with_the_counts(tmp_path: Path) -> None:
    run = _run(tmp_path, "--list")
    assert run.returncode == 0, run.stderr
    first = run.stdout.splitlines()[0]
    assert first.startswith("missed ") and ", wrong " in first
    if not first.startswith("missed 0,"):
        assert (
            "c2-001 m1 [project_decision, 'ci dependency cache'] never_stored (assent to an unsignalled proposal)"
            in run.stdout
        )


def _stored(memory_id: int, kind: str, status: str, *sources: tuple[int, str]) -> Stored:
    return Stored(memory_id, kind, status, "t", "c", [(turn, "user", quote) for turn, quote in sources])


def test_each_class_is_told_apart() -> None:
    rules = ["Rule one is this.", "Rule two is that.", "Rule three is so.", "Rule four is thus.", "Rule five."]
    session = Session.model_validate(
        {
            "id": "c3-001",
            "language": "en",
            "turns": [{"user": rule, "assistant": "OK."} for rule in rules],
            "memories": [
                {
                    "key": f"m{n + 1}",
                    "kind": "project_decision",
                    "subject": f"rule {n + 1}",
                    "title": rule,
                    "content": rule,
                    "sources": [{"turn": n, "role": "user", "quote": rule}],
                    "state": "active",
                    "superseded_by": None,
                }
                for n, rule in enumerate(rules)
            ],
            "not_memories": [],
            "queries": [],
        }
    )
    stored = [
        _stored(1, "project_decision", "active", (0, rules[0]), (1, rules[1])),  # counts for m1, holds m2
        _stored(2, "user_preference", "active", (2, rules[2])),  # m3 under the other kind
        _stored(3, "project_decision", "superseded", (3, rules[3])),  # m4 stored, then replaced
        _stored(4, "project_decision", "active"),  # quotes nothing of the gold: wrong
    ]
    found, wrong = SCRIPT.misses(session, "c3", stored)
    assert {(m.gold, m.cls) for m in found} == {
        ("m2", "joined"),
        ("m3", "other_kind"),
        ("m4", "superseded"),
        ("m5", "never_stored"),
    }
    assert [m.memory_id for m in wrong] == [4]


def _one_turn(user: str, quote: str, role: str = "user") -> tuple[Session, Any]:
    session = Session.model_validate(
        {
            "id": "c4-001",
            "language": "en",
            "turns": [{"user": user, "assistant": "OK."}],
            "memories": [
                {
                    "key": "m1",
                    "kind": "project_decision",
                    "subject": "s",
                    "title": "t",
                    "content": quote,
                    "sources": [{"turn": 0, "role": role, "quote": quote}],
                    "state": "active",
                    "superseded_by": None,
                }
            ],
            "not_memories": [],
            "queries": [],
        }
    )
    return session, session.memories[0]


def test_a_never_stored_miss_says_where_the_chain_dropped_it() -> None:
    pasted = "ERROR 2026-01-05 12:00:01 worker.py:88 connection refused"
    assert SCRIPT.stage(*_one_turn(f"seeing this:\n```\n{pasted}\n```", pasted)) == "pasted"
    assert SCRIPT.stage(*_one_turn("thanks, that was all", "thanks, that was all")).startswith("reader p=0.")
    rule = "From now on we always use pytest for every new test in this repo."
    assert SCRIPT.stage(*_one_turn(rule, rule)).startswith("after p=")
    assert SCRIPT.stage(*_one_turn("ok", "OK.", role="assistant")) == "assistant"


def test_a_missing_folder_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    script = ROOT / "scripts" / "realistic_misses.py"
    run = subprocess.run(
        [sys.executable, str(script), "--corpus", str(tmp_path / "nowhere")], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2
    assert run.stderr.strip() == f"No such folder: {tmp_path / 'nowhere'}."
