"""The clause boundaries of statement sentences (`quality/clause_data.py`), the data of
`scripts/train_clauses.py`: where a sentence is cut and how a boundary is labelled from the gold."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.reader import default_reader_model
from autopatch_j.memory.subjects import default_subject_model
from autopatch_j.quality.clause_data import clause_cuts, session_boundaries
from autopatch_j.quality.realistic import Session
from autopatch_j.quality.realistic_eval import run_session
from tests.support.scripts import ROOT, load_script


def _parts(sentence: str) -> list[tuple[str, str]]:
    return [(sentence[c.start : c.end], c.mark) for c in clause_cuts(sentence)]


def _one_turn_session(sid: str, user: str, memories: tuple[tuple[str, str, str], ...]) -> Session:
    """A session of one turn whose gold memories (key, kind, quote) each quote the user's turn."""
    return Session.model_validate(
        {
            "id": sid,
            "language": "zh",
            "turns": [{"user": user, "assistant": "好的"}],
            "memories": [
                {
                    "key": k,
                    "kind": kind,
                    "subject": k,
                    "title": k,
                    "content": k,
                    "state": "active",
                    "sources": [{"turn": 0, "role": "user", "quote": quote}],
                }
                for k, kind, quote in memories
            ],
        }
    )


def test_a_sentence_is_cut_at_its_top_level_commas() -> None:
    assert _parts("回复一律用中文，提交信息写英文。") == [("回复一律用中文", "，"), ("提交信息写英文。", "")]
    assert _parts("we pin node 20, and the lockfile is committed.") == [
        ("we pin node 20", ","),
        ("and the lockfile is committed.", ""),
    ]


def test_no_cut_inside_quotes_code_brackets_or_numbers() -> None:
    for sentence in (
        'Always log "user, action" pairs.',
        "Import it as `from x import a, b` everywhere.",
        "依赖（pg，redis）统一走 compose。",
        "Cap the batch at 1,000 rows.",
        "只在 [lint, format] 里跑 ruff。",
    ):
        assert len(clause_cuts(sentence)) == 1, sentence


def test_boundaries_are_labelled_by_the_gold_memories_each_clause_quotes() -> None:
    session = _one_turn_session(
        "s-1",
        "回复一律用中文，提交信息写英文。发布放在周二，周五不发。",
        (
            ("reply", "user_preference", "回复一律用中文"),
            ("commits", "project_decision", "提交信息写英文。"),
            ("release", "project_decision", "发布放在周二，周五不发。"),
        ),
    )
    found = session_boundaries(session, "x", default_subject_model(), default_reader_model(), default_lexicon())
    assert [(b.left, b.right, b.two) for b in found] == [
        ("回复一律用中文", "提交信息写英文。", True),
        ("发布放在周二", "周五不发。", False),
    ]


def test_the_experiment_stores_each_split_part_as_a_memory_quoting_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`scripts/clause_split_eval.py`'s extractor, with a model that reads every boundary as two
    memories: a sentence of two rules becomes two memories, each quoting its own clause, and a
    later change of one leaves the other active."""
    pytest.importorskip("sklearn")
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))  # the script imports its sibling scripts
    script = load_script("scripts/clause_split_eval.py")
    session = Session.model_validate(
        {
            "id": "s-2",
            "language": "zh",
            "turns": [
                {"user": "以后回复一律用中文，提交信息写英文。", "assistant": "好的，记住了。"},
                {"user": "提交信息还是改成中文吧。", "assistant": "好的。"},
            ],
        }
    )
    stored, _ = run_session(session, tmp_path / "run", script.SplittingExtractor(10.0, {}, 0.5))
    quotes = {(m.status, q) for m in stored for _, role, q in m.sources if role == "user"}
    assert ("active", "以后回复一律用中文") in quotes
    assert any(q == "提交信息写英文。" for _, q in quotes)


def test_with_pauses_a_chinese_sentence_is_also_cut_at_white_space_next_to_chinese() -> None:
    sentence = "以后接口超时统一 3 秒 然后日志里不打手机号"
    cuts = clause_cuts(sentence, pauses=True)
    assert [(sentence[c.start : c.end], c.mark) for c in cuts] == [
        ("以后接口超时统一", "pause:hw"),
        ("3", "pause:wh"),
        ("秒", "pause:hh"),
        ("然后日志里不打手机号", ""),
    ]
    assert len(clause_cuts("from now on every pr needs a ticket", pauses=True)) == 1  # no Chinese: no pause
    assert len(clause_cuts(sentence)) == 1  # without pauses only commas cut


def test_a_pause_boundary_belongs_to_the_nearest_gold_memory_on_each_side() -> None:
    """The words between two quotes ("然后") belong to neither: both boundaries around them part two
    memories; a boundary inside one quote is one memory."""
    session = _one_turn_session(
        "s-3",
        "以后回答都用中文 然后 提交信息一律写英文",
        (("answers", "user_preference", "以后回答都用中文"), ("commits", "user_preference", "提交信息一律写英文")),
    )
    found = session_boundaries(
        session, "x", default_subject_model(), default_reader_model(), default_lexicon(), pauses=True
    )
    assert [(b.left, b.right, b.two) for b in found] == [
        ("以后回答都用中文", "然后", True),
        ("然后", "提交信息一律写英文", True),
    ]
    assert all("unit_b_stated" in b.features for b in found)


def test_the_experiment_with_pauses_cuts_a_dictated_sentence_at_its_pauses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `pauses`, a model reading every boundary as two memories parts a dictated sentence with no
    punctuation at its pauses between Chinese characters, each part quoting its own words."""
    pytest.importorskip("sklearn")
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    script = load_script("scripts/clause_split_eval.py")
    splitter = script.SplittingExtractor(10.0, {}, 0.5, pauses=True)
    assert splitter.parts("以后回答都用中文 提交信息一律写英文", "user_preference") == [
        "以后回答都用中文",
        "提交信息一律写英文",
    ]
    without = script.SplittingExtractor(10.0, {}, 0.5)
    assert without.parts("以后回答都用中文 提交信息一律写英文", "user_preference") == [
        "以后回答都用中文 提交信息一律写英文"
    ]
