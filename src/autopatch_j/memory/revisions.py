"""Whether a new preference or decision revises the earlier memory it is likeliest about, learned from data.

The subject model (`subjects.py`) ranks the active memories a new statement may be about; which one
it is likeliest about is right far more often than whether it is about it at all: a revision often
shares no word with what it revises ("换 delete+insert。" after "策略用 merge", "back to trailing"
after "switch us to leading commas"), while a new rule on a neighbouring subject shares many. The
revision model decides that second question for the likeliest memory: a logistic regression over the
subject model's probability for the pair, the two kinds, the values each side sets (`values.py`),
the lexicon's switch, correction and retirement classes, and the new statement's own words
(`speech_model.features`: stems, CJK 1–3-grams, punctuation, neighbouring tokens) — "back to",
"还是", "nah", "…then" are learned from the realistic sessions' gold, not listed.

The weights are `revision_model.json`, trained by `scripts/train_revisions.py` on every realistic
training part (`quality.realistic.training_parts`) with the subject model's scores as a new author
gets them; the package only reads them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.speech_model import LinearModel, features
from autopatch_j.memory.subjects import Statement, value_features

MODEL_FILE = "revision_model.json"
FORMAT = 1


def revision_features(new: Statement, old: Statement, same: float) -> dict[str, float]:
    """The features of "`new` revises `old`", `same` the subject model's probability for the pair."""
    p = min(max(same, 1e-4), 1 - 1e-4)
    feats = {
        "same": p,
        "same_logit": math.log(p / (1 - p)),
        "same_kind": float(new.kind == old.kind),
        f"kinds={new.kind}/{old.kind}": 1.0,
        "switch": float(new.switch),
        "correction": float(new.correction),
        "retirement": float(new.retirement),
    }
    feats.update({f"v:{k}": v for k, v in value_features(new.text, old.text).items()})
    feats.update({f"t:{k}": 1.0 for k in features(new.text)})
    return feats


@dataclass(frozen=True, slots=True, eq=False)
class RevisionModel:
    model: LinearModel
    threshold: float
    trained_on: dict[str, str]

    def probability(self, new: Statement, old: Statement, same: float) -> float:
        return self.model.probability(revision_features(new, old, same))

    def revises(self, new: Statement, old: Statement, same: float) -> bool:
        return self.probability(new, old, same) >= self.threshold

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> RevisionModel:
        if data.get("format") != FORMAT:
            raise MemoryEngineError(f"The revision model's format {data.get('format')!r} is not {FORMAT}; retrain it.")
        return cls(
            model=LinearModel(bias=float(data["bias"]), weights={str(k): float(v) for k, v in data["weights"].items()}),
            threshold=float(data["threshold"]),
            trained_on={str(k): str(v) for k, v in data["trained_on"].items()},
        )


@lru_cache(maxsize=1)
def default_revision_model() -> RevisionModel:
    """The model shipped with the package (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return RevisionModel.from_data(json.loads(text))
