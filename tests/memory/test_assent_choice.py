"""The assent model (`memory/assent_choice.py`): the package reads the shipped weights (what
`scripts/train_assent.py` writes, checked by `scripts/check_refits.py`), a model of another format is
refused, and the features read what a reply points to."""

from __future__ import annotations

import json

import pytest

from autopatch_j.memory.assent_choice import (
    AssentModel,
    candidates,
    choice_features,
    default_assent_model,
)
from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.ordinals import reply_pointers
from tests.support.scripts import ROOT


def test_the_package_reads_the_shipped_model() -> None:
    shipped = json.loads((ROOT / "src" / "autopatch_j" / "memory" / "assent_model.json").read_text(encoding="utf-8"))
    assert default_assent_model().floor == shipped["floor"]


def test_a_model_of_another_format_is_refused() -> None:
    with pytest.raises(MemoryEngineError, match="format"):
        AssentModel.from_data({"format": 0, "bias": 0, "weights": {}, "floor": 0.3, "also": 0.9})


def test_the_likeliest_is_chosen_and_a_bare_assent_may_choose_none() -> None:
    model = AssentModel(bias=0.0, weights={}, floor=0.3, also=0.9)
    assert model.choose([0.2, 0.92, 0.95], bare=True) == [1, 2]
    assert model.choose([0.2, 0.6, 0.95], bare=True) == [2]
    assert model.choose([0.2, 0.25], bare=True) == []
    assert model.choose([0.2, 0.25], bare=False) == [1]


@pytest.mark.parametrize(
    ("reply", "pointed"),
    [
        ("the second one, yes", {2}),
        ("option B works", {2}),
        ("3 不要，1 和 2 可以", {1, 2, 3}),
        ("第二个可以", {2}),
        ("两条都同意", set()),
        ("ok, ship `v2` then", set()),
    ],
)
def test_a_reply_points_at_options_by_number_letter_or_ordinal(reply: str, pointed: set[int]) -> None:
    assert reply_pointers(reply) == pointed


def test_a_listed_option_the_reply_points_at_is_read_as_pointed_at() -> None:
    answer = "Two ways:\n\n1. Keep the cron entry.\n2. Move it into a CronJob.\n\nI could set up either one."
    lexicon = default_lexicon()
    texts = [c.text for c in candidates(answer, lexicon)]
    features = choice_features(answer, "the second one", True, lexicon)
    assert texts == ["Two ways:", "Keep the cron entry.", "Move it into a CronJob.", "I could set up either one."]
    assert [f.get("pointer_match", 0.0) for f in features] == [0.0, 0.0, 1.0, 0.0]
    assert features[1]["pointer_other"] == 1.0 and features[0]["colon"] == 1.0
