"""The learned speech model (issue 11): its features and what it was trained on. That
`scripts/train_speech_model.py` reproduces the shipped weights is `scripts/check_refits.py`'s check."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from autopatch_j.memory.lexicon import default_lexicon, load_lexicon_file
from autopatch_j.memory.sentences import split_sentences
from autopatch_j.memory.speech_model import LinearModel, default_speech_model, features
from autopatch_j.memory.structure import parse
from autopatch_j.quality.corpus import PART_FILES
from autopatch_j.quality.parts import load_part
from autopatch_j.quality.realistic import find_checkout_part
from autopatch_j.quality.speech_data import (
    FIXES,
    NEGATIVES,
    case_examples,
    file_digests,
    load_realistic_part,
    realistic_digest,
    realistic_examples,
    session_examples,
)
from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
REALISTIC = find_checkout_part(ROOT)


def _trainer() -> ModuleType:
    return load_script("scripts/train_speech_model.py")


def test_features_are_stems_cjk_grams_punctuation_and_neighbours() -> None:
    got = features("Services log to stdout; 以后统一")
    assert {"w:servic", "w:log", "w:stdout", "p:;", "c:以", "c:以后", "c:以后统", "b:^ servic", "b:<zh> $"} <= set(got)
    assert features("Deploys at 3pm") == features("deploys at 7pm")  # digits fold, case folds
    assert features("") == {"b:^ $": 1.0}


def test_a_linear_model_is_a_logistic_of_the_weighted_features() -> None:
    model = LinearModel(bias=-1.0, weights={"w:log": 2.0})
    assert model.probability({"w:log": 1.0}) == pytest.approx(1 / (1 + 2.718281828459045**-1.0))
    assert model.probability({"w:other": 5.0}) < 0.5


def test_the_shipped_model_was_trained_on_the_dev_part_exactly() -> None:
    """Retiring a held-out part into dev changes the dev files: the model must be retrained, and the
    held-out test part is never among what it was trained on."""
    model = default_speech_model()
    assert REALISTIC is not None
    assert model.trained_on == {
        **file_digests((*PART_FILES["dev"], FIXES, NEGATIVES)),
        **realistic_digest(REALISTIC),
    }
    assert not set(model.trained_on) & set(PART_FILES["test"])
    assert 0.5 <= model.threshold < 1.0


def test_examples_label_sentences_by_the_gold_quotes() -> None:
    dev = load_part("dev")
    case = next(c for c in dev.cases if c.id == "zh-confirm-01")
    labels = {e.text: e.label for e in case_examples(case)}
    assert labels["同意"] == "none"  # a confirmation states nothing on its own words
    pref = next(c for c in dev.cases if c.category == "explicit_preference" and c.language == "en")
    assert "user_preference" in {e.label for e in case_examples(pref)}
    temporary = next(c for c in dev.cases if c.category == "temporary_expression")
    assert {e.label for e in case_examples(temporary)} == {"none"}


def test_realistic_sessions_are_learned_from_their_prose_only() -> None:
    assert REALISTIC is not None
    part = load_realistic_part(REALISTIC)
    groups = realistic_examples(part)
    assert set(groups) == {f"realistic/{a}" for a in part.author_names}
    # a turn's pasted lines are never among what is learned from that turn (another turn or session may
    # say the same words in prose: "main 上那个 升级 vue-router 4.4 的提交…" names a commit of a pasted log)
    pasted = [
        (nm.quote, {e.text for e in session_examples(s)} & set(split_sentences(parse(s.turns[nm.turn].user).prose())))
        for s in part.sessions
        for nm in s.not_memories
        if nm.why == "pasted" and nm.role == "user" and parse(s.turns[nm.turn].user).covers(nm.quote)
    ]
    assert len(pasted) > 20 and not any(q in text for q, texts in pasted for text in texts)
    assert {"user_preference", "project_decision", "none"} == {e.label for exs in groups.values() for e in exs}


def test_only_the_default_lexicon_reads_with_the_model() -> None:
    text = "All request logs are written as JSON lines to stdout; nothing goes to local files."
    assert default_lexicon().reads_as_statement(text)
    bare = load_lexicon_file(ROOT / "src" / "autopatch_j" / "memory" / "lexicon.json")
    assert not bare.reads_as_statement(text) and not bare.is_explicit(text)
