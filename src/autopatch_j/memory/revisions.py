"""Whether a new preference or decision revises the earlier memory it is likeliest about, learned from data.

The subject model (`subjects.py`) ranks the active memories a new statement may be about; which one
it is likeliest about is right far more often than whether it is about it at all: a revision often
shares no word with what it revises ("换 delete+insert。" after "策略用 merge", "back to trailing"
after "switch us to leading commas"), while a new rule on a neighbouring subject shares many. The
revision model decides that second question for the likeliest memory: a logistic regression over the
subject model's probability for the pair, the two kinds, the values each side sets (`values.py`;
also by type: a time replacing a time, a bare number kept), the lexicon's switch, correction and
retirement classes, and the new statement's own words (`speech_model.features`: stems, CJK 1–3-grams,
punctuation, neighbouring tokens) — "back to", "还是", "nah", "…then" are learned from the realistic
sessions' gold, not listed. At or above its threshold the pair is a revision whatever the subject
model says; when the subject model alone reads one subject, the pair is a revision unless the model
reads it below its floor (`RevisionModel.revises`).

The weights, the threshold and the floor are `revision_model.json`, trained by
`scripts/train_revisions.py` on every realistic training part (`quality.realistic.training_parts`)
with the subject model's scores as a new author gets them; the package only reads them.
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
from autopatch_j.memory.values import values

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
    feats.update(typed_value_features(new.text, old.text))
    feats.update({f"t:{k}": 1.0 for k in features(new.text)})
    return feats


def typed_value_features(new: str, old: str) -> dict[str, float]:
    """The values of the pair by type (`values.py`): for each type both sides hold, whether the new side
    sets another value of it (`vt:changed=clock`: a time replacing a time) or repeats one
    (`vt:kept=number`); for each type only the new side holds, `vt:new=<type>`. A duration replacing a
    duration and a bare number that names a scope ("module 12" after "module 5") weigh apart."""
    new_values, old_values = values(new), values(old)
    new_types = {kind for kind, _ in new_values}
    old_types = {kind for kind, _ in old_values}
    feats: dict[str, float] = {}
    for kind in sorted(new_types & old_types):
        mine = {v for k, v in new_values if k == kind}
        theirs = {v for k, v in old_values if k == kind}
        feats[f"vt:{'changed' if mine - theirs else 'kept'}={kind}"] = 1.0
    feats.update({f"vt:new={kind}": 1.0 for kind in sorted(new_types - old_types)})
    return feats


@dataclass(frozen=True, slots=True, eq=False)
class RevisionModel:
    """`threshold`: at or above it the new statement revises the memory whatever the subject model says;
    `floor`: below it the new statement does not revise it even when the subject model reads one subject
    (a rule on a neighbouring scope shares the rule's words, not its place)."""

    model: LinearModel
    threshold: float
    floor: float
    trained_on: dict[str, str]

    def probability(self, new: Statement, old: Statement, same: float) -> float:
        return self.model.probability(revision_features(new, old, same))

    def revises(self, new: Statement, old: Statement, same: float, *, same_subject: bool) -> bool:
        """Whether `new` revises `old`: the revision model at or above its threshold, or the subject
        model reading one subject (`same_subject`, its probability `same` above its own threshold) and
        the revision model not below its floor."""
        if same_subject and self.floor <= 0.0:
            return True
        probability = self.probability(new, old, same)
        return probability >= self.threshold or (same_subject and probability >= self.floor)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> RevisionModel:
        if data.get("format") != FORMAT:
            raise MemoryEngineError(f"The revision model's format {data.get('format')!r} is not {FORMAT}; retrain it.")
        return cls(
            model=LinearModel(bias=float(data["bias"]), weights={str(k): float(v) for k, v in data["weights"].items()}),
            threshold=float(data["threshold"]),
            floor=float(data["floor"]),
            trained_on={str(k): str(v) for k, v in data["trained_on"].items()},
        )


@lru_cache(maxsize=1)
def default_revision_model() -> RevisionModel:
    """The model shipped with the package (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return RevisionModel.from_data(json.loads(text))
