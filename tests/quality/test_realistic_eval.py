"""`autopatch-j eval --part realistic`: memory-level figures of realistic sessions through the real pipeline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from autopatch_j.cli.eval_cmds import register
from autopatch_j.quality.corpus import CorpusError
from autopatch_j.quality.realistic import Session, load_realistic, sha256_of, training_parts
from autopatch_j.quality.realistic_eval import Stored, score_session

SMALL = Path(__file__).parent / "data" / "realistic_small"


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """Test root."""

    register(app)
    return app


def _eval(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(_app(), ["eval", *args], catch_exceptions=False)
    return result.exit_code, result.output


def test_the_part_runs_through_the_pipeline_and_reports_per_author() -> None:
    code, out = _eval("--part", "realistic", "--corpus", str(SMALL), "--json")
    assert code == 0, out
    part = json.loads(out)["parts"]["realistic"]
    assert set(part["authors"]) == {"fixture"}
    totals = part["totals"]
    assert totals["sessions"] == 2 and totals["gold_active"] == 2
    for key in ("precision", "recall", "pasted", "contradictions", "stale", "subject_conflicts", "query_recall"):
        assert key in totals
    assert {s["id"] for s in part["sessions"]} == {"fx-001", "fx-002"}


def test_text_output_names_the_figures() -> None:
    code, out = _eval("--part", "realistic", "--corpus", str(SMALL))
    assert code == 0, out
    assert "== part realistic ==" in out and "precision" in out and "contradictions" in out


def test_a_broken_gold_file_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    doc = json.loads((SMALL / "batch.json").read_text(encoding="utf-8"))
    doc["sessions"][0]["memories"][0]["sources"][0]["quote"] = "words nobody wrote"
    (tmp_path / "b.json").write_text(json.dumps(doc), encoding="utf-8")
    code, out = _eval("--part", "realistic", "--corpus", str(tmp_path))
    assert code == 2
    assert "not an exact substring" in out and "Traceback" not in out


def test_an_unknown_field_is_refused(tmp_path: Path) -> None:
    doc = json.loads((SMALL / "batch.json").read_text(encoding="utf-8"))
    doc["sessions"][0]["mood"] = "happy"
    (tmp_path / "b.json").write_text(json.dumps(doc), encoding="utf-8")
    code, out = _eval("--part", "realistic", "--corpus", str(tmp_path))
    assert code == 2 and "not a valid realistic-session batch" in out


def test_the_manifest_pins_every_file(tmp_path: Path) -> None:
    shutil.copy(SMALL / "batch.json", tmp_path / "batch.json")
    entry = {"file": "batch.json", "sha256": sha256_of(tmp_path / "batch.json"), "author": "fixture"}
    (tmp_path / "manifest.json").write_text(json.dumps({"files": [entry]}), encoding="utf-8")
    assert len(load_realistic(tmp_path).sessions) == 2
    with (tmp_path / "batch.json").open("a", encoding="utf-8") as fh:
        fh.write("\n")
    code, out = _eval("--part", "realistic", "--corpus", str(tmp_path))
    assert code == 2 and "does not match its sha256" in out


def test_the_reader_learns_from_the_measured_parts_and_refuses_an_author_twice(tmp_path: Path) -> None:
    shutil.copy(SMALL / "batch.json", tmp_path / "batch.json")
    entry = {"file": "batch.json", "sha256": sha256_of(tmp_path / "batch.json"), "author": "fixture"}
    (tmp_path / "manifest.json").write_text(json.dumps({"files": [entry]}), encoding="utf-8")
    batch = json.loads((SMALL / "batch.json").read_text(encoding="utf-8"))
    (tmp_path / "measured" / "other").mkdir(parents=True)
    (tmp_path / "measured" / "other" / "b.json").write_text(json.dumps({**batch, "author": "other"}), encoding="utf-8")
    parts = training_parts(tmp_path)
    assert {name: part.author_names for name, part in parts.items()} == {"dev": ["fixture"], "measured": ["other"]}
    (tmp_path / "test" / "again").mkdir(parents=True)
    shutil.copy(SMALL / "batch.json", tmp_path / "test" / "again" / "b.json")
    with pytest.raises(CorpusError, match="'fixture' is in both dev/ and test/"):
        training_parts(tmp_path)


def test_the_checkout_part_is_found_from_the_repository() -> None:
    code, out = _eval("--part", "realistic", "--sample", "2", "--json")
    assert code in (0, 1), out
    assert json.loads(out)["parts"]["realistic"]["totals"]["sessions"] == 2


# -- the scorer, on stored memories given directly ----------------------------------------------------


@pytest.fixture(scope="module")
def session() -> Session:
    return load_realistic(SMALL).sessions[0]


def _mem(
    mid: int, kind: str, *sources: tuple[int, str, str], status: str = "active", subject: str = "", content: str = "c"
) -> Stored:
    return Stored(
        memory_id=mid,
        kind=kind,
        status=status,
        title=f"m{mid}",
        content=content,
        sources=list(sources),
        subject=subject,
    )


def test_a_memory_is_right_when_kind_matches_and_sources_overlap(session: Session) -> None:
    right = _mem(1, "project_decision", (2, "user", "we use unittest"))
    score = score_session(session, "a", [right])
    assert (score.right, score.stored_active, score.found, score.gold_active) == (1, 1, 1, 1)
    wrong_kind = _mem(1, "user_preference", (2, "user", "we use unittest"))
    assert score_session(session, "a", [wrong_kind]).right == 0


def test_a_second_memory_on_the_same_gold_is_a_duplicate(session: Session) -> None:
    one = _mem(1, "project_decision", (2, "user", "we use unittest"))
    two = _mem(2, "project_decision", (2, "user", "instead of pytest"))
    score = score_session(session, "a", [one, two])
    assert (score.right, score.duplicates, score.stored_active) == (1, 1, 2)


def test_a_superseded_gold_still_active_is_a_contradiction(session: Session) -> None:
    old = _mem(1, "project_decision", (1, "user", "we use pytest for all tests"))
    new = _mem(2, "project_decision", (2, "user", "we use unittest"))
    score = score_session(session, "a", [old, new])
    assert score.stale == 1 and score.subject_conflicts == 1 and score.contradictions == 2
    assert score_session(session, "a", [new]).contradictions == 0


def test_memories_from_pasted_material_are_counted_by_why(session: Session) -> None:
    pasted = _mem(1, "project_decision", (0, "user", "ModuleNotFoundError: No module named 'requests'"))
    report = _mem(2, "project_decision", (0, "user", "log below:"), status="superseded")
    score = score_session(session, "a", [pasted, report])
    assert score.from_not_memories == {"pasted": 1, "report": 1}
    assert score.right == 0 and score.stored_active == 1


def test_two_active_memories_with_one_stored_subject_contradict(session: Session) -> None:
    one = _mem(1, "project_decision", (2, "user", "we use unittest"), subject="test framework", content="unittest")
    two = _mem(2, "user_preference", (1, "user", "pytest"), subject="test framework", content="pytest")
    score = score_session(session, "a", [one, two])
    assert score.store_subject_conflicts == 1 and score.contradictions >= 1
    other = _mem(2, "user_preference", (1, "user", "pytest"), subject="answer language", content="pytest")
    assert score_session(session, "a", [one, other]).store_subject_conflicts == 0
