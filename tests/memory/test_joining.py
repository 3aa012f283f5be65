"""The joining model (`memory/joining.py`): the package reads the shipped weights (what
`scripts/train_joining.py` writes, checked by `scripts/check_refits.py`), and a model of another format
is refused."""

from __future__ import annotations

import json

import pytest

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.joining import JoiningModel, default_joining_model, join_features
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.subjects import default_subject_model
from tests.support.scripts import ROOT


def test_the_package_reads_the_shipped_model() -> None:
    shipped = json.loads((ROOT / "src" / "autopatch_j" / "memory" / "joining_model.json").read_text(encoding="utf-8"))
    assert default_joining_model().threshold == shipped["threshold"]


def test_a_model_of_another_format_is_refused() -> None:
    with pytest.raises(MemoryEngineError, match="format"):
        JoiningModel.from_data({"format": 0, "bias": 0, "weights": {}, "threshold": 0.5})


def test_the_features_read_the_layout_of_the_pair() -> None:
    """How the two sentences sit in the turn: on one line or not, and how the first one ends."""
    subjects, lexicon = default_subject_model(), default_lexicon()
    one_line = join_features(
        "use ruff. no flake8.", "use ruff.", "no flake8.", ("project_decision",) * 2, subjects, lexicon
    )
    two_lines = join_features(
        "use ruff.\n\nno flake8.", "use ruff.", "no flake8.", ("project_decision",) * 2, subjects, lexicon
    )
    assert one_line["breaks"] == 0.0 and one_line["end=."] == 1.0 and one_line["later_first=no"] == 1.0
    assert two_lines["breaks"] == 2.0 and two_lines["breaks=2"] == 1.0
