"""The revision model: whether a new statement revises the memory it is likeliest about. The package
reads the shipped weights (what `scripts/train_revisions.py` writes, checked by
`scripts/check_refits.py`)."""

from __future__ import annotations

import json

import pytest

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.revisions import RevisionModel, default_revision_model, revision_features
from autopatch_j.memory.subjects import Statement
from tests.support.scripts import ROOT


def test_the_package_reads_the_shipped_model() -> None:
    shipped = json.loads((ROOT / "src" / "autopatch_j" / "memory" / "revision_model.json").read_text(encoding="utf-8"))
    assert default_revision_model().threshold == shipped["threshold"]


def test_a_model_of_another_format_is_refused() -> None:
    with pytest.raises(MemoryEngineError, match="format"):
        RevisionModel.from_data({"format": 0, "bias": 0, "weights": {}, "threshold": 0.5, "trained_on": {}})


def test_the_features_read_the_pair_and_the_new_statement_s_words() -> None:
    new = Statement("nah, back to trailing commas", "project_decision", switch=True)
    old = Statement("use leading commas in sql", "user_preference")
    feats = revision_features(new, old, 0.5)
    assert feats["same"] == 0.5 and feats["same_logit"] == 0.0
    assert feats["switch"] == 1.0 and feats["same_kind"] == 0.0
    assert feats["kinds=project_decision/user_preference"] == 1.0
    assert any(k.startswith("t:w:") and "trail" in k for k in feats)
    assert "v:value_changed" in feats


def test_a_likelier_pair_is_likelier_a_revision() -> None:
    """The subject model's probability weighs for "revises", whatever the words."""
    model = default_revision_model()
    new = Statement("make the cache ttl ten minutes", "project_decision")
    old = Statement("cache entries live for an hour", "project_decision")
    assert model.probability(new, old, 0.2) < model.probability(new, old, 0.9)
