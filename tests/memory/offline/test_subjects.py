"""Subjects: every memory stores what it is about, comparable across languages; a new rule on the
subject of an active one replaces it, and rules on other subjects leave it alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.memory.consolidation import subject_key
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.subjects import default_subject_model
from tests.memory.offline.conftest import cases, run_session
from tests.support.scripts import load_script

SUBJECTS = cases("subjects")


def _stored_subjects(manager: MemoryManager) -> dict[int, str]:
    with manager.db.read("test: subjects") as conn:
        return dict(conn.execute("SELECT memory_id, subject FROM memory_items WHERE status = 'active'").fetchall())


@pytest.mark.parametrize("case", SUBJECTS, ids=[c["name"] for c in SUBJECTS])
def test_one_active_memory_per_subject(manager: MemoryManager, case: dict[str, Any]) -> None:
    stored = run_session(manager, case["turns"])
    subjects = _stored_subjects(manager)
    got = sorted(
        (m["kind"], subjects[item.memory_id], m["content"])
        for m, item in zip(stored, manager.list_items(), strict=True)
    )
    want = sorted((w["kind"], w["subject"]) for w in case["active"])
    assert [(k, s) for k, s, _ in got] == want, got
    for (_, _, content), expected in zip(
        got, sorted(case["active"], key=lambda w: (w["kind"], w["subject"])), strict=True
    ):
        assert expected["contains"] in content


@pytest.mark.parametrize(
    ("raw", "key"),
    [("python_version", "python version"), ("Python  Version", "python version"), ("test-framework", "test framework")],
)
def test_a_subject_is_stored_folded(raw: str, key: str) -> None:
    assert subject_key(raw) == key


def test_the_subject_model_is_trained_on_the_realistic_part() -> None:
    """The shipped model names the manifest's files `scripts/train_subjects.py` reads today; that the
    script writes it byte for byte is `scripts/check_refits.py`'s check."""
    pytest.importorskip("sklearn")
    trainer = load_script("scripts/train_subjects.py")
    shipped = json.loads(Path(trainer.DEFAULT_OUT).read_text(encoding="utf-8"))
    assert shipped["trained_on"] == trainer._trained_on(trainer._part_dir(), [])
    assert default_subject_model().threshold == shipped["pair"]["threshold"]
